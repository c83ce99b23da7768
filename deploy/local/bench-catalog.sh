#!/usr/bin/env bash
# `make bench-catalog`: the suite from a release build (Redis with its append-only file, the five
# services on SQLite) driven by `orderly-bench loadgen --workload catalog`: order creation (the
# reference, in the same run), reservations of one hot product, reservations spread over 1,000
# products, every client selling a scarce product until it is out, then the stock invariants.
# Each phase prints the machine's steal. The last line sums it up:
#   reserve_hot_rps=<n> reserve_spread_rps=<n> ratio_hot=<hot / orders created per second> oversold=<n>
# Extra arguments go to `orderly-bench loadgen` (see `orderly-bench loadgen --help`). The suite listens on
# its usual wire and admin ports (7201–7204, 9200–9204), so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."

swift build -c release --product orderly-bench
orderly="$(swift build -c release --show-bin-path)/orderly-bench"
work=$(mktemp -d /tmp/orderly-bench-catalog.XXXXXX)
trap 'rm -rf "$work"' EXIT

status=0
ORDERLY_BUILD=release ORDERLY_DATA_DIR="$work/suite" ORDERLY_LOG_LEVEL=warning \
    ORDERLY_HTTP_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" \
    deploy/local/run.sh bash -c '"$0" loadgen --workload catalog --url "http://127.0.0.1:$ORDERLY_HTTP_PORT" "$@"' \
    "$orderly" "$@" | tee "$work/loadgen.txt" || status=$?
echo
summary=$(grep '^reserve_hot_rps=' "$work/loadgen.txt" | tail -1 || true)
echo "${summary:-reserve_hot_rps=0 reserve_spread_rps=0 ratio_hot=0 oversold=unknown}"
exit "$status"
