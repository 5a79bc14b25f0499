#!/usr/bin/env bash
# Installs every system dependency Sluice needs from Debian packages.
# Idempotent: re-running only installs what is missing. Needs root (or sudo).
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build ccache pkg-config git
  libprotobuf-dev protobuf-compiler
  libabsl-dev
  libflatbuffers-dev flatbuffers-compiler
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev
  graphviz
  libopencv-imgproc-dev libopencv-imgcodecs-dev libopencv-videoio-dev
  python3 python3-venv python3-dev pybind11-dev python3-numpy python3-pytest python3-protobuf python3-opencv python3-matplotlib
  ffmpeg
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all system packages present"
fi
