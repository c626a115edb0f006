"""Unary elementwise ops (op_unary_float.cpp, op_unary_real.cpp, op_unary_activation.cpp,
op_clamp.cpp): the floating functions, abs/neg/sign/round/ceil/floor/trunc, bitwise and logical
not, isinf/isnan, the activations with parameters and the clamps.

Expectations come from the very .out overload of torch 1.13 where it has the dtype. torch 1.13
has no float16 CPU kernels for most of these ops: those expectations are composed by hand from
the float32 op (ExecuTorch computes float16 in float32 and rounds once, which is what that
gives). Where ExecuTorch's portable kernel and torch 1.13 differ, the case follows ExecuTorch
(marked "upstream:" below).
"""
import math

import torch

import oracle

from oracle import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, REAL_DTYPES, channels_last

aten = torch.ops.aten

# The ops of unary_ufunc_realhbbf16_to_floathbf16 (any input, floating out).
FLOAT_OPS = ["sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "acos", "acosh", "asin", "asinh",
             "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan", "erf", "expm1", "log10",
             "log1p", "log2", "reciprocal"]
# Ops whose result at finite huge arguments (|x| ~ FLT_MAX, DBL_MAX) torch 1.13 gets wrong or
# computes differently (trig argument reduction; its vectorised log1p returns inf for
# log1p(FLT_MAX) = 88.72): their edges leave out the huge values.
HUGE_ARG_OPS = {"cos", "sin", "tan", "log1p"}
# A float32 computation compared at float64: 1 ulp of float32 (int64 -> float64 out computes in
# float32 in ExecuTorch and torch alike).
FLOAT32_AT_FLOAT64_TOL = (1e-6, 1e-6)


def _compute_dtype(dtype):
    """ExecuTorch's unary_ufunc compute type: double for float64, float for the rest."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def _values(g, dtype, n=6, low=None, high=None):
    """Random values followed by the dtype's edges (1-D)."""
    if dtype == torch.bool:
        return torch.tensor([False, True, True, False])
    return torch.cat([g.rand((n,), dtype, low, high), g.edges(dtype)])


def _run_out(fn, args, dtype, shape):
    out = torch.empty(shape, dtype=dtype)
    fn(*args, out=out)
    return out


def _saturate(t, dtype):
    """Floating `t` converted to integral `dtype` as vkrt's convert<> does: truncation toward
    zero, saturation at the limits, NaN -> 0 (ExecuTorch casts, which C++ leaves undefined
    out of range)."""
    ii = torch.iinfo(dtype)
    vals = []
    for v in t.reshape(-1).tolist():
        if math.isnan(v):
            vals.append(0)
        elif v <= ii.min:
            vals.append(ii.min)
        elif v >= ii.max:
            vals.append(ii.max)
        else:
            vals.append(int(v))
    return torch.tensor(vals, dtype=torch.int64).reshape(t.shape).to(dtype)


def _layouts(g, add, dtype=torch.float32, low=None, high=None):
    """The shape cases every op gets: a 0-dim tensor, an empty one (into a DYNAMIC_BOUND out of
    a larger capacity, which the kernel resizes) and a channels-last 4-D one (in and out). `add(x, label, cl, dynamic)` adds one case."""
    add(g.rand((), dtype, low, high), "0dim", False, False)
    add(g.rand((0, 3), dtype, low, high), "empty_dynamic_out", False, [[4, 4]])
    add(channels_last(g.rand((2, 3, 2, 2), dtype, low, high)), "channels_last", True, False)


# ----- floating functions --------------------------------------------------------------------
def _float_ref(name, x, out_dtype):
    """(expected, from_torch) for a floating function of x into out_dtype."""
    fn = getattr(aten, name)
    try:
        return _run_out(fn.out, [x], out_dtype, x.shape), True
    except RuntimeError:
        # torch 1.13 has no float16 kernel: the float32 op, rounded once (ExecuTorch's way).
        cd = _compute_dtype(x.dtype)
        return fn.default(x.to(cd)).to(out_dtype), False


def _float_ops(g):
    for name in FLOAT_OPS:
        op = f"aten::{name}.out"

        def add(x, label, cl=False, dynamic=False, out_dtype=None, tol=None):
            out_dtype = out_dtype or (x.dtype if x.dtype.is_floating_point else torch.float32)
            ref, from_torch = _float_ref(name, x.contiguous(), out_dtype)
            if cl:
                ref = channels_last(ref)
            (g.add if from_torch else g.hand)(op, [x], [ref], label=f"{name}/{label}", dynamic=dynamic, tol=tol)

        for dt in ALL_DTYPES:
            x = _values(g, dt)
            if name in HUGE_ARG_OPS and dt.is_floating_point:
                x = x[x.abs() < 1e4]
            add(x, str(dt).replace("torch.", ""))
        # an integral input into a float64 out: computed in float32 as in torch
        if name in ("exp", "cos", "log2", "reciprocal"):
            add(g.rand((5,), torch.int64, 1, 9), "int64_to_float64", out_dtype=torch.float64, tol=FLOAT32_AT_FLOAT64_TOL)
        _layouts(g, lambda x, label, cl, dyn: add(x, label, cl, dyn), low=0.1, high=0.9)
        if name in ("sigmoid", "sin"):
            g.error(op, [g.rand((3,))], [torch.zeros(4)], label=f"{name}/bad_shape")
        else:
            g.error(op, [g.rand((3,))], [torch.zeros(3, dtype=torch.int32)], label=f"{name}/int_out")


# ----- abs, neg, sign, round, ceil, floor, trunc, bitwise_not --------------------------------
def _same_dtype_ops(g):
    def rounding_hand(fn):
        # upstream: unary_ufunc_realhbf16 reads integers through float (torch 1.13 returns them
        # unchanged, which differs beyond 2^24, e.g. for int32 max - 1).
        def ref(x):
            cd = _compute_dtype(x.dtype)
            r = fn(x.to(cd))
            return r.to(x.dtype) if x.dtype.is_floating_point else _saturate(r, x.dtype)
        return ref

    def sign_hand(x):
        # upstream: NaN stays NaN (torch 1.13 gives 0).
        r = torch.sign(x.float() if x.dtype == torch.float16 else x)
        if x.dtype.is_floating_point:
            r = torch.where(torch.isnan(x.to(r.dtype)), x.to(r.dtype), r)
        return r.to(x.dtype)

    def round_hand(x):
        if not x.dtype.is_floating_point:
            return x.clone()
        return torch.round(x.to(_compute_dtype(x.dtype))).to(x.dtype)

    ops = [
        # name, dtypes, torch fn (None: always by hand), hand fn, error input dtype
        ("abs", REAL_DTYPES, aten.abs, lambda x: torch.abs(x.float()).to(x.dtype), torch.bool),
        ("neg", REAL_DTYPES, aten.neg, lambda x: torch.neg(x.float()).to(x.dtype), torch.bool),
        ("sign", ALL_DTYPES, None, sign_hand, None),
        ("round", REAL_DTYPES, aten.round, round_hand, torch.bool),
        ("ceil", REAL_DTYPES, None, rounding_hand(torch.ceil), torch.bool),
        ("floor", REAL_DTYPES, None, rounding_hand(torch.floor), torch.bool),
        ("trunc", REAL_DTYPES, None, rounding_hand(torch.trunc), torch.bool),
        ("bitwise_not", INT_DTYPES + [torch.bool], aten.bitwise_not, None, torch.float32),
    ]
    for name, dtypes, fn, hand, bad in ops:
        op = f"aten::{name}.out"

        def add(x, label, cl=False, dynamic=False, name=name, fn=fn, hand=hand, op=op):
            xc = x.contiguous()
            ref, from_torch = None, False
            if fn is not None:
                try:
                    ref, from_torch = _run_out(fn.out, [xc], x.dtype, x.shape), True
                except RuntimeError:
                    ref = None
            if ref is None:
                ref = hand(xc)
            if cl:
                ref = channels_last(ref)
            (g.add if from_torch else g.hand)(op, [x], [ref], label=f"{name}/{label}", dynamic=dynamic)

        for dt in dtypes:
            x = _values(g, dt)
            if name == "round" and dt.is_floating_point:
                x = torch.cat([x, torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 3.49], dtype=dt)])
            add(x, str(dt).replace("torch.", ""))
        layout_dtype = torch.int32 if name == "bitwise_not" else torch.float32
        _layouts(g, lambda x, label, cl, dyn, add=add: add(x, label, cl, dyn), dtype=layout_dtype)
        if bad is not None:
            x = g.rand((3,), bad)
            g.error(op, [x], [torch.zeros(3, dtype=bad)], label=f"{name}/bad_self_dtype")
        x = g.rand((3,), torch.int32)
        g.error(op, [x], [torch.zeros(3, dtype=torch.int64)], label=f"{name}/out_dtype")


# ----- logical_not, isinf, isnan, _conj_physical ------------------------------------------------
def _predicate_ops(g):
    for dt in ALL_DTYPES:
        x = _values(g, dt)
        g.add("aten::logical_not.out", [x], [_run_out(aten.logical_not.out, [x], torch.bool, x.shape)],
              label=f"logical_not/{dt}")
        for name, fn in [("isinf", torch.isinf), ("isnan", torch.isnan)]:
            g.add(f"aten::{name}.out", [x], [fn(x)], label=f"{name}/{dt}")
    # logical_not into other out dtypes
    for in_dt, out_dt in [(torch.float32, torch.int32), (torch.int64, torch.float16), (torch.bool, torch.uint8)]:
        x = _values(g, in_dt)
        g.add("aten::logical_not.out", [x], [_run_out(aten.logical_not.out, [x], out_dt, x.shape)],
              label=f"logical_not/{in_dt}_to_{out_dt}")
    for name, fn in [("logical_not", torch.logical_not), ("isinf", torch.isinf), ("isnan", torch.isnan)]:
        op = f"aten::{name}.out"

        def add(x, label, cl, dyn, fn=fn, op=op, name=name):
            ref = fn(x.contiguous())
            g.add(op, [x], [channels_last(ref) if cl else ref], label=f"{name}/{label}", dynamic=dyn)

        _layouts(g, add)
        g.error(op, [g.rand((3,))], [torch.zeros(2, dtype=torch.bool)], label=f"{name}/bad_shape")
    for name in ["isinf", "isnan"]:
        g.error(f"aten::{name}.out", [g.rand((3,))], [torch.zeros(3)], label=f"{name}/float_out")
    # _conj_physical: complex dtypes only, as upstream (torch 1.13 also copies real tensors).
    op = "aten::_conj_physical.out"
    for dt in oracle.COMPLEX_PART:
        for label, x in [("random", g.rand_complex((2, 3, 4), dt)), ("edges", g.rand_complex((4, 5), dt, edges=True)),
                         ("empty", g.rand_complex((0, 3), dt)), ("0-dim", g.rand_complex((), dt)),
                         ("transposed", g.rand_complex((3, 5), dt).t())]:
            ref = torch.ops.aten._conj_physical(x.contiguous())
            g.add(op, [x], [ref], label=f"_conj_physical/{dt}/{label}")
        g.error(op, [g.rand_complex((3,), dt)], [torch.zeros(3, dtype=torch.float32)], label=f"_conj_physical/{dt}/real_out")
    for dt in [torch.float32, torch.int32]:
        x = g.rand((3,), dt)
        g.error(op, [x], [x], label=f"_conj_physical/{dt}")


# ----- activations with parameters -------------------------------------------------------------
def _torch_or_hand(g, op, args, torch_fn, hand_fn, label, cl=False, dynamic=False):
    """One case: torch_fn() when torch 1.13 has the dtype, hand_fn() otherwise."""
    try:
        ref, from_torch = torch_fn(), True
    except RuntimeError:
        ref, from_torch = hand_fn(), False
    if cl:
        ref = channels_last(ref)
    (g.add if from_torch else g.hand)(op, args, [ref], label=label, dynamic=dynamic)


def _logit(g):
    op = "aten::logit.out"

    def add(x, eps, label, cl=False, dynamic=False, out_dtype=None):
        out_dtype = out_dtype or (torch.float64 if x.dtype == torch.float64 else torch.float32)
        xc = x.contiguous()

        def hand():
            xo = xc.to(out_dtype)
            if eps is not None:
                xo = torch.clamp(xo, eps, 1 - eps)
            return torch.log(xo / (1 - xo))

        if x.dtype in (torch.float16, torch.bfloat16):
            # upstream computes in out's dtype; torch 1.13 computes in the input's bfloat16.
            g.hand(op, [x, eps], [hand()], label=f"logit/{label}", dynamic=dynamic)
            return
        _torch_or_hand(g, op, [x, eps], lambda: _run_out(aten.logit.out, [xc, eps], out_dtype, x.shape), hand,
                       f"logit/{label}", cl, dynamic)

    for i, dt in enumerate(ALL_DTYPES):
        x = torch.cat([_values(g, dt), g.rand((6,), dt, 0.0, 1.0)]) if dt.is_floating_point else _values(g, dt)
        add(x, None if i % 2 else 0.25, str(dt).replace("torch.", ""))
    add(g.rand((4,), torch.int32, 0, 2), None, "int32_to_float64", out_dtype=torch.float64)
    # upstream: a negative eps still clamps to [eps, 1 - eps] (torch 1.13 skips clamping then).
    x = torch.tensor([-1.0, -0.25, 0.5, 1.25, 2.0])
    g.hand(op, [x, -0.5], [torch.log(x.clamp(-0.5, 1.5) / (1 - x.clamp(-0.5, 1.5)))], label="logit/negative_eps")
    _layouts(g, lambda x, label, cl, dyn: add(x, 0.1, label, cl, dyn), low=0.0, high=1.0)
    g.error(op, [g.rand((3,)), None], [torch.zeros(3, dtype=torch.int32)], label="logit/int_out")
    # upstream: out must be float32 or float64 (torch 1.13 also writes float16).
    g.error(op, [g.rand((3,)), None], [torch.zeros(3, dtype=torch.float16)], label="logit/half_out")


def _gelu(g):
    op = "aten::gelu.out"

    def add(x, approximate, label, cl=False, dynamic=False):
        xc = x.contiguous()
        # upstream: gelu(-inf) = 0 (torch 1.13 gives NaN); hand-patched below.
        # upstream rounds the tanh approximation's 0.044715 to float32 even for float64, a
        # relative difference of ~1e-9 from torch's double constant: float64 "tanh" is compared
        # at 1e-8.
        tol = (1e-8, 1e-8) if approximate == "tanh" and x.dtype == torch.float64 else None
        neg_inf = bool((xc == -math.inf).any())
        try:
            ref, from_torch = aten.gelu.out(xc, approximate=approximate, out=torch.empty(x.shape, dtype=x.dtype)), True
        except RuntimeError:
            ref, from_torch = aten.gelu.default(xc.float(), approximate=approximate).to(x.dtype), False
        if neg_inf:
            ref = torch.where(xc == -math.inf, torch.zeros((), dtype=x.dtype), ref)
        if cl:
            ref = channels_last(ref)
        (g.add if from_torch and not neg_inf else g.hand)(op, [x, approximate], [ref],
                                                           label=f"gelu/{approximate}/{label}", dynamic=dynamic, tol=tol)

    for dt in FLOAT_DTYPES:
        for approximate in ["none", "tanh"]:
            add(_values(g, dt), approximate, str(dt).replace("torch.", ""))
    _layouts(g, lambda x, label, cl, dyn: add(x, "tanh", label, cl, dyn))
    g.error(op, [g.rand((3,)), "fast"], [torch.zeros(3)], label="gelu/bad_approximate")
    x = g.rand((3,), torch.int32)
    g.error(op, [x, "none"], [torch.zeros(3, dtype=torch.int32)], label="gelu/int_self")
    g.error(op, [g.rand((3,)), "none"], [torch.zeros(3, dtype=torch.float64)], label="gelu/out_dtype")


def _elu(g):
    op = "aten::elu.out"
    params = [(1.0, 1.0, 1.0), (0.5, 2, True), (2, 1.0507, 1.5)]  # float, int and bool Scalars

    def add(x, p, label, cl=False, dynamic=False):
        xc = x.contiguous()
        alpha, scale, input_scale = p

        def hand():
            xf = xc.to(_compute_dtype(x.dtype))
            return torch.where(xf <= 0, torch.expm1(xf * float(input_scale)) * float(alpha) * float(scale),
                               xf * float(scale)).to(x.dtype)

        _torch_or_hand(g, op, [x, alpha, scale, input_scale],
                       lambda: _run_out(aten.elu.out, [xc, alpha, scale, input_scale], x.dtype, x.shape), hand,
                       f"elu/{label}", cl, dynamic)

    for i, dt in enumerate(FLOAT_DTYPES):  # each dtype with one parameter set, in turn
        add(_values(g, dt), params[i % len(params)], f"{dt}/{i % len(params)}".replace("torch.", ""))
    _layouts(g, lambda x, label, cl, dyn: add(x, params[1], label, cl, dyn))
    x = g.rand((3,), torch.int32)
    g.error(op, [x, 1.0, 1.0, 1.0], [x], label="elu/int_self")
    g.error(op, [g.rand((3,)), 1.0, 1.0, 1.0], [torch.zeros(3, dtype=torch.float16)], label="elu/out_dtype")


def _leaky_relu(g):
    op = "aten::leaky_relu.out"

    def add(x, slope, label, cl=False, dynamic=False):
        xc = x.contiguous()

        def hand():
            k = float(torch.tensor(float(slope)).to(x.dtype))  # upstream casts the slope to the dtype
            xf = xc.to(_compute_dtype(x.dtype))
            return torch.where(xf >= 0, xf, xf * k).to(x.dtype)

        _torch_or_hand(g, op, [x, slope], lambda: _run_out(aten.leaky_relu.out, [xc, slope], x.dtype, x.shape),
                       hand, f"leaky_relu/{label}", cl, dynamic)

    slopes = [0.01, 2, True, -0.5]  # float, int and bool Scalars
    for dt, slope in zip(FLOAT_DTYPES, slopes):
        add(_values(g, dt), slope, f"{dt}/{slope}".replace("torch.", ""))
    _layouts(g, lambda x, label, cl, dyn: add(x, 0.2, label, cl, dyn))
    x = g.rand((3,), torch.int32)
    g.error(op, [x, 0.01], [x], label="leaky_relu/int_self")
    # upstream: the slope must fit the dtype (check_overflow_scalar_cast)
    x = g.rand((3,), torch.float16)
    g.error(op, [x, 1e10], [x], label="leaky_relu/slope_overflows_half")


def _glu(g):
    op = "aten::glu.out"

    def add(x, dim, label, cl=False, dynamic=False):
        xc = x.contiguous()
        shape = list(x.shape)
        shape[dim] //= 2
        _torch_or_hand(g, op, [x, dim], lambda: _run_out(aten.glu.out, [xc, dim], x.dtype, shape),
                       lambda: aten.glu.default(xc.to(_compute_dtype(x.dtype)), dim).to(x.dtype),
                       f"glu/{label}", cl, dynamic)

    for dt in FLOAT_DTYPES:
        add(g.rand((3, 6), dt), -1, f"{dt}/last".replace("torch.", ""))
        add(g.rand((4, 3), dt), 0, f"{dt}/first".replace("torch.", ""))
    add(torch.cat([g.edges(torch.float32), g.edges(torch.float32)]), 0, "edges")
    add(channels_last(g.rand((2, 4, 3, 2))), 1, "channels_last", cl=True)
    add(g.rand((0, 4)), 1, "empty")
    add(g.rand((2, 4)), 1, "dynamic", dynamic=[[4, 4]])
    # float32 self into a float64 out
    x = g.rand((2, 4))
    ref = aten.glu.default(x, 1).double()
    g.hand(op, [x, 1], [ref], label="glu/float_to_double", tol=(1e-6, 1e-6))
    g.error(op, [g.rand((3, 5)), 1], [torch.zeros(3, 2)], label="glu/odd_size")
    g.error(op, [g.rand((3, 4)), 2], [torch.zeros(3, 2)], label="glu/bad_dim")
    g.error(op, [g.rand(()), 0], [torch.zeros(())], label="glu/0dim")
    x = g.rand((2, 4), torch.int32)
    g.error(op, [x, 1], [torch.zeros(2, 2, dtype=torch.int32)], label="glu/int_self")
    g.error(op, [g.rand((2, 4)), 1], [torch.zeros(2, 4)], label="glu/out_shape")


# ----- relu, clamp, hardtanh -------------------------------------------------------------------
def _relu(g):
    op = "aten::relu.out"

    def add(x, label, cl=False, dynamic=False):
        xc = x.contiguous()
        _torch_or_hand(g, op, [x], lambda: _run_out(aten.relu.out, [xc], x.dtype, x.shape),
                       lambda: torch.relu(xc.float()).to(x.dtype), f"relu/{label}", cl, dynamic)

    for dt in REAL_DTYPES:
        add(_values(g, dt), str(dt).replace("torch.", ""))
    _layouts(g, lambda x, label, cl, dyn: add(x, label, cl, dyn))
    x = g.rand((3,), torch.bool)
    g.error(op, [x], [x], label="relu/bool")
    g.error(op, [g.rand((3,))], [torch.zeros(3, dtype=torch.float64)], label="relu/out_dtype")


def _clamp(g):
    op = "aten::clamp.out"

    def add(x, lo, hi, out_dtype, label, cl=False, dynamic=False, hand=None):
        xc = x.contiguous()

        def default_hand():
            cd = torch.float32 if out_dtype in (torch.float16, torch.bfloat16) else out_dtype
            def conv(v):
                return None if v is None else float(v) if cd.is_floating_point else int(v)
            return torch.clamp(xc.to(cd), conv(lo), conv(hi)).to(out_dtype)

        _torch_or_hand(g, op, [x, lo, hi], lambda: _run_out(aten.clamp.out, [xc, lo, hi], out_dtype, x.shape),
                       hand or default_hand, f"clamp/{label}", cl, dynamic)

    for dt in REAL_DTYPES:
        lo, hi = (2, 9) if dt == torch.uint8 else (-3, 5)
        add(_values(g, dt), lo, hi, dt, str(dt).replace("torch.", ""))
    # upstream: bool self is accepted (torch 1.13 refuses it): max/min of bools are or/and.
    xb = torch.tensor([False, True, False, True])
    g.hand(op, [xb, True, None], [torch.ones(4, dtype=torch.bool)], label="clamp/bool_min_true")
    g.hand(op, [xb, None, False], [torch.zeros(4, dtype=torch.bool)], label="clamp/bool_max_false")
    g.hand(op, [xb, 0, 0], [torch.zeros(4, dtype=torch.int64)], label="clamp/bool_int_bound_to_int64")
    # scalar kinds: a float bound makes an integral self float32; a bool bound keeps the dtype
    add(g.rand((6,), torch.int32), -1.5, 3.5, torch.float32, "int32_float_bounds")
    add(_values(g, torch.float32), True, None, torch.float32, "bool_min")
    add(_values(g, torch.float64), None, 0, torch.float64, "max_only")
    add(g.rand((6,)), 3, -1, torch.float32, "min_above_max")
    # upstream: a NaN bound makes every element NaN (torch 1.13 ignores a NaN scalar bound)
    x = g.rand((4,))
    g.hand(op, [x, float("nan"), None], [torch.full((4,), math.nan)], label="clamp/nan_min")
    _layouts(g, lambda x, label, cl, dyn: add(x, -1.0, 1.0, x.dtype, label, cl, dyn))
    x = g.rand((3,))
    g.error(op, [x, None, None], [x], label="clamp/no_bounds")
    xi = g.rand((3,), torch.int32)
    g.error(op, [xi, 0.5, None], [xi], label="clamp/float_bound_int_out")
    # upstream: a bound beyond out's range is refused (torch 1.13 takes it)
    x8 = g.rand((3,), torch.int8)
    g.error(op, [x8, None, 1000], [x8], label="clamp/bound_beyond_int8")
    g.error(op, [x, 1e300, None], [x], label="clamp/bound_beyond_float32")
    xu = g.rand((3,), torch.uint8)
    g.error(op, [xu, -1, None], [xu], label="clamp/negative_bound_uint8")


def _clamp_tensor(g):
    op = "aten::clamp.Tensor_out"

    def add(x, lo, hi, out_dtype, label, cl=False, dynamic=False):
        shape = torch.broadcast_shapes(*[t.shape for t in (x, lo, hi) if t is not None])
        args = [t.contiguous() if t is not None else None for t in (x, lo, hi)]

        def hand():
            common = x.dtype
            for t in (lo, hi):
                if t is not None:
                    common = torch.promote_types(common, t.dtype)
            cd = torch.float32 if common in (torch.float16, torch.bfloat16) else common
            conv = [t.to(cd) if t is not None else None for t in args]
            r = conv[0]
            if conv[1] is not None:
                r = torch.maximum(r, conv[1])
            if conv[2] is not None:
                r = torch.minimum(r, conv[2])
            return r.to(out_dtype)

        _torch_or_hand(g, op, [x, lo, hi], lambda: _run_out(aten.clamp.Tensor_out, args, out_dtype, shape), hand,
                       f"clamp_tensor/{label}", cl, dynamic)

    for dt in REAL_DTYPES:
        if dt == torch.uint8:
            lo, hi = g.rand((3, 1), dt, 0, 8), g.rand((4,), dt, 8, 16)
        else:
            lo, hi = g.rand((3, 1), dt, -10, 0), g.rand((4,), dt, 0, 10)
        add(g.rand((2, 3, 4), dt), lo, hi, dt, str(dt).replace("torch.", ""))
    # upstream: bool tensors are accepted (torch 1.13 refuses them)
    xb, lb, hb = torch.tensor([False, True, False, True]), torch.tensor([True, False, False, True]), torch.tensor([False])
    g.hand(op, [xb, lb, hb], [torch.zeros(4, dtype=torch.bool)], label="clamp_tensor/bool")
    g.hand(op, [xb, lb, None], [xb | lb], label="clamp_tensor/bool_min_only")
    # promotion: int32 self with a float32 bound computes in float32
    add(g.rand((2, 3), torch.int32), g.rand((3,), torch.float32), None, torch.float32, "int32_float_min")
    add(g.rand((2, 3), torch.float32), None, g.rand((2, 1), torch.float64), torch.float64, "max_only_double")
    # NaN in a bound or in self gives NaN
    x = torch.tensor([1.0, float("nan"), 3.0, -2.0])
    add(x, torch.tensor([float("nan"), 0.0, 5.0, 0.0]), torch.tensor([2.0]), torch.float32, "nan")
    add(channels_last(g.rand((2, 3, 2, 2))), g.rand((3, 1, 1), torch.float32, -1, 0), None, torch.float32,
        "channels_last", cl=True)
    add(g.rand(()), g.rand(()), g.rand(()), torch.float32, "0dim")
    add(g.rand((0, 3)), g.rand((3,)), None, torch.float32, "empty")
    add(g.rand((2, 3)), None, g.rand((1, 3)), torch.float32, "dynamic", dynamic=[[4, 4]])
    x = g.rand((2, 3))
    g.error(op, [x, None, None], [x], label="clamp_tensor/no_bounds")
    g.error(op, [x, g.rand((3,)), None], [torch.zeros(2, 3, dtype=torch.int32)], label="clamp_tensor/out_dtype")
    g.error(op, [x, g.rand((5,)), None], [x], label="clamp_tensor/no_broadcast")
    g.error(op, [x, g.rand((3,)), None], [torch.zeros(3, 2)], label="clamp_tensor/out_shape")


def _hardtanh(g):
    op = "aten::hardtanh.out"

    def add(x, lo, hi, label, cl=False, dynamic=False):
        xc = x.contiguous()

        def hand():
            cd = _compute_dtype(x.dtype) if x.dtype.is_floating_point else torch.int64
            k = [float(torch.tensor(float(v)).to(x.dtype)) if x.dtype.is_floating_point else int(v) for v in (lo, hi)]
            return torch.clamp(xc.to(cd), k[0], k[1]).to(x.dtype)

        _torch_or_hand(g, op, [x, lo, hi], lambda: _run_out(aten.hardtanh.out, [xc, lo, hi], x.dtype, x.shape),
                       hand, f"hardtanh/{label}", cl, dynamic)

    for dt in REAL_DTYPES:
        lo, hi = (2, 9) if dt == torch.uint8 else (-1.5, 2.5)  # float bounds truncate for integers
        add(_values(g, dt), lo, hi, str(dt).replace("torch.", ""))
    add(_values(g, torch.int32), -3, 4, "int_bounds")
    add(_values(g, torch.float32), False, True, "bool_bounds")
    _layouts(g, lambda x, label, cl, dyn: add(x, -1.0, 1.0, label, cl, dyn))
    x = g.rand((3,), torch.bool)
    g.error(op, [x, 0, 1], [x], label="hardtanh/bool")
    x8 = g.rand((3,), torch.int8)
    # upstream: the bounds must fit the dtype
    g.error(op, [x8, -1, 1000], [x8], label="hardtanh/bound_beyond_int8")
    g.error(op, [g.rand((3,)), -1, 1], [torch.zeros(3, dtype=torch.float64)], label="hardtanh/out_dtype")


def cases(g):
    _float_ops(g)
    _same_dtype_ops(g)
    _predicate_ops(g)
    _logit(g)
    _gelu(g)
    _elu(g)
    _leaky_relu(g)
    _glu(g)
    _relu(g)
    _clamp(g)
    _clamp_tensor(g)
    _hardtanh(g)
