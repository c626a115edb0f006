#!/usr/bin/env bash
# Everything a GPU host needs to check vkrt's Vulkan executor in one command
# (docs/vulkan-executor.md, "Running on an NVIDIA GPU host").
#
#   scripts/gpu-kit.sh pack    # here (Debian bookworm, x86-64): build and pack .gpukit/
#   scripts/gpu-kit.sh run     # on the GPU host, in the repository root, with .gpukit/ and .gl/
#
# The GPU hosts this project borrows have the NVIDIA driver, CMake and PyTorch, but no Vulkan
# loader, no glslang and no package registry. So `pack` builds here (Release, libstdc++ linked
# statically, cooperative-matrix shaders included through scripts/coopmat-toolchain.sh), keeps
# the programs that touch Vulkan, strips and compresses them, and adds the Vulkan loader
# packages (scripts/gpu-loader.sh), Debian's validation layer and the conformance files the
# tests read. `run` installs the loader, runs every Vulkan test with the validation layer and
# again with the default variants (cooperative matrices included), then the benchmark against
# PyTorch and executor_runner on the MobileNetV2-shaped VGF sample (GPU with the per-dispatch
# profile, then the CPU executor), and writes a summary and the logs under $OUT (or
# ./gpukit-out).
set -euo pipefail
cd "$(dirname "$0")/.."
kit=$PWD/.gpukit

pack() {
  [ -x .coopmat/bin/glslangValidator ] || scripts/coopmat-toolchain.sh fetch
  [ -n "$(ls .gl/*.deb 2>/dev/null)" ] || scripts/gpu-loader.sh fetch
  local build=build-gpukit
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DVKRT_BUILD_TESTS=ON -DVKRT_BUILD_BENCH=ON \
    -DVKRT_GLSLANG_VALIDATOR="$PWD/.coopmat/bin/glslangValidator" -DVKRT_SPIRV_VAL="$PWD/.coopmat/bin/spirv-val" \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
  cmake --build "$build" -j"$(nproc)"
  rm -rf "$kit" && mkdir -p "$kit/bin" "$kit/conformance" "$kit/debs"
  # The test programs holding a Vulkan test, from CTest's own list.
  ctest --test-dir "$build" -N -R 'Vulkan|Elementwise|VgfPte' --show-only=json-v1 |
    python3 -c 'import json,sys; print("\n".join(sorted({t["command"][0] for t in json.load(sys.stdin)["tests"]})))' \
    >"$kit/tests.txt"
  local programs
  mapfile -t programs < <(cat "$kit/tests.txt"; ls "$build"/bench/vulkan/*_bench \
    "$build"/executor_runner/executor_runner "$build"/examples/make_sample_programs)
  for p in "${programs[@]}"; do strip -o "$kit/bin/$(basename "$p")" "$p"; done
  sed -i 's#.*/##' "$kit/tests.txt"
  cp -r ../shared/conformance/pte ../shared/conformance/vgf "$kit/conformance/" 2>/dev/null ||
    echo "gpu-kit: ../shared/conformance missing: the conformance tests will skip" >&2
  (cd "$kit/debs" && apt-get download -oAPT::Architecture=amd64 vulkan-validationlayers 2>&1 | grep -v '^W:' || true)
  git rev-parse HEAD >"$kit/commit"
  tar -C "$kit" -cJf "$kit/bin.tar.xz" bin && rm -rf "$kit/bin"
  du -sh "$kit" .gl
  echo "carry: .gpukit .gl   command: bash scripts/gpu-kit.sh run"
}

run() {
  local out=${OUT:-$PWD/gpukit-out}
  mkdir -p "$out"
  [ -f "$kit/bin.tar.xz" ] || { echo "gpu-kit: no .gpukit/bin.tar.xz (run 'scripts/gpu-kit.sh pack' and carry .gpukit)" >&2; exit 1; }
  local work=/tmp/vkrt-gpukit
  rm -rf "$work" && mkdir -p "$work" && tar -C "$work" -xJf "$kit/bin.tar.xz"
  for deb in "$kit"/debs/*.deb; do dpkg -x "$deb" "$work/vvl"; done
  # GPUKIT_LOCAL=1: a rehearsal on a machine that has its own loader (nothing unpacked into /).
  if [ "${GPUKIT_LOCAL:-0}" != 1 ]; then
    # shellcheck disable=SC1090
    source <(scripts/gpu-loader.sh install)
  fi
  export VK_LAYER_PATH=$work/vvl/usr/share/vulkan/explicit_layer.d
  export LD_LIBRARY_PATH=$work/vvl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export VKRT_CONFORMANCE_DIR=$kit/conformance VKRT_VULKAN_DEVICE=${VKRT_VULKAN_DEVICE:-NVIDIA}
  export VKRT_VULKAN_CACHE_DIR=$work/cache
  local summary=$out/summary.txt
  {
    echo "commit $(cat "$kit/commit"), $(date -u)"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
  } >"$summary"

  # 1. Every Vulkan test with the validation layer. Debian bookworm's layer predates
  #    VK_KHR_cooperative_matrix, so this pass declines it (the dot variants run instead).
  local t
  for t in $(cat "$kit/tests.txt"); do
    VKRT_VULKAN_VALIDATION=1 VKRT_VULKAN_VARIANTS=dot timeout 600 "$work/bin/$t" --gtest_brief=1 \
      >"$out/validated.log.$t" 2>&1 && r=ok || r="FAILED (rc $?)"
    echo "validated dot: $t: $r $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/validated.log.$t" | tr '\n' ' ')" >>"$summary"
  done
  # 2. The same with the default policy (cooperative matrices where the device lists them), no layer.
  for t in $(cat "$kit/tests.txt"); do
    timeout 600 "$work/bin/$t" --gtest_brief=1 >"$out/auto.log.$t" 2>&1 && r=ok || r="FAILED (rc $?)"
    echo "auto: $t: $r $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/auto.log.$t" | tr '\n' ' ')" >>"$summary"
  done
  grep -h "device:" "$out"/auto.log.vulkan_variants_test >>"$summary" || true
  # 3. The benchmark: GEMM against PyTorch on the same GPU, MobileNetV2-shaped graph, init times;
  #    then the same with the dot variants only (what the cooperative matrices add).
  #    GPUKIT_BENCH overrides the shapes (a rehearsal on lavapipe needs small ones).
  local shapes=${GPUKIT_BENCH:---gemm_sizes=4096,mnv2 --mnv2_batches=1,16 --mnv2_res=224}
  # shellcheck disable=SC2086
  timeout 900 "$work/bin/vulkan_bench" $shapes --torch=python3 \
    --torch_script="$PWD/bench/vulkan/torch_gemm.py" >"$out/bench.log" 2>&1 || echo "bench rc $?" >>"$summary"
  # shellcheck disable=SC2086
  VKRT_VULKAN_VARIANTS=dot timeout 600 "$work/bin/vulkan_bench" $shapes >"$out/bench_dot.log" 2>&1 ||
    echo "bench (dot) rc $?" >>"$summary"
  grep -E "^(Gemm|MobileNet|Init|shape|[0-9]+x[0-9]+x[0-9]+)" "$out/bench.log" >>"$summary" || true
  # 4. What a user runs: the MobileNetV2-shaped VGF sample through executor_runner, on the GPU
  #    with the per-dispatch profile, then on the CPU executor for comparison.
  "$work/bin/make_sample_programs" "$work/samples" >/dev/null
  local sample=$work/samples/mobilenet_v2_int8_vgf.pte
  timeout 300 "$work/bin/executor_runner" "$sample" --vgf_executor vulkan --num_executions 50 --profile \
    >"$out/runner_gpu.log" 2>&1 || echo "executor_runner (vulkan) rc $?" >>"$summary"
  timeout 300 "$work/bin/executor_runner" "$sample" --vgf_executor cpu --num_executions 3 \
    >"$out/runner_cpu.log" 2>&1 || echo "executor_runner (cpu) rc $?" >>"$summary"
  grep -h "Executions:" "$out/runner_gpu.log" "$out/runner_cpu.log" | sed 's/^/runner: /' >>"$summary" || true
  # Logs: at most 8 files come back from a device run, so bundle them.
  (cd "$out" && tar -czf logs.tar.gz ./*.log* && rm -f ./*.log.* )
  cat "$summary"
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
