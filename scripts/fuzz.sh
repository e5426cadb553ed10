#!/bin/bash
# Builds the libFuzzer targets of every reader in build-fuzz/ or FUZZ_BUILD_DIR (clang, AddressSanitizer +
# UndefinedBehaviorSanitizer) and runs each for a bounded time: scripts/fuzz.sh [SECONDS_PER_TARGET]
# (default 36), one target per core at a time (FUZZ_JOBS overrides). Fails on any crash, hang (an input
# taking longer than -timeout), leak, out-of-memory or sanitizer report; the input that broke a target is
# left in <build>/artifacts/<format>/ - turn it into a regression test in
# tests/data/fuzz-regressions/<format>/ once the reader is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-36}
root=$(pwd)
cxx=${FUZZ_CXX:-$(command -v clang++-14 || command -v clang++)}

formats="operator maestro_mapping maestro_hardware accelerator_json model_json project sweep_file experiments directives onnx technology_json"

# FUZZ_BUILD_DIR: an existing clang sanitizer build that holds the fuzz targets (scripts/test-all.sh uses
# its build-asan/), so that core is not compiled a third time; otherwise build-fuzz/ is configured.
build=${FUZZ_BUILD_DIR:-build-fuzz}
if [ -z "${FUZZ_BUILD_DIR:-}" ]; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARVEL_FUZZ=ON \
    -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
fi
targets=""
for format in $formats; do targets="$targets fuzz_$format"; done
cmake --build "$build" -j"$(nproc)" --target $targets

# One target per core at a time: each libFuzzer run is a single process on one core.
parallel=${FUZZ_JOBS:-$(nproc)}

fuzz_one() {
  local format=$1
  local work=$build/corpus-work/$format
  local artifacts=$build/artifacts/$format
  local log=$build/fuzz-$format.log
  mkdir -p "$work" "$artifacts"
  # New inputs go to the work corpus (kept between runs); the seeds are read only.
  if ! MARVEL_FUZZ_BASE_DIR="$root/samples/models" \
      ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$build/fuzz/fuzz_$format" "$work" "$build/fuzz-corpus/$format" \
        -dict="fuzz/dict/$format.dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=16384 -artifact_prefix="$artifacts/" -print_final_stats=1 \
        </dev/null >"$log" 2>&1; then
    {
      echo "fuzz: $format FAILED (log: $log, input: $(ls "$artifacts" | head -1))"
      grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -5 || true
    } >"$build/fuzz-$format.result"
    return 1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$log" | sed "s/^/  $format /" \
    >"$build/fuzz-$format.result" || true
}

rm -f "$build"/fuzz-*.result
echo "fuzz: ${seconds}s per target, $parallel at a time:" $formats
running=0
for format in $formats; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$format" &
  running=$((running + 1))
done
wait || true

failed=""
for format in $formats; do
  result=$build/fuzz-$format.result
  [ -f "$result" ] || echo "fuzz: $format FAILED (it ended without a result; log: $build/fuzz-$format.log)" >"$result"
  cat "$result"
  if grep -q "^fuzz: $format FAILED" "$result"; then failed="$failed $format"; fi
done
if [ -n "$failed" ]; then
  echo "fuzz: failed:$failed"
  exit 1
fi
echo "fuzz: every target ran ${seconds}s without a crash, hang, leak or sanitizer report"
