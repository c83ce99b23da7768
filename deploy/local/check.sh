#!/usr/bin/env bash
# `make check`: the inner loop. Every product and test target (debug), with no compiler warning in
# our own code; the map's checks (Domain imports Foundation only, file names and tables agree with
# the code); then every test target on SQLite alone: no PostgreSQL (its cases are skipped, and
# said so), no fuzzing, browser or model test. `make test` runs all of it and the rest; CI runs
# `make test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .build
started=$SECONDS
if ! swift build --build-tests > .build/check-build.log 2>&1; then
    grep -E "error:" .build/check-build.log || tail -20 .build/check-build.log
    exit 1
fi
ours=$(grep -E "^$PWD/(Services|Shared|Tools|Tests)/[^ ]*: warning:" .build/check-build.log | sort -u || true)
if [ -n "$ours" ]; then
    echo "$ours"
    echo "check: compiler warnings in our own code; there must be none" >&2
    exit 1
fi
built=$SECONDS
deploy/local/check-domain.sh
python3 deploy/local/check-map.py
status=0
env -u ORDERLY_TEST_POSTGRES_URL swift test --skip-build > .build/check-tests.log 2>&1 || status=$?
grep -E "✘|skipped:|^note:|Test run with" .build/check-tests.log || true
printf 'check: build %ds, checks and tests %ds, total %ds (%s; the tests'"'"' output in .build/check-tests.log)\n' \
    $((built - started)) $((SECONDS - built)) $((SECONDS - started)) "$([ "$status" -eq 0 ] && echo passed || echo FAILED)"
exit "$status"
