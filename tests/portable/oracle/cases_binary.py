"""Binary elementwise ops with broadcasting and type promotion (op_arithmetic.cpp,
op_comparison.cpp, op_where.cpp, op_binary_math.cpp, op_binary_bitwise.cpp, op_masked_fill.cpp).

Expectations come from torch 1.13 (the functional overload, whose result the .out overload
writes), except where ExecuTorch's portable kernel differs from PyTorch; those cases compute
upstream's result by hand (g.hand) and say why:
- remainder: integers keep the dividend's sign (C %: torch.fmod), floats go through a float32
  intermediate even for float64 (upstream's remainder_override).
- floor division of floats by zero (floor_divide, div floor mode): +-inf by the sign bit of the
  dividend, where PyTorch gives a / b (NaN for 0/0).
- bool shifts: PyTorch refuses them, upstream shifts in C++ (x << y == x, x >> y == x & ~y).
"""
import torch

from oracle import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, REAL_DTYPES, channels_last

aten = torch.ops.aten
INTB_DTYPES = INT_DTYPES + [torch.bool]
SIGNED = [torch.int8, torch.int16, torch.int32, torch.int64]


# ----- values ------------------------------------------------------------------------------
def _pair(g, dt, divisor=False, small=False):
    """(a, b): a is a 2-row tensor [edges, random]; b has the same shape (edges reversed and
    random), or for `divisor` one row of non-zero values other than -1 (broadcast over a's
    rows). `small`: no edges for integers (ops whose integer overflow upstream leaves undefined)."""
    if dt.is_floating_point or dt == torch.bool or not small:
        e = g.edges(dt)
    else:
        e = g.rand((6,), dt, 0, 4)
    n = e.numel()
    a = torch.stack([e, g.rand((n,), dt, 0, 4) if small and not dt.is_floating_point else g.rand((n,), dt)])
    if divisor and not dt.is_floating_point:
        b = g.rand((n,), dt, 2, 9)
        if dt in SIGNED:
            b[::2] = -b[::2]
        b[0] = 1
        return a, b
    if small and not dt.is_floating_point and dt != torch.bool:
        return a, g.rand((2, n), dt, 0, 4)
    return a, torch.stack([e.flip(0), g.rand((n,), dt)])


def _cycle(items, i, k=1):
    """k of `items`, starting at i (cycling): each dtype gets one or two Scalar kinds, and every
    kind is covered across the dtypes, which keeps the case count down."""
    items = list(items)
    return [items[(i + j) % len(items)] for j in range(min(k, len(items)))]


def _structural(g, op, fn, dt, extra=(), out_dt=None, divisor=False, err_out=None, hand=False):
    """Broadcast, 0-dim, empty, channels-last, dynamic-out and one error case of a Tensor-Tensor op."""
    def r(a, b):
        o = fn(a, b)
        return o if out_dt is None else o.to(out_dt)

    def rb(shape):
        if divisor and not dt.is_floating_point:
            return g.rand(shape, dt, 1, 9)
        return g.rand(shape, dt)
    extra = list(extra)
    add = g.hand if hand else g.add
    a, b = g.rand((2, 1, 4), dt), rb((3, 1))
    add(op, [a, b] + extra, [r(a, b)], label="broadcast_dynamic", dynamic=[(4, 4, 4)])
    a, b = g.rand((), dt), rb(())
    add(op, [a, b] + extra, [r(a, b)], label="zero_dim")
    a, b = g.rand((0, 3), dt), rb((3,))
    add(op, [a, b] + extra, [r(a, b)], label="empty")
    a, b = channels_last(g.rand((2, 3, 2, 2), dt)), rb((3, 1, 1))
    add(op, [a, b] + extra, [channels_last(r(a, b))], label="channels_last")
    a, b = g.rand((2, 3), dt), rb((3,))
    # a static out of the wrong shape; operands that do not broadcast; a wrong out dtype
    o = r(a, b)
    g.error(op, [a, b] + extra, [o[:1]], label="bad_out_shape")
    if err_out is None:
        g.error(op, [a, rb((4,))] + extra, [o], label="bad_broadcast")
    else:
        g.error(op, [a, b] + extra, [torch.zeros(o.shape, dtype=err_out)], label="bad_out_dtype")


def _tensor_op(g, op, fn, dtypes, *, hand=None, divisor=False, small=False, out_of=None, err_out=None,
               extra=(), mixed=None, sdt=torch.float32):
    """Every dtype (edges + random), structural cases in `sdt`, a mixed-dtype promotion case."""
    ref = hand or fn
    add = g.hand if hand else g.add
    extra = list(extra)
    for dt in dtypes:
        a, b = _pair(g, dt, divisor, small)
        o = ref(a, b)
        if out_of:
            o = o.to(out_of(dt))
        add(op, [a, b] + extra, [o], label=f"{dt}".replace("torch.", ""))
    _structural(g, op, ref, sdt if sdt in dtypes else dtypes[0], extra, divisor=divisor, err_out=err_out,
                hand=bool(hand))
    if mixed:
        da, db = mixed
        a, b = g.rand((2, 3), da), g.rand((3,), db, 1, 5)
        add(op, [a, b] + extra, [ref(a, b)], label="mixed")


def _scalar_op(g, op, fn, dtypes, scalars, *, hand=None, small=False, err=None):
    """Tensor (edges + random) op Scalar for every dtype and each Scalar kind."""
    ref = hand or fn
    add = g.hand if hand else g.add
    for i, dt in enumerate(dtypes):
        if small and not dt.is_floating_point and dt != torch.bool:
            a = g.rand((2, 3), dt, 0, 4)
        else:
            a = torch.cat([g.edges(dt), g.rand((4,), dt)])
        for s in _cycle(scalars(dt), i):
            add(op, [a, s], [ref(a, s)], label=f"{dt}_{type(s).__name__}".replace("torch.", ""))
    a = channels_last(g.rand((2, 3, 2, 2)))
    s = scalars(torch.float32)[0]
    add(op, [a, s], [channels_last(ref(a, s))], label="channels_last")
    a = g.rand((), torch.float32)
    add(op, [a, s], [ref(a, s)], label="zero_dim")
    a = g.rand((0, 2), torch.float32)
    add(op, [a, s], [ref(a, s)], label="empty")
    if err:
        err()


# ----- upstream models where it differs from torch 1.13 --------------------------------------
def _compute_dtype(dt):
    return torch.float64 if dt == torch.float64 else torch.float32


def _upstream_remainder(a, b):
    """ExecuTorch's remainder_override on the promoted operands."""
    common = torch.result_type(a, b) if isinstance(b, torch.Tensor) else _scalar_common(a.dtype, b)
    if not common.is_floating_point:
        return torch.fmod(a.to(common), torch.as_tensor(b).to(common)).to(common)
    c = _compute_dtype(common)
    ac, bc = a.to(c), torch.as_tensor(b).to(c)
    rem = torch.fmod(ac, bc).to(torch.float32)
    fix = ((ac < 0) != (bc < 0)) & (rem != 0)
    rem = torch.where(fix, (rem.double() + bc.double()).float(), rem)
    return rem.to(c).to(common)


def _scalar_common(dt, s):
    if isinstance(s, float):
        return dt if dt.is_floating_point else torch.float32
    if isinstance(s, bool):
        return dt
    return torch.int64 if dt == torch.bool else dt


def _upstream_floor(q, a, b):
    """torch's floor division q with upstream's floating division by zero: +-inf by a's sign bit."""
    if not q.dtype.is_floating_point:
        return q
    b = torch.as_tensor(b, dtype=torch.float64).expand(q.shape) if not isinstance(b, torch.Tensor) else b
    inf = torch.where(torch.signbit(a.to(torch.float64).expand(q.shape)), -float("inf"), float("inf")).to(q.dtype)
    return torch.where(b.expand(q.shape) == 0, inf, q)


def _atan2(a, b):
    common = torch.result_type(a, b)
    if not common.is_floating_point:
        common = torch.float32
    return aten.atan2(a.to(torch.float64), b.to(torch.float64)).to(_compute_dtype(common)).to(common)


def _bool_shift(left):
    def f(a, b):
        if isinstance(b, torch.Tensor) and b.dtype == torch.bool and a.dtype == torch.bool:
            return a.clone() if left else (a & ~b)
        return (aten.bitwise_left_shift.Tensor if left else aten.bitwise_right_shift.Tensor)(a, b)
    return f


def cases(g):
    # ----- add / sub / mul / div (.out) --------------------------------------------------------
    for op, fn, has_alpha, dtypes in [("add", aten.add.Tensor, True, ALL_DTYPES),
                                      ("sub", aten.sub.Tensor, True, REAL_DTYPES),
                                      ("mul", aten.mul.Tensor, False, ALL_DTYPES),
                                      ("div", aten.div.Tensor, False, ALL_DTYPES)]:
        extra = [1] if has_alpha else []
        for dt in dtypes:
            a, b = _pair(g, dt)
            g.add(f"aten::{op}.out", [a, b] + extra, [fn(a, b)], label=str(dt))
        _structural(g, f"aten::{op}.out", fn, torch.float32, extra, err_out=torch.int32)
        a, b = g.rand((3, 4), torch.int32), g.rand((4,), torch.float32)
        if has_alpha:
            g.add(f"aten::{op}.out", [a, b, 2], [fn(a, b, alpha=2)], label="mixed_alpha_int")
            g.add(f"aten::{op}.out", [b, b, 0.5], [fn(b, b, alpha=0.5)], label="alpha_float")
            g.error(f"aten::{op}.out", [a, a, 0.5], [fn(a, a)], label="float_alpha_int_result")
        else:
            g.add(f"aten::{op}.out", [a, b], [fn(a, b)], label="mixed")
    a = torch.tensor([True, False])
    g.error("aten::sub.out", [a, a, 1], [a], label="bool_sub")
    g.add("aten::add.out", [a, a, True], [aten.add.Tensor(a, a)], label="bool_alpha")
    # Scalar_out: Int, Double and Bool scalars
    for op, fn, has_alpha, dtypes in [("add", aten.add.Scalar, True, ALL_DTYPES),
                                      ("sub", aten.sub.Scalar, True, REAL_DTYPES),
                                      ("mul", aten.mul.Scalar, False, ALL_DTYPES),
                                      ("div", aten.div.Scalar, False, ALL_DTYPES)]:
        extra = [1] if has_alpha else []
        for i, dt in enumerate(dtypes):
            a = torch.cat([g.edges(dt), g.rand((4,), dt)])
            for s in _cycle([3, 2.5, True] if op != "sub" else [3, 2.5], i):
                label = f"{dt}_{type(s).__name__}"
                if dt == torch.bool and isinstance(s, bool) and op in ("add", "mul"):
                    # upstream: bool with a bool Scalar stays bool (or / and); torch gives int64
                    g.hand(f"aten::{op}.Scalar_out", [a, s] + extra, [(a | s) if op == "add" else (a & s)], label=label)
                    continue
                g.add(f"aten::{op}.Scalar_out", [a, s] + extra, [fn(a, s)], label=label)
        a = channels_last(g.rand((2, 3, 2, 2)))
        g.add(f"aten::{op}.Scalar_out", [a, 1.5] + extra, [channels_last(fn(a, 1.5))], label="channels_last")
        a = g.rand(())
        g.add(f"aten::{op}.Scalar_out", [a, 2] + extra, [fn(a, 2)], label="zero_dim")
        a = g.rand((0, 2))
        g.add(f"aten::{op}.Scalar_out", [a, 2] + extra, [fn(a, 2)], label="empty")
        a = g.rand((3,), torch.int32)
        g.error(f"aten::{op}.Scalar_out", [a, 0.5] + extra, [torch.zeros(3, dtype=torch.int32)], label="int_out")
        a = g.rand((3,), torch.int16)  # out must be the result dtype (int16), not merely castable
        g.error(f"aten::{op}.Scalar_out", [a, 2] + extra, [torch.zeros(3, dtype=torch.float64)], label="out_not_common")

    # ----- div with rounding modes, floor_divide ----------------------------------------------
    def div_mode(mode):
        def f(a, b):
            q = aten.div.Tensor_mode(a, b, rounding_mode=mode)
            return _upstream_floor(q, a, b) if mode == "floor" else q
        return f

    for mode in ["trunc", "floor"]:
        f = div_mode(mode)
        _tensor_op(g, "aten::div.out_mode", f, REAL_DTYPES, hand=f if mode == "floor" else None,
                   divisor=True, extra=[mode], err_out=torch.bool, mixed=(torch.int32, torch.float16))
        for i, dt in enumerate(REAL_DTYPES):
            a = torch.cat([g.edges(dt), g.rand((4,), dt)])
            for s in _cycle([3, -2, 2.5, True] if dt in SIGNED or dt.is_floating_point else [3, 2.5, True], i):
                q = aten.div.Scalar_mode(a, s, rounding_mode=mode)
                if mode == "floor":
                    q = _upstream_floor(q, a, s)
                g.add("aten::div.Scalar_mode_out", [a, s, mode], [q], label=f"{mode}_{dt}_{type(s).__name__}")
        a = channels_last(g.rand((2, 3, 2, 2)))
        g.add("aten::div.Scalar_mode_out", [a, 1.5, mode], [channels_last(aten.div.Scalar_mode(a, 1.5, rounding_mode=mode))],
              label=f"{mode}_channels_last")
        a = g.rand((), torch.int64)
        g.add("aten::div.Scalar_mode_out", [a, 3, mode], [aten.div.Scalar_mode(a, 3, rounding_mode=mode)],
              label=f"{mode}_zero_dim")
        g.add("aten::div.Scalar_mode_out", [g.rand((0,)), 3, mode], [g.rand((0,))], label=f"{mode}_empty")
        # float division by zero: +-inf (floor: by the dividend's sign bit, upstream)
        a = torch.tensor([1.0, -1.0, 0.0, -0.0, float("nan")])
        q = aten.div.Scalar_mode(a, 0.0, rounding_mode=mode)
        g.hand("aten::div.Scalar_mode_out", [a, 0.0, mode], [_upstream_floor(q, a, 0.0) if mode == "floor" else q],
               label=f"{mode}_float_by_zero")
        # integer division by zero is an error; INT_MIN / -1 wraps
        ai = torch.tensor([5, -3], dtype=torch.int32)
        g.error("aten::div.out_mode", [ai, torch.tensor([1, 0], dtype=torch.int32), mode], [ai], label=f"{mode}_int_by_zero")
        g.error("aten::div.Scalar_mode_out", [ai, 0, mode], [ai], label=f"{mode}_int_by_zero")
        g.error("aten::div.Scalar_mode_out", [torch.tensor([True]), True, mode], [torch.tensor([True])], label=f"{mode}_bool")
        for dt in SIGNED:
            lo = torch.iinfo(dt).min
            g.hand("aten::div.out_mode", [torch.tensor([lo, 7], dtype=dt), torch.tensor([-1, -1], dtype=dt), mode],
                   [torch.tensor([lo, -7], dtype=dt)], label=f"{mode}_min_by_minus_one_{dt}")
    # rounding_mode None: true division (out floating; the Scalar overload needs out == result dtype)
    a, b = g.rand((2, 3), torch.int32), g.rand((3,), torch.int32, 1, 5)
    g.add("aten::div.out_mode", [a, b, None], [aten.div.Tensor(a, b)], label="none")
    g.add("aten::div.out_mode", [a, b, None], [aten.div.Tensor(a, b).double()], label="none_double_out")
    g.add("aten::div.Scalar_mode_out", [a, 2, None], [aten.div.Scalar(a, 2)], label="none")
    g.error("aten::div.Scalar_mode_out", [a, 2, None], [aten.div.Scalar(a, 2).double()], label="none_out_not_common")
    g.error("aten::div.out_mode", [a, b, "round"], [a], label="bad_mode")
    g.error("aten::div.Scalar_mode_out", [a, 2, "ceil"], [a], label="bad_mode")

    f = div_mode("floor")
    _tensor_op(g, "aten::floor_divide.out", lambda a, b: aten.floor_divide(a, b), REAL_DTYPES,
               hand=lambda a, b: _upstream_floor(aten.floor_divide(a, b), a, b), divisor=True,
               err_out=torch.bool, mixed=(torch.int8, torch.float32))
    g.error("aten::floor_divide.out", [torch.tensor([4], dtype=torch.int64), torch.tensor([0], dtype=torch.int64)],
            [torch.tensor([0], dtype=torch.int64)], label="int_by_zero")
    g.error("aten::floor_divide.out", [torch.tensor([True]), torch.tensor([True])], [torch.tensor([1])], label="bool")

    # ----- fmod, remainder ----------------------------------------------------------------------
    # fmod computes integers in float64 (upstream): int64 edges beyond 2**53 would round, so int
    # operands stay small there.
    _tensor_op(g, "aten::fmod.Tensor_out", aten.fmod.Tensor, REAL_DTYPES, divisor=True, small=True,
               err_out=torch.bool, mixed=(torch.int16, torch.float64))
    _scalar_op(g, "aten::fmod.Scalar_out", aten.fmod.Scalar, REAL_DTYPES,
               lambda dt: [3, -2.5] if dt != torch.uint8 else [3, 2.5], small=True,
               err=lambda: (g.error("aten::fmod.Scalar_out", [torch.tensor([3]), 0], [torch.tensor([0])], label="int_by_zero"),
                            g.error("aten::fmod.Tensor_out", [torch.tensor([3]), torch.tensor([0])], [torch.tensor([0])],
                                    label="int_by_zero"),
                            g.error("aten::fmod.Scalar_out", [torch.tensor([True]), True], [torch.tensor([True])],
                                    label="bool")))
    a = torch.tensor([5.0, -5.0, 1.0])
    g.add("aten::fmod.Scalar_out", [a, 0], [aten.fmod.Scalar(a, 0)], label="float_by_zero")
    _tensor_op(g, "aten::remainder.Tensor_out", None, REAL_DTYPES, hand=_upstream_remainder, divisor=True,
               err_out=torch.bool, mixed=(torch.int32, torch.float64))
    _scalar_op(g, "aten::remainder.Scalar_out", None, REAL_DTYPES,
               lambda dt: [3, -2.5, True] if dt != torch.uint8 else [3, 2.5], hand=_upstream_remainder,
               err=lambda: (g.error("aten::remainder.Scalar_out", [torch.tensor([3]), 0], [torch.tensor([0])],
                                    label="int_by_zero"),
                            g.error("aten::remainder.Tensor_out", [torch.tensor([3]), torch.tensor([0])],
                                    [torch.tensor([0])], label="int_by_zero"),
                            g.error("aten::remainder.Scalar_out", [torch.tensor([2.0]), 1], [torch.tensor([0])],
                                    label="float_to_int_out")))
    for dt in SIGNED:
        lo = torch.iinfo(dt).min
        g.hand("aten::remainder.Tensor_out", [torch.tensor([lo, 7], dtype=dt), torch.tensor([-1, -1], dtype=dt)],
               [torch.tensor([0, 0], dtype=dt)], label=f"min_by_minus_one_{dt}")

    # ----- pow ---------------------------------------------------------------------------------
    # Integer pow computes in float64 and converts (upstream): operands stay small so that the
    # results fit (PyTorch wraps, upstream's conversion would be undefined) and exponents are
    # non-negative (PyTorch refuses negative integer powers, upstream truncates).
    _tensor_op(g, "aten::pow.Tensor_Tensor_out", aten.pow.Tensor_Tensor, REAL_DTYPES, small=True,
               err_out=torch.bool, mixed=(torch.int32, torch.float32))
    _scalar_op(g, "aten::pow.Tensor_Scalar_out", aten.pow.Tensor_Scalar, REAL_DTYPES,
               lambda dt: [2, 0.5, True] if not dt.is_floating_point else [3, -1.5, True, 2], small=True,
               err=lambda: g.error("aten::pow.Tensor_Scalar_out", [torch.tensor([2]), 0.5], [torch.tensor([0])],
                                   label="float_to_int_out"))
    # a negative integer exponent: PyTorch refuses it, upstream computes pow in float64 and
    # truncates toward zero
    a = torch.tensor([1, 2, -1, 4, -2], dtype=torch.int32)
    g.hand("aten::pow.Tensor_Scalar_out", [a, -1], [torch.tensor([1, 0, -1, 0, 0], dtype=torch.int32)],
           label="int_negative_exponent")
    for i, dt in enumerate(REAL_DTYPES):
        e = g.rand((2, 3), dt, 0, 4) if not dt.is_floating_point else torch.cat([g.edges(dt), g.rand((3,), dt)])
        for s in _cycle([2, 1.5] if not dt.is_floating_point else [2, -1.5, True], i):
            g.add("aten::pow.Scalar_out", [s, e], [aten.pow.Scalar(s, e)], label=f"{dt}_{type(s).__name__}")
    e = channels_last(g.rand((2, 3, 2, 2)))
    g.add("aten::pow.Scalar_out", [2.0, e], [channels_last(aten.pow.Scalar(2.0, e))], label="channels_last")
    g.add("aten::pow.Scalar_out", [3, g.rand((0, 3))], [aten.pow.Scalar(3, g.rand((0, 3)))], label="empty")
    g.error("aten::pow.Scalar_out", [2.5, torch.tensor([1, 2])], [torch.tensor([0, 0])], label="float_to_int_out")

    # ----- atan2, maximum, minimum --------------------------------------------------------------
    # torch 1.13 has no CPU atan2 for float16: computed in float32 and rounded (as upstream does).
    _tensor_op(g, "aten::atan2.out", None, ALL_DTYPES, hand=_atan2, err_out=torch.int32,
               mixed=(torch.int32, torch.float16))
    a, b = g.rand((3,), torch.int32), g.rand((3,), torch.int32)
    g.add("aten::atan2.out", [a, b], [aten.atan2(a, b).double()], label="double_out")
    for name, fn in [("maximum", aten.maximum), ("minimum", aten.minimum)]:
        _tensor_op(g, f"aten::{name}.out", fn, ALL_DTYPES, err_out=torch.int32, mixed=(torch.uint8, torch.int8))
        a, b = g.rand((4,), torch.int16), g.rand((4,), torch.int16)
        g.add(f"aten::{name}.out", [a, b], [fn(a, b).to(torch.float32)], label="cast_out")

    # ----- rsub ----------------------------------------------------------------------------------
    for i, dt in enumerate(ALL_DTYPES):
        a = torch.cat([g.edges(dt), g.rand((4,), dt)])
        for s, alpha in _cycle([(3, 2), (2.5, 1), (True, 1), (-1, 0.5)], i, 2):
            if dt == torch.bool and isinstance(s, bool):
                continue
            common = _scalar_common(dt, s)
            if isinstance(alpha, float) and not common.is_floating_point:
                continue
            label = f"{dt}_{type(s).__name__}_{type(alpha).__name__}"
            if dt == torch.bool:  # torch refuses bool rsub; upstream computes in the promoted dtype
                g.hand("aten::rsub.Scalar_out", [a, s, alpha], [aten.rsub.Scalar(a.to(common), s, alpha)], label=label)
            else:
                g.add("aten::rsub.Scalar_out", [a, s, alpha], [aten.rsub.Scalar(a, s, alpha)], label=label)
    a = channels_last(g.rand((2, 3, 2, 2)))
    g.add("aten::rsub.Scalar_out", [a, 1.5, 2], [channels_last(aten.rsub.Scalar(a, 1.5, 2))], label="channels_last")
    a = g.rand(())
    g.add("aten::rsub.Scalar_out", [a, 1, 1], [aten.rsub.Scalar(a, 1, 1)], label="zero_dim")
    g.add("aten::rsub.Scalar_out", [g.rand((0,)), 1, 1], [g.rand((0,))], label="empty")
    ai = torch.tensor([1, 2], dtype=torch.int32)
    g.error("aten::rsub.Scalar_out", [ai, 1, 1], [ai.double()], label="out_not_common")
    g.error("aten::rsub.Scalar_out", [ai, 1, 0.5], [ai], label="float_alpha_int")
    g.error("aten::rsub.Scalar_out", [ai, 1, True], [ai], label="bool_alpha")

    # ----- bitwise and/or/xor, shifts --------------------------------------------------------------
    for name in ["and", "or", "xor"]:
        t_fn = getattr(aten, f"bitwise_{name}").Tensor
        s_fn = getattr(aten, f"bitwise_{name}").Scalar
        _tensor_op(g, f"aten::bitwise_{name}.Tensor_out", t_fn, INTB_DTYPES, err_out=torch.bool,
                   mixed=(torch.uint8, torch.int16), sdt=torch.int32)
        for i, dt in enumerate(INTB_DTYPES):
            a = torch.cat([g.edges(dt), g.rand((4,), dt)])
            for s in _cycle([6, True, -3] if dt in SIGNED else [6, True], i):
                g.add(f"aten::bitwise_{name}.Scalar_out", [a, s], [s_fn(a, s)], label=f"{dt}_{type(s).__name__}")
        a = channels_last(g.rand((2, 3, 2, 2), torch.int32))
        g.add(f"aten::bitwise_{name}.Scalar_out", [a, 5], [channels_last(s_fn(a, 5))], label="channels_last")
        a = g.rand((), torch.int64)
        g.add(f"aten::bitwise_{name}.Scalar_out", [a, 5], [s_fn(a, 5)], label="zero_dim")
        g.add(f"aten::bitwise_{name}.Scalar_out", [g.rand((0,), torch.int8), 5], [g.rand((0,), torch.int8)], label="empty")
        g.error(f"aten::bitwise_{name}.Scalar_out", [torch.tensor([3]), 1.5], [torch.tensor([0.0])], label="float_scalar")
        g.error(f"aten::bitwise_{name}.Tensor_out", [torch.tensor([1.0]), torch.tensor([1])], [torch.tensor([0.0])],
                label="float_operand")
    for left in [True, False]:
        name = "left" if left else "right"
        fn = _bool_shift(left)
        sfn = aten.bitwise_left_shift.Tensor_Scalar if left else aten.bitwise_right_shift.Tensor_Scalar
        op = f"aten::bitwise_{name}_shift.Tensor_out"
        for dt in INT_DTYPES:
            bits = torch.iinfo(dt).bits
            e = g.edges(dt)
            a = torch.stack([e, g.rand((e.numel(),), dt)])
            b = g.rand((2, e.numel()), dt, 0, bits)
            g.add(op, [a, b], [fn(a, b)], label=str(dt))
            # out of range (negative or >= the width): 0 for left shifts, the sign fill for right
            # shifts, as PyTorch >= 2.0 (torch 1.13 and upstream shift in C++, undefined).
            a = torch.tensor([5, -5, 1, -1, 7, -7], dtype=dt) if dt in SIGNED else torch.tensor([5, 255, 1, 3], dtype=dt)
            amounts = [bits, bits + 3, -1, -bits, 100, bits - 1] if dt in SIGNED else [8, 9, 200, 7]
            b = torch.tensor(amounts, dtype=torch.int64).to(dt)
            if left:
                exp = torch.where((b.long() < 0) | (b.long() >= bits), torch.zeros_like(a), fn(a, b.clamp(0, bits - 1)))
            else:
                sign = torch.where(a < 0, -1, 0).to(dt)
                exp = torch.where((b.long() < 0) | (b.long() >= bits - (1 if dt in SIGNED else 0)),
                                  sign, fn(a, b.clamp(0, bits - 1)))
            g.hand(op, [a, b], [exp], label=f"out_of_range_{dt}")
        a, b = torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False])
        g.hand(op, [a, b], [fn(a, b)], label="bool")
        _structural(g, op, fn, torch.int32, err_out=torch.bool, divisor=True)
        a, b = g.rand((2, 3), torch.uint8), g.rand((3,), torch.int16, 0, 5)
        g.add(op, [a, b], [fn(a, b)], label="mixed")
        sop = f"aten::bitwise_{name}_shift.Tensor_Scalar_out"
        for i, dt in enumerate(INT_DTYPES):
            a = torch.cat([g.edges(dt), g.rand((4,), dt)])
            for s in _cycle([1, 3, 8, torch.iinfo(dt).bits - 1], i, 2):
                g.add(sop, [a, s], [sfn(a, s)], label=f"{dt}_{s}")
        a = channels_last(g.rand((2, 3, 2, 2), torch.int16))
        g.add(sop, [a, 2], [channels_last(sfn(a, 2))], label="channels_last")
        a = g.rand((), torch.int64)
        g.add(sop, [a, 2], [sfn(a, 2)], label="zero_dim")
        g.add(sop, [g.rand((0,), torch.int32), 2], [g.rand((0,), torch.int32)], label="empty")
        g.error(sop, [g.rand((2,)), 2], [g.rand((2,))], label="float_self")

    # ----- logical and/or/xor ---------------------------------------------------------------------
    for name in ["and", "or", "xor"]:
        fn = getattr(aten, f"logical_{name}")
        op = f"aten::logical_{name}.out"
        for dt in ALL_DTYPES:
            a = torch.stack([g.edges(dt), g.rand((g.edges(dt).numel(),), dt, 0, 2) if not dt.is_floating_point
                             else g.rand((g.edges(dt).numel(),), torch.float64).round().to(dt)])
            b = torch.stack([g.edges(dt).flip(0), g.rand((a.shape[1],), dt, 0, 2) if not dt.is_floating_point
                             else g.rand((a.shape[1],), torch.float64).round().to(dt)])
            g.add(op, [a, b], [fn(a, b)], label=str(dt))
        _structural(g, op, fn, torch.int32)
        a, b = g.rand((2, 3), torch.float64).round().half(), g.rand((3,), torch.int8, 0, 2)
        g.add(op, [a, b], [fn(a, b)], label="mixed")
        g.add(op, [a, b], [fn(a, b).float()], label="float_out")

    # ----- comparisons ------------------------------------------------------------------------------
    for name in ["eq", "ne", "lt", "le", "gt", "ge"]:
        t_fn, s_fn = getattr(aten, name).Tensor, getattr(aten, name).Scalar
        for i, dt in enumerate(ALL_DTYPES):
            a = torch.cat([g.edges(dt), g.rand((6,), dt, 0, 3) if not dt.is_floating_point else g.rand((6,), torch.float64).round().to(dt)])
            b = torch.cat([g.edges(dt).flip(0), g.rand((6,), dt, 0, 3) if not dt.is_floating_point
                           else g.rand((6,), torch.float64).round().to(dt)])
            g.add(f"aten::{name}.Tensor_out", [a, b], [t_fn(a, b)], label=str(dt))
            for s in _cycle([1, 0.5, True], i):
                g.add(f"aten::{name}.Scalar_out", [a, s], [s_fn(a, s)], label=f"{dt}_{type(s).__name__}")
        _structural(g, f"aten::{name}.Tensor_out", t_fn, torch.float32)
        a, b = g.rand((2, 3), torch.int32), g.rand((3,), torch.float32).round()
        g.add(f"aten::{name}.Tensor_out", [a, b], [t_fn(a, b)], label="mixed")
        g.add(f"aten::{name}.Tensor_out", [a, b], [t_fn(a, b).to(torch.int32)], label="int_out")
        a = channels_last(g.rand((2, 3, 2, 2)).round())
        g.add(f"aten::{name}.Scalar_out", [a, 1], [channels_last(s_fn(a, 1))], label="channels_last")
        g.add(f"aten::{name}.Scalar_out", [torch.tensor(0.1), 0.1], [s_fn(torch.tensor(0.1), 0.1)], label="zero_dim")
        g.add(f"aten::{name}.Scalar_out", [g.rand((0, 2)), 1], [torch.zeros((0, 2), dtype=torch.bool)], label="empty")
        g.error(f"aten::{name}.Scalar_out", [g.rand((3,)), 1], [torch.zeros(2, dtype=torch.bool)], label="bad_out_shape")

    # upstream converts the Scalar to the common dtype (int8 here: 300 wraps to 44); PyTorch
    # compares values exactly
    a = torch.tensor([44, 1, -56], dtype=torch.int8)
    g.hand("aten::eq.Scalar_out", [a, 300], [torch.tensor([True, False, False])], label="int8_scalar_wraps")

    # a float64 tensor against an Int Scalar compares in float64 (the common dtype)
    a = torch.tensor([1 + 1e-9, 1.0], dtype=torch.float64)
    g.add("aten::eq.Scalar_out", [a, 1], [aten.eq.Scalar(a, 1)], label="float64_int_scalar")

    # ----- where ----------------------------------------------------------------------------------
    for dt in ALL_DTYPES:
        c = g.rand((2, 5), torch.bool)
        e = g.edges(dt).repeat(3)[:5]
        a, b = torch.stack([e, g.rand((5,), dt)]), g.rand((5,), dt)
        g.add("aten::where.self_out", [c, a, b], [aten.where.self(c, a, b)], label=str(dt))
    c, a, b = g.rand((3, 1), torch.bool), g.rand((1, 4)), g.rand((4,), torch.float64)
    g.add("aten::where.self_out", [c, a, b], [aten.where.self(c, a, b)], label="broadcast_promote")
    c = g.rand((4,), torch.bool).to(torch.uint8)
    a, b = g.rand((4,), torch.int32), g.rand((4,), torch.int32)
    g.add("aten::where.self_out", [c, a, b], [aten.where.self(c.bool(), a, b)], label="uint8_condition")
    c, a, b = channels_last(g.rand((2, 3, 2, 2), torch.bool)), channels_last(g.rand((2, 3, 2, 2))), g.rand(())
    g.add("aten::where.self_out", [c, a, b], [channels_last(aten.where.self(c, a, b))], label="channels_last")
    c, a, b = torch.tensor(True), torch.tensor(2.0), torch.tensor(3.0)
    g.add("aten::where.self_out", [c, a, b], [aten.where.self(c, a, b)], label="zero_dim")
    c, a, b = g.rand((0, 2), torch.bool), g.rand((0, 2)), g.rand((2,))
    g.add("aten::where.self_out", [c, a, b], [aten.where.self(c, a, b)], label="empty")
    c, a, b = g.rand((3,), torch.bool), g.rand((3,)), g.rand((3,))
    g.error("aten::where.self_out", [c, a, b], [a.double()], label="out_not_common")
    g.error("aten::where.self_out", [a, a, b], [a], label="float_condition")
    g.error("aten::where.self_out", [c, a, g.rand((2,))], [a], label="bad_broadcast")

    # ----- masked_fill ------------------------------------------------------------------------------
    for i, dt in enumerate(ALL_DTYPES):
        a = torch.cat([g.edges(dt), g.rand((4,), dt)])
        m = g.rand(a.shape, torch.bool)
        for v in _cycle([5, -1.5, True], i):
            if dt == torch.uint8 and v == -1.5:
                v = 1.5  # a negative float into uint8 is undefined in C++ (upstream's static_cast)
            g.add("aten::masked_fill.Scalar_out", [a, m, v], [aten.masked_fill.Scalar(a, m, v)],
                  label=f"{dt}_{type(v).__name__}")
    a, m = g.rand((2, 3)), g.rand((3,), torch.bool)
    g.add("aten::masked_fill.Scalar_out", [a, m, 0.0], [aten.masked_fill.Scalar(a, m, 0.0)], label="broadcast_mask")
    a, m = channels_last(g.rand((2, 3, 2, 2))), channels_last(g.rand((2, 3, 2, 2), torch.bool))
    g.add("aten::masked_fill.Scalar_out", [a, m, 7], [channels_last(aten.masked_fill.Scalar(a, m, 7))], label="channels_last")
    a, m = g.rand(()), torch.tensor(True)
    g.add("aten::masked_fill.Scalar_out", [a, m, 7], [aten.masked_fill.Scalar(a, m, 7)], label="zero_dim")
    a, m = g.rand((0, 3)), g.rand((3,), torch.bool)
    g.add("aten::masked_fill.Scalar_out", [a, m, 7], [a.clone()], label="empty")
    a, m = g.rand((3,)), g.rand((3,), torch.bool)
    g.error("aten::masked_fill.Scalar_out", [a, m, 1], [a.double()], label="out_dtype")
    g.error("aten::masked_fill.Scalar_out", [a, m.to(torch.uint8), 1], [a], label="uint8_mask")
    g.error("aten::masked_fill.Scalar_out", [a, g.rand((2,), torch.bool), 1], [a], label="bad_broadcast")
