#!/usr/bin/env bash
# `make bench-notifications`: the suite from a release build (Redis with its append-only file, the
# five services on SQLite) driven by `orderly-bench loadgen --workload notifications`: 1,000 store users
# over 100 stores sign in, half holding a server-sent event stream and half long-polling, and 50
# of the stores register a webhook endpoint on a receiver loadgen runs (deliveries to loopback
# are allowed for this run); orders are created at a steady rate (20 a second for 30 s by
# default), and the time from each order's commit to its arrival at the client is measured per
# channel, with the machine's steal. Then every user and every endpoint must have heard of every
# order of their store once, every delivery correctly signed. The last line sums it up:
#   sse_p99_ms=<n> longpoll_p99_ms=<n> webhook_p99_ms=<n> lost=<n>
# Passwords are hashed at bcrypt's lowest cost and logins from one address are not limited, so
# that signing in a thousand users takes seconds. Extra arguments go to `orderly-bench loadgen`. The
# suite listens on its usual wire and admin ports (7201–7204, 9200–9204), so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."

swift build -c release --product orderly-bench
orderly="$(swift build -c release --show-bin-path)/orderly-bench"
work=$(mktemp -d /tmp/orderly-bench-notifications.XXXXXX)
trap 'rm -rf "$work"' EXIT

status=0
ORDERLY_BUILD=release ORDERLY_DATA_DIR="$work/suite" ORDERLY_LOG_LEVEL=warning \
    ORDERLY_AUTH_BCRYPT_COST=4 ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ADDRESS=100000 \
    ORDERLY_WEBHOOKS_ALLOWED_NETWORKS=127.0.0.0/8 ORDERLY_WEBHOOKS_PLAIN_HTTP=allowed \
    ORDERLY_HTTP_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" \
    deploy/local/run.sh bash -c '"$0" loadgen --workload notifications --stores 100 --users 1000 --webhooks 50 --rate 20 --seconds 30 --url "http://127.0.0.1:$ORDERLY_HTTP_PORT" "$@"' \
    "$orderly" "$@" | tee "$work/loadgen.txt" || status=$?
echo
summary=$(grep '^sse_p99_ms=' "$work/loadgen.txt" | tail -1 || true)
echo "${summary:-sse_p99_ms=0 longpoll_p99_ms=0 webhook_p99_ms=0 lost=unknown}"
exit "$status"
