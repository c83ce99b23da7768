#!/usr/bin/env bash
# `make fuzz-wire`: libFuzzer over the Wire frame decoder, the envelope reader and the JSON
# scanner (Tests/WireFuzz). Builds the checks as a shared library with -sanitize=fuzzer in its own
# build folder (.build-fuzz), from them and what they read only (WireCodec, JSON, NIOCore: no
# sockets, TLS or crypto, a fifth of a whole build's steps); links it into libFuzzer's program,
# and runs it from the committed corpus for FUZZ_SECONDS (default 60). New inputs go to
# .build-fuzz/corpus, never into the committed one; a crash is saved as .build-fuzz/crash-<hash>
# and fails the run. To keep a finding as a regression test, copy it into Tests/WireFuzz/corpus.
# With the argument `build`, it builds and links the fuzzer only (what `make test` starts beside
# its API fuzzing).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-60}
build=(swift build --product OrderlyWireFuzz --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer)
mkdir -p .build-fuzz
echo "fuzz-wire: building (.build-fuzz/build.log)"
"${build[@]}" > .build-fuzz/build.log 2>&1 || { tail -n 30 .build-fuzz/build.log; exit 1; }
lib=$("${build[@]}" --show-bin-path)
clang=$(dirname "$(command -v swiftc)")/clang
"$clang" -fsanitize=fuzzer -o .build-fuzz/orderly-fuzz-wire -L"$lib" -lOrderlyWireFuzz \
  -Wl,-rpath,"$lib" -Wl,-rpath,"$(dirname "$(command -v swiftc)")/../lib/swift/linux"
[ "${1:-}" = build ] && exit 0
mkdir -p .build-fuzz/corpus
echo "fuzz-wire: fuzzing for ${seconds} s (.build-fuzz/fuzz.log)"
# Swift's own crash reporter would end the process before libFuzzer saves the input.
status=0
SWIFT_BACKTRACE=enable=no .build-fuzz/orderly-fuzz-wire -max_total_time="$seconds" -max_len=8192 \
  -artifact_prefix=.build-fuzz/ -print_final_stats=1 .build-fuzz/corpus Tests/WireFuzz/corpus \
  > .build-fuzz/fuzz.log 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  tail -n 40 .build-fuzz/fuzz.log
  echo "fuzz-wire: FAILED (exit $status); the input is saved as .build-fuzz/crash-*" >&2
  exit "$status"
fi
runs=$(awk '/stat::number_of_executed_units/{print $2}' .build-fuzz/fuzz.log)
rate=$(awk '/stat::average_exec_per_sec/{print $2}' .build-fuzz/fuzz.log)
cov=$(grep -oE 'cov: [0-9]+' .build-fuzz/fuzz.log | tail -1)
echo "fuzz-wire: ${seconds} s, executions=${runs} (${rate}/s), ${cov}, crashes=0"
