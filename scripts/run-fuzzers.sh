#!/usr/bin/env bash
# Builds the libFuzzer targets (every <part>/fuzz/*_fuzzer.cpp) with clang (ASan + UBSan) and runs
# each for a bounded time, seeded with its corpus kept in the repository
# (<part>/fuzz/corpus/<target>/) plus, where present, the shared conformance files that fit it
# (and, for vgf_fuzzer, the graphs the Vulkan tests run; for virtual_npu_fuzzer, the command
# streams of the conformance Vela models, extracted by make_fuzz_seeds --vela-streams).
# Usage: scripts/run-fuzzers.sh [--merge] [seconds-per-target] [target...]
#   --merge  seeds from the repository corpus alone (conformance files must never enter the
#            repository, not even mutated) and, after the run, writes the minimised corpus
#            (libFuzzer -merge=1) back into <part>/fuzz/corpus/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
merge=0
if [ "${1:-}" = --merge ]; then merge=1; shift; fi
seconds=${1:-60}
[ $# -gt 0 ] && shift
build=build-fuzz
conformance=${VKRT_CONFORMANCE_DIR:-$(pwd)/../shared/conformance}
[ $merge = 0 ] || conformance=/nonexistent

CC=clang CXX=clang++ cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -DVKRT_INSTALL=OFF \
  -DVKRT_BUILD_FUZZ=ON -DVKRT_SANITIZE=address,undefined -DVKRT_BUILD_TESTS=OFF -DVKRT_BUILD_BENCH=OFF \
  -DVKRT_WITH_VULKAN=ON ${VKRT_FUZZ_CMAKE_FLAGS:-} >/dev/null
# target name -> its source file (the corpus lives next to it).
declare -A source
for f in $(find runtime vgf ethosu executor_runner -path '*/fuzz/*_fuzzer.cpp' 2>/dev/null | sort); do
  source[$(basename "$f" .cpp)]=$f
done
targets=${*:-$(printf '%s\n' "${!source[@]}" | sort)}
# make_fuzz_seeds turns the conformance Vela models into virtual_npu_fuzzer inputs (below).
extra=
case " $(echo $targets) " in *" virtual_npu_fuzzer "*) [ $merge = 1 ] || extra=make_fuzz_seeds ;; esac
cmake --build $build -j "$(nproc)" --target $targets $extra

# vgf_fuzzer also gets a VGF file of every graph the Vulkan tests run (VKRT_TEST_WRITE_VGF, see
# tests/vulkan/vulkan_test_util.cpp): every op the Vulkan JIT lowers, with real attributes, which
# the few conformance files do not reach. Needs the main build's tests and a Vulkan device
# (lavapipe); without them the other seeds alone are used. Not with --merge (see above).
test_seeds=$(mktemp -d)
if [ $merge = 0 ]; then
  for t in ${VKRT_TEST_BUILD:-build}/tests/vulkan/vulkan_*_test; do
    if [ -x "$t" ]; then VKRT_TEST_WRITE_VGF=$test_seeds "$t" --gtest_brief=1 >/dev/null 2>&1 || true; fi
  done
fi

# Conformance files a target is seeded with (find arguments under $conformance).
conformance_seeds() {
  case "$1" in
    program_fuzzer) echo "pte" ;;
    ptd_fuzzer) echo ". -name *.ptd" ;;
    vgf_fuzzer) echo "vgf" ;;
    *) echo "" ;;
  esac
}

status=0
for t in $targets; do
  bin=$(find $build -type f -name "$t" -perm -u+x | head -n1)
  [ -n "$bin" ] || { echo "fuzz: $t was not built"; status=1; continue; }
  repo_corpus=$(dirname "${source[$t]}")/corpus/$t
  corpus=$(mktemp -d)
  [ -d "$repo_corpus" ] && cp "$repo_corpus"/. "$corpus/" -r
  seeds=$(conformance_seeds "$t")
  if [ -n "$seeds" ] && [ -d "$conformance" ]; then
    # shellcheck disable=SC2086
    (cd "$conformance" && find $seeds -type f -size -1024k -print0) |
      while IFS= read -r -d '' f; do cp "$conformance/$f" "$corpus/conformance-$(echo "$f" | tr / _)"; done
  fi
  if [ "$t" = vgf_fuzzer ]; then cp -r "$test_seeds"/. "$corpus/"; fi
  if [ "$t" = virtual_npu_fuzzer ] && [ -n "$extra" ] && [ -d "$conformance/ethos-u/tflite" ]; then
    "$build/runtime/fuzz/make_fuzz_seeds" --vela-streams "$conformance/ethos-u/tflite" "$corpus" || true
  fi
  echo "== fuzz $t for ${seconds}s (seeds: $(ls "$corpus" | wc -l))"
  if ! "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=25 -print_final_stats=1 \
       -artifact_prefix="$build/$t-" "$corpus" 2>&1 | tail -n 15; then
    echo "fuzz: $t found a crash; see $build/$t-*"
    status=1
  elif [ $merge = 1 ]; then
    merged=$(mktemp -d)
    "$bin" -merge=1 -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=25 "$merged" "$corpus" 2>&1 | tail -n 1
    mkdir -p "$repo_corpus"
    rm -f "$repo_corpus"/*
    cp "$merged"/. "$repo_corpus/" -r
    echo "fuzz: $repo_corpus now holds $(ls "$repo_corpus" | wc -l) files, $(du -sk "$repo_corpus" | cut -f1) KiB"
    rm -rf "$merged"
  fi
  rm -rf "$corpus"
done
rm -rf "$test_seeds"
exit $status
