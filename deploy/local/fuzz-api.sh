#!/usr/bin/env bash
# `make fuzz-api`: schemathesis (from PyPI) against the suite's /openapi.yaml with a signed-in
# user of each role and ids that exist (deploy/local/fuzz-api.py), every check and phase: no 5xx,
# every answer as documented, every request the document allows accepted, every one it forbids
# refused. FUZZ_API_EXAMPLES (25) bounds the examples per operation; FUZZ_API_ROLES picks roles;
# FUZZ_API_COVERAGE_ROLES, those whose runs include the coverage phase (all by default); each
# role's report stays in .build-fuzz/api/; FUZZ_API_SEEN names a file that gets a line per answer
# (role, operation, status, error code, fields named), to compare what runs reached. Long-polls are held a second at most, however
# long their `wait`: the run checks their answers, not their patience; every role's run asks for
# password-reset e-mails from this one address, so that limit is lifted. The suite listens on its
# usual wire and admin ports (7201–7204, 9200–9204), so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."
# schemathesis 4 from PyPI, into the user's site when the system's Python is managed by Debian.
if ! python3 -c 'import schemathesis, sys; sys.exit(not schemathesis.__version__.startswith("4."))' 2>/dev/null; then
    python3 -m pip install -q 'schemathesis>=4.32,<5' 2>/dev/null \
        || python3 -m pip install -q --user --break-system-packages 'schemathesis>=4.32,<5'
fi
work=$(mktemp -d /tmp/orderly-fuzz-api.XXXX)
trap 'rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
FUZZ_API_WORK="$work" FUZZ_API_REPORTS="$PWD/.build-fuzz/api" ORDERLY_DATA_DIR="$work/data" \
    ORDERLY_HTTP_PORT="$port" ORDERLY_LOG_LEVEL=warning ORDERLY_NOTIFICATIONS_MAX_WAIT_SECONDS=1 \
    ORDERLY_BOOTSTRAP_ADMIN_EMAIL=admin@fuzz.test ORDERLY_BOOTSTRAP_ADMIN_PASSWORD=Fuzz-Admin-Pass-1 \
    ORDERLY_AUTH_PASSWORD_RESETS_PER_ADDRESS_PER_HOUR=1000000 \
    deploy/local/run.sh python3 deploy/local/fuzz-api.py
