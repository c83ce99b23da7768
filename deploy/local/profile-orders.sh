#!/usr/bin/env bash
# `make profile-orders`: where each created order's CPU goes, per process and per step. Runs the
# suite from a release build under `orderly-bench loadgen` (SQLite's durable default) and records its
# processes with `perf record -g` while orders are created, then shares each process's CPU per
# order (measured from /proc by loadgen) out over the steps its samples fall in
# (deploy/local/cpu-budget.py). docs/PERFORMANCE.md keeps the latest budget.
# PROFILE_SECONDS (default 10) sets each loadgen phase's length; the suite takes its usual wire and
# admin ports, so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v perf >/dev/null; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get install -y -qq --no-install-recommends linux-perf >/dev/null
fi
swift build -c release --product orderly-bench
orderly="$(swift build -c release --show-bin-path)/orderly-bench"
work=$(mktemp -d /tmp/orderly-profile.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The recording is kept for a closer look (perf report -i .build/profile/perf.data).
mkdir -p .build/profile

ORDERLY_BUILD=release ORDERLY_DATA_DIR="$work/suite" ORDERLY_LOG_LEVEL=warning \
    ORDERLY_HTTP_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" \
    deploy/local/run.sh bash -c '
        pids=$(for p in $ORDERLY_PROCESSES; do printf "%s," "${p##*:}"; done)
        echo "$ORDERLY_PROCESSES" > "$2/processes"
        "$0" loadgen --url "http://127.0.0.1:$ORDERLY_HTTP_PORT" --seconds "${PROFILE_SECONDS:-10}" \
            --during-creation "exec perf record -q -F 499 -g -o $2/perf.data -p ${pids%,}"
    ' "$orderly" "$work" "$(pwd)/.build/profile" | tee "$work/loadgen.txt"

echo
echo "== where each created order's CPU goes"
grep -m1 'load generator:' "$work/loadgen.txt" || true
python3 deploy/local/cpu-budget.py .build/profile/perf.data "$(cat .build/profile/processes)" \
    "$(grep -m1 'CPU per created order' "$work/loadgen.txt")"
