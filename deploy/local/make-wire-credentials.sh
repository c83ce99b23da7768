#!/usr/bin/env bash
# The Wire credentials of a container deployment, each service's alone, so that a container taken
# over can pass for no service but its own:
#
#   deploy/local/make-wire-credentials.sh [--env-file .env] [--owner 10001:10001] [--namespace NS] DIR
#
# writes, readable by its owner only:
#   DIR/wire-keys.env        ORDERLY_<SERVICE>_WIRE_KEYS for each of the five services (the pair
#                            keys of what it calls and of what calls it, by `orderly wire-keys`),
#                            and ORDERLY_WIRE_TLS_DIR=DIR: the lines docker-compose.yml reads
#   DIR/wire-keys.k8s.env    the same keys named gateway, orders, …: the Secret orderly-wire-keys
#   DIR/authority/ca.key     a private certificate authority (keep its key offline: it is needed
#   DIR/authority/ca.crt     again only to sign certificates)
#   DIR/<service>/tls.crt    each service's certificate, signed by the authority, for serving and
#   DIR/<service>/tls.key    for calling, naming the host its callers dial (the service's name;
#   DIR/<service>/ca.crt     with --namespace also <name>.NS.svc[.cluster.local]), and the authority
#
# The keys are derived from ORDERLY_INTERNAL_SECRET when it is set in the environment (keep it
# offline: with it, keys can be made again, for a new service or a new container); otherwise from a
# random secret that is forgotten when this ends (run again so, it makes new keys, which every
# service must be given at once). An existing DIR/authority is used again, so that certificates can
# be renewed without replacing the authority every process trusts.
#
# --env-file FILE  also puts the six lines of wire-keys.env into FILE, in place of any it had.
# --owner UID:GID  gives each service's folder to the containers' user (the image runs as
#                  10001:10001), which must read it through a bind mount; needs root. Rootless
#                  podman instead: podman unshare chown -R 10001:10001 DIR/<service>.
# --days N         how long the services' certificates last (365); the authority's, ten times that.
# ORDERLY_CLI      how to run `orderly` (default: orderly on the PATH, else this checkout's build),
#                  for instance 'docker run --rm -e ORDERLY_INTERNAL_SECRET orderly:latest orderly'.
#
# Nothing secret is printed, nor passed on a command line.
set -euo pipefail
umask 077

env_file="" owner="" namespace="" days=365
while [ $# -gt 1 ]; do
    case "$1" in
    --env-file) env_file=$2; shift 2 ;;
    --owner) owner=$2; shift 2 ;;
    --namespace) namespace=$2; shift 2 ;;
    --days) days=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 2; }
dir=$1

# Who calls whom (each service's `upstreams` and `callers` in Services/): a service holds the keys
# of the pairs it is part of, as caller or as server.
services=(gateway orders catalog payments notifications)
declare -A calls=([gateway]=orders,catalog,payments,notifications [orders]=catalog [catalog]= [payments]=catalog,orders [notifications]=)
declare -A called_by=([gateway]= [orders]=gateway,payments [catalog]=gateway,orders,payments [payments]=gateway [notifications]=gateway)

if [ -n "${ORDERLY_CLI:-}" ]; then
    read -r -a orderly <<<"$ORDERLY_CLI"
else
    orderly=()
    root="$(cd "$(dirname "$0")/../.." && pwd)"
    for candidate in "$(command -v orderly || true)" "$root/.build/release/orderly" "$root/.build/debug/orderly"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then orderly=("$candidate"); break; fi
    done
    [ ${#orderly[@]} -gt 0 ] || { echo "no orderly executable: build it, or set ORDERLY_CLI" >&2; exit 1; }
fi
if [ -n "${ORDERLY_INTERNAL_SECRET:-}" ]; then
    secret=$ORDERLY_INTERNAL_SECRET
    echo "keys derived from ORDERLY_INTERNAL_SECRET"
else
    secret=$(openssl rand -hex 32)
    echo "keys derived from a random secret, forgotten when this ends (set ORDERLY_INTERNAL_SECRET to keep one)"
fi

mkdir -p "$dir/authority"
chmod 700 "$dir" "$dir/authority"
keys=$(mktemp "$dir/.wire-keys.XXXXXX")
k8s_keys=$(mktemp "$dir/.wire-keys-k8s.XXXXXX")
trap 'rm -f "$keys" "$k8s_keys" "$dir/.leaf.ext" "$dir"/*/tls.csr' EXIT
for service in "${services[@]}"; do
    line=$(ORDERLY_INTERNAL_SECRET=$secret "${orderly[@]}" wire-keys "$service" \
        --calls "${calls[$service]}" --called-by "${called_by[$service]}")
    value=${line#ORDERLY_WIRE_KEYS=}
    [ "$value" != "$line" ] && [ -n "$value" ] || { echo "orderly wire-keys $service printed no keys" >&2; exit 1; }
    printf 'ORDERLY_%s_WIRE_KEYS=%s\n' "${service^^}" "$value" >>"$keys"
    printf '%s=%s\n' "$service" "$value" >>"$k8s_keys"
done
unset secret line value
printf 'ORDERLY_WIRE_TLS_DIR=%s\n' "$(cd "$dir" && pwd)" >>"$keys"
mv "$keys" "$dir/wire-keys.env"
mv "$k8s_keys" "$dir/wire-keys.k8s.env"

ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
if [ ! -s "$dir/authority/ca.key" ]; then
    openssl req -x509 "${ec[@]}" -keyout "$dir/authority/ca.key" -out "$dir/authority/ca.crt" \
        -days $((days * 10)) -subj "/CN=Orderly Wire authority" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
    echo "a new authority: $dir/authority/ca.crt"
fi
for service in "${services[@]}"; do
    folder="$dir/$service"
    mkdir -p "$folder"
    names="DNS:$service"
    [ -z "$namespace" ] || names+=",DNS:$service.$namespace.svc,DNS:$service.$namespace.svc.cluster.local"
    # Both ends of a connection show a certificate (mutual TLS): serverAuth and clientAuth.
    cat >"$dir/.leaf.ext" <<EOF
subjectAltName=$names
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth,clientAuth
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
    rm -f "$folder/tls.key"
    openssl req "${ec[@]}" -keyout "$folder/tls.key" -out "$folder/tls.csr" -subj "/CN=$service" 2>/dev/null
    openssl x509 -req -in "$folder/tls.csr" -CA "$dir/authority/ca.crt" -CAkey "$dir/authority/ca.key" \
        -CAcreateserial -CAserial "$dir/authority/ca.srl" -days "$days" -extfile "$dir/.leaf.ext" \
        -out "$folder/tls.crt" 2>/dev/null
    rm -f "$folder/tls.csr"
    cp "$dir/authority/ca.crt" "$folder/ca.crt"
    chmod 700 "$folder"
    chmod 600 "$folder/tls.key"
    chmod 644 "$folder/tls.crt" "$folder/ca.crt"
    [ -z "$owner" ] || chown -R "$owner" "$folder"
done

if [ -n "$env_file" ]; then
    # Each line where the file had it (.env.example lists them), the others at its end.
    merged=$(mktemp "$(dirname "$env_file")/.env.XXXXXX")
    [ -f "$env_file" ] || : >"$env_file"
    awk -F= 'NR == FNR { made[$1] = $0; order[++n] = $1; next }
        ($1 in made) { if (!done[$1]++) print made[$1]; next }
        { print }
        END { for (i = 1; i <= n; i++) if (!done[order[i]]) print made[order[i]] }' \
        "$dir/wire-keys.env" "$env_file" >"$merged"
    mv "$merged" "$env_file"
    echo "wrote the Wire keys and ORDERLY_WIRE_TLS_DIR into $env_file"
fi
echo "wrote $dir/wire-keys.env, $dir/wire-keys.k8s.env, and a folder for each service: ${services[*]}"
[ -n "$owner" ] || echo "the containers run as 10001:10001: chown -R 10001:10001 $dir/<service> for them to read it"
