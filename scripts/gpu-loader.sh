#!/usr/bin/env bash
# The Vulkan loader for GPU hosts whose container has the NVIDIA driver but no libvulkan.so.1
# and no glvnd (see docs/vulkan-executor.md, "Running on an NVIDIA GPU host").
#
#   scripts/gpu-loader.sh fetch     # on a Debian machine with apt: download the .debs into .gl/
#   source <(scripts/gpu-loader.sh install)   # on the GPU host: unpack them into / and
#                                             # print the VK_DRIVER_FILES export to source
#
# Only these packages are unpacked into /: unpacking anything else there can break the host.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)

case "${1:-}" in
  fetch)
    mkdir -p .gl
    (cd .gl && apt-get download -oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "${packages[@]}")
    ls .gl >&2
    ;;
  install)
    shopt -s nullglob
    debs=(.gl/*.deb)
    if [ ${#debs[@]} -eq 0 ]; then
      echo "gpu-loader: no .gl/*.deb (run 'scripts/gpu-loader.sh fetch' first and carry .gl/)" >&2
      exit 1
    fi
    for f in "${debs[@]}"; do dpkg -x "$f" /; done
    ldconfig
    for manifest in /usr/share/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
      if [ -f "$manifest" ]; then
        echo "export VK_DRIVER_FILES=$manifest"
        exit 0
      fi
    done
    echo "gpu-loader: no nvidia_icd.json found; the Vulkan loader will pick whatever ICD it finds" >&2
    ;;
  *)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
