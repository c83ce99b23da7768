#!/usr/bin/env bash
# `make bench-search`: the search of stores over 10,000 stores (each with a delivery area, a
# cuisine and eight dishes named in Hebrew, Arabic and English), on SQLite and on a throwaway
# PostgreSQL cluster, from a release build of the catalog: near a place and by the beginning of
# a dish's name, each alone and together, and one store by id as the reference, with the steal.
# The last line: near_q_p99_ms=<the slower engine's> <each engine's figures> stores=<n>.
# Extra arguments go to `orderly-catalog bench-store-search` (see its --help).
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/local/throwaway-postgres.sh

swift build -c release --product orderly-catalog
catalog="$(swift build -c release --show-bin-path)/orderly-catalog"

start_throwaway_postgres durable
trap stop_throwaway_postgres EXIT
"$catalog" bench-store-search --postgres-url "$ORDERLY_TEST_POSTGRES_URL" "$@"
