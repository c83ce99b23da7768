#!/usr/bin/env bash
# The orders database split across two PostgreSQL servers by store, with postgres_fdw: the
# experiment of docs/SCALING.md ("the partitions move to other servers"). Source it, then:
#
#     shard_orders PRIMARY_SERVER_URL SECOND_SERVER_URL
#     sharded_orders_check PRIMARY_SERVER_URL SECOND_SERVER_URL
#
# Both URLs name a server the way start_throwaway_postgres does
# (postgres://orderly@127.0.0.1:PORT/postgres?sslmode=disable): a superuser, trusted, and any
# database of the server, since the functions connect to its `orderly_orders` themselves. On the
# primary, `orderly_orders` must exist, migrated by the orders service, with `orders` and
# `order_history` still empty.
#
# shard_orders creates `orderly_orders` on the second server with `orders` and `order_history`
# as the primary has them (pg_dump's DDL, indexes and all). Then, in one transaction on the
# primary, it makes both tables partitioned by hash(store_id) in two: the existing table, renamed
# `<name>_shard0`, is remainder 0, and `<name>_shard1`, a foreign table on the second server's
# `<name>` through the foreign server `shard1`, is remainder 1. The service keeps using `orders`
# and `order_history`. A partitioned table with a foreign partition can carry no unique index, so
# the parents have none; each server's table keeps its primary key and unique indexes, which are
# right since all of a store's rows are on one server. The other tables (order_payments,
# order_releases, the outbox, inbox, sequences and idempotency records) stay on the primary.
# Run again on a primary already split, it says so and changes nothing. The user mapping connects
# as the second URL's user without a password, which postgres_fdw allows only for a superuser.
# Later migrations of these tables must be run on both servers: an ALTER TABLE on the parent
# changes only the primary's idea of the remote table, and a unique index on it is refused.
#
# sharded_orders_check prints one line: the orders and distinct stores on each server, and how
# many stores have orders on both, which must be 0:
#
#     shards: primary orders=<n> stores=<n>; second orders=<n> stores=<n>; stores_on_both=<n>

# Sets `sharding_host`, `sharding_port` and `sharding_user` from a postgres:// URL.
sharding_parse_url() {
    local pattern='^postgres(ql)?://(([^@/:]+)(:[^@/]*)?@)?([^:/?]+)(:([0-9]+))?(/[^?]*)?(\?.*)?$'
    [[ "$1" =~ $pattern ]] || { echo "shard_orders: not a postgres:// URL: $1" >&2; return 1; }
    sharding_user=${BASH_REMATCH[3]:-orderly}
    sharding_host=${BASH_REMATCH[5]}
    sharding_port=${BASH_REMATCH[7]:-5432}
}

# The URL of database `$2` on the server of URL `$1`, its user and parameters kept.
sharding_database_url() {
    local url=$1 database=$2 query=""
    [[ "$url" == *\?* ]] && query="?${url#*\?}"
    url=${url%%\?*}
    local rest=${url#*://}
    echo "${url%%://*}://${rest%%/*}/$database$query"
}

# pg_dump of the primary's server major version, so that it can dump that server.
sharding_pg_dump() {
    local url=$1 major
    major=$(psql "$url" -X -A -t -v ON_ERROR_STOP=1 -c "SELECT current_setting('server_version_num')::int / 10000") \
        || return 1
    if [ -x "/usr/lib/postgresql/$major/bin/pg_dump" ]; then
        echo "/usr/lib/postgresql/$major/bin/pg_dump"
    else
        command -v pg_dump || { echo "shard_orders: pg_dump is not installed" >&2; return 1; }
    fi
}

# A schema dump without what differs between two dumps of the same tables: comments, and the
# random key of the `\restrict` lines that pg_dump writes since 15.14.
sharding_ddl() {
    grep -v -e '^--' -e '^\\restrict ' -e '^\\unrestrict '
}

shard_orders() {
    if [ $# -ne 2 ]; then
        echo "usage: shard_orders PRIMARY_SERVER_URL SECOND_SERVER_URL" >&2
        return 2
    fi
    local sharding_host sharding_port sharding_user
    sharding_parse_url "$1" || return 1
    local primary_at="$sharding_host:$sharding_port"
    sharding_parse_url "$2" || return 1
    local second_host=$sharding_host second_port=$sharding_port second_user=$sharding_user
    local second_at="$second_host:$second_port"
    if [ "$primary_at" = "$second_at" ]; then
        echo "shard_orders: the two URLs name the same server ($primary_at)" >&2
        return 1
    fi
    local primary second
    primary=$(sharding_database_url "$1" orderly_orders)
    second=$(sharding_database_url "$2" orderly_orders)
    local where="orders and order_history partitioned by hash(store_id) in orderly_orders on $primary_at:"
    where="$where remainder 0 there (*_shard0), remainder 1 on $second_at (*_shard1, foreign server shard1)"

    local kind
    kind=$(psql "$primary" -X -A -t -v ON_ERROR_STOP=1 \
        -c "SELECT relkind FROM pg_class WHERE oid = to_regclass('public.orders')") || return 1
    case "$kind" in
        p) echo "already sharded: $where"; return 0 ;;
        r) ;;
        *) echo "shard_orders: orderly_orders on $primary_at has no table orders" >&2; return 1 ;;
    esac

    # 1. The second server: its database, and the two tables as the primary has them. Tables
    # already there (from a run stopped before the primary's transaction) are kept if the same.
    local pg_dump schema present
    pg_dump=$(sharding_pg_dump "$primary") || return 1
    schema=$("$pg_dump" "$primary" --schema-only --no-owner --no-privileges -t orders -t order_history) \
        || return 1
    if [ -z "$(psql "$2" -X -A -t -v ON_ERROR_STOP=1 \
        -c "SELECT 1 FROM pg_database WHERE datname = 'orderly_orders'")" ]; then
        psql "$2" -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE orderly_orders" || return 1
    fi
    present=$(psql "$second" -X -A -t -v ON_ERROR_STOP=1 -c \
        "SELECT count(*) FROM pg_class WHERE oid IN (to_regclass('public.orders'), to_regclass('public.order_history'))") \
        || return 1
    if [ "$present" = 0 ]; then
        printf '%s\n' "$schema" | psql "$second" -X -q -v ON_ERROR_STOP=1 --single-transaction -f - >/dev/null \
            || return 1
    else
        local theirs
        theirs=$("$pg_dump" "$second" --schema-only --no-owner --no-privileges -t orders -t order_history) \
            || return 1
        if [ "$(sharding_ddl <<<"$schema")" != "$(sharding_ddl <<<"$theirs")" ]; then
            echo "shard_orders: orderly_orders on $second_at already has orders or order_history, not as the primary's" >&2
            return 1
        fi
    fi

    # 2. The primary, in one transaction: the foreign server, then each table split in two.
    psql "$primary" -X -q -v ON_ERROR_STOP=1 \
        -v host="$second_host" -v port="$second_port" -v user="$second_user" <<'SQL' || return 1
BEGIN;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM orders) OR EXISTS (SELECT 1 FROM order_history) THEN
        RAISE EXCEPTION 'shard_orders: orders or order_history holds rows; only empty tables are split';
    END IF;
END
$$;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host :'host', port :'port', dbname 'orderly_orders');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (user :'user');

ALTER TABLE orders RENAME TO orders_shard0;
CREATE TABLE orders (LIKE orders_shard0 INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY HASH (store_id);
ALTER TABLE orders ATTACH PARTITION orders_shard0 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE FOREIGN TABLE orders_shard1 PARTITION OF orders FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    SERVER shard1 OPTIONS (table_name 'orders');

ALTER TABLE order_history RENAME TO order_history_shard0;
CREATE TABLE order_history (LIKE order_history_shard0 INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY HASH (store_id);
ALTER TABLE order_history ATTACH PARTITION order_history_shard0 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE FOREIGN TABLE order_history_shard1 PARTITION OF order_history FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    SERVER shard1 OPTIONS (table_name 'order_history');
COMMIT;
SQL

    # 3. Where things are.
    echo "sharded: $where"
}

sharded_orders_check() {
    if [ $# -ne 2 ]; then
        echo "usage: sharded_orders_check PRIMARY_SERVER_URL SECOND_SERVER_URL" >&2
        return 2
    fi
    local primary second local_counts remote_counts both
    primary=$(sharding_database_url "$1" orderly_orders)
    second=$(sharding_database_url "$2" orderly_orders)
    # Each server's own table counted on it; the stores on both through the foreign partition.
    local_counts=$(psql "$primary" -X -A -t -v ON_ERROR_STOP=1 \
        -c "SELECT format('orders=%s stores=%s', count(*), count(DISTINCT store_id)) FROM orders_shard0") \
        || return 1
    remote_counts=$(psql "$second" -X -A -t -v ON_ERROR_STOP=1 \
        -c "SELECT format('orders=%s stores=%s', count(*), count(DISTINCT store_id)) FROM orders") || return 1
    both=$(psql "$primary" -X -A -t -v ON_ERROR_STOP=1 -c "
        SELECT count(*) FROM (SELECT store_id FROM orders_shard0 INTERSECT SELECT store_id FROM orders_shard1) AS both_servers
    ") || return 1
    echo "shards: primary $local_counts; second $remote_counts; stores_on_both=$both"
}
