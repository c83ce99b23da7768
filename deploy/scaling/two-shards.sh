#!/usr/bin/env bash
# `make scaling-shards`: the experiment of docs/SCALING.md that proves the shard key, all on this
# machine. The suite (release) runs on
#   - a Redis Cluster of three masters (Debian's redis-server in cluster mode, each with its
#     append-only file), carrying every service's events over SHARDS_STREAMS (4) streams per
#     service, a store's always on the same one (hash tags), and the wake-ups over as many sharded
#     channels (SPUBLISH, SSUBSCRIBE);
#   - two PostgreSQL servers (durable settings): every service's database on the first, and the
#     orders service's `orders` and `order_history` partitioned by hash(store_id) across both
#     with postgres_fdw (deploy/scaling/shard-orders.sh), a store's orders on one server.
# Then, in that one suite, each with its invariants: the marketplace's `orderly-bench loadgen`
# (SHARDS_SECONDS, 10 s a phase: customers checking out and paying, couriers delivering); the
# orders workload's (stores creating orders, couriers claiming from the pool across both
# servers); the chaos of `make chaos` (deploy/local/chaos-agent.sh, SHARDS_CHAOS_SECONDS, 20 s a
# phase: each service and one of the cluster's masters killed and started again, the orders
# service stopped past its callers' deadlines); and a count of where the stores' orders are.
# Prints the lines to look at, keeps the load generators' output and the processes' logs in
# .build/scaling-shards/, and exits 1 if an invariant failed, anything acknowledged was lost or
# doubled, or a store's orders are on both servers:
#   shards marketplace: checkouts_per_s=<n> … invariant_failures=<n>
#   shards loadgen: create_rps=<n> … invariant_failures=<n>
#   shards chaos: acked=<n> lost=<n> duplicated=<n> notifications_missing=<n> errors_5xx=<n>
#   shards: primary orders=<n> stores=<n>; second orders=<n> stores=<n>; stores_on_both=<n>
# The suite listens on its usual wire and admin ports (7201–7204, 9200–9204): stop a `make run`
# first.
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/local/throwaway-postgres.sh
source deploy/scaling/shard-orders.sh

shards=${SHARDS_STREAMS:-4}
seconds=${SHARDS_SECONDS:-10}
chaos_seconds=${SHARDS_CHAOS_SECONDS:-20}
for product in orderly-bench orderly-orders; do
    swift build -c release --product "$product" >"/tmp/orderly-shards-build.log" 2>&1 ||
        { grep -E 'error:' /tmp/orderly-shards-build.log >&2; exit 1; }
done
bin="$(swift build -c release --show-bin-path)"
work=$(mktemp -d /tmp/orderly-shards.XXXXXX)
mkdir -p "$work/data"
servers=()
redis_pids=()
cleanup() {
    # What the run wrote stays for reading: the load generators' output and each process's log.
    rm -rf .build/scaling-shards
    mkdir -p .build/scaling-shards
    cp "$work"/data/*.out "$work"/data/*.log "$work"/*.txt .build/scaling-shards/ 2>/dev/null || true
    for pid in "${redis_pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    # Masters the chaos started again are found by their ports.
    for port in "${redis_ports[@]:-}"; do
        [ -n "$port" ] && pkill -KILL -f "redis-server 127.0.0.1:$port" 2>/dev/null || true
    done
    for directory in "${servers[@]}"; do
        ORDERLY_PG_DIR=$directory
        stop_throwaway_postgres
    done
    rm -rf "$work"
}
trap cleanup EXIT

# The Redis Cluster: three masters sharing the slots, each node's files in the data directory,
# where the chaos finds them to start a killed master again.
# A free port whose cluster bus port (10,000 above it) is free too, and so at most 55535.
cluster_port() {
    python3 -c '
import socket
while True:
    a, b = socket.socket(), socket.socket()
    a.bind(("127.0.0.1", 0))
    port = a.getsockname()[1]
    try:
        if port <= 55535:
            b.bind(("127.0.0.1", port + 10000))
            print(port)
            break
    except OSError:
        pass
    finally:
        a.close(); b.close()'
}
redis_ports=()
for _ in 1 2 3; do
    port=$(cluster_port)
    mkdir -p "$work/data/redis-$port"
    redis-server --bind 127.0.0.1 --port "$port" --dir "$work/data/redis-$port" --appendonly yes --save "" \
        --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
        >"$work/data/redis-$port.log" 2>&1 &
    redis_pids+=($!)
    disown # killed at the end without a word from bash
    redis_ports+=("$port")
done
for i in "${!redis_ports[@]}"; do
    until redis-cli -p "${redis_ports[$i]}" ping >/dev/null 2>&1; do
        kill -0 "${redis_pids[$i]}" 2>/dev/null || { cat "$work/data/redis-${redis_ports[$i]}.log" >&2; exit 1; }
        sleep 0.1
    done
done
redis-cli --cluster create $(printf '127.0.0.1:%s ' "${redis_ports[@]}") --cluster-yes >"$work/cluster.log" 2>&1 ||
    { cat "$work/cluster.log" >&2; exit 1; }
for port in "${redis_ports[@]}"; do
    until redis-cli -p "$port" cluster info | grep -q 'cluster_state:ok'; do sleep 0.1; done
done
cluster_url="redis-cluster://$(printf '127.0.0.1:%s,' "${redis_ports[@]}")"
cluster_url=${cluster_url%,}
echo "Redis Cluster: ${redis_ports[*]} (three masters), $shards streams per service"

# Two PostgreSQL servers.
start_throwaway_postgres durable
servers+=("$ORDERLY_PG_DIR")
primary=$ORDERLY_TEST_POSTGRES_URL
start_throwaway_postgres durable
servers+=("$ORDERLY_PG_DIR")
second=$ORDERLY_TEST_POSTGRES_URL
ORDERLY_PG_DIR=""
trap cleanup EXIT # start_throwaway_postgres set its own, for one server

# The orders database migrated by the service itself, then split across the servers.
psql "$primary" -qc "CREATE DATABASE orderly_orders"
orders_url="$(sharding_database_url "$primary" orderly_orders)"
admin=$(free_port)
ORDERLY_DATABASE_URL="$orders_url" ORDERLY_REDIS_URL="$cluster_url" ORDERLY_REDIS_STREAM_SHARDS="$shards" \
    ORDERLY_INTERNAL_SECRET=migrating-the-orders-database \
    ORDERLY_DATA_DIR="$work/data" ORDERLY_ADMIN_PORT="$admin" ORDERLY_WIRE_PORT="$(free_port)" \
    "$bin/orderly-orders" >"$work/migrate.log" 2>&1 &
migrating=$!
# Its admin port answers once the migrations are done.
until curl -sf "http://127.0.0.1:$admin/healthz" >/dev/null 2>&1; do
    kill -0 "$migrating" 2>/dev/null || { cat "$work/migrate.log" >&2; exit 1; }
    sleep 0.2
done
kill -TERM "$migrating"
wait "$migrating" || true
shard_orders "$primary" "$second"

# The suite on both: the marketplace, loadgen, then the chaos, in the one suite.
status=0
ORDERLY_BUILD=release ORDERLY_DATA_DIR="$work/data" ORDERLY_LOG_LEVEL=warning ORDERLY_REDIS_URL="$cluster_url" \
    ORDERLY_REDIS_STREAM_SHARDS="$shards" ORDERLY_POSTGRES_SERVER_URL="$primary" ORDERLY_HTTP_PORT="$(free_port)" \
    ORDERLY_ORDER_LINE_HOLD_SECONDS=30 ORDERLY_LEDGER_HOLD_HOURS=0 \
    deploy/local/run.sh bash -c '
        url="http://127.0.0.1:$ORDERLY_HTTP_PORT"
        # The marketplace first: its couriers take the oldest orders of the pool, and the
        # orders workload leaves its own there.
        "$0" loadgen --workload marketplace --url "$url" --seconds "$1" --clients 16 --couriers 8 \
            > "$ORDERLY_DATA_DIR/marketplace.out" 2>&1
        marketplace=$?
        tail -1 "$ORDERLY_DATA_DIR/marketplace.out"
        "$0" loadgen --url "$url" --seconds "$1" --clients 32 > "$ORDERLY_DATA_DIR/loadgen.out" 2>&1
        loadgen=$?
        tail -2 "$ORDERLY_DATA_DIR/loadgen.out"
        deploy/local/chaos-agent.sh "$0" "$2" orders > "$ORDERLY_DATA_DIR/chaos.out" 2>&1
        chaos=$?
        cat "$ORDERLY_DATA_DIR/chaos.out"
        exit $((loadgen || marketplace || chaos))' "$bin/orderly-bench" "$seconds" "$chaos_seconds" 2>&1 |
    tee "$work/suite.txt" | grep -v '^\[\|Killed  ' | tee "$work/run.txt" || status=1
loadgen=$(grep '^create_rps=' "$work/run.txt" | head -1 || true)
marketplace=$(grep '^checkouts_per_s=' "$work/run.txt" | tail -1 || true)
chaos=$(grep '^acked=' "$work/data/chaos.out" | tail -1 || true)
placement=$(sharded_orders_check "$primary" "$second")
echo
echo "shards marketplace: ${marketplace:-? (it did not finish)}"
echo "shards loadgen: ${loadgen:-? (it did not finish)}"
echo "shards chaos: ${chaos:-? (it did not finish)}"
echo "$placement"
[[ "$loadgen" == *" invariant_failures=0"* ]] || status=1
[[ "$marketplace" == *" invariant_failures=0"* ]] || status=1
[[ "$chaos" == *" lost=0 duplicated=0 notifications_missing=0 "* ]] || status=1
[[ "$placement" == *"stores_on_both=0" ]] || status=1
exit "$status"
