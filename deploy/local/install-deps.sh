#!/usr/bin/env bash
# Installs the Debian packages Orderly needs when they are missing. Safe to run again: it does
# nothing when everything is there. `install-deps.sh` installs what building and running the
# suite needs (`make run`); `install-deps.sh test` adds what the tests, benchmarks and checks
# need (`make test`), `demo` what `make demo` adds, `containers` what `make deploy-test` needs.
set -euo pipefail

# Each package says why it is here; the storage and Redis issues add theirs with their code.
packages=(
    curl            # make run waits on the admin endpoints with it
    pkg-config      # SwiftPM finds hiredis through it
    libhiredis-dev  # the Redis client library (Shared/Redis)
    libsqlite3-dev  # the embedded database (Shared/Storage)
    redis-server    # make run starts its own; the tests start throwaway servers on free ports
    python3         # finds free ports for them
    openssl         # make-wire-credentials.sh, and the Wire TLS tests, make certificates with it
)
case "${1:-run}" in
run) ;;
test)
    packages+=(
        postgresql      # the storage tests and bench-storage run on a throwaway cluster
        python3-pip     # make fuzz-api installs schemathesis from PyPI with it
        python3-venv    # the Kubernetes manifests' check installs its pinned tools into a venv
        prometheus      # promtool: make test checks every process's /metrics and the alert rules
        chromium chromium-driver  # make test drives the admin web (/console/) in a headless browser
        stunnel4        # the tests reach a Redis that speaks TLS alone through it, as a sidecar would
        haproxy         # make chaos puts two gateways behind it, honouring their readiness
    )
    ;;
demo)
    packages+=(
        faketime        # make demo runs the services on a clock moved back a week (libfaketime)
    )
    ;;
containers) ;;
*)
    echo "usage: install-deps.sh [run|test|demo|containers]" >&2
    exit 2
    ;;
esac
# Installed without what they recommend, but for the container tools (podman's helpers).
bare=(--no-install-recommends)
alone=()
if [ "${1:-}" = containers ]; then
    bare=()
    packages=(
        podman runc     # containers; runc named, as this sandbox refuses crun
        netavark aardvark-dns iptables  # container networks, with DNS for service names
        debootstrap     # makes the Debian base image where no registry can be reached
        binutils        # strip: the binaries go into the image without their debug information
    )
    # Debian's docker-compose 1.29, through podman's Docker-compatible socket; without its
    # recommendations, which would bring Docker's own engine.
    alone=(docker-compose)
fi

missing=()
missing_alone=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
for package in "${alone[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing_alone+=("$package")
done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_alone[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]} ${missing_alone[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
[ ${#missing[@]} -eq 0 ] || $sudo apt-get install -y -qq "${bare[@]}" "${missing[@]}" >/dev/null
[ ${#missing_alone[@]} -eq 0 ] || $sudo apt-get install -y -qq --no-install-recommends "${missing_alone[@]}" >/dev/null
# Debian starts the packaged Redis, PostgreSQL and HAProxy; Orderly's tests, `make run` and
# `make chaos` start their own instead.
if command -v systemctl >/dev/null 2>&1; then
    $sudo systemctl disable --now redis-server postgresql haproxy >/dev/null 2>&1 || true
fi
