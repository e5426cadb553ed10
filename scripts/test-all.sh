#!/bin/bash
# Builds and runs the whole test suite twice: an optimised build in build/ (and its Debian package,
# installed, checked and purged) and an AddressSanitizer + UndefinedBehaviorSanitizer build (clang) in
# build-asan/, then fuzzes every reader from that build for a bounded time (scripts/fuzz.sh,
# MARVEL_FUZZ_SECONDS per target, default 4) and checks formatting. doc/reliability.md has the measured
# time of each part (12 min 43 s on 2 cores on 2026-11-26 morning, 22 min 21 s and 25 min 35 s on
# 2026-11-27's machine, 1.7 times slower at everything, 28 min 30 s with corrected fidelity the default,
# 26 min 26 s once its search cost about what maestro fidelity's does, 33 min 39 s once every sweep
# point ran the full search (the sweep tests trimmed since);
# the goal is 15).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Each part's wall time on stderr, so that a CI log shows where the time goes.
phase_start=$SECONDS
phase() {
  echo "test-all: $1 took $((SECONDS - phase_start)) s (total $((SECONDS / 60)) min $((SECONDS % 60)) s)" >&2
  phase_start=$SECONDS
}

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
phase "release build"
ctest --test-dir build --output-on-failure -j"$jobs"
phase "release tests"
# The Debian package of the release build: built, linted, installed with apt-get, its programs checked from
# outside the source tree, purged (doc/packaging.md).
scripts/test-package.sh
phase "package (cpack, lintian, install, check, purge)"

# The sanitizer build uses clang: a second compiler's warnings and checks beside GCC's, precompiled headers
# that pay off (clang loads only what a source uses), and the libFuzzer targets in the same tree, so core is
# compiled twice in the run, not three times.
# -O1: AddressSanitizer's recommended level; the searches in the tests run several times faster than at -O0.
# -g1: line tables, all a sanitizer report needs, and a much faster build than -g.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" \
  -DCMAKE_CXX_COMPILER="$(command -v clang++-14 || command -v clang++)" -DMARVEL_SANITIZE=address,undefined
cmake --build build-asan -j"$jobs"
phase "sanitizer build (with the fuzz targets)"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"
phase "sanitizer tests"

# 4 s per target in CI, a smoke run: every target starts from its seeds and regression inputs (also
# replayed by the fuzz_replay_* tests in both builds) and explores past them; the long campaigns are
# separate runs of scripts/fuzz.sh (doc/reliability.md).
FUZZ_BUILD_DIR=build-asan scripts/fuzz.sh "${MARVEL_FUZZ_SECONDS:-4}"
phase "fuzzing"

scripts/check-format.sh
echo "test-all: every test passed (optimised and sanitizer builds), fuzzers clean, formatting clean"
