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
  libopenmpi-dev openmpi-bin >/dev/null
echo "install-deps: packages ready"
