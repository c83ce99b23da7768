#!/usr/bin/env bash
# `make bench-marketplace`: the suite from a release build (Redis with its append-only file, the five
# services on SQLite) driven by `orderly-bench loadgen --workload marketplace`: customers sign up,
# browse the open stores and menus and check out (card through signed provider reports, or cash on
# delivery, with options and tips), measured; then the stores accept (half of them by themselves),
# prepare and mark ready, and couriers claim, pick up and deliver, collecting cash; then the
# invariants (every order delivered and paid exactly its total, statistics revenue equal to the
# completed payments, no stock oversold or left held, each customer told each status change once, and
# the ledger: every entry balanced and adding up to the balances, each store and courier holding what
# the rules say, a payout of half of each store's balance taking exactly that, what stores earn
# available at once: ORDERLY_LEDGER_HOLD_HOURS=0).
# The checkout phase prints the machine's steal. The last line sums it up:
#   checkouts_per_s=<n> p99_ms=<checkout p99> cpu_ms_per_checkout=<suite CPU> invariant_failures=<n>
# Extra arguments go to `orderly-bench loadgen` (see `orderly-bench loadgen --help`). The suite listens on
# its usual wire and admin ports (7201–7204, 9200–9204), so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."

swift build -c release --product orderly-bench
orderly="$(swift build -c release --show-bin-path)/orderly-bench"
work=$(mktemp -d /tmp/orderly-bench-marketplace.XXXXXX)
trap 'rm -rf "$work"' EXIT

status=0
ORDERLY_BUILD=release ORDERLY_DATA_DIR="$work/suite" ORDERLY_LOG_LEVEL=warning ORDERLY_LEDGER_HOLD_HOURS=0 \
    ORDERLY_HTTP_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" \
    deploy/local/run.sh bash -c '"$0" loadgen --workload marketplace --clients 32 --seconds 10 --couriers 16 --inbox-wait 300 --url "http://127.0.0.1:$ORDERLY_HTTP_PORT" "$@"' \
    "$orderly" "$@" | tee "$work/loadgen.txt" || status=$?
echo
summary=$(grep '^checkouts_per_s=' "$work/loadgen.txt" | tail -1 || true)
echo "${summary:-checkouts_per_s=0 p99_ms=0 cpu_ms_per_checkout=0 invariant_failures=unknown}"
exit "$status"
