#!/bin/bash
# Fails when a C++ file of the project differs from what .clang-format asks for.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cpp' '*.h' 2>/dev/null || find core ui app tests -name '*.cpp' -o -name '*.h')
[ -z "$files" ] && exit 0
clang-format --dry-run --Werror $files
echo "check-format: $(echo "$files" | wc -w) files follow .clang-format"
