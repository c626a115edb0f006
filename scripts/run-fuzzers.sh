#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time,
# seeded with the shared conformance files (and, for vgf_fuzzer, the graphs the Vulkan tests run).
# Usage: scripts/run-fuzzers.sh [seconds-per-target]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=build-fuzz
conformance=${VKRT_CONFORMANCE_DIR:-$(pwd)/../shared/conformance}

CC=clang CXX=clang++ cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -DVKRT_INSTALL=OFF \
  -DVKRT_BUILD_FUZZ=ON -DVKRT_SANITIZE=address,undefined -DVKRT_BUILD_TESTS=OFF -DVKRT_BUILD_BENCH=OFF \
  -DVKRT_WITH_VULKAN=ON >/dev/null
targets=$(find runtime vgf ethosu -path '*/fuzz/*.cpp' 2>/dev/null | xargs -r -n1 basename | sed 's/\.cpp$//' | sort -u)
cmake --build $build -j "$(nproc)" --target $targets

# vgf_fuzzer also gets a VGF file of every graph the Vulkan tests run (VKRT_TEST_WRITE_VGF, see
# tests/vulkan/vulkan_test_util.cpp): every op the Vulkan JIT lowers, with real attributes, which
# the few conformance files do not reach. Needs the main build's tests and a Vulkan device
# (lavapipe); without them the conformance seeds alone are used.
test_seeds=$(mktemp -d)
for t in ${VKRT_TEST_BUILD:-build}/tests/vulkan/vulkan_*_test; do
  if [ -x "$t" ]; then VKRT_TEST_WRITE_VGF=$test_seeds "$t" --gtest_brief=1 >/dev/null 2>&1 || true; fi
done

status=0
for t in $targets; do
  bin=$(find $build -type f -name "$t" -perm -u+x | head -n1)
  [ -n "$bin" ] || { echo "fuzz: $t was not built"; status=1; continue; }
  corpus=$(mktemp -d)
  case "$t" in
    program_fuzzer) seeds="$conformance/pte" ;;
    vgf_fuzzer) seeds="$conformance/vgf" ;;
    *) seeds="$conformance" ;;
  esac
  if [ -d "$seeds" ]; then find "$seeds" -type f -size -1024k -exec cp {} "$corpus/" \; ; fi
  if [ "$t" = vgf_fuzzer ]; then cp -r "$test_seeds"/. "$corpus/"; fi
  echo "== fuzz $t for ${seconds}s (seeds: $(ls "$corpus" | wc -l))"
  if ! "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
       -artifact_prefix="$build/$t-" "$corpus" 2>&1 | tail -n 15; then
    echo "fuzz: $t found a crash; see $build/$t-*"
    status=1
  fi
  rm -rf "$corpus"
done
rm -rf "$test_seeds"
exit $status
