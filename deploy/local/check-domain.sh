#!/usr/bin/env bash
# Shared/Domain is business values and rules that the iOS apps link too: it may import
# Foundation and nothing else. `make test` runs this first; it names every other import.
set -euo pipefail
cd "$(dirname "$0")/../.."

others=$(grep -nE '^\s*(@[A-Za-z_]+\s+)*((public|package|internal|fileprivate|private)\s+)?import\s' Shared/Domain/*.swift \
    | grep -vE 'import\s+Foundation\s*$' || true)
if [ -n "$others" ]; then
    echo "Shared/Domain may import Foundation only; found:" >&2
    echo "$others" >&2
    exit 1
fi
echo "Shared/Domain imports Foundation only"
