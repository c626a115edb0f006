#!/usr/bin/env bash
# Everything a GPU host needs to check vkrt's Vulkan executor in one command
# (docs/vulkan-executor.md, "Running on an NVIDIA GPU host").
#
#   scripts/gpu-kit.sh pack    # here (Debian bookworm, x86-64): build and pack .gpukit/
#   scripts/gpu-kit.sh run     # on the GPU host, in the repository root, with .gpukit/ carried
#   scripts/gpu-kit.sh threads # there too: the CPU executor at 1, 2, 4, 8 and every core
#
# The GPU hosts this project borrows have the NVIDIA driver, CMake and PyTorch, but no Vulkan
# loader, no glslang, no package registry, and a glibc of their own. So `pack` builds here
# (Release, cooperative-matrix shaders included through scripts/coopmat-toolchain.sh), keeps the
# programs that touch Vulkan, strips and compresses them, and adds the Debian packages they run
# on: glibc, libstdc++, Google Benchmark, the Vulkan loader and glvnd (scripts/gpu-loader.sh's
# list) and the validation layer, plus the conformance files the tests read. `run` unpacks those
# packages into a private folder (nothing goes into /) and starts every program under that
# glibc's dynamic loader, so the host's own libraries do not matter; the NVIDIA driver is found
# through its ICD manifest. It runs every Vulkan test with the validation layer and again with
# the default variants (cooperative matrices included), the benchmark against PyTorch, and
# executor_runner on the MobileNetV2-shaped VGF sample (GPU with the per-dispatch profile, then
# the CPU executor), and writes a summary and the logs under $OUT (or ./gpukit-out).
set -euo pipefail
cd "$(dirname "$0")/.."
kit=$PWD/.gpukit

pack() {
  [ -x .coopmat/bin/glslangValidator ] || scripts/coopmat-toolchain.sh fetch
  [ -n "$(ls .gl/*.deb 2>/dev/null)" ] || scripts/gpu-loader.sh fetch
  local build=build-gpukit
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DVKRT_BUILD_TESTS=ON -DVKRT_BUILD_BENCH=ON \
    -DVKRT_GLSLANG_VALIDATOR="$PWD/.coopmat/bin/glslangValidator" -DVKRT_SPIRV_VAL="$PWD/.coopmat/bin/spirv-val" \
    -DCMAKE_EXE_LINKER_FLAGS= >/dev/null
  cmake --build "$build" -j"$(nproc)"
  rm -rf "$kit" && mkdir -p "$kit/bin" "$kit/conformance" "$kit/debs"
  # The test programs holding a Vulkan test, from CTest's own list.
  ctest --test-dir "$build" -N -R 'Vulkan|Elementwise|VgfPte' --show-only=json-v1 |
    python3 -c 'import json,sys; print("\n".join(sorted({t["command"][0] for t in json.load(sys.stdin)["tests"]})))' \
    >"$kit/tests.txt"
  local programs
  mapfile -t programs < <(cat "$kit/tests.txt"; ls "$build"/bench/vulkan/*_bench \
    "$build"/bench/vkrt_bench/vkrt_bench "$build"/executor_runner/executor_runner "$build"/examples/make_sample_programs)
  for p in "${programs[@]}"; do strip -o "$kit/bin/$(basename "$p")" "$p"; done
  sed -i 's#.*/##' "$kit/tests.txt"
  cp -r ../shared/conformance/pte ../shared/conformance/vgf "$kit/conformance/" 2>/dev/null ||
    echo "gpu-kit: ../shared/conformance missing: the conformance tests will skip" >&2
  # What the programs are linked against (ldd: libc, libm, libstdc++, libgcc_s, libbenchmark),
  # the validation layer, flatc (the ETDump tests decode with it), and the X11 libraries the NVIDIA
  # Vulkan driver (libGLX_nvidia) loads: the host's need a newer glibc than the packed one.
  (cd "$kit/debs" && apt-get download -oAPT::Architecture=amd64 libc6 libstdc++6 libgcc-s1 \
    libbenchmark1debian vulkan-validationlayers flatbuffers-compiler libflatbuffers2 \
    libx11-6 libx11-data libx11-xcb1 libxext6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0 2>&1 | grep -v '^W:' || true)
  cp .gl/*.deb "$kit/debs/"
  git rev-parse HEAD >"$kit/commit"
  tar -C "$kit" -cJf "$kit/bin.tar.xz" bin && rm -rf "$kit/bin"
  du -sh "$kit"
  echo "carry: .gpukit   command: bash scripts/gpu-kit.sh run"
}

# Prepares $work: programs, the private root of packages, and $work/run, which starts a program
# under the packed glibc's loader.
unpack() {
  [ -f "$kit/bin.tar.xz" ] || { echo "gpu-kit: no .gpukit/bin.tar.xz (run 'scripts/gpu-kit.sh pack' and carry .gpukit)" >&2; exit 1; }
  rm -rf "$work" && mkdir -p "$work"
  # Python's tarfile rather than tar -J: the host may lack xz, never python3 (PyTorch is there).
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$kit/bin.tar.xz" "$work"
  local root=$work/root deb
  for deb in "$kit"/debs/*.deb; do dpkg -x "$deb" "$root"; done
  # The packed folders first; then the host's, where the NVIDIA driver's libraries are. The
  # loader ignores LD_LIBRARY_PATH when given --library-path, so that is appended too.
  # (lib64/ld-linux-x86-64.so.2 is an absolute link to the host's loader: the real file is used.)
  local libs=$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu
  libs+=:/usr/local/nvidia/lib64:/usr/local/nvidia/lib:/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu
  libs+=${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  printf '#!/bin/sh\nexec %s --library-path %s "$@"\n' "$root/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" "$libs" >"$work/run"
  chmod +x "$work/run"
  export VK_LAYER_PATH=$root/usr/share/vulkan/explicit_layer.d
  local manifest
  for manifest in ${GPUKIT_ICD:-} /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json \
                  /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
    if [ -f "$manifest" ]; then
      export VK_DRIVER_FILES=$manifest
      return
    fi
  done
  echo "gpu-kit: no NVIDIA ICD manifest found; the loader uses whatever driver it finds" >&2
}

run() {
  local out=${OUT:-$PWD/gpukit-out}
  work=/tmp/vkrt-gpukit
  mkdir -p "$out"
  unpack
  export VKRT_CONFORMANCE_DIR=$kit/conformance VKRT_VULKAN_DEVICE=${VKRT_VULKAN_DEVICE:-NVIDIA}
  export VKRT_VULKAN_CACHE_DIR=$work/cache
  # The tests that start executor_runner start the packed one, under the packed loader.
  export VKRT_TEST_EXECUTOR_RUNNER="$work/run $work/bin/executor_runner"
  #    and flatc, which decodes the ETDump files they write with the schema in this checkout.
  export VKRT_TEST_FLATC="$work/run $work/root/usr/bin/flatc" VKRT_TEST_SCHEMA_DIR=$PWD/runtime/schema
  local summary=$out/summary.txt t r
  {
    echo "commit $(cat "$kit/commit"), $(date -u)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,memory.total \
      --format=csv 2>/dev/null || true
  } >"$summary"

  # 1. Every Vulkan test with the validation layer. Debian bookworm's layer predates
  #    VK_KHR_cooperative_matrix, so this pass declines it (the dot variants run instead).
  for t in $(cat "$kit/tests.txt"); do
    VKRT_VULKAN_VALIDATION=1 VKRT_VULKAN_VARIANTS=dot timeout 150 "$work/run" "$work/bin/$t" --gtest_brief=1 \
      >"$out/validated.log.$t" 2>&1 && r=ok || r="FAILED (rc $?)"
    echo "validated dot: $t: $r $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/validated.log.$t" | tr '\n' ' ')" >>"$summary"
  done
  echo "-- validated pass done at ${SECONDS}s" >>"$summary"
  # 2. The same with the default policy (cooperative matrices where the device lists them), no layer
  #    (the tests turn it on unless VKRT_VULKAN_VALIDATION says otherwise).
  for t in $(cat "$kit/tests.txt"); do
    VKRT_VULKAN_VALIDATION=0 timeout 150 "$work/run" "$work/bin/$t" --gtest_brief=1 >"$out/auto.log.$t" 2>&1 && r=ok || r="FAILED (rc $?)"
    echo "auto: $t: $r $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/auto.log.$t" | tr '\n' ' ')" >>"$summary"
  done
  grep -h "device:" "$out"/auto.log.vulkan_variants_test >>"$summary" || true
  echo "-- default pass done at ${SECONDS}s" >>"$summary"
  # 3. The benchmark: GEMM against PyTorch on the same GPU (each line names the shader variant),
  #    the MobileNetV2-shaped graph, cold vs warm init; then the dot variants only.
  #    GPUKIT_BENCH overrides the shapes (a rehearsal on lavapipe needs small ones).
  local shapes=${GPUKIT_BENCH:---gemm_sizes=4096,mnv2 --mnv2_batches=1,16 --mnv2_res=224}
  #    NVIDIA's own shader disk cache is off, so that cold init is cold on every iteration.
  # shellcheck disable=SC2086
  __GL_SHADER_DISK_CACHE=0 timeout 240 "$work/run" "$work/bin/vulkan_bench" $shapes --torch=python3 \
    --torch_script="$PWD/bench/vulkan/torch_gemm.py" >"$out/bench.log" 2>&1 || echo "bench rc $?" >>"$summary"
  # shellcheck disable=SC2086
  VKRT_VULKAN_VARIANTS=dot timeout 150 "$work/run" "$work/bin/vulkan_bench" $shapes >"$out/bench_dot.log" 2>&1 ||
    echo "bench (dot) rc $?" >>"$summary"
  grep -E "^(Gemm|MobileNet|Init|shape|[0-9]+x[0-9]+x[0-9]+)" "$out/bench.log" >>"$summary" || true
  echo "-- benchmarks done at ${SECONDS}s" >>"$summary"
  #    Every 16-family cooperative-matrix layout (VKRT_VULKAN_COOPMAT) on the same GEMMs: the
  #    default picks 16w where the GEMM fills 256 blocks of 128x128, else 16; the others
  #    are candidates. GPUKIT_LAYOUTS names fewer ("" skips them: 3.5 of the kit's 6 minutes).
  for layout in ${GPUKIT_LAYOUTS-16 16w 16b 16x 16y 16z}; do
    # shellcheck disable=SC2086
    VKRT_VULKAN_COOPMAT=$layout timeout 60 "$work/run" "$work/bin/vulkan_bench" $shapes --mnv2_batches= \
      --benchmark_filter=Gemm >"$out/bench_$layout.log.txt" 2>&1 || echo "bench ($layout) rc $?" >>"$summary"
    grep -E "^Gemm" "$out/bench_$layout.log.txt" | sed "s/^/$layout: /" >>"$summary" || true
  done
  #    The MobileNetV2-shaped graph with every 1x1 convolution on the 64x64 layout, against the
  #    default's mix of 16w and 16 above.
  # shellcheck disable=SC2086
  VKRT_VULKAN_COOPMAT=16 timeout 90 "$work/run" "$work/bin/vulkan_bench" $shapes --benchmark_filter=MobileNet \
    >"$out/bench_mnv2_16.log.txt" 2>&1 || echo "bench (MobileNetV2, 16) rc $?" >>"$summary"
  grep -E "^MobileNet" "$out/bench_mnv2_16.log.txt" | sed "s/^/16: /" >>"$summary" || true
  echo "-- layouts done at ${SECONDS}s" >>"$summary"
  # 4. What a user runs: the MobileNetV2-shaped VGF sample through executor_runner, on the GPU
  #    with the per-dispatch profile and its outputs compared with the CPU executor's, then on the
  #    CPU executor for timing (one thread, and every core).
  "$work/run" "$work/bin/make_sample_programs" "$work/samples" >/dev/null
  local sample=$work/samples/mobilenet_v2_int8_vgf.pte
  #    Init as a user meets it: a fresh process with an empty pipeline cache, then with the file
  #    the first one wrote ("Model loaded in ... (delegate init ...)").
  for r in cold warm; do
    if [ "$r" = cold ]; then rm -rf "$work/runner-cache"; fi
    VKRT_VULKAN_CACHE_DIR=$work/runner-cache __GL_SHADER_DISK_CACHE=0 timeout 60 "$work/run" \
      "$work/bin/executor_runner" "$sample" --vgf_executor vulkan --num_executions 1 >"$out/runner_$r.log" 2>&1 ||
      echo "executor_runner ($r init) rc $?" >>"$summary"
    grep -h "Model loaded" "$out/runner_$r.log" | sed "s/^/runner $r init: /" >>"$summary" || true
  done
  #    --compare_with_cpu: the GPU's outputs against the CPU executor's, with zero tolerance.
  timeout 90 "$work/run" "$work/bin/executor_runner" "$sample" --vgf_executor vulkan --num_executions 50 \
    --profile --compare_with_cpu --bundleio_rtol 0 --bundleio_atol 0 >"$out/runner_gpu.log" 2>&1 ||
    echo "executor_runner (vulkan) rc $?" >>"$summary"
  grep -hE "^(Compared with|Output [0-9]+: )" "$out/runner_gpu.log" | sed "s/^/runner_gpu vs cpu: /" >>"$summary" || true
  timeout 90 "$work/run" "$work/bin/executor_runner" "$sample" --vgf_executor cpu --num_executions 5 \
    >"$out/runner_cpu.log" 2>&1 || echo "executor_runner (cpu) rc $?" >>"$summary"
  timeout 90 "$work/run" "$work/bin/executor_runner" "$sample" --vgf_executor cpu --num_executions 10 \
    --num_threads "$(nproc)" >"$out/runner_cpu_threads.log" 2>&1 || echo "executor_runner (cpu, threads) rc $?" >>"$summary"
  for f in runner_gpu runner_cpu runner_cpu_threads; do
    grep -h "Executions:" "$out/$f.log" | sed "s/^/$f: /" >>"$summary" || true
  done
  echo "-- executor_runner done at ${SECONDS}s" >>"$summary"
  # 5. vkrt_bench over every VGF sample (docs/benchmarks.md's GPU tables): the Vulkan device
  #    against the CPU executor on one thread, in one table per sample, and the same as JSON.
  local name
  for sample in "$work"/samples/*_vgf.pte; do
    name=$(basename "$sample" .pte)
    timeout 90 "$work/run" "$work/bin/vkrt_bench" "$sample" --runs 30 --no_progress >"$out/vkrt_bench_$name.txt" \
      2>"$out/vkrt_bench_$name.log" || echo "vkrt_bench $name rc $?" >>"$summary"
  done
  echo "-- vkrt_bench done at ${SECONDS}s" >>"$summary"
  # At most 8 files come back from a device run, so everything but the summary is bundled.
  (cd "$out" && tar -czf logs.tar.gz ./*.log* ./vkrt_bench_* && rm -f ./*.log* ./vkrt_bench_*)
  cat "$summary"
}

# The CPU executor's threads on the GPU host (16 cores, shared): what the scheduler gives the
# process (affinity, the cgroup's CPU quota) and the int8 sample's times at 1, 2, 4, 8 and every
# core, one process each.
threads() {
  local out=${OUT:-$PWD/gpukit-out} sample n
  work=/tmp/vkrt-gpukit
  mkdir -p "$out"
  unpack
  "$work/run" "$work/bin/make_sample_programs" "$work/samples" >/dev/null
  sample=$work/samples/mobilenet_v2_int8_vgf.pte
  {
    echo "nproc $(nproc); cgroup cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo none);" \
      "$(grep -m1 'model name' /proc/cpuinfo)"
    for n in 1 2 4 8 "$(nproc)"; do
      echo "threads $n: $(timeout 60 "$work/run" "$work/bin/executor_runner" "$sample" --vgf_executor cpu \
        --num_executions 20 --num_threads "$n" 2>&1 | grep Executions)"
    done
  } | tee "$out/threads.txt"
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  threads) threads ;;
  *) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
