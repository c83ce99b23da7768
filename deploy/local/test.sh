#!/usr/bin/env bash
# `make test`: builds and runs every test target. The Redis tests start their own servers; the
# storage tests run on SQLite and on a throwaway PostgreSQL cluster started here.
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/local/throwaway-postgres.sh

swift build --build-tests
start_throwaway_postgres
swift test --skip-build
