#!/usr/bin/env bash
# `make model-test`: the model test of the marketplace (deploy/local/model-test.py): named
# regression tests, then Hypothesis's random walks of every role's steps through the API of a
# fresh suite beside a reference model of its money and visibility, checked after every step.
# MODEL_SEED repeats a run; MODEL_EXAMPLES (30) and MODEL_STEPS (100) bound the exploration. Builds
# the suite unless ORDERLY_BIN names executables already built. The suite listens on its usual
# wire and admin ports (7201–7204, 9200–9204), so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Hypothesis 6 from PyPI, into the user's site when the system's Python is managed by Debian.
if ! python3 -c 'import hypothesis, sys; sys.exit(not hypothesis.__version__.startswith("6."))' 2>/dev/null; then
    python3 -m pip install -q 'hypothesis>=6.100,<7' 2>/dev/null \
        || python3 -m pip install -q --user --break-system-packages 'hypothesis>=6.100,<7'
fi
work=$(mktemp -d /tmp/orderly-model-test.XXXX)
# The suite mails through a local SMTP server (aiosmtpd), whose mail the steps read links from.
python3 -c 'import aiosmtpd' 2>/dev/null || python3 -m pip install -q aiosmtpd 2>/dev/null \
    || python3 -m pip install -q --user --break-system-packages aiosmtpd
eval "$(python3 deploy/local/suite.py mail-server "$work")"
trap 'kill "$MAIL_PID" 2>/dev/null; rm -rf "$work"' EXIT
# The services' own log lines (`[gateway] …`) go to a file, kept for a failing run to read.
mkdir -p .build
log="$PWD/.build/model-test-suite.log"
: > "$log"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Payouts may take what was earned at once (the hold before payouts has tests of its own); each
# example signs in a store's users and two couriers, so sign-ins from this address are many;
# passwords are hashed at the cheapest cost, as the Swift tests hash them.
ORDERLY_DATA_DIR="$work/data" ORDERLY_HTTP_PORT="$port" ORDERLY_LOG_LEVEL=warning \
    ORDERLY_BOOTSTRAP_ADMIN_EMAIL=admin@model.test ORDERLY_BOOTSTRAP_ADMIN_PASSWORD=Model-Admin-Pass-1 \
    ORDERLY_LEDGER_HOLD_HOURS=0 ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ADDRESS=10000 ORDERLY_AUTH_BCRYPT_COST=4 \
    ORDERLY_SMTP_URL="smtp://localhost:$MAIL_PORT" ORDERLY_SMTP_CA_FILE="$MAIL_CA" MODEL_MAIL_DIR="$MAIL_DIR" \
    deploy/local/run.sh python3 -u deploy/local/model-test.py 2>&1 |
    while IFS= read -r line; do
        case "$line" in
            "["*) printf '%s\n' "$line" >> "$log" ;;
            *) printf '%s\n' "$line" ;;
        esac
    done || { status=$?; echo "the services' log lines: $log"; exit "$status"; }
