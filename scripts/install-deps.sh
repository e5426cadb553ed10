#!/bin/bash
# Installs the Debian 12 packages Marvel Studio needs to build, test and run (run as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  g++ cmake ninja-build pkg-config file \
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev \
  nlohmann-json3-dev libgraphviz-dev libyaml-cpp-dev \
  xvfb xauth fonts-dejavu-core clang-format \
  clang libclang-rt-14-dev \
  libopenmpi-dev openmpi-bin \
  libonnx-dev libprotobuf-dev protobuf-compiler \
  lintian desktop-file-utils appstream >/dev/null
# lintian, desktop-file-utils and appstream check the Debian package (scripts/test-package.sh).
# The ONNX test models are committed; re-exporting them (scripts/export-onnx-models.py) also needs
# python3-torch python3-torchvision python3-onnx, which the build and the tests do not.
echo "install-deps: packages ready"
