#!/usr/bin/env bash
# `make deploy-test`: the container deployment, built and run on this machine with podman.
#
# 1. Base images, made here when missing (no registry is reached): Debian bookworm by
#    debootstrap, slimmed as Debian's slim image is and imported as debian:bookworm-slim; on it,
#    stand-ins for redis:7-bookworm and postgres:15-bookworm from Debian's packages
#    (deploy/local/images/).
# 2. Orderly's release executable (`orderly`, which runs the service named by the link it is
#    called through), built on this host with --static-swift-stdlib, and the image from
#    deploy/Containerfile's `prebuilt` target; its size, which must be at most 250 MB.
# 3. docker-compose.yml started by docker-compose through podman's Docker-compatible socket, with
#    orders ×2 and notifications ×2, secrets in a .env of its own, and Wire credentials made for
#    this run by deploy/local/make-wire-credentials.sh: each service's own pair keys and TLS
#    certificate, no internal secret in any container; the time from `up` until every container
#    is healthy and the gateway answers a sign-in is printed.
# 4. deploy/local/deploy-check.py through the gateway: an order from the iPad to the courier's
#    phone, then orders while one orders and one notifications replica are killed; each order
#    created once, every notification heard once.
# 5. With what a notifications container holds (its Wire keys and certificate), a call to
#    payments as the gateway is refused; with what the gateway container holds, accepted, and
#    over TLS only (deploy/local/wire-impersonate.py).
# 6. Everything it started is removed, the Wire credentials with it (the base images stay, for
#    the next run).
#
# Podman here runs with runc and cgroupfs, without the default ulimits (CONTAINERS_CONF, made
# below), and, as no systemd schedules health checks, a loop runs them every two seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

deploy/local/install-deps.sh containers
work=$(mktemp -d /tmp/orderly-deploy-test.XXXXXX)
project=orderly-deploy-test
image=localhost/orderly:deploy-test
pids=()
cleanup() {
    status=$?
    set +e
    if [ -n "${DOCKER_HOST:-}" ]; then
        echo "== tearing down"
        docker-compose -p "$project" --env-file "$work/.env" down -v --remove-orphans >"$work/down.log" 2>&1 \
            || cat "$work/down.log"
        podman volume ls -q | grep "^${project}_" | xargs -r podman volume rm -f >/dev/null
    fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    podman rmi -f "$image" localhost/orderly-stunnel:deploy-test >/dev/null 2>&1
    rm -rf "$work" "$root/.build-container"
    exit $status
}
trap cleanup EXIT

cat >"$work/containers.conf" <<'EOF'
[containers]
# This sandbox cannot raise the open-files limit to podman's default: keep the host's.
default_ulimits = []
[network]
network_backend = "netavark"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF="$work/containers.conf"

echo "== base images"
if ! podman image exists docker.io/library/debian:bookworm-slim; then
    started=$SECONDS
    debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
        || { tail -20 "$work/debootstrap.log"; exit 1; }
    cat >"$work/rootfs/etc/apt/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
    # Slim as Debian's own slim image is: no manuals, documentation (but the copyright files) or
    # translations, now or in what the images install on it.
    printf 'path-exclude /usr/share/%s\n' 'doc/*' 'man/*' 'info/*' 'locale/*' 'groff/*' 'lintian/*' \
        >"$work/rootfs/etc/dpkg/dpkg.cfg.d/slim"
    echo 'path-include /usr/share/doc/*/copyright' >>"$work/rootfs/etc/dpkg/dpkg.cfg.d/slim"
    find "$work/rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    rm -rf "$work/rootfs/usr/share/"{man,info,locale,groff,lintian}/*
    chroot "$work/rootfs" apt-get clean
    rm -rf "$work/rootfs/var/lib/apt/lists/"*
    tar -C "$work/rootfs" -c . | podman import --change 'CMD ["bash"]' - docker.io/library/debian:bookworm-slim >/dev/null
    rm -rf "$work/rootfs"
    echo "debian:bookworm-slim made by debootstrap in $((SECONDS - started))s"
fi
for name in redis:7-bookworm postgres:15-bookworm; do
    if ! podman image exists "docker.io/library/$name"; then
        podman build --format docker -t "docker.io/library/$name" -f "deploy/local/images/${name%%:*}.Containerfile" \
            deploy/local/images >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
        echo "$name made from Debian's packages"
    fi
done

echo "== Orderly's image"
# A build folder of its own, so that the benchmarks' release build is not rebuilt after this one.
build=(swift build -c release --static-swift-stdlib --scratch-path .build-static)
"${build[@]}" --product orderly 2>&1 | grep -E "error|Build of" | tail -3
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
bin=$("${build[@]}" --show-bin-path)
mkdir -p .build-container/bin
# One executable, without its debug information (the symbols stay, for crash backtraces), and a
# link to it named for each service: it runs the service it is called by.
strip --strip-debug -o .build-container/bin/orderly "$bin/orderly"
for service in gateway orders catalog payments notifications; do ln -sf orderly ".build-container/bin/orderly-$service"; done
cp -R "$bin/orderly_Gateway.resources" .build-container/bin/
cp "$(dirname "$(readlink -f "$(command -v swift)")")/../libexec/swift/linux/swift-backtrace-static" .build-container/bin/
podman build --format docker -f deploy/Containerfile --target prebuilt -t "$image" \
    --build-arg VERSION="$(git describe --always --dirty)" --build-arg REVISION="$(git rev-parse HEAD)" . \
    >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
# The Redis TLS sidecar's image (deploy/k8s/overlays/redis-tls), apart: stunnel brings Perl.
podman build --format docker -f deploy/Containerfile --target stunnel -t localhost/orderly-stunnel:deploy-test . \
    >"$work/build-stunnel.log" 2>&1 || { tail -30 "$work/build-stunnel.log"; exit 1; }
echo "images:"
podman images --format '  {{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "orderly(-stunnel)?:deploy-test|bookworm" | sort
# Every service, its base included, in at most 250 MB.
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "orderly image: $((size / 1000000)) MB (every service; the limit is 250 MB)"
[ "$size" -le 250000000 ] || { echo "the image is over 250 MB" >&2; exit 1; }

echo "== compose: orders ×2, notifications ×2"
podman system service --time=0 "unix://$work/podman.sock" >"$work/podman-service.log" 2>&1 &
pids+=($!)
export DOCKER_HOST="unix://$work/podman.sock"
for _ in $(seq 100); do docker-compose version >/dev/null 2>&1 && curl -sf --unix-socket "$work/podman.sock" \
    http://d/_ping >/dev/null && break; sleep 0.1; done
# Podman schedules health checks with systemd timers; this machine has none. Every two seconds,
# all at once, so that one slow check does not hold up the others.
(while true; do
    for container in $(podman ps -q --filter health=starting --filter health=healthy --filter health=unhealthy); do
        podman healthcheck run "$container" >/dev/null 2>&1 &
    done
    sleep 2
    wait
done) &
pids+=($!)

secret() { openssl rand -hex 24; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
admin_password="Deploy-$(secret)"
cat >"$work/.env" <<EOF
ORDERLY_JWT_SECRET=$(secret)
ORDERLY_REDIS_PASSWORD=$(secret)
ORDERLY_POSTGRES_PASSWORD=$(secret)
ORDERLY_GATEWAY_DB_PASSWORD=$(secret)
ORDERLY_ORDERS_DB_PASSWORD=$(secret)
ORDERLY_CATALOG_DB_PASSWORD=$(secret)
ORDERLY_PAYMENTS_DB_PASSWORD=$(secret)
ORDERLY_NOTIFICATIONS_DB_PASSWORD=$(secret)
ORDERLY_BOOTSTRAP_ADMIN_EMAIL=admin@deploy.test
ORDERLY_BOOTSTRAP_ADMIN_PASSWORD=$admin_password
ORDERLY_PAYMENT_PROVIDER_SECRETS=local=$(secret)
ORDERLY_GATEWAY_PORT=$port
ORDERLY_IMAGE=$image
EOF
# The Wire credentials, as an operator makes them, from a master secret that lives only while the
# script runs: each service's keys into .env, and a folder per service, the containers' user's.
env -u ORDERLY_INTERNAL_SECRET ORDERLY_CLI=.build-container/bin/orderly deploy/local/make-wire-credentials.sh \
    --env-file "$work/.env" --owner 10001:10001 "$work/wire" >"$work/credentials.log" 2>&1 \
    || { cat "$work/credentials.log"; exit 1; }
compose=(docker-compose -p "$project" --env-file "$work/.env")
# What a run cut short left behind (its database volume holds other passwords than this run's).
"${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
podman volume ls -q | { grep "^${project}_" || true; } | xargs -r podman volume rm -f >/dev/null
up_started=$(date +%s.%N)
"${compose[@]}" up -d --no-build --scale orders=2 --scale notifications=2 >"$work/up.log" 2>&1 \
    || { cat "$work/up.log"; exit 1; }
# Ready: the migration step exited 0, every other container is healthy (each service's /readyz
# reaches its database and upstreams; Redis is up before them) and an admin signed in through
# the gateway.
migrate_container=${project}_migrate_1
containers=$(( $("${compose[@]}" ps -q | wc -l) - 1 ))
[ "$(podman inspect -f '{{.State.ExitCode}} {{.State.Status}}' "$migrate_container")" = "0 exited" ] || {
    echo "the migration step did not exit 0"; podman logs "$migrate_container"; exit 1; }
podman logs "$migrate_container"
ready=""
for _ in $(seq 600); do
    healthy=$(podman ps -q --filter "label=com.docker.compose.project=$project" --filter health=healthy | wc -l)
    if [ "$healthy" -eq "$containers" ] && curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/auth/login" -H 'Content-Type: application/json' \
        -d "{\"email\":\"admin@deploy.test\",\"password\":\"$admin_password\"}"; then
        ready=$(python3 -c "import time; print(f'{time.time() - $up_started:.1f}')")
        break
    fi
    sleep 0.2
done
"${compose[@]}" ps
[ -n "$ready" ] || { echo "the gateway never answered"; "${compose[@]}" logs --tail 30; exit 1; }
echo "from up to every container healthy and an admin signed in: ${ready}s"

echo "== the flow, through the gateway"
# docker-compose names the replicas <project>_<service>_<n>.
orders_replica=${project}_orders_1
notifications_replica=${project}_notifications_1
podman container exists "$orders_replica" && podman container exists "$notifications_replica"
# What deploy-check runs to kill them; first it shows how many Wire calls each orders replica has
# answered (the gateway's pool spreads them over both), from its /metrics.
cat >"$work/kill.sh" <<KILL
for replica in ${project}_orders_1 ${project}_orders_2; do
    calls=\$(podman exec "\$replica" orderly probe --path /metrics --print \\
        | awk '/^wire_server_requests_total/ && /code="ok"/ { n += \$NF } END { print n + 0 }')
    echo "   \$replica had answered \$calls Wire calls"
done
podman kill $orders_replica $notifications_replica >/dev/null
KILL
python3 deploy/local/deploy-check.py --url "http://127.0.0.1:$port" --admin-email admin@deploy.test \
    --admin-password "$admin_password" --kill "bash $work/kill.sh" \
    || { "${compose[@]}" logs --tail 40 orders notifications gateway; exit 1; }

echo "== a notifications container calls payments as the gateway"
# Everything a notifications container holds for Wire, copied out as its own user reads it: the
# keys in its environment and its TLS folder. The image has no Python, so the caller
# (deploy/local/wire-impersonate.py) runs on this host inside the container's network namespace
# (nsenter), with those copies alone. It dials a payments container's address and checks that
# the certificate there names `payments`, as the services' pools do.
running() {
    podman ps -q --filter "label=com.docker.compose.project=$project" \
        --filter "label=com.docker.compose.service=$1" --filter status=running | head -1
}
holdings() (
    umask 077
    mkdir "$2"
    podman exec "$1" printenv ORDERLY_WIRE_KEYS >"$2/wire-keys"
    for file in tls.crt tls.key ca.crt; do podman exec "$1" cat "/etc/orderly/wire/$file" >"$2/$file"; done
)
# impersonate CONTAINER FOLDER ARGUMENT…: a gateway hello to payments from CONTAINER's network,
# with the holdings in FOLDER.
impersonate() {
    local pid
    pid=$(podman inspect --format '{{.State.Pid}}' "$1")
    nsenter --target "$pid" --net python3 deploy/local/wire-impersonate.py --connect "$payments_address:7203" \
        --server payments --as gateway --holdings "$2" "${@:3}" \
        || { "${compose[@]}" logs --tail 20 payments; exit 1; }
}
notifications=$(running notifications)
gateway=$(running gateway)
payments=$(running payments)
payments_address=""
[ -z "$payments" ] || payments_address=$(podman inspect --format \
    '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "$payments" | awk '{ print $1 }')
[ -n "$notifications" ] && [ -n "$gateway" ] && [ -n "$payments_address" ] \
    || { echo "FAIL no running notifications, gateway or payments container"; "${compose[@]}" ps; exit 1; }
held=0
podman exec "$notifications" printenv ORDERLY_INTERNAL_SECRET >/dev/null || held=$?
[ "$held" -eq 1 ] || { echo "FAIL the notifications container holds ORDERLY_INTERNAL_SECRET, or cannot be asked"; exit 1; }
holdings "$notifications" "$work/held-notifications"
holdings "$gateway" "$work/held-gateway"
pairs=$(tr ',' '\n' <"$work/held-notifications/wire-keys" | cut -d= -f1 | paste -sd, -)
echo "   the notifications container holds no internal secret, and the Wire keys of: $pairs"
# The finding: nothing it holds makes a gateway hello (its certificate gets it past TLS).
impersonate "$notifications" "$work/held-notifications" --expect refused-hello
# The control: what the gateway container holds does, and over TLS only.
impersonate "$gateway" "$work/held-gateway" --expect accepted
impersonate "$gateway" "$work/held-gateway" --expect refused --plain
echo "deploy-test: ok"
