#!/usr/bin/env bash
# `make client-test`: the Swift client an app would generate, from the document the gateway serves.
# Builds swift-openapi-generator's command (Tests/GeneratedClient, a package of its own), starts a
# fresh suite, fetches /openapi.yaml from it, generates the types and the client of every
# operation, fails if the generator warned about anything (a warning is a part of the document
# it skipped), then builds Tests/GeneratedClient's ClientFlow on that code and runs it against
# the suite: sign in, create an order, act on it by its `allowed_actions`. Builds the suite
# unless ORDERLY_BIN names executables already built; listens on the suite's usual wire and admin
# ports, so stop a `make run` first.
set -euo pipefail
cd "$(dirname "$0")/../.."
package=Tests/GeneratedClient
generated=$package/Sources/ClientFlow/Generated

if [ "${1:-}" = inside ]; then
    # Inside the running suite (run.sh gives its settings in the environment).
    base="http://127.0.0.1:$ORDERLY_HTTP_PORT"
    curl -fsS "$base/openapi.yaml" -o "$WORK/openapi.yaml"
    rm -rf "$generated"
    "$GENERATOR" generate --config "$package/openapi-generator-config.yaml" --output-directory "$generated" \
        --diagnostics-output-path "$WORK/diagnostics.yaml" "$WORK/openapi.yaml" > "$WORK/generate.log" 2>&1 \
        || { cat "$WORK/generate.log"; exit 1; }
    warnings=$(grep -cE '^ *severity: (warning|error)' "$WORK/diagnostics.yaml" || true)
    echo "client-test: generated $(cat "$generated"/*.swift | wc -l) lines from $(grep -c 'operationId:' "$WORK/openapi.yaml") operations, $warnings generator warnings"
    if [ "$warnings" -ne 0 ]; then
        cat "$WORK/diagnostics.yaml"
        echo "client-test: the generator skipped what it warned about; the document must not need that" >&2
        exit 1
    fi
    started=$SECONDS
    swift build --package-path "$package" --product ClientFlow > "$WORK/build.log" 2>&1 \
        || { grep -E 'error:' "$WORK/build.log" | head -n 40 || tail -n 40 "$WORK/build.log"; exit 1; }
    echo "client-test: ClientFlow built in $((SECONDS - started)) s"
    ORDERLY_URL="$base" ORDERLY_ADMIN_EMAIL="$ORDERLY_BOOTSTRAP_ADMIN_EMAIL" \
        ORDERLY_ADMIN_PASSWORD="$ORDERLY_BOOTSTRAP_ADMIN_PASSWORD" \
        "$(swift build --package-path "$package" --show-bin-path)/ClientFlow"
    exit 0
fi

work=$(mktemp -d /tmp/orderly-client-test.XXXX)
trap 'rm -rf "$work"' EXIT
started=$SECONDS
swift build --package-path "$package" --product swift-openapi-generator > "$work/generator-build.log" 2>&1 \
    || { tail -n 40 "$work/generator-build.log"; exit 1; }
echo "client-test: swift-openapi-generator built in $((SECONDS - started)) s"
# The services' own log lines (`[gateway] …`) go to a file, kept for a failing run to read.
mkdir -p .build
log="$PWD/.build/client-test-suite.log"
: > "$log"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
WORK="$work" GENERATOR="$(swift build --package-path "$package" --show-bin-path)/swift-openapi-generator" \
    ORDERLY_DATA_DIR="$work/data" ORDERLY_HTTP_PORT="$port" ORDERLY_LOG_LEVEL=warning \
    deploy/local/run.sh "$0" inside 2>&1 |
    while IFS= read -r line; do
        case "$line" in
            "["*) printf '%s\n' "$line" >> "$log" ;;
            *) printf '%s\n' "$line" ;;
        esac
    done || { status=$?; echo "the services' log lines: $log"; exit "$status"; }
