#!/usr/bin/env bash
# `make test`: builds and runs every test target.
set -euo pipefail
cd "$(dirname "$0")/../.."

swift build --build-tests
swift test --skip-build
