#!/usr/bin/env bash
# `make chaos`: the suite (release build, SQLite; Redis with its append-only file) under
# `orderly-bench loadgen` while each service and Redis are killed with SIGKILL and started again and
# the orders service is stopped past its callers' deadlines (deploy/local/chaos-agent.sh); then
# loadgen checks that every acknowledged order exists exactly once and reached its store's inbox
# exactly once; and the same again under the marketplace's mix (customers checking out and
# paying, couriers collecting cash, payouts), checking that every acknowledged payment and payout
# is in the ledger once and every balance equals its entries, and that no stock is left held once
# the holds of interrupted checkouts expired (ORDERLY_ORDER_LINE_HOLD_SECONDS=30 here; what
# stores earn is available to pay out at once, ORDERLY_LEDGER_HOLD_HOURS=0). On SQLite, then on a throwaway
# PostgreSQL (durable settings, a database per service). Last, on PostgreSQL, two gateways behind
# HAProxy honouring their readiness while Redis is down under load (deploy/local/chaos-proxy.sh):
# neither may leave the rotation and no request may fail. Prints one line per run and exits 1 if
# anything was lost or doubled, or the proxy step saw a 5xx:
#   <database> orders: acked=<n> lost=<n> duplicated=<n> notifications_missing=<n> errors_5xx=<n>
#   <database> marketplace: checkouts_per_s=<n> … invariant_failures=<n>
#   postgres proxy: acked=<n> … errors_5xx=<n> proxy_5xx=<n> taken_out=<n>
# CHAOS_DATABASES ("sqlite postgres"), CHAOS_WORKLOADS ("orders marketplace proxy"), CHAOS_RUNS (1)
# runs of each, CHAOS_SECONDS (20) seconds per loadgen phase. The suite listens on its
# usual wire and admin ports (7201–7204, 9200–9204), so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/local/throwaway-postgres.sh

swift build -c release --product orderly-bench
orderly="$(swift build -c release --show-bin-path)/orderly-bench"
work=$(mktemp -d /tmp/orderly-chaos.XXXXXX)
trap 'stop_throwaway_postgres; rm -rf "$work"' EXIT

summaries=()
status=0
for kind in ${CHAOS_DATABASES:-sqlite postgres}; do
    for workload in ${CHAOS_WORKLOADS:-orders marketplace proxy}; do
        # Gateway replicas share a database server: the proxy step runs on PostgreSQL alone.
        [ "$workload" = proxy ] && [ "$kind" != postgres ] && continue
        for run in $(seq "${CHAOS_RUNS:-1}"); do
            echo "== chaos on $kind, $workload, run $run"
            server=""
            if [ "$kind" = postgres ]; then
                start_throwaway_postgres durable
                server=$ORDERLY_TEST_POSTGRES_URL
            fi
            out="$work/$kind-$workload-$run.txt"
            agent=(deploy/local/chaos-agent.sh "$orderly" "${CHAOS_SECONDS:-20}" "$workload")
            [ "$workload" = proxy ] && agent=(deploy/local/chaos-proxy.sh "$orderly" "${CHAOS_SECONDS:-20}" 15)
            ORDERLY_BUILD=release ORDERLY_ORDER_LINE_HOLD_SECONDS=30 ORDERLY_LEDGER_HOLD_HOURS=0 ORDERLY_DATA_DIR="$work/$kind-$workload-$run" ORDERLY_LOG_LEVEL=warning \
                ORDERLY_POSTGRES_SERVER_URL="$server" ORDERLY_HTTP_PORT="$(free_port)" \
                deploy/local/run.sh "${agent[@]}" 2>&1 |
                grep -v '^\[\|Killed  ' | tee "$out" || status=1
            [ "$kind" = postgres ] && stop_throwaway_postgres
            summary=$(grep '^acked=\|^checkouts_per_s=' "$out" | tail -1 || true)
            summaries+=("$kind $workload: ${summary:-? (the run did not finish)}")
        done
    done
done
echo
for summary in "${summaries[@]}"; do
    echo "$summary"
    case "$summary" in
    *" orders: "*) [[ "$summary" == *" lost=0 duplicated=0 notifications_missing=0 "* ]] || status=1 ;;
    *" proxy: "*) [[ "$summary" == *" lost=0 duplicated=0 notifications_missing=0 errors_5xx=0 proxy_5xx=0 taken_out=0" ]] || status=1 ;;
    *) [[ "$summary" == *" invariant_failures=0" ]] || status=1 ;;
    esac
done
exit "$status"
