#!/usr/bin/env bash
# `make bench-orders`: the suite from a release build (Redis with its append-only file, the five
# services on SQLite) driven by `orderly-bench loadgen` — the ceiling (GET /v1/me), order creation
# alone, then the mix, then the invariants — twice: with SQLite's durable default
# (synchronous=full) and with synchronous=normal; then order lists timed at a million orders.
# Under each creation phase it prints each process's CPU per created order and the machine's
# steal. The last two lines sum it up, normal first, then the default:
#   synchronous=<s> create_rps=<n> ceiling_rps=<n> ratio=<n> create_p99_ms=<n> create_cpu_ms=<n> invariant_failures=<n>
# Extra arguments go to `orderly-bench loadgen` (see `orderly-bench loadgen --help`). The suite listens on
# its usual wire and admin ports (7201–7204, 9200–9204), so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."

swift build -c release --product orderly-bench
swift build -c release --product orderly-orders
orderly="$(swift build -c release --show-bin-path)/orderly-bench"
work=$(mktemp -d /tmp/orderly-bench-orders.XXXXXX)
trap 'rm -rf "$work"' EXIT

status=0
for synchronous in full normal; do
    echo "== the suite under load, SQLite synchronous=$synchronous (release build, logs at warning level)"
    ORDERLY_BUILD=release ORDERLY_DATA_DIR="$work/suite-$synchronous" ORDERLY_LOG_LEVEL=warning \
        ORDERLY_SQLITE_SYNCHRONOUS="$synchronous" \
        ORDERLY_HTTP_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" \
        deploy/local/run.sh bash -c '"$0" loadgen --url "http://127.0.0.1:$ORDERLY_HTTP_PORT" "$@"' "$orderly" "$@" \
        | tee "$work/loadgen-$synchronous.txt" || status=$?
    echo
done

echo "== order lists at a million orders (SQLite)"
"$(swift build -c release --show-bin-path)/orderly-orders" bench-order-lists --directory "$work/lists"

echo
for synchronous in normal full; do
    summary=$(grep '^create_rps=' "$work/loadgen-$synchronous.txt" | tail -1 || true)
    echo "synchronous=$synchronous ${summary:-create_rps=0 ceiling_rps=0 ratio=0 create_p99_ms=0 create_cpu_ms=0 invariant_failures=unknown}"
done
exit "$status"
