#!/usr/bin/env bash
# The proxy step of `make chaos`, run by deploy/local/run.sh once the suite is ready (on
# PostgreSQL: replicas share a database server). Starts a second gateway and HAProxy in front of
# both, taking a gateway out of rotation when its /readyz?upstreams=any fails twice in a row, as
# an ingress or a Service does with a readiness probe. Drives `orderly-bench loadgen` through the
# proxy and, while orders are being created, kills Redis and keeps it down for DOWN_SECONDS
# before starting it again from its append-only file. Redis is something the gateways ride out
# (the outbox holds events, the login limiter falls back), so neither gateway may leave the
# rotation and no request may fail. Its last line:
#   acked=<n> lost=<n> duplicated=<n> notifications_missing=<n> errors_5xx=<n> proxy_5xx=<n> taken_out=<n>
# proxy_5xx counts the 5xx the proxy answered (its own 503s when no gateway is in rotation
# included); taken_out, the times a gateway left the rotation.
# Usage: chaos-proxy.sh ORDERLY_CLI [SECONDS_PER_PHASE] [DOWN_SECONDS]
set -uo pipefail
orderly=$1
seconds=${2:-20}
down=${3:-15}
bin=$(dirname "$orderly")
data=$(cd "$ORDERLY_DATA_DIR" && pwd)
redis_port=${ORDERLY_REDIS_URL##*:}
declare -A pid
for entry in $ORDERLY_PROCESSES; do pid[${entry%%:*}]=${entry##*:}; done
started=()
log="$data/loadgen.txt"
say() { echo "chaos $(date +%T): $*"; }
source "$(dirname "$0")/throwaway-postgres.sh"  # free_port

finish() {
    for p in "${started[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${started[@]}"; do wait "$p" 2>/dev/null; done
}
trap finish EXIT

# The second gateway: its own public and admin ports, the same database and upstreams.
http2=$(free_port)
admin2=$(free_port)
server=${ORDERLY_POSTGRES_SERVER_URL%%\?*}
ORDERLY_DATABASE_URL="${server%/*}/orderly_gateway?sslmode=disable" ORDERLY_HTTP_PORT=$http2 ORDERLY_ADMIN_PORT=$admin2 \
    "$bin/orderly-gateway" >> "$data/gateway-2.log" 2>&1 &
started+=("$!")
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$admin2/readyz" > /dev/null && break; sleep 0.1; done

front=$(free_port)
cat > "$data/haproxy.cfg" <<CFG
global
    maxconn 2000
    stats socket $data/haproxy.sock mode 600 level admin
defaults
    mode http
    timeout connect 2s
    timeout client 120s
    timeout server 120s
frontend api
    bind 127.0.0.1:$front
    default_backend gateways
backend gateways
    balance roundrobin
    option httpchk GET /readyz?upstreams=any
    http-check expect status 200
    default-server check inter 500ms fall 2 rise 2
    server gateway-1 127.0.0.1:$ORDERLY_HTTP_PORT port 9200
    server gateway-2 127.0.0.1:$http2 port $admin2
CFG
haproxy -f "$data/haproxy.cfg" -db >> "$data/haproxy.log" 2>&1 &
started+=("$!")

# stats: HAProxy's CSV statistics, one "proxy,server,status,chkdown,hrsp_5xx" line each.
stats() {
    python3 - "$data/haproxy.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"show stat\n")
text = b""
while chunk := s.recv(65536):
    text += chunk
rows = text.decode().splitlines()
head = rows[0].lstrip("# ").split(",")
for row in rows[1:]:
    if row:
        r = dict(zip(head, row.split(",")))
        print(",".join([r["pxname"], r["svname"], r["status"], r["chkdown"] or "0", r["hrsp_5xx"] or "0"]))
PY
}
for _ in $(seq 100); do
    [ "$(stats 2>/dev/null | grep -c '^gateways,gateway-[12],UP,')" = 2 ] && break
    sleep 0.2
done
say "HAProxy on :$front in front of two gateways: $(stats | grep '^gateways,gateway' | cut -d, -f2,3 | tr '\n' ' ')"

"$orderly" loadgen --url "http://127.0.0.1:$front" --seconds "$seconds" --clients 32 --inbox-wait 180 > "$log" 2>&1 &
loadgen=$!
until grep -q "phase 2/3" "$log"; do
    kill -0 "$loadgen" 2>/dev/null || break
    sleep 0.2
done
sleep 2
say "SIGKILL redis; down for $down s under order creation"
kill -KILL "${pid[redis]}"
sleep "$down"
say "the gateways while Redis was down: $(stats | grep '^gateways,gateway' | cut -d, -f2,3 | tr '\n' ' ')"
redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$data/redis" --appendonly yes --save "" >> "$data/redis.log" 2>&1 &
started+=("$!")
for _ in $(seq 300); do redis-cli -p "$redis_port" ping > /dev/null 2>&1 && break; sleep 0.1; done
say "redis started again"

status=0
wait "$loadgen" || status=$?
grep -A30 "checking the invariants" "$log" | grep -v "^ *$" | head -12
last=$(tail -1 "$log")
final=$(stats)
proxy_5xx=$(awk -F, '$1 == "api" && $2 == "FRONTEND" { print $5 }' <<< "$final")
taken_out=$(awk -F, '$1 == "gateways" && $2 ~ /^gateway-/ { n += $4 } END { print n + 0 }' <<< "$final")
echo "$last proxy_5xx=${proxy_5xx:-?} taken_out=$taken_out"
exit "$status"
