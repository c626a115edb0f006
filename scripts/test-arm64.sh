#!/usr/bin/env bash
# Cross-builds vkrt's CPU code for aarch64 Linux (Debian's crossbuild-essential-arm64 and the
# :arm64 dev packages) and runs its CPU test suites under qemu-user, once per CPU model, so that
# every aarch64 code path runs:
#   max         Armv8.x with dotprod and i8mm (what Neoverse and recent Cortex-A cores have)
#   cortex-a53  Armv8.0: NEON only
# Usage: scripts/test-arm64.sh [--quick]
#   --quick  only the kernel suites (the compute core, cortex_m with the CMSIS-NN vectors, the TOSA kernels and
#            the cross-kernel checks): what CI runs, to keep within its time.
# Build folder: build-arm64 (BUILD_ARM64 overrides). Vulkan is left out: no aarch64 device here.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = --quick ]; then quick=1; shift; fi
build=${BUILD_ARM64:-build-arm64}

# Dependencies: the cross compiler, qemu-user and the target's libraries (multiarch).
need=()
dpkg --print-foreign-architectures | grep -qx arm64 || need+=(add-arch)
for p in crossbuild-essential-arm64 qemu-user qemu-user-binfmt libgtest-dev:arm64 libgmock-dev:arm64 \
  libflatbuffers-dev:arm64; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "test-arm64: need root or sudo to install: ${need[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" dpkg --add-architecture arm64
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends crossbuild-essential-arm64 qemu-user \
    qemu-user-binfmt libgtest-dev:arm64 libgmock-dev:arm64 libflatbuffers-dev:arm64
fi

# Tests that start programs (executor_runner, vkrt_bench) need the kernel to hand aarch64 files
# to qemu: binfmt_misc, which qemu-user-binfmt describes but only systemd registers. Register it
# by hand where there is no systemd (containers, CI); without it those tests are left out.
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e $binfmt/qemu-aarch64 ] && [ "$(id -u)" = 0 ]; then
  [ -e $binfmt/register ] || mount -t binfmt_misc binfmt_misc $binfmt 2>/dev/null || true
  [ -w $binfmt/register ] && grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf > $binfmt/register 2>/dev/null || true
fi
exclude=''
if [ ! -e $binfmt/qemu-aarch64 ]; then
  echo "test-arm64: binfmt_misc has no qemu-aarch64 entry: the tests that start programs are left out"
  exclude='^(ExecutorRunner|EtdumpRunner|VkrtBench|VgfRunner)|^VgfPte\.(ExecutorRunner|Etdump)'
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVKRT_WITH_VULKAN=OFF -DVKRT_BUILD_BENCH=OFF -DVKRT_INSTALL=OFF \
  "${launcher[@]}" >/dev/null

if [ $quick = 1 ]; then
  cmake --build "$build" -j "$(nproc)" --target compute_test cortex_m_test tosa_kernels_test cross_kernels_test
  suites=(tests/compute tests/cortex_m tests/tosa_kernels tests/cross_kernels)
else
  cmake --build "$build" -j "$(nproc)"
  suites=(.)
fi

# The target loader and libraries of the :arm64 packages (libc6:arm64, under /lib). Not the
# cross toolchain's /usr/aarch64-linux-gnu: its ld.so is another build than the libc.so.6 the
# multiarch packages bring, and threads then hang in pthread_create.
export QEMU_LD_PREFIX=/
for cpu in max cortex-a53; do
  for suite in "${suites[@]}"; do
    echo "== aarch64 tests under qemu-user, CPU model $cpu: $suite"
    QEMU_CPU=$cpu ctest --test-dir "$build/$suite" --output-on-failure -j "$(nproc)" ${exclude:+-E "$exclude"}
  done
done

# The writers give the same bytes on both architectures: the sample programs written here and
# by the host build (when there is one) must be identical, file for file.
host_samples=${BUILD:-build}/examples/make_sample_programs
if [ $quick = 0 ] && [ -x "$host_samples" ]; then
  tmp=$(mktemp -d)
  "$host_samples" "$tmp/x86_64" >/dev/null
  QEMU_CPU=max qemu-aarch64 "$build/examples/make_sample_programs" "$tmp/aarch64" >/dev/null
  status=0
  for f in "$tmp"/x86_64/*; do
    if ! cmp -s "$f" "$tmp/aarch64/$(basename "$f")"; then echo "test-arm64: $(basename "$f") differs"; status=1; fi
  done
  echo "test-arm64: $(ls "$tmp/x86_64" | wc -l) sample programs written on both architectures, $([ $status = 0 ] && echo identical || echo NOT identical)"
  rm -rf "$tmp"
  exit $status
fi
