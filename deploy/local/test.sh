#!/usr/bin/env bash
# `make test`: checks that Shared/Domain imports Foundation only and that the Kubernetes
# manifests are valid, then builds and runs every test target. The Redis tests start their own
# servers; the storage tests run on SQLite and on a throwaway PostgreSQL cluster started here.
# Ends with a short run of the Wire fuzzer (FUZZ_SECONDS, default 20) and a bounded schemathesis
# run over the API (FUZZ_API_EXAMPLES, default 5 per operation, every role).
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/local/throwaway-postgres.sh

deploy/local/check-domain.sh
deploy/local/check-k8s.sh
swift build --build-tests
start_throwaway_postgres
swift test --skip-build
FUZZ_SECONDS=${FUZZ_SECONDS:-20} deploy/local/fuzz-wire.sh
FUZZ_API_EXAMPLES=${FUZZ_API_EXAMPLES:-5} deploy/local/fuzz-api.sh
