#!/usr/bin/env python3
"""PyTorch peer for vulkan_bench: int8 and fp16 matmul throughput on the CUDA device.

usage: torch_gemm.py MxNxK [MxNxK ...]

For each shape, prints one line per dtype:
    torch int8 MxNxK <GOP/s>      (torch._int_mm: int8 x int8 -> int32)
    torch fp16 MxNxK <GOP/s>      (torch.matmul on float16)
or  torch <dtype> MxNxK error <reason>
and, when PyTorch or CUDA is missing, a single line "torch unavailable <reason>".
GOP/s counts 2*M*N*K operations per product, timed with CUDA events over enough repetitions to
last at least 0.2 s after a warm-up; the operands live on the GPU for the whole run.
"""
import sys


def measure(torch, fn, ops):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    reps = 1
    while True:
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        torch.cuda.synchronize()
        seconds = start.elapsed_time(stop) / 1e3
        if seconds >= 0.2 or reps >= 1 << 16:
            return ops * reps / seconds / 1e9
        reps *= 2


def main(argv):
    try:
        import torch
    except ImportError as e:
        print(f"torch unavailable {e}")
        return 0
    if not torch.cuda.is_available():
        print("torch unavailable CUDA is not available")
        return 0
    for shape in argv[1:]:
        m, n, k = (int(v) for v in shape.split("x"))
        ops = 2.0 * m * n * k
        a8 = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
        b8 = torch.randint(-128, 128, (k, n), dtype=torch.int8, device="cuda")
        a16 = torch.randn((m, k), dtype=torch.float16, device="cuda")
        b16 = torch.randn((k, n), dtype=torch.float16, device="cuda")
        for name, fn in (("int8", lambda: torch._int_mm(a8, b8)), ("fp16", lambda: a16 @ b16)):
            try:
                print(f"torch {name} {shape} {measure(torch, fn, ops):.1f}", flush=True)
            except Exception as e:  # e.g. _int_mm's shape rules (M > 16, K and N multiples of 8)
                reason = str(e).splitlines()[0] if str(e) else type(e).__name__
                print(f"torch {name} {shape} error {reason}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
