#!/usr/bin/env bash
# Newer Vulkan tools for testing the cooperative-matrix shaders on a Debian bookworm machine
# (docs/vulkan-executor.md, "Cooperative matrices").
#
# Bookworm's glslang 12 cannot compile GL_KHR_cooperative_matrix and its lavapipe (Mesa 22.3)
# has no VK_KHR_cooperative_matrix. Debian unstable has both (glslang 16, Mesa 26: lavapipe
# lists 8x8x8 int8 and fp16 shapes on 8-lane subgroups). This script downloads those packages
# and their libraries (glibc included) into .coopmat/ (git-ignored) without installing anything,
# and writes wrappers that run them on their own glibc:
#
#   scripts/coopmat-toolchain.sh fetch
#   cmake -S . -B build-cm -DVKRT_GLSLANG_VALIDATOR=$PWD/.coopmat/bin/glslangValidator \
#         -DVKRT_SPIRV_VAL=$PWD/.coopmat/bin/spirv-val && cmake --build build-cm -j2
#   .coopmat/bin/run build-cm/tests/vulkan/vulkan_variants_test   # on unstable's lavapipe
#
# `run` starts a program under unstable's dynamic loader and libraries, with its lavapipe as the
# only Vulkan driver and its validation layer on the layer path (programs built on bookworm run
# unchanged on the newer glibc and libstdc++).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/.coopmat
suite=${COOPMAT_SUITE:-sid}

case "${1:-}" in
  fetch)
    mkdir -p "$root/apt/lists/partial" "$root/apt/cache" "$root/debs" "$root/bin"
    echo "deb http://deb.debian.org/debian $suite main" >"$root/apt/sources.list"
    apt=(-oDir::Etc::SourceList="$root/apt/sources.list" -oDir::Etc::SourceParts=/dev/null
         -oDir::State::Lists="$root/apt/lists" -oDir::Cache="$root/apt/cache"
         -oAPT::Architecture=amd64 -oAPT::Architectures=amd64)
    apt-get "${apt[@]}" update -qq
    wanted=(mesa-vulkan-drivers glslang-tools spirv-tools vulkan-tools libvulkan1 vulkan-validationlayers)
    mapfile -t packages < <(apt-cache "${apt[@]}" depends --recurse --no-recommends --no-suggests \
        --no-conflicts --no-breaks --no-replaces --no-enhances "${wanted[@]}" |
      grep -v -e '^ ' -e '<' | sort -u |
      grep -v -x -E 'debconf|dpkg|perl-base|base-files|tar|coreutils|sensible-utils|debianutils|install-info')
    (cd "$root/debs" && apt-get "${apt[@]}" download "${packages[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
    rm -rf "$root/sysroot"
    for deb in "$root"/debs/*.deb; do dpkg -x "$deb" "$root/sysroot"; done
    lib=$root/sysroot/usr/lib/x86_64-linux-gnu
    sed -i "s#\"library_path\": \"libvulkan_lvp.so\"#\"library_path\": \"$lib/libvulkan_lvp.so\"#" \
      "$root/sysroot/usr/share/vulkan/icd.d/lvp_icd.json"
    cat >"$root/bin/run" <<RUN
#!/bin/sh
# Runs a program on $suite's glibc, lavapipe and validation layer (scripts/coopmat-toolchain.sh).
export VK_DRIVER_FILES=$root/sysroot/usr/share/vulkan/icd.d/lvp_icd.json
export VK_LAYER_PATH=$root/sysroot/usr/share/vulkan/explicit_layer.d
prog=\$1; shift
exec $lib/ld-linux-x86-64.so.2 --library-path $lib "\$prog" "\$@"
RUN
    for tool in glslangValidator spirv-val spirv-dis vulkaninfo; do
      printf '#!/bin/sh\nexec %s/bin/run %s/sysroot/usr/bin/%s "$@"\n' "$root" "$root" "$tool" >"$root/bin/$tool"
    done
    chmod +x "$root"/bin/*
    "$root/bin/glslangValidator" --version | head -1
    "$root/bin/vulkaninfo" --summary 2>/dev/null | grep -E 'deviceName|driverInfo' | head -2
    ;;
  *)
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
