#!/bin/bash
# Makes the README's screenshots (doc/screenshots/) with the app itself, off-screen, at 1440x900, and
# the default project at five common screen sizes (layout-WxH.png), the largest also at a HiDPI scale of 2
# (layout-2560x1440@2x.png: 1280x720 logical pixels, the image at the screen's 2560x1440).
# Usage: scripts/screenshots.sh [BUILD_DIR]   (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
studio="${1:-build}/app/marvel-studio"
out=doc/screenshots
export QT_QPA_PLATFORM=offscreen
shot() {
  local name=$1
  shift
  "$studio" --size "${SIZE:-1440x900}" "$@" --screenshot "$out/$name.png" 2>/dev/null
  echo "screenshots: $out/$name.png"
}
shot tuning-loop samples/operators/gemm.loop --search
shot model-view samples/projects/mobilenetv2_p2.json --search
shot onnx-model samples/projects/resnet50_onnx_p2.json --search
shot gpt2-model samples/projects/gpt2_edge_vector_45nm.json --search
shot styles-compared samples/projects/vgg16_conv_p2.json --search
shot sweep samples/projects/vgg16_conv_p2.json --sweep pes=64,128,256,512,1024 --sweep l2=32K:512K:x2
shot dram-front samples/projects/vgg16_conv_eyeriss_dram.json --search
shot dram-sweep samples/projects/vgg16_conv_edge_dram.json --sweep pes=64,128,256,512,1024 \
  --sweep l2=16K:1M:x2 --sweep-colour dram-energy
shot editor-ddg samples/operators/nonconformable/ddg_cycle.loop
shot animation samples/projects/conv1d_classroom.json \
  --animation-directives "SpatialMap(1,1) X; TemporalMap(Sz(S),Sz(S)) S;" --animation-step 2
shot mdc-guide samples/projects/conv2d_classroom.json --animate-mapping samples/mappings/conv2d_two_levels.m \
  --guide
shot codesign samples/projects/vgg16_edge_45nm.json --codesign 2.0 --codesign-vary pes=64:4096:x2 \
  --codesign-vary l1=64:2K:x2 --codesign-vary l2=16K:4M:x2
for size in 1280x800 1366x768 1440x900 1920x1080 2560x1440; do
  SIZE=$size shot "layout-$size" samples/projects/vgg16_conv_edge_dram.json --search
done
QT_SCALE_FACTOR=2 SIZE=1280x720 shot "layout-2560x1440@2x" samples/projects/vgg16_conv_edge_dram.json --search
