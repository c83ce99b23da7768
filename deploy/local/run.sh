#!/usr/bin/env bash
# `make run`: builds the suite and runs Redis and the five services in this terminal, each
# process's log lines prefixed with its name, until Ctrl-C, which stops every process gracefully.
# Data (SQLite files, Redis's append-only file, the local secrets) stays in ORDERLY_DATA_DIR, so a
# second run finds the first one's.
#
# With arguments, runs them as a command once the suite is ready (the suite's settings are in
# its environment), then stops everything and exits with the command's status: what
# `make bench-orders` does. ORDERLY_BUILD=release builds and runs the release build;
# ORDERLY_BIN=DIR runs the executables already built in DIR instead of building (a copy kept
# while the sources change); ORDERLY_SQLITE_SYNCHRONOUS=normal runs the services' SQLite files with synchronous=normal
# instead of the durable default (full); ORDERLY_POSTGRES_SERVER_URL runs each service on a
# database of its own on that PostgreSQL server instead.
set -euo pipefail
cd "$(dirname "$0")/../.."

configuration="${ORDERLY_BUILD:-debug}"
mkdir -p .build
# build PRODUCT: one line per product (the compiler's step counter on it at a terminal); the
# compiler's output is kept in .build/run-<product>.log and shown only when the build fails.
build() {
    local product=$1 started=$SECONDS log=".build/run-$1.log" step
    local line
    line=$(printf 'building %-22s' "$product")
    swift build -c "$configuration" --product "$product" > "$log" 2>&1 &
    local pid=$!
    if [ -t 1 ]; then
        while kill -0 "$pid" 2>/dev/null; do
            step=$(grep -oE '^\[[0-9]+/[0-9]+\]' "$log" | tail -n 1)
            printf '\r%s %s' "$line" "$step"
            sleep 1
        done
        printf '\r%s' "$line"
    else
        printf '%s' "$line"
    fi
    if ! wait "$pid"; then
        echo " failed"
        grep -E 'error:' "$log" | sort -u | head -n 40 >&2 || tail -n 40 "$log" >&2
        exit 1
    fi
    echo " done ($((SECONDS - started)) s)           "
}
if [ -n "${ORDERLY_BIN:-}" ]; then
    bin="$ORDERLY_BIN"
else
    for product in orderly-gateway orderly-orders orderly-catalog orderly-payments orderly-notifications; do
        build "$product"
    done
    bin="$(swift build -c "$configuration" --show-bin-path)"
fi

export ORDERLY_DATA_DIR="${ORDERLY_DATA_DIR:-./.orderly}"
mkdir -p "$ORDERLY_DATA_DIR"
data="$(cd "$ORDERLY_DATA_DIR" && pwd)"
http_port="${ORDERLY_HTTP_PORT:-8080}"
export ORDERLY_HTTP_PORT="$http_port"

# A secret kept in the data directory, made on first use (readable by this user only).
local_secret() {
    local file="$data/$1"
    if [ ! -s "$file" ]; then
        (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$file")
    fi
    cat "$file"
}
# The internal secret proves to each service that a caller is one of ours; the JWT secret signs
# access tokens (kept, so that tokens outlive a restart). In production both come from the
# environment like every secret.
export ORDERLY_INTERNAL_SECRET="${ORDERLY_INTERNAL_SECRET:-$(local_secret internal-secret)}"
export ORDERLY_JWT_SECRET="${ORDERLY_JWT_SECRET:-$(local_secret jwt-secret)}"
# One payment provider, `local`, whose reports (POST /v1/payments/provider-events) are signed
# with a secret kept here: what `orderly-bench loadgen` signs with. Real providers come from the
# environment: ORDERLY_PAYMENT_PROVIDER_SECRETS=name=secret[,name=secret…].
export ORDERLY_PAYMENT_PROVIDER_SECRETS="${ORDERLY_PAYMENT_PROVIDER_SECRETS:-local=$(local_secret payment-provider-secret)}"
# The local suite serves development and the benchmarks, which drive thousands of requests a
# second through one user and one address (providers' reports and customers' sign-ups too): no
# per-user or per-address rate limit unless one is asked for.
export ORDERLY_HTTP_USER_REQUESTS_PER_SECOND="${ORDERLY_HTTP_USER_REQUESTS_PER_SECOND:-0}"
export ORDERLY_HTTP_ANONYMOUS_REQUESTS_PER_SECOND="${ORDERLY_HTTP_ANONYMOUS_REQUESTS_PER_SECOND:-0}"
export ORDERLY_AUTH_SIGN_UPS_PER_ADDRESS_PER_HOUR="${ORDERLY_AUTH_SIGN_UPS_PER_ADDRESS_PER_HOUR:-1000000}"
export ORDERLY_BOOTSTRAP_ADMIN_EMAIL="${ORDERLY_BOOTSTRAP_ADMIN_EMAIL:-admin@orderly.local}"
export ORDERLY_BOOTSTRAP_ADMIN_PASSWORD="${ORDERLY_BOOTSTRAP_ADMIN_PASSWORD:-$(local_secret bootstrap-admin-password | head -c 20)}"

pids=()
names=()
stop() {
    trap - INT TERM EXIT
    echo
    echo "stopping…"
    # The gateway first, the services next, Redis last: each drains what it holds.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[$i]}" 2>/dev/null || true
        wait "${pids[$i]}" 2>/dev/null || true
    done
    echo "stopped"
}
trap stop INT TERM EXIT

# start NAME COMMAND...: runs one process with its log lines prefixed by its name.
start() {
    local name=$1
    shift
    "$@" > >(sed -u "s/^/[$name] /") 2>&1 &
    pids+=($!)
    names+=("$name")
}

wait_ready() {
    local name=$1 url=$2
    for _ in $(seq 1 300); do
        curl -sf "$url" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "$name did not become ready ($url); see its log lines above" >&2
    curl -s "$url" >&2 || true
    return 1
}

if [ -z "${ORDERLY_REDIS_URL:-}" ]; then
    redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    mkdir -p "$data/redis"
    start redis redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$data/redis" --appendonly yes --save ""
    export ORDERLY_REDIS_URL="redis://127.0.0.1:$redis_port"
    for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

# database NAME: the service's database URL, when ORDERLY_SQLITE_SYNCHRONOUS chooses a setting,
# or a database of its own on the PostgreSQL server ORDERLY_POSTGRES_SERVER_URL names
# (postgres://user@host:port/postgres?sslmode=disable), made when missing.
database() {
    if [ -n "${ORDERLY_POSTGRES_SERVER_URL:-}" ]; then
        local server=${ORDERLY_POSTGRES_SERVER_URL%%\?*}
        psql "$ORDERLY_POSTGRES_SERVER_URL" -qtAc "SELECT 1 FROM pg_database WHERE datname = 'orderly_$1'" | grep -q 1 ||
            psql "$ORDERLY_POSTGRES_SERVER_URL" -qc "CREATE DATABASE orderly_$1" >&2
        echo "ORDERLY_DATABASE_URL=${server%/*}/orderly_$1?sslmode=disable"
    elif [ -n "${ORDERLY_SQLITE_SYNCHRONOUS:-}" ] && [ -z "${ORDERLY_DATABASE_URL:-}" ]; then
        echo "ORDERLY_DATABASE_URL=sqlite:$data/$1.sqlite?synchronous=$ORDERLY_SQLITE_SYNCHRONOUS"
    fi
}
for service in catalog orders payments notifications gateway; do
    start "$service" env $(database "$service") "$bin/orderly-$service"
done
for service in catalog:9202 orders:9201 payments:9203 notifications:9204 gateway:9200; do
    wait_ready "${service%%:*}" "http://127.0.0.1:${service##*:}/readyz"
done

url="http://127.0.0.1:$http_port"
if [ $# -gt 0 ]; then
    # The command learns the processes (name:pid …), to measure what they spend.
    processes=()
    for i in "${!pids[@]}"; do processes+=("${names[$i]}:${pids[$i]}"); done
    export ORDERLY_PROCESSES="${processes[*]}"
    status=0
    "$@" || status=$?
    exit "$status"
fi
cat <<TXT

Orderly is running at $url   (OpenAPI: $url/openapi.yaml)
  data: $data   Redis: $ORDERLY_REDIS_URL

Open the console in a browser: $url/console/
  sign in as the bootstrap admin: $ORDERLY_BOOTSTRAP_ADMIN_EMAIL / $ORDERLY_BOOTSTRAP_ADMIN_PASSWORD
E-mail (password resets) is not sent without ORDERLY_SMTP_URL: it is written to the gateway's
  log lines, with its link to follow.
Or call the API:
  curl -s -X POST $url/v1/auth/login -H 'Content-Type: application/json' \\
    -d '{"email":"$ORDERLY_BOOTSTRAP_ADMIN_EMAIL","password":"$ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"}'
Ctrl-C stops everything.

TXT
wait "${pids[@]}"
