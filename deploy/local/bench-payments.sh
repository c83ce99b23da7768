#!/usr/bin/env bash
# `make bench-payments`: the suite from a release build (Redis with its append-only file, the five
# services on SQLite) driven by `orderly-bench loadgen --workload pos`: order creation (the reference,
# in the same run), then the till (cash and card payments through signed provider reports, some
# failing, some left to expire, some cancelled, some refunded with a unit restocked), then 90-day
# statistics reads, then the invariants. Each phase prints the machine's steal. The last line
# sums it up:
#   payments_rps=<n> ratio=<payments completed / orders created per second> stats_ms=<p99> invariant_failures=<n>
# Extra arguments go to `orderly-bench loadgen` (see `orderly-bench loadgen --help`). The suite listens on
# its usual wire and admin ports (7201–7204, 9200–9204), so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."

swift build -c release --product orderly-bench
orderly="$(swift build -c release --show-bin-path)/orderly-bench"
work=$(mktemp -d /tmp/orderly-bench-payments.XXXXXX)
trap 'rm -rf "$work"' EXIT

status=0
ORDERLY_BUILD=release ORDERLY_DATA_DIR="$work/suite" ORDERLY_LOG_LEVEL=warning \
    ORDERLY_HTTP_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" \
    deploy/local/run.sh bash -c '"$0" loadgen --workload pos --url "http://127.0.0.1:$ORDERLY_HTTP_PORT" "$@"' \
    "$orderly" "$@" | tee "$work/loadgen.txt" || status=$?
echo
summary=$(grep '^payments_rps=' "$work/loadgen.txt" | tail -1 || true)
echo "${summary:-payments_rps=0 ratio=0 stats_ms=0 invariant_failures=unknown}"
exit "$status"
