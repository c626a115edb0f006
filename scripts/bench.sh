#!/usr/bin/env bash
# `make bench`: runs vkrt_bench over every sample program (make_sample_programs) and writes
# docs/benchmarks.md (machine, CPU, Vulkan driver, commands, tables) and docs/bench/<sample>.png.
# Usage: scripts/bench.sh [build-dir] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-50}
samples=$build/samples
bench=$build/bench/vkrt_bench/vkrt_bench
out=docs/benchmarks.md
mkdir -p docs/bench
# The GPU host's section (written from scripts/gpu-kit.sh's output) is kept: from its marker on.
gpu_section=$(sed -n '/^<!-- gpu-kit/,$p' "$out" 2>/dev/null || true)
"$build/examples/make_sample_programs" "$samples" >/dev/null

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512_vnni|avx_vnni|asimd|asimddp|i8mm)$' | tr '\n' ' ')
gpu=$( (vulkaninfo --summary 2>/dev/null || true) | grep -E 'deviceName|driverInfo' | sed 's/^[[:space:]]*//; s/[[:space:]]*=[[:space:]]*/: /' | paste -sd ';' - | sed 's/;/; /g')
{
  echo "# Benchmarks"
  echo
  echo "Written by \`make bench\` (scripts/bench.sh) on $(date -u +%Y-%m-%d): vkrt_bench over every sample program"
  echo "(README, \"Sample programs\"), $runs timed runs after 5 warm-up, 1 CPU thread. Figures are from this machine only;"
  echo "compare placements within one table, not across machines."
  echo
  echo "- CPU: $cpu ($(nproc) cores; $flags)"
  echo "- Vulkan: ${gpu:-no vulkaninfo}"
  echo
} > "$out"
for pte in "$samples"/*.pte; do
  name=$(basename "$pte" .pte)
  data=()
  [ -f "$samples/$name.ptd" ] && data=(--data_path "$samples/$name.ptd")
  # Ethos-U samples run on the virtual NPU where the machine has no NPU device (its times are the
  # host's simulating it, not an NPU's).
  npu=()
  if [[ $name == *ethos_u* ]] && ! ls /dev/ethosu* /dev/accel/accel* >/dev/null 2>&1; then
    npu=(--ethosu_driver virtual)
  fi
  echo "== $name" >&2
  {
    echo "## $name"
    echo
    echo "\`vkrt_bench $name.pte ${data[*]:+--data_path $name.ptd }${npu[*]:+--ethosu_driver virtual }--runs $runs --plot docs/bench/$name.png\`"
    echo
    echo '```'
    # stdout (the table) into the page; stderr (warnings, errors) to the terminal.
    if ! "$bench" "$pte" "${data[@]}" "${npu[@]}" --runs "$runs" --no_progress --plot "docs/bench/$name.png"; then
      echo "(vkrt_bench failed)"
    fi
    echo '```'
    echo
    [ -f "docs/bench/$name.png" ] && echo "![$name](bench/$name.png)" && echo
  } >> "$out"
  rm -f "docs/bench/$name.png.json"
done
[ -n "$gpu_section" ] && printf '%s\n' "$gpu_section" >> "$out"
echo "wrote $out and docs/bench/*.png" >&2
