#!/usr/bin/env bash
# Installs the Debian packages Orderly needs when they are missing. Safe to run again: it does
# nothing when everything is there.
set -euo pipefail

packages=(
    curl            # make run waits on the admin endpoints with it
    redis-server    # event streams, pub/sub wake-ups (tests start a throwaway one)
    libhiredis-dev  # the Redis client library the services link
    postgresql      # the production database (tests start a throwaway cluster)
    libsqlite3-dev  # the embedded database
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
# Debian starts the packaged servers; Orderly starts its own on free ports instead.
if command -v systemctl >/dev/null 2>&1; then
    $sudo systemctl disable --now redis-server postgresql >/dev/null 2>&1 || true
fi
