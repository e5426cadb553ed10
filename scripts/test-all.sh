#!/bin/bash
# Builds and runs the whole test suite twice: an optimised build in build/ and an
# AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/, then checks formatting.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMARVEL_SANITIZE=address,undefined
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"

scripts/check-format.sh
echo "test-all: every test passed (optimised and sanitizer builds), formatting clean"
