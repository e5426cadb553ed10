#!/bin/bash
# The main job: Marvel Studio with a sample operator loaded; without a display, the same sample
# through the `marvel` command line instead.
set -uo pipefail
cd "$(dirname "$0")/.."
sample=samples/operators/conv2d.loop
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec build/app/marvel-studio "$sample"
fi
echo "run-main: no display available (DISPLAY is not set), so running the sample through 'marvel' instead."
echo "run-main: on a desktop, 'build/app/marvel-studio $sample' opens it in Marvel Studio."
echo
build/app/marvel check "$sample"
status=$?
echo
build/app/marvel evaluate --hw samples/accelerators/P1_eyeriss.json --mapping samples/mappings/vgg16_conv2_styles.m || exit $?
[ $status -le 1 ] || exit $status
