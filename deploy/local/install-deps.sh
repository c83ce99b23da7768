#!/usr/bin/env bash
# Installs the Debian packages Orderly needs when they are missing. Safe to run again: it does
# nothing when everything is there.
set -euo pipefail

# Each package says why it is here; the storage and Redis issues add theirs with their code.
packages=(
    curl            # make run waits on the admin endpoints with it
    pkg-config      # SwiftPM finds hiredis through it
    libhiredis-dev  # the Redis client library (Shared/Redis)
    libsqlite3-dev  # the embedded database (Shared/Storage)
    redis-server    # the tests start throwaway servers on free ports
    postgresql      # the storage tests and bench-storage run on a throwaway cluster
    python3         # finds a free port for that cluster
    python3-pip     # make fuzz-api installs schemathesis from PyPI with it
    openssl         # the Wire TLS tests make their certificates with it
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts the packaged Redis and PostgreSQL; Orderly's tests and `make run` start their
# own instead.
if command -v systemctl >/dev/null 2>&1; then
    $sudo systemctl disable --now redis-server postgresql >/dev/null 2>&1 || true
fi
