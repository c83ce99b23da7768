#!/usr/bin/env bash
# `make test`: the map and manifest checks, then every test target, the Wire fuzzer and the API
# fuzzer, ending with one line per phase and the time it took.
#
#   checks     Shared/Domain imports Foundation only; the map (file names, Services/README.md's
#              table) agrees with the code; the Kubernetes manifests are valid; the alert rules
#              pass promtool's check and unit tests, and they, the dashboard and the PodMonitor
#              name only what the processes export (deploy/observability)
#   build      every product and test target (debug), with zero compiler warnings in our own
#              code (dependencies' warnings are not ours); the build of the Wire fuzzer starts
#              beside what follows, in its own build folder
#   tests      every test target; the Redis tests start their own servers, the mail tests an
#              SMTP server (aiosmtpd, installed here), the storage and service tests run on
#              SQLite and on a throwaway PostgreSQL cluster started here
#   client     the Swift client swift-openapi-generator makes from the served document (make
#              client-test): generated with 0 warnings, compiled, and driven through a store's
#              order from sign-in to collected by the order's allowed_actions
#   model      the model test of the marketplace (make model-test): its named regressions, then
#              random walks of every role's steps beside a model of the money, checked after
#              every step (MODEL_EXAMPLES, default 30: about three minutes)
#   fuzz-api   a bounded schemathesis run over the API (FUZZ_API_EXAMPLES, default 5 per
#              operation, every role; the coverage phase for five of them), then promtool check
#              metrics on every process's /metrics
#   traces     one order's trace across the gateway, orders, its relay and notifications, sent
#              over OTLP/HTTP to a receiver of the test's own, and its id in their log lines
#   console    the admin web in headless Chromium (Selenium, axe): the platform from an empty
#              install, an owner's day from sign-in to a refund and the chart, the till, money and
#              webhooks, the board live and in Arabic, screenshots in .build/console
#   fuzz-wire  the Wire fuzzer for FUZZ_SECONDS (default 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/local/throwaway-postgres.sh

phases=()
started=$SECONDS
phase_started=$SECONDS
# phase NAME: ends the phase before and starts NAME.
phase() {
    [ -n "${current:-}" ] && phases+=("$(printf '%-10s %4ds' "$current" $((SECONDS - phase_started)))")
    current=$1
    phase_started=$SECONDS
    [ -n "$1" ] && echo "== $1"
    return 0
}
report() {
    local status=$?
    phase ""
    echo
    printf 'phase %s\n' "${phases[@]}"
    printf 'phase %-10s %4ds (%s)\n' total $((SECONDS - started)) "$([ "$status" -eq 0 ] && echo passed || echo FAILED)"
}
trap 'report; stop_throwaway_postgres' EXIT

phase checks
deploy/local/check-domain.sh
python3 deploy/local/check-map.py
python3 deploy/local/check-map-test.py
deploy/local/check-k8s.sh
promtool check rules deploy/observability/alerts.yaml
promtool test rules deploy/observability/alerts-test.yaml
python3 deploy/scaling/model.py deploy/scaling/costs.json deploy/scaling/hundredfold.toml > /dev/null
python3 deploy/local/check-metrics.py

phase build
mkdir -p .build
if ! swift build --build-tests 2>&1 | tee .build/test-build.log \
    | awk '/^\[[0-9]+\/[0-9]+\]/ { if (++n % 250 == 0) print "   ", $1; next } /Build complete|error:/ { print }'; then
    exit 1
fi
# Our own warnings: those in files of this repository, not in the checkouts of dependencies.
ours=$(grep -E "^$PWD/(Services|Shared|Tools|Tests)/[^ ]*: warning:" .build/test-build.log | sort -u || true)
if [ -n "$ours" ]; then
    echo "$ours"
    echo "build: $(echo "$ours" | wc -l) compiler warnings in our own code; there must be none" >&2
    exit 1
fi
echo "build: no warnings in our own code ($(grep -cE ': warning:' .build/test-build.log || true) in dependencies)"
phase tests
# The mail tests talk to a real SMTP server (deploy/local/smtp-test-server.py): aiosmtpd from
# PyPI, into the user's site when the system's Python is managed by Debian.
if ! python3 -c 'import aiosmtpd' 2>/dev/null; then
    python3 -m pip install -q 'aiosmtpd>=1.4,<2' 2>/dev/null \
        || python3 -m pip install -q --user --break-system-packages 'aiosmtpd>=1.4,<2'
fi
start_throwaway_postgres
trap 'report; stop_throwaway_postgres' EXIT  # start_throwaway_postgres set a trap of its own
swift test --skip-build

phase client
deploy/local/client-test.sh

phase model
deploy/local/model-test.sh

# The fuzzer's build (its own folder, every module instrumented) runs beside the API fuzzing,
# not beside the tests: on a slow day its compiler made tests with time limits miss them.
deploy/local/fuzz-wire.sh build > .build/fuzz-wire-build.log 2>&1 &
fuzz_build=$!

phase fuzz-api
# The coverage phase (inputs at and past each operation's bounds, three quarters of a run's time)
# for the callers that reach different operations: the platform, a store, a courier, a customer
# and a stranger. The store's and the platform's other roles meet the same validation behind
# other permissions, which their fuzzing and stateful phases and the access tests cover.
FUZZ_API_EXAMPLES=${FUZZ_API_EXAMPLES:-5} \
    FUZZ_API_COVERAGE_ROLES=${FUZZ_API_COVERAGE_ROLES:-admin,owner,courier,customer,anonymous} \
    deploy/local/fuzz-api.sh

phase traces
python3 deploy/local/trace-test.py

phase console
python3 deploy/local/console-test.py

phase fuzz-wire
if ! wait "$fuzz_build"; then
    cat .build/fuzz-wire-build.log
    exit 1
fi
FUZZ_SECONDS=${FUZZ_SECONDS:-20} deploy/local/fuzz-wire.sh
