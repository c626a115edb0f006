"""Binary elementwise ops with broadcasting and type promotion (op_arithmetic.cpp, ...)."""
import torch

from oracle import ALL_DTYPES, REAL_DTYPES, channels_last

aten = torch.ops.aten


def _promoted(a, b):
    return torch.promote_types(a.dtype, b.dtype)


def cases(g):
    shapes = [((2, 3), (2, 3)), ((2, 1, 4), (3, 1)), ((), (5,)), ((0, 3), (3,))]
    for op, fn, has_alpha in [("add", aten.add, True), ("sub", aten.sub, True), ("mul", aten.mul, False)]:
        for dt in REAL_DTYPES:
            for sa, sb in shapes:
                a, b = g.rand(sa, dt), g.rand(sb, dt)
                ref = fn.Tensor(a, b)
                args = [a, b, 1] if has_alpha else [a, b]
                g.add(f"aten::{op}.out", args, [ref])
        # mixed dtypes promote; alpha scales other
        a, b = g.rand((3, 4), torch.int32), g.rand((4,), torch.float32)
        ref = fn.Tensor(a, b, alpha=2) if has_alpha else fn.Tensor(a, b)
        g.add(f"aten::{op}.out", [a, b, 2] if has_alpha else [a, b], [ref])
        # channels-last operands and out
        a, b = channels_last(g.rand((2, 3, 4, 5))), g.rand((3, 1, 1))
        ref = channels_last(fn.Tensor(a, b))
        g.add(f"aten::{op}.out", [a, b, 1] if has_alpha else [a, b], [ref])
        # an out dtype the result cannot be cast to
        a, b = g.rand((2,), torch.float32), g.rand((2,), torch.float32)
        g.error(f"aten::{op}.out", [a, b, 1] if has_alpha else [a, b], [torch.zeros(2, dtype=torch.int32)])
    for dt in [torch.float32, torch.float64, torch.float16]:
        a, b = g.edges(dt), g.edges(dt).flip(0)
        g.add("aten::div.out", [a, b], [aten.div.Tensor(a, b)])
    a, b = g.rand((4,), torch.int32), g.rand((4,), torch.int32, 1, 9)
    g.add("aten::div.out", [a, b], [aten.div.Tensor(a, b)])
