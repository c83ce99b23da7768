#!/usr/bin/env bash
# `make run`: builds the suite and runs it in this terminal, each process's log lines prefixed
# with its name, until Ctrl-C, which stops every process gracefully.
#
# For now the suite is the demo pair of Wire processes: `demo-server` serves demo.echo and
# demo.clock, `demo-caller` calls it once a second. The services replace them as they land.
set -euo pipefail
cd "$(dirname "$0")/../.."

swift build --product orderly
bin="$(swift build --show-bin-path)/orderly"

export ORDERLY_DATA_DIR="${ORDERLY_DATA_DIR:-./.orderly}"
mkdir -p "$ORDERLY_DATA_DIR"
# The internal secret proves to each service that a caller is one of ours. Locally a fresh one
# is made for each run; in production it comes from the environment like every secret.
if [ -z "${ORDERLY_INTERNAL_SECRET:-}" ]; then
    ORDERLY_INTERNAL_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    export ORDERLY_INTERNAL_SECRET
fi

pids=()
stop() {
    trap - INT TERM EXIT
    echo
    echo "stopping…"
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    echo "stopped"
}
trap stop INT TERM EXIT

# start NAME ADMIN_PORT ARGS...: runs one process with its own admin port, logs prefixed.
start() {
    local name=$1 admin=$2
    shift 2
    ORDERLY_ADMIN_PORT=$admin "$bin" "$@" > >(sed -u "s/^/[$name] /") 2>&1 &
    pids+=($!)
}

wait_ready() {
    local name=$1 admin=$2
    for _ in $(seq 1 100); do
        curl -sf "http://127.0.0.1:$admin/readyz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "$name did not become ready; see its log lines above" >&2
    return 1
}

start demo-server 9100 demo serve
wait_ready demo-server 9100
start demo-caller 9101 demo call
wait_ready demo-caller 9101

cat <<TXT

Orderly is running (demo pair; the services arrive with the next issues).
  demo-server  Wire 127.0.0.1:7100   admin http://127.0.0.1:9100
  demo-caller  calls demo.echo once a second   admin http://127.0.0.1:9101
Try:
  curl http://127.0.0.1:9101/readyz
  curl -s http://127.0.0.1:9100/metrics | grep wire_server_requests_total
Ctrl-C stops everything.

TXT
wait "${pids[@]}"
