#!/usr/bin/env bash
# `make bench-storage`: storage transactions per second on SQLite and PostgreSQL, and events per
# second from outbox to inbox, on a release build, against a throwaway PostgreSQL cluster (with
# its default, durable commit settings) and a throwaway redis-server. Extra arguments go to
# `orderly-bench bench-storage` (see its --help).
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/local/throwaway-postgres.sh

swift build -c release --product orderly-bench
orderly="$(swift build -c release --show-bin-path)/orderly-bench"

start_throwaway_postgres durable
redis_port=$(free_port)
redis_dir=$(mktemp -d /tmp/orderly-redis.XXXXXX)
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$redis_dir" \
    --logfile "$redis_dir/redis.log" --daemonize yes --pidfile "$redis_dir/redis.pid"
stop_all() {
    # Wait for redis-server to exit: it writes its last log lines while shutting down, which
    # would otherwise recreate the directory being removed.
    local pid
    pid=$(cat "$redis_dir/redis.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -rf "$redis_dir"
    stop_throwaway_postgres
}
trap stop_all EXIT
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

"$orderly" bench-storage --postgres-url "$ORDERLY_TEST_POSTGRES_URL" --redis-url "redis://127.0.0.1:$redis_port" "$@"
