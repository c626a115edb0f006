#!/usr/bin/env bash
# Installs vkrt's build and test dependencies from Debian packages. Idempotent: packages that
# are already installed are skipped. Runs as root, or through sudo when available.
set -euo pipefail

packages=(
  build-essential cmake ninja-build clang lld
  flatbuffers-compiler libflatbuffers-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
  libvulkan-dev libvulkan-volk-dev vulkan-validationlayers mesa-vulkan-drivers vulkan-tools
  glslang-tools glslang-dev spirv-tools
  libxnnpack-dev libpthreadpool-dev libopenblas-dev libhwy-dev libcpuinfo-dev
  python3-torch
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo_cmd=(sudo); else
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
