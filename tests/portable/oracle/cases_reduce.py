"""Reductions and scans (op_reduce.cpp, op_minmax.cpp, op_cumsum.cpp, op_topk.cpp,
op_distance.cpp, op_softmax.cpp).

Expected values come from torch 1.13's ops (mostly the very .out overload). Where torch 1.13
lacks the op (any.dims_out, max/min.unary_out, mean.dtype_out) or the dtype (float16 /
bfloat16 for cumsum, prod, softmax, topk, cdist, pdist), the expectation is composed from
torch ops in float32 (as the kernels compute half and bfloat16) and cast back: those cases
go through g.hand. Where ExecuTorch's portable kernel and torch 1.13 differ, the case
expects upstream's behaviour (see the comments marked UPSTREAM).
"""
import torch

from oracle import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, REAL_DTYPES, DType, channels_last

aten = torch.ops.aten
LOW_PREC = (torch.float16, torch.bfloat16)


def _add(g, op, args, outs, hand=False, **kw):
    (g.hand if hand else g.add)(op, args, outs, **kw)


def _distinct(g, shape, dtype):
    """Values without ties (so that indices of max/min/argmax/topk are unique)."""
    n = 1
    for s in shape:
        n *= s
    perm = torch.randperm(n, generator=g.rng)
    if dtype == torch.uint8:
        vals = perm % 250
    elif dtype == torch.int8:
        vals = perm % 250 - 125
    elif dtype.is_floating_point:
        vals = perm.to(torch.float64) * 0.25 - n * 0.125
    else:
        vals = perm * 3 - n
    return vals.reshape(shape).to(dtype)


def _float_ref(dt, fn, *xs):
    """fn over xs computed in float32 when torch lacks dt, cast back: (result, is_hand)."""
    if dt in LOW_PREC:
        try:
            return fn(*xs), False
        except RuntimeError:
            r = fn(*[x.float() for x in xs])
            if isinstance(r, tuple):
                return tuple(t.to(dt) if t.is_floating_point() else t for t in r), True
            return r.to(dt), True
    return fn(*xs), False


def sum_mean(g):
    op = "aten::sum.IntList_out"
    for dt in ALL_DTYPES:
        x = g.rand((3, 4), dt)
        g.add(op, [x, [1], False, None], [torch.sum(x, [1])])
        e = g.edges(dt)
        g.add(op, [e, [0], False, None], [torch.sum(e, [0])], label=f"sum-edges-{dt}")
    x = g.rand((2, 3, 4), torch.int32)
    g.add(op, [x, [0, 2], True, DType(torch.float32)], [torch.sum(x, [0, 2], True, dtype=torch.float32)])
    x = g.rand((2, 3, 4), torch.float32)
    g.add(op, [x, [], False, None], [torch.sum(x)])  # [] = every dim
    g.add(op, [x, None, True, None], [torch.sum(x, [0, 1, 2], True)], dynamic=[[3, 3, 3]])
    g.add(op, [g.rand((0, 3)), [0], False, None], [torch.zeros(3)])
    x = g.rand((), torch.float64)
    g.add(op, [x, [0], False, None], [torch.sum(x, [0])])
    x = channels_last(g.rand((2, 3, 4, 5)))
    g.add(op, [x, [1], True, None], [channels_last(torch.sum(x, [1], True))])
    g.add(op, [x, [-1, -2], False, None], [torch.sum(x, [-1, -2])])
    g.error(op, [x, [4], False, None], [torch.zeros(2, 3, 4)], label="sum-bad-dim")
    g.error(op, [x, [1, 1], False, None], [torch.zeros(2, 4, 5)], label="sum-dup-dim")
    g.error(op, [x, [1], False, DType(torch.float64)], [torch.zeros(2, 4, 5)], label="sum-dtype-mismatch")
    g.error(op, [x, [1], False, None], [torch.zeros(2, 4)], label="sum-bad-shape")

    op = "aten::mean.out"
    for dt in FLOAT_DTYPES:
        x = g.rand((3, 5), dt)
        g.add(op, [x, [1], False, None], [torch.mean(x, [1])])
        e = g.edges(dt)[3:]  # without NaN/inf: a float16 sum of the huge edges overflows
        ref = torch.mean(e.double(), [0]).to(dt)  # accumulated wide, as the kernel does
        g.hand(op, [e, [0], False, None], [ref], label=f"mean-edges-{dt}")
    x = g.rand((2, 3, 4), torch.int16)
    g.add(op, [x, [1], True, DType(torch.float64)], [torch.mean(x, [1], True, dtype=torch.float64)])
    x = channels_last(g.rand((2, 3, 4, 5), torch.float32))
    g.add(op, [x, [2, 3], True, None], [channels_last(torch.mean(x, [2, 3], True))])
    g.add(op, [g.rand((0, 3)), [0], False, None], [torch.mean(g.rand((0, 3)), [0])])  # NaN
    x = g.rand((), torch.float32)
    g.add(op, [x, None, False, None], [torch.mean(x)])
    # UPSTREAM: an integral self needs dtype (torch 1.13 raises too).
    g.error(op, [g.rand((3,), torch.int32), [0], False, None], [torch.zeros(())], label="mean-int-self")
    g.error(op, [g.rand((3, 2)), [0], False, None], [torch.zeros((3,))], label="mean-bad-shape")

    op = "aten::mean.dtype_out"  # torch 1.13 lacks it: torch.mean(x, dtype=...)
    for dt in FLOAT_DTYPES:
        x = g.rand((2, 3, 2), dt)
        g.hand(op, [x, None], [torch.mean(x.double()).to(dt)])
    x = g.rand((4, 3), torch.int64)
    g.hand(op, [x, DType(torch.float32)], [torch.mean(x, dtype=torch.float32)])
    x = channels_last(g.rand((1, 2, 2, 3), torch.float32))
    g.hand(op, [x, DType(torch.float32)], [torch.mean(x)])
    g.hand(op, [g.rand((0,)), None], [torch.tensor(float("nan"))])
    g.error(op, [g.rand((4,)), DType(torch.float64)], [torch.zeros((), dtype=torch.float32)])
    g.error(op, [g.rand((4,), torch.int32), None], [torch.zeros(())], label="mean-dtype-int-self")


def prod(g):
    op = "aten::prod.out"
    for dt in ALL_DTYPES:
        if dt.is_floating_point:
            x = g.rand((2, 3), dt, 0.5, 1.5)
        elif dt == torch.bool:
            x = g.rand((2, 3), dt)
        else:
            x = g.rand((2, 3), dt, 0 if dt == torch.uint8 else -3, 4)
        ref, hand = _float_ref(dt, lambda t: torch.prod(t), x)
        _add(g, op, [x, None], [ref], hand)
        e = g.edges(dt)
        ref, hand = _float_ref(dt, lambda t: torch.prod(t), e)
        _add(g, op, [e, None], [ref], hand, label=f"prod-edges-{dt}")
    x = g.rand((6,), torch.int64, -1000000, 1000000)  # int64 wraps like torch
    g.add(op, [x, None], [torch.prod(x)])
    x = g.rand((3,), torch.int32)
    g.add(op, [x, DType(torch.float64)], [torch.prod(x, dtype=torch.float64)])
    x = channels_last(g.rand((1, 2, 2, 2), torch.float32, 0.5, 1.5))
    g.add(op, [x, None], [torch.prod(x)])
    g.add(op, [g.rand((0, 2)), None], [torch.tensor(1.0)])
    g.add(op, [torch.tensor(3.5), None], [torch.tensor(3.5)])
    g.error(op, [g.rand((3,), torch.int32), None], [torch.zeros((), dtype=torch.int32)], label="prod-int-out-not-long")
    g.error(op, [g.rand((3,)), None], [torch.zeros((1,))], label="prod-bad-shape")

    op = "aten::prod.int_out"
    for dt in ALL_DTYPES:
        x = g.rand((3, 4), dt, 0.5, 1.5) if dt.is_floating_point else g.rand((3, 4), dt)
        ref, hand = _float_ref(dt, lambda t: torch.prod(t, 1), x)
        _add(g, op, [x, 1, False, None], [ref], hand)
    x = channels_last(g.rand((2, 3, 2, 2), torch.float64))
    g.add(op, [x, 1, True, None], [channels_last(torch.prod(x, 1, True))])
    g.add(op, [x, -1, False, None], [torch.prod(x, -1)])
    x = g.rand((2, 3), torch.int8)
    g.add(op, [x, 0, False, DType(torch.float32)], [torch.prod(x, 0, dtype=torch.float32)])
    g.add(op, [g.rand((2, 0)), 1, False, None], [torch.ones(2)])  # empty dim: product 1
    g.add(op, [torch.tensor(-2.0), 0, True, None], [torch.tensor(-2.0)])
    g.error(op, [x, 2, False, None], [torch.zeros(2, dtype=torch.int64)], label="prod-bad-dim")
    g.error(op, [x, 0, False, DType(torch.int32)], [torch.zeros(3, dtype=torch.int64)], label="prod-dtype-mismatch")


def var(g):
    for dt in FLOAT_DTYPES:
        x = g.rand((3, 5), dt)
        ref, hand = _float_ref(dt, lambda t: torch.var(t, [1]), x)
        _add(g, "aten::var.out", [x, [1], True, False], [ref], hand)
        ref, hand = _float_ref(dt, lambda t: torch.var(t, [0], unbiased=False, keepdim=True), x)
        _add(g, "aten::var.out", [x, [0], False, True], [ref], hand)
        ref, hand = _float_ref(dt, lambda t: torch.var(t, [1], correction=0), x)
        _add(g, "aten::var.correction_out", [x, [1], 0, False], [ref], hand)
        ref, hand = _float_ref(dt, lambda t: torch.var_mean(t, [0], correction=1), x)
        _add(g, "aten::var_mean.correction_out", [x, [0], None, False], list(ref), hand)
    e = g.edges(torch.float32)
    g.add("aten::var.out", [e, None, True, False], [torch.var(e)], label="var-edges")
    # UPSTREAM: the mean is sum / N (inf here; torch 1.13's Welford update gives NaN), the
    # variance NaN (inf - inf) in both.
    e = torch.tensor([1.0, float("inf"), 3.0])
    g.hand("aten::var_mean.correction_out", [e, [0], 1, False], [torch.tensor(float("nan")), torch.tensor(float("inf"))],
           label="var-mean-inf")
    x = channels_last(g.rand((2, 3, 4, 2), torch.float32))
    g.add("aten::var.out", [x, [1], True, True], [channels_last(torch.var(x, [1], keepdim=True))])
    g.add("aten::var.correction_out", [x, [], 2, True], [torch.var(x, [0, 1, 2, 3], correction=2, keepdim=True)])
    v, m = torch.var_mean(x, [1, 3], keepdim=True)
    g.add("aten::var_mean.correction_out", [x, [1, 3], 1, True], [channels_last(v), channels_last(m)])
    x = g.rand((4, 6), torch.float64)
    # Scalar corrections of each kind: torch 1.13 takes int only, so float / bool by hand.
    n = 6
    dev = x - x.mean(1, keepdim=True)
    g.hand("aten::var.correction_out", [x, [1], 2.5, False], [(dev * dev).sum(1) / (n - 2.5)], label="corr-float")
    g.hand("aten::var.correction_out", [x, [1], True, False], [torch.var(x, [1], correction=1)], label="corr-bool")
    g.hand("aten::var_mean.correction_out", [x, [1], 0.5, False],
           [(dev * dev).sum(1) / (n - 0.5), x.mean(1)], label="varmean-corr-float")
    g.add("aten::var.correction_out", [x, None, None, False], [torch.var(x)])
    g.add("aten::var.correction_out", [x, [1], None, False], [torch.var(x, [1])], dynamic=[[6]])
    x = g.rand((2, 3, 3), torch.float32)
    g.add("aten::var.out", [x.to(torch.float16), [2], False, False],
          [torch.var(x.to(torch.float16).float(), [2], unbiased=False)], label="var-half-in-float-out")
    # UPSTREAM: N - correction <= 0 (or N = 0) gives NaN; torch 1.13 gives inf (or NaN for 0/0).
    x = g.rand((2, 3), torch.float32)
    g.hand("aten::var.correction_out", [x, [1], 3, False], [torch.full((2,), float("nan"))], label="corr-ge-n")
    g.hand("aten::var.out", [torch.tensor(2.0), None, True, False], [torch.tensor(float("nan"))], label="var-0dim")
    g.hand("aten::var_mean.correction_out", [g.rand((0, 2)), [0], None, False],
           [torch.full((2,), float("nan")), torch.full((2,), float("nan"))], label="varmean-empty")
    g.add("aten::var.out", [torch.tensor(2.0), None, False, False], [torch.tensor(0.0)])
    g.error("aten::var.out", [g.rand((3,), torch.int32), None, True, False], [torch.zeros(())], label="var-int")
    g.error("aten::var.correction_out", [x, [2], None, False], [torch.zeros(2)], label="var-bad-dim")
    g.error("aten::var_mean.correction_out", [x, [1], None, False], [torch.zeros(2), torch.zeros(2, dtype=torch.float64)],
            label="varmean-out1-dtype")
    g.error("aten::var_mean.correction_out", [x, [1], None, False], [torch.zeros(2), torch.zeros(3)], label="varmean-out1-shape")


def minmax(g):
    for is_max, name in [(True, "max"), (False, "min")]:
        amax = torch.amax if is_max else torch.amin
        op = f"aten::a{name}.out"
        for dt in ALL_DTYPES:
            x = g.rand((3, 4), dt)
            g.add(op, [x, [1], False], [amax(x, [1])])
            e = g.edges(dt)
            g.add(op, [e, [0], True], [amax(e, [0], True)], label=f"a{name}-edges-{dt}")
        x = channels_last(g.rand((2, 3, 2, 2)))
        g.add(op, [x, [1], True], [channels_last(amax(x, [1], True))])
        g.add(op, [x, [], False], [amax(x, [0, 1, 2, 3])])
        g.add(op, [torch.tensor(5, dtype=torch.int16), [0], False], [torch.tensor(5, dtype=torch.int16)])
        g.add(op, [g.rand((0, 3)), [1], False], [torch.zeros(0)])
        g.error(op, [g.rand((0, 3)), [0], False], [torch.zeros(3)], label=f"a{name}-empty-dim")
        g.error(op, [g.rand((2, 3)), [0], False], [torch.zeros(3, dtype=torch.float64)], label=f"a{name}-out-dtype")

        fn = torch.max if is_max else torch.min
        op = f"aten::{name}.dim_{name}"
        for dt in ALL_DTYPES:
            x = _distinct(g, (3, 5), dt) if dt != torch.bool else torch.tensor([[0, 1, 1], [0, 0, 0]], dtype=torch.bool)
            g.add(op, [x, 1, False], list(fn(x, 1)))
            if dt.is_floating_point:
                e = g.edges(dt)[:4]  # NaN first: the first NaN wins
                g.add(op, [e, 0, True], list(fn(e, 0, True)), label=f"{name}-dim-edges-{dt}")
            elif dt != torch.bool:
                e = g.edges(dt)
                g.add(op, [e, 0, True], list(fn(e, 0, True)), label=f"{name}-dim-edges-{dt}")
        x = channels_last(_distinct(g, (2, 3, 2, 2), torch.float32))
        v, i = fn(x, 1, True)
        g.add(op, [x, 1, True], [channels_last(v), channels_last(i)])
        x = torch.tensor(3.0)
        g.add(op, [x, -1, False], list(fn(x, -1)))
        g.error(op, [g.rand((0, 2)), 0, False], [torch.zeros(2), torch.zeros(2, dtype=torch.int64)], label=f"{name}-dim-empty")
        g.error(op, [g.rand((3, 2)), 2, False], [torch.zeros(3), torch.zeros(3, dtype=torch.int64)], label=f"{name}-dim-bad-dim")
        g.error(op, [g.rand((3, 2)), 1, False], [torch.zeros(3), torch.zeros(3, dtype=torch.int32)], label=f"{name}-dim-idx-dtype")

        op = f"aten::{name}.unary_out"  # torch 1.13 lacks it: torch.max(x) cast to out's dtype
        for dt in ALL_DTYPES:
            x = g.rand((2, 5), dt)
            g.hand(op, [x], [fn(x)])
            e = g.edges(dt)
            g.hand(op, [e], [fn(e)], label=f"{name}-unary-edges-{dt}")
        x = g.rand((4,), torch.int32)
        g.hand(op, [x], [fn(x).to(torch.float32)], label=f"{name}-unary-int-to-float")
        x = channels_last(g.rand((2, 2, 2, 3)))
        g.hand(op, [x], [fn(x)])
        # UPSTREAM: an empty self gives the identity (-inf / +inf, int lowest / highest); torch raises.
        g.hand(op, [g.rand((0,))], [torch.tensor(-float("inf") if is_max else float("inf"))], label=f"{name}-unary-empty")
        ii = torch.iinfo(torch.int32)
        g.hand(op, [g.rand((0, 2), torch.int32)], [torch.tensor(ii.min if is_max else ii.max, dtype=torch.int32)],
               label=f"{name}-unary-empty-int")
        g.error(op, [g.rand((3,))], [torch.zeros((), dtype=torch.int32)], label=f"{name}-unary-no-cast")
        g.error(op, [g.rand((3,))], [torch.zeros((1,))], label=f"{name}-unary-bad-shape")

        arg = torch.argmax if is_max else torch.argmin
        op = f"aten::arg{name}.out"
        for dt in REAL_DTYPES:
            x = _distinct(g, (3, 4), dt)
            g.add(op, [x, 1, False], [arg(x, 1)])
            if dt in (torch.uint8, torch.float16, torch.float64):
                g.add(op, [x, None, False], [arg(x)])
            e = g.edges(dt)
            g.add(op, [e, 0, True], [arg(e, 0, True)], label=f"arg{name}-edges-{dt}")
        x = channels_last(_distinct(g, (2, 3, 2, 2), torch.float32))
        g.add(op, [x, 1, True], [channels_last(arg(x, 1, True))])
        g.add(op, [x, None, True], [arg(x, None, True)])
        g.add(op, [torch.tensor(1.5), 0, False], [arg(torch.tensor(1.5), 0)])
        g.add(op, [g.rand((0, 3)), 1, False], [torch.zeros(0, dtype=torch.int64)])
        g.error(op, [g.rand((0, 3)), 0, False], [torch.zeros(3, dtype=torch.int64)], label=f"arg{name}-empty")
        g.error(op, [g.rand((3,)), 0, False], [torch.zeros((), dtype=torch.int32)], label=f"arg{name}-out-dtype")
        g.error(op, [g.rand((3,), torch.bool), 0, False], [torch.zeros((), dtype=torch.int64)], label=f"arg{name}-bool")


def any_ops(g):
    for dt in ALL_DTYPES:
        x = g.rand((3, 4), dt) * (g.rand((3, 4), torch.bool) if dt != torch.bool else True)
        x = x.to(dt)
        g.add("aten::any.all_out", [x], [torch.any(x).to(torch.bool)])
        g.add("aten::any.out", [x, 1, False], [torch.any(x, 1).to(torch.bool)])
        g.hand("aten::any.dims_out", [x, [0], True], [torch.any(x, 0, True).to(torch.bool)])
    e = g.edges(torch.float32)
    g.add("aten::any.all_out", [e], [torch.tensor(True)], label="any-edges")
    z = torch.zeros(2, 3, dtype=torch.int32)
    g.add("aten::any.all_out", [z], [torch.tensor(0, dtype=torch.uint8)], label="any-all-uint8-out")
    g.add("aten::any.all_out", [g.rand((0,))], [torch.tensor(False)])
    g.add("aten::any.out", [torch.tensor([[0.0, -0.0], [0.0, float("nan")]]), 1, True],
          [torch.tensor([[0], [1]], dtype=torch.uint8)], label="any-uint8-out")
    g.add("aten::any.out", [g.rand((2, 0)), 1, False], [torch.zeros(2, dtype=torch.bool)])
    g.add("aten::any.out", [torch.tensor(2), 0, False], [torch.tensor(True)])
    x = channels_last(g.rand((2, 3, 2, 2), torch.int8, -1, 2))
    g.add("aten::any.out", [x, 1, True], [channels_last(torch.any(x, 1, True).bool())])
    # any.dims_out (torch 1.13 lacks it): composed of any over each dim.
    g.hand("aten::any.dims_out", [x, [1, 3], True], [channels_last(torch.any(torch.any(x, 3, True), 1, True).bool())])
    g.hand("aten::any.dims_out", [x, None, False], [torch.any(x).bool()])
    # dim [] reduces nothing (as upstream): out = self != 0
    g.hand("aten::any.dims_out", [x, [], False], [channels_last(x != 0)], label="any-dims-empty-list")
    g.hand("aten::any.dims_out", [torch.tensor(0.0), [0], False], [torch.tensor(False)])
    g.hand("aten::any.dims_out", [g.rand((0, 2)), [0], False], [torch.zeros(2, dtype=torch.bool)])
    g.error("aten::any.all_out", [x], [torch.zeros((), dtype=torch.int32)], label="any-all-out-dtype")
    g.error("aten::any.out", [x, 4, False], [torch.zeros(2, 3, 2, dtype=torch.bool)], label="any-bad-dim")
    g.error("aten::any.dims_out", [x, [0, 0], False], [torch.zeros(3, 2, 2, dtype=torch.bool)], label="any-dims-dup")


def cumsum(g):
    op = "aten::cumsum.out"
    for dt in ALL_DTYPES:
        x = g.rand((3, 4), dt)
        ref, hand = _float_ref(dt, lambda t: torch.cumsum(t, 1), x)
        _add(g, op, [x, 1, None], [ref], hand)
        e = g.edges(dt)
        ref, hand = _float_ref(dt, lambda t: torch.cumsum(t, 0), e)
        _add(g, op, [e, 0, None], [ref], hand, label=f"cumsum-edges-{dt}")
    x = g.rand((2, 5), torch.int16)
    g.add(op, [x, -1, DType(torch.float32)], [torch.cumsum(x, -1, dtype=torch.float32)])
    g.add(op, [x, 0, DType(torch.int16)], [torch.cumsum(x, 0, dtype=torch.int16)])
    x = channels_last(g.rand((2, 3, 2, 2)))
    g.add(op, [x, 1, None], [channels_last(torch.cumsum(x, 1))])
    g.add(op, [x, 3, None], [channels_last(torch.cumsum(x, 3))], dynamic=True)
    g.add(op, [g.rand((0, 3)), 0, None], [torch.zeros(0, 3)])
    g.add(op, [torch.tensor(4, dtype=torch.int32), 0, None], [torch.tensor(4, dtype=torch.int64)])
    # a bool out is "any so far" (upstream sums in the out type)
    b = torch.tensor([False, True, False, True])
    g.add(op, [b, 0, DType(torch.bool)], [torch.tensor([False, True, True, True])], label="cumsum-bool-out")
    g.error(op, [x, 4, None], [x], label="cumsum-bad-dim")
    g.error(op, [x, 0, DType(torch.float64)], [x], label="cumsum-dtype-mismatch")
    g.error(op, [x, 0, None], [torch.zeros(2, 3, 2)], label="cumsum-bad-shape")


def topk(g):
    op = "aten::topk.values"
    for dt in REAL_DTYPES:
        x = _distinct(g, (3, 6), dt)
        ref, hand = _float_ref(dt, lambda t: torch.topk(t, 3, 1), x)
        _add(g, op, [x, 3, 1, True, True], list(ref), hand)
        if dt in (torch.int8, torch.int64, torch.float16, torch.float32):
            ref, hand = _float_ref(dt, lambda t: torch.topk(t, 2, 0, largest=False), x)
            _add(g, op, [x, 2, 0, False, True], list(ref), hand)
        if dt.is_floating_point:
            e = torch.cat([g.edges(dt)[:4], g.edges(dt)[5:]])  # no 0.0 beside -0.0: ties
            for largest in (True, False):
                ref, hand = _float_ref(dt, lambda t: torch.topk(t, 5, 0, largest), e)
                _add(g, op, [e, 5, 0, largest, True], list(ref), hand, label=f"topk-edges-{dt}-{largest}")
        else:
            e = g.edges(dt)
            ref = torch.topk(e.to(torch.int64), 4)
            g.add(op, [e, 4, -1, True, True], [ref[0].to(dt), ref[1]], label=f"topk-edges-{dt}")
    x = channels_last(_distinct(g, (2, 4, 2, 2), torch.float32))
    v, i = torch.topk(x, 2, 1)
    g.add(op, [x, 2, 1, True, True], [channels_last(v), channels_last(i)])
    x = _distinct(g, (2, 5), torch.float32)
    # sorted=False allows any order; the kernel always sorts (torch 1.13's order is unspecified)
    g.hand(op, [x, 3, 1, True, False], list(torch.topk(x, 3, 1, sorted=True)), label="topk-unsorted")
    g.add(op, [x, 0, 1, True, True], [torch.zeros(2, 0), torch.zeros(2, 0, dtype=torch.int64)])
    g.add(op, [x, 5, 1, False, True], list(torch.topk(x, 5, 1, largest=False)), dynamic=True)
    g.add(op, [torch.tensor(2.5), 1, 0, True, True], list(torch.topk(torch.tensor(2.5), 1)))
    g.add(op, [g.rand((0, 3)), 2, 1, True, True], [torch.zeros(0, 2), torch.zeros(0, 2, dtype=torch.int64)])
    g.error(op, [x, 6, 1, True, True], [torch.zeros(2, 6), torch.zeros(2, 6, dtype=torch.int64)], label="topk-k-too-big")
    g.error(op, [x, -1, 1, True, True], [torch.zeros(2, 0), torch.zeros(2, 0, dtype=torch.int64)], label="topk-k-neg")
    g.error(op, [x, 2, 2, True, True], [torch.zeros(2, 2), torch.zeros(2, 2, dtype=torch.int64)], label="topk-bad-dim")
    g.error(op, [x, 2, 1, True, True], [torch.zeros(2, 2), torch.zeros(2, 2, dtype=torch.int32)], label="topk-idx-dtype")
    g.error(op, [g.rand((2, 3), torch.bool), 1, 1, True, True], [torch.zeros(2, 1, dtype=torch.bool),
                                                                 torch.zeros(2, 1, dtype=torch.int64)], label="topk-bool")


def distance(g):
    op = "aten::_cdist_forward.out"
    for dt in FLOAT_DTYPES:
        a, b = g.rand((3, 4), dt), g.rand((5, 4), dt)
        for p in [2.0, 1.0]:
            ref, hand = _float_ref(dt, lambda s, t: aten._cdist_forward(s, t, p, None), a, b)
            _add(g, op, [a, b, p, None], [ref], hand)
    a, b = g.rand((2, 1, 3, 4), torch.float64), g.rand((4, 2, 4), torch.float64)
    for p in [0.0, 1.0, 2.0, 3.0, 0.5, float("inf")]:
        g.add(op, [a, b, p, None], [aten._cdist_forward(a, b, p, None)], label=f"cdist-bcast-p{p}")
    a, b = g.rand((2, 3), torch.float32), g.rand((2, 3), torch.float32)
    g.add(op, [a, b, 2, 0], [aten._cdist_forward(a, b, 2.0, 0)], label="cdist-int-p-mode0")
    g.add(op, [a, b, 2.0, 2], [aten._cdist_forward(a, b, 2.0, 2)])
    a = torch.tensor([[1.0, float("nan")], [float("inf"), 0.0], [-0.0, 2.0]])
    b = torch.tensor([[0.0, 1.0], [1.0, float("inf")]])
    for p in [1.0, 2.0]:
        g.add(op, [a, b, p, None], [aten._cdist_forward(a, b, p, None)], label=f"cdist-edges-p{p}")
    # UPSTREAM: p = 0 counts a NaN difference as differing (1); torch 1.13 gives NaN.
    g.hand(op, [a, b, 0.0, None], [((a[:, None, :] - b[None, :, :]) != 0).sum(-1).float()], label="cdist-edges-p0")
    a = channels_last(g.rand((1, 2, 3, 4)))
    b = channels_last(g.rand((1, 2, 5, 4)))
    g.add(op, [a, b, 2.0, None], [channels_last(aten._cdist_forward(a, b, 2.0, None))])
    g.add(op, [g.rand((3, 0)), g.rand((2, 0)), 2.0, None], [torch.zeros(3, 2)])
    g.add(op, [g.rand((0, 2)), g.rand((2, 2)), 1.0, None], [torch.zeros(0, 2)])
    a, b = g.rand((2, 3)), g.rand((4, 3))
    g.error(op, [a, b, -1.0, None], [torch.zeros(2, 4)], label="cdist-neg-p")
    g.error(op, [a, b, 2.0, 3], [torch.zeros(2, 4)], label="cdist-bad-mode")
    g.error(op, [a, g.rand((4, 2)), 2.0, None], [torch.zeros(2, 4)], label="cdist-m-mismatch")
    g.error(op, [a, b.double(), 2.0, None], [torch.zeros(2, 4)], label="cdist-dtype")
    g.error(op, [g.rand((3,)), b, 2.0, None], [torch.zeros(1, 4)], label="cdist-rank")
    g.error(op, [a, b, 2.0, None], [torch.zeros(4, 2)], label="cdist-bad-shape")

    op = "aten::_pdist_forward.out"
    for dt in FLOAT_DTYPES:
        x = g.rand((4, 3), dt)
        ref, hand = _float_ref(dt, lambda t: aten._pdist_forward(t, 2.0), x)
        _add(g, op, [x, 2.0], [ref], hand)
    x = g.rand((5, 3), torch.float64)
    for p in [0.0, 1.0, 3.0, 0.5, float("inf")]:
        g.add(op, [x, p], [aten._pdist_forward(x, p)], label=f"pdist-p{p}")
    g.add(op, [x, 1], [aten._pdist_forward(x, 1.0)], label="pdist-int-p")
    xt = g.rand((3, 4)).t()  # a permuted (non-default dim order) self
    g.add(op, [xt, 2.0], [aten._pdist_forward(xt.contiguous(), 2.0)], label="pdist-transposed")
    g.add(op, [g.rand((1, 3)), 2.0], [torch.zeros(0)])
    g.add(op, [g.rand((3, 0)), 2.0], [torch.zeros(3)])
    g.error(op, [g.rand((2, 2, 2)), 2.0], [torch.zeros(1)], label="pdist-rank")
    g.error(op, [g.rand((3, 2)), -2.0], [torch.zeros(3)], label="pdist-neg-p")
    g.error(op, [g.rand((3, 2)), 2.0], [torch.zeros(3, dtype=torch.float64)], label="pdist-out-dtype")


def softmax(g):
    for op, fn in [("aten::_softmax.out", aten._softmax), ("aten::_log_softmax.out", aten._log_softmax)]:
        for dt in FLOAT_DTYPES:
            x = g.rand((3, 5), dt)
            ref, hand = _float_ref(dt, lambda t: fn(t, 1, False), x)
            _add(g, op, [x, 1, False], [ref], hand)
            e = g.edges(dt).reshape(3, 5)
            ref, hand = _float_ref(dt, lambda t: fn(t, 0, False), e)
            _add(g, op, [e, 0, False], [ref], hand, label=f"{op}-edges-{dt}")
        x = channels_last(g.rand((2, 3, 2, 2)))
        g.add(op, [x, 1, False], [channels_last(fn(x, 1, False))])
        g.add(op, [x, -1, False], [channels_last(fn(x, -1, False))])
        g.add(op, [torch.tensor(0.3), 0, False], [fn(torch.tensor(0.3), 0, False)])
        g.add(op, [g.rand((0, 3)), 1, False], [torch.zeros(0, 3)])
        g.error(op, [g.rand((2, 3), torch.float16), 1, True], [torch.zeros(2, 3)], label=f"{op}-half-to-float")
        g.error(op, [g.rand((2, 3), torch.int32), 1, False], [torch.zeros(2, 3, dtype=torch.int32)], label=f"{op}-int")
        g.error(op, [g.rand((2, 3)), 2, False], [torch.zeros(2, 3)], label=f"{op}-bad-dim")
        g.error(op, [g.rand((2, 3)), 1, False], [torch.zeros(2, 3, dtype=torch.float64)], label=f"{op}-out-dtype")


def cases(g):
    sum_mean(g)
    prod(g)
    var(g)
    minmax(g)
    any_ops(g)
    cumsum(g)
    topk(g)
    distance(g)
    softmax(g)
