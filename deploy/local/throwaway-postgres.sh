#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` into a temporary directory,
# started on a free loopback port, removed again on exit. Source it, then:
#
#     start_throwaway_postgres [durable]   # exports ORDERLY_TEST_POSTGRES_URL and _CA
#
# Without `durable` the cluster skips fsync (tests need no crash safety and run faster); the
# benchmark passes `durable` so that its commits are as safe as production's.

postgres_bin_directory() {
    local directory
    for directory in /usr/lib/postgresql/*/bin; do
        [ -x "$directory/initdb" ] && { echo "$directory"; return; }
    done
    command -v initdb >/dev/null 2>&1 && { dirname "$(readlink -f "$(command -v initdb)")"; return; }
    echo "PostgreSQL is not installed: run 'make deps'" >&2
    return 1
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_throwaway_postgres() {
    [ -n "${ORDERLY_PG_DIR:-}" ] || return 0
    "${ORDERLY_PG_RUN[@]}" "$ORDERLY_PG_BIN/pg_ctl" -D "$ORDERLY_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$ORDERLY_PG_DIR"
    ORDERLY_PG_DIR=""
}

start_throwaway_postgres() {
    ORDERLY_PG_BIN=$(postgres_bin_directory)
    ORDERLY_PG_DIR=$(mktemp -d /tmp/orderly-postgres.XXXXXX)
    trap stop_throwaway_postgres EXIT
    # PostgreSQL refuses to run as root: run it as the postgres user the package created.
    ORDERLY_PG_RUN=()
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres: "$ORDERLY_PG_DIR"
        ORDERLY_PG_RUN=(runuser -u postgres --)
    fi
    local port settings tls
    port=$(free_port)
    # TLS beside plain connections, with a certificate for the name localhost alone (no address)
    # from an authority of its own (ORDERLY_TEST_POSTGRES_CA): the tests of sslmode=verify-ca and
    # verify-full.
    tls="$ORDERLY_PG_DIR/tls"
    mkdir -p "$tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=orderly-test-ca \
        -keyout "$tls/ca.key" -out "$tls/ca.crt" >/dev/null 2>&1
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
        -keyout "$tls/server.key" -out "$tls/server.csr" >/dev/null 2>&1
    printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$tls/server.ext"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial -days 2 \
        -extfile "$tls/server.ext" -out "$tls/server.crt" >/dev/null 2>&1
    chmod 600 "$tls/server.key"
    [ "$(id -u)" -eq 0 ] && chown -R postgres: "$tls"
    settings="-p $port -k $ORDERLY_PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=300"
    settings="$settings -c ssl=on -c ssl_cert_file=$tls/server.crt -c ssl_key_file=$tls/server.key"
    if [ "${1:-}" != "durable" ]; then
        settings="$settings -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    "${ORDERLY_PG_RUN[@]}" "$ORDERLY_PG_BIN/initdb" -D "$ORDERLY_PG_DIR/data" -U orderly -A trust -E UTF8 \
        --no-sync >"$ORDERLY_PG_DIR/initdb.log" 2>&1 || { cat "$ORDERLY_PG_DIR/initdb.log" >&2; return 1; }
    "${ORDERLY_PG_RUN[@]}" "$ORDERLY_PG_BIN/pg_ctl" -D "$ORDERLY_PG_DIR/data" -l "$ORDERLY_PG_DIR/server.log" \
        -o "$settings" -w start >/dev/null || { cat "$ORDERLY_PG_DIR/server.log" >&2; return 1; }
    export ORDERLY_TEST_POSTGRES_URL="postgres://orderly@127.0.0.1:$port/postgres?sslmode=disable"
    export ORDERLY_TEST_POSTGRES_CA="$tls/ca.crt"
    echo "throwaway PostgreSQL on port $port ($ORDERLY_PG_DIR)"
}
