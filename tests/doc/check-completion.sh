#!/bin/bash
# The bash completion of marvel (scripts/completion/marvel.bash) against the built program: commands,
# a command's options, an option's values.   check-completion.sh COMPLETION_SCRIPT MARVEL_DIRECTORY
set -uo pipefail
source "$1"
PATH=$2:$PATH
status=0
expect() {
  local want=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _marvel
  local got="${COMPREPLY[*]}"
  if [ "$got" != "$want" ]; then
    echo "check-completion: '$*' completed to '$got', expected '$want'"
    status=1
  fi
}
expect "search simulate sweep" marvel s
expect "--no-refine" marvel search --no-r
expect "--timeloop-compatible" marvel search --timeloop-c
expect "--timeloop-buffering --timeloop-compatible --timeloop-space" marvel search --timel
expect "narrow wide" marvel search --timeloop-compatible --timeloop-space ""
expect "narrow wide" marvel bench sim --exportable ""
expect "1 2" marvel evaluate --export-timeloop out --timeloop-buffering ""
expect "energy edp" marvel search --objective e
expect "--json --help" marvel check --
expect "--no-mpi --no-reuse-run" marvel bench-sweep --no-
expect "vgg16" marvel search --model vg
expect "gpt2" marvel search --model gpt
expect "decode" marvel search --phase d
expect "--seq-len" marvel sweep --seq
expect "eyeriss_dram" marvel search --hw eyer
[ $status -eq 0 ] && echo "check-completion: ok"
exit $status
