#!/usr/bin/env bash
# The chaos of `make chaos`, run by deploy/local/run.sh once the suite is ready (so it has the
# suite's settings in its environment and the processes in ORDERLY_PROCESSES as name:pid).
# Drives the suite with `orderly-bench loadgen` and, meanwhile, kills each service and Redis with
# SIGKILL and starts it again (Redis from its append-only file), and stops the orders service
# with SIGSTOP past its callers' deadlines. Then loadgen checks what the suite acknowledged;
# its last line is `acked=<n> lost=<n> duplicated=<n> notifications_missing=<n> errors_5xx=<n>`
# for the orders workload, and `checkouts_per_s=… invariant_failures=<n>` for the marketplace
# (customers checking out and paying by card or in cash at the door, couriers collecting it,
# payouts; every acknowledged payment and payout in the ledger once, every balance its entries).
# Usage: chaos-agent.sh ORDERLY_CLI [SECONDS_PER_PHASE] [orders|marketplace]
set -uo pipefail
orderly=$1
seconds=${2:-20}
workload=${3:-orders}
bin=$(dirname "$orderly")
data=$(cd "$ORDERLY_DATA_DIR" && pwd)
redis_port=${ORDERLY_REDIS_URL##*:}
declare -A pid admin=([gateway]=9200 [orders]=9201 [catalog]=9202 [payments]=9203 [notifications]=9204)
for entry in $ORDERLY_PROCESSES; do pid[${entry%%:*}]=${entry##*:}; done
# A Redis Cluster (redis-cluster://…, deploy/scaling/two-shards.sh) loses its last node named,
# a master, started again from its files in <data>/redis-<port>.
cluster=""
if [[ "$ORDERLY_REDIS_URL" == redis-cluster://* ]]; then
    cluster=yes
    pid[redis]=$(pgrep -f "redis-server 127.0.0.1:$redis_port" | head -1)
fi
started=()
log="$data/loadgen.txt"

if [ "$workload" = marketplace ]; then
    "$orderly" loadgen --workload marketplace --url "http://127.0.0.1:$ORDERLY_HTTP_PORT" --seconds "$seconds" \
        --clients 32 --couriers 16 --inbox-wait 300 > "$log" 2>&1 &
    phases=("phase 1/2" "phase 2/2")
else
    "$orderly" loadgen --url "http://127.0.0.1:$ORDERLY_HTTP_PORT" --seconds "$seconds" --clients 32 \
        --inbox-wait 180 > "$log" 2>&1 &
    phases=("phase 2/3" "phase 3/3")
fi
loadgen=$!

# Stops what it started; one still running 30 s after SIGTERM is named and killed.
finish() {
    for p in "${started[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for _ in $(seq 300); do
        alive=0
        for p in "${started[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    for name in "${!pid[@]}"; do
        if kill -0 "${pid[$name]}" 2>/dev/null && [[ " ${started[*]} " == *" ${pid[$name]} "* ]]; then
            say "$name did not stop within 30 s of SIGTERM; killed"
            kill -KILL "${pid[$name]}"
        fi
    done
    for p in "${started[@]}"; do wait "$p" 2>/dev/null; done
}
trap finish EXIT

say() { echo "chaos $(date +%T): $*"; }

# until_logged TEXT: waits until loadgen has printed TEXT; false if it ended first.
until_logged() {
    until grep -q "$1" "$log"; do
        kill -0 "$loadgen" 2>/dev/null || return 1
        sleep 0.2
    done
}

is_ready() {
    if [ "$1" = redis ] && [ -n "$cluster" ]; then
        redis-cli -p "$redis_port" cluster info 2>/dev/null | grep -q 'cluster_state:ok'
    elif [ "$1" = redis ]; then
        redis-cli -p "$redis_port" ping >/dev/null 2>&1
    else
        curl -sf "http://127.0.0.1:${admin[$1]}/readyz" >/dev/null 2>&1
    fi
}

# start NAME: starts the process again as run.sh did, and waits until it is ready. A port still
# held by the killed process makes the new one exit; it is started again until it stays up.
start() {
    for _ in $(seq 20); do
        if [ "$1" = redis ] && [ -n "$cluster" ]; then
            redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$data/redis-$redis_port" --appendonly yes \
                --save "" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
                >> "$data/redis.log" 2>&1 &
        elif [ "$1" = redis ]; then
            redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$data/redis" --appendonly yes --save "" \
                >> "$data/redis.log" 2>&1 &
        elif [ -n "${ORDERLY_POSTGRES_SERVER_URL:-}" ]; then
            server=${ORDERLY_POSTGRES_SERVER_URL%%\?*}
            ORDERLY_DATABASE_URL="${server%/*}/orderly_$1?sslmode=disable" "$bin/orderly-$1" >> "$data/$1.log" 2>&1 &
        else
            "$bin/orderly-$1" >> "$data/$1.log" 2>&1 &
        fi
        pid[$1]=$!
        started+=("$!")
        for _ in $(seq 300); do
            is_ready "$1" && return 0
            kill -0 "${pid[$1]}" 2>/dev/null || break
            sleep 0.1
        done
    done
    say "$1 did not come back; see $data/$1.log"
    return 1
}

crash() {
    say "SIGKILL $1, then start it again"
    kill -KILL "${pid[$1]}"
    start "$1"
}

freeze() {
    say "SIGSTOP $1 for $2 s"
    kill -STOP "${pid[$1]}"
    sleep "$2"
    kill -CONT "${pid[$1]}"
}

if until_logged "${phases[0]}"; then
    for victim in orders notifications redis catalog gateway payments; do
        crash "$victim"
        sleep 1
    done
fi
if until_logged "${phases[1]}"; then
    crash notifications
    freeze orders 12
    crash redis
    crash orders
    sleep 1
    crash gateway
fi
status=0
wait "$loadgen" || status=$?
grep -A30 "checking the invariants" "$log" | grep -v "^ *$" | head -12
tail -1 "$log"
exit "$status"
