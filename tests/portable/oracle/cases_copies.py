"""Copies, views and layout ops (op_copies_*.cpp, op_clone.cpp, op_permute_copy.cpp,
op_expand_copy.cpp, op_view_copy.cpp, op_slice_copy.cpp, op_cat.cpp).

Data movement is exact: every expectation has tolerance 0 (tol=EXACT), floats included, and
the inputs carry the dtype's edge values (NaN, +-inf, -0.0, integer min/max). Conversions
(_to_copy, copy from another dtype, stack/cat/split/unbind/unfold into another out dtype) use
values every target dtype represents, since out-of-range float -> int casts are undefined in
both PyTorch and ExecuTorch.
"""
import warnings

import torch

import oracle
from oracle import ALL_DTYPES, OutList, channels_last

aten = torch.ops.aten
EXACT = (0.0, 0.0)
F32 = torch.float32


def _vals(g, shape, dt):
    """Random values of `dt` in `shape` with the dtype's edge values at the front."""
    t = g.rand(shape, dt)
    flat = t.reshape(-1)
    e = g.edges(dt)
    n = min(flat.numel(), e.numel())
    flat[:n] = e[:n]
    return flat.reshape(shape)


def _conv_vals(g, shape):
    """float32 values that convert exactly enough to every dtype: small non-negative numbers."""
    return g.rand(shape, torch.float64, 0.0, 100.0).to(F32)


_FUNCTIONAL = {"out": "default", "int_out": "int", "Tensor_out": "Tensor", "dim_out": "dim"}


def _out(opfn, args, dtype, **kw):
    """Calls an `.out` overload with an out of `dtype`. Torch 1.13's generated `*_copy.out`
    kernels do not resize their out, so the shape comes from the functional overload."""
    functional = getattr(opfn.overloadpacket, _FUNCTIONAL[opfn._overloadname])
    out = torch.empty(functional(*args, **kw).shape, dtype=dtype)
    opfn(*args, out=out, **kw)
    return out


def _add(g, op, args, outs, **kw):
    g.add(op, args, outs, tol=EXACT, **kw)


def _same_dtype_ops(g):
    """Ops that keep self's dtype (any dtype), one `(name, args-after-self, ref)` family each."""
    unary = [  # (op, torch .out overload or None for a plain copy)
        ("aten::alias_copy.out", aten.alias_copy.out),
        ("aten::detach_copy.out", aten.detach_copy.out),
        ("aten::lift_fresh_copy.out", aten.lift_fresh_copy.out),
        ("et_copy::_h2d_copy.out", None),  # no torch op: a host copy is clone
        ("et_copy::_d2h_copy.out", None),
    ]
    for op, fn in unary:
        # One kernel serves all five: every dtype for alias_copy, a few for the others.
        for dt in ALL_DTYPES if op == "aten::alias_copy.out" else [torch.bool, torch.int64, torch.bfloat16]:
            x = _vals(g, (3, 5), dt)
            ref = _out(fn, [x], dt) if fn else x.clone()
            (g.add if fn else g.hand)(op, [x], [ref], tol=EXACT)
        x = channels_last(_vals(g, (2, 3, 2, 2), F32))
        ref = channels_last(_out(fn, [x], F32) if fn else x.clone())
        (g.add if fn else g.hand)(op, [x], [ref], tol=EXACT, label="channels_last")
        x = torch.tensor(2.5)
        (g.add if fn else g.hand)(op, [x], [x.clone()], tol=EXACT, label="0-dim")
        x = torch.zeros(0, 3, dtype=torch.int32)
        (g.add if fn else g.hand)(op, [x], [x.clone()], tol=EXACT, label="empty")
        x = _vals(g, (2, 3), F32)
        (g.add if fn else g.hand)(op, [x], [x.clone()], tol=EXACT, dynamic=[[4, 4]], label="dynamic")
        g.error(op, [_vals(g, (2, 3), F32)], [torch.zeros(2, 3, dtype=torch.float64)], label="out_dtype")
        g.error(op, [_vals(g, (2, 3), F32)], [torch.zeros(3, 2)], label="out_shape")

    # t_copy: rank <= 2
    for dt in ALL_DTYPES:
        x = _vals(g, (3, 4), dt)
        _add(g, "aten::t_copy.out", [x], [_out(aten.t_copy.out, [x], dt)])
    for x in [torch.arange(4.0), torch.tensor(7.0), torch.zeros(0, 2), torch.arange(6.0).reshape(3, 2).t()]:
        _add(g, "aten::t_copy.out", [x], [_out(aten.t_copy.out, [x], F32)])
    g.error("aten::t_copy.out", [torch.zeros(2, 2, 2)], [torch.zeros(2, 2, 2)], label="rank3")
    g.error("aten::t_copy.out", [torch.zeros(2, 3)], [torch.zeros(2, 3)], label="out_shape")

    # transpose_copy
    for dt in ALL_DTYPES:
        x = _vals(g, (2, 3, 4), dt)
        _add(g, "aten::transpose_copy.int_out", [x, 0, -1], [_out(aten.transpose_copy.int_out, [x, 0, -1], dt)])
    x = channels_last(_vals(g, (2, 3, 4, 5), F32))
    _add(g, "aten::transpose_copy.int_out", [x, 1, 2], [channels_last(aten.transpose_copy.int(x, 1, 2))])
    for x, d0, d1 in [(torch.tensor(1.5), 0, -1), (torch.zeros(2, 0, 3), 0, 1), (_vals(g, (3, 2), F32), 1, 1)]:
        _add(g, "aten::transpose_copy.int_out", [x, d0, d1], [_out(aten.transpose_copy.int_out, [x, d0, d1], F32)])
    g.error("aten::transpose_copy.int_out", [torch.zeros(2, 3), 0, 2], [torch.zeros(3, 2)], label="bad_dim")

    # as_strided_copy: strides index self's storage
    for dt in ALL_DTYPES:
        x = _vals(g, (4, 5), dt)
        args = [x, [3, 2], [4, 3], 2]
        _add(g, "aten::as_strided_copy.out", args, [_out(aten.as_strided_copy.out, args, dt)])
    x = channels_last(_vals(g, (1, 3, 2, 2), F32))  # storage order is NHWC
    args = [x, [2, 3], [3, 1], None]
    _add(g, "aten::as_strided_copy.out", args, [_out(aten.as_strided_copy.out, args, F32)], label="channels_last")
    for args in [[torch.arange(6.0), [], [], 5], [torch.arange(6.0), [0, 4], [1, 1], None],
                 [torch.arange(6.0), [2, 2], [0, 1], 4]]:
        _add(g, "aten::as_strided_copy.out", args, [_out(aten.as_strided_copy.out, args, F32)])
    g.error("aten::as_strided_copy.out", [torch.arange(6.0), [3, 2], [2, 1], 1], [torch.zeros(3, 2)],
            label="out_of_bounds")
    g.error("aten::as_strided_copy.out", [torch.arange(6.0), [2], [-1], 5], [torch.zeros(2)], label="neg_stride")
    g.error("aten::as_strided_copy.out", [torch.arange(6.0), [2], [1, 1], None], [torch.zeros(2)],
            label="len_mismatch")

    # diagonal_copy
    for dt in ALL_DTYPES:
        x = _vals(g, (3, 4), dt)
        _add(g, "aten::diagonal_copy.out", [x, 1, 0, 1], [_out(aten.diagonal_copy.out, [x, 1, 0, 1], dt)])
    x = _vals(g, (2, 3, 4, 5), F32)
    for off, d1, d2 in [(0, 1, 3), (-2, -1, 1), (7, 0, 1), (-9, 0, 2), (2, 2, 0)]:
        _add(g, "aten::diagonal_copy.out", [x, off, d1, d2], [_out(aten.diagonal_copy.out, [x, off, d1, d2], F32)])
    xc = channels_last(x)
    _add(g, "aten::diagonal_copy.out", [xc, 0, 2, 3], [_out(aten.diagonal_copy.out, [xc, 0, 2, 3], F32)],
         label="channels_last")
    x = torch.zeros(0, 3)
    _add(g, "aten::diagonal_copy.out", [x, 0, 0, 1], [_out(aten.diagonal_copy.out, [x, 0, 0, 1], F32)])
    g.error("aten::diagonal_copy.out", [torch.zeros(3, 3), 0, 1, -1], [torch.zeros(3)], label="same_dims")
    g.error("aten::diagonal_copy.out", [torch.zeros(3), 0, 0, 1], [torch.zeros(3)], label="rank1")

    # narrow_copy
    for dt in ALL_DTYPES:
        x = _vals(g, (4, 5), dt)
        _add(g, "aten::narrow_copy.out", [x, 1, 1, 3], [_out(aten.narrow_copy.out, [x, 1, 1, 3], dt)])
    x = channels_last(_vals(g, (2, 3, 4, 2), F32))
    _add(g, "aten::narrow_copy.out", [x, -2, -3, 2], [channels_last(aten.narrow_copy.default(x, -2, -3, 2))])
    for args in [[torch.arange(5.0), 0, 5, 0], [torch.arange(5.0), 0, 0, 5], [torch.zeros(0, 2), 1, 1, 1]]:
        _add(g, "aten::narrow_copy.out", args, [_out(aten.narrow_copy.out, args, F32)])
    g.error("aten::narrow_copy.out", [torch.arange(5.0), 0, 3, 3], [torch.zeros(3)], label="too_long")
    g.error("aten::narrow_copy.out", [torch.arange(5.0), 0, -6, 1], [torch.zeros(1)], label="bad_start")
    g.error("aten::narrow_copy.out", [torch.tensor(1.0), 0, 0, 1], [torch.zeros(1)], label="0-dim")

    # repeat
    for dt in ALL_DTYPES:
        x = _vals(g, (2, 3), dt)
        _add(g, "aten::repeat.out", [x, [2, 1, 2]], [_out(aten.repeat.out, [x, [2, 1, 2]], dt)])
    x = channels_last(_vals(g, (1, 2, 2, 3), F32))
    _add(g, "aten::repeat.out", [x, [2, 1, 2, 1]], [channels_last(aten.repeat.default(x, [2, 1, 2, 1]))])
    for x, r in [(torch.tensor(3.0), [4]), (torch.tensor(3.0), []), (torch.arange(3.0), [0, 2]),
                 (torch.zeros(0, 2), [2, 3])]:
        _add(g, "aten::repeat.out", [x, r], [_out(aten.repeat.out, [x, r], F32)])
    g.error("aten::repeat.out", [torch.zeros(2, 3), [2]], [torch.zeros(4, 3)], label="too_few")
    g.error("aten::repeat.out", [torch.zeros(2), [-1]], [torch.zeros(2)], label="negative")

    # pixel_shuffle / pixel_unshuffle
    for dt in ALL_DTYPES:
        x = _vals(g, (1, 8, 2, 3), dt)
        _add(g, "aten::pixel_shuffle.out", [x, 2], [_out(aten.pixel_shuffle.out, [x, 2], dt)])
        x = _vals(g, (1, 2, 4, 6), dt)
        _add(g, "aten::pixel_unshuffle.out", [x, 2], [_out(aten.pixel_unshuffle.out, [x, 2], dt)])
    x = channels_last(_vals(g, (2, 9, 2, 2), F32))
    _add(g, "aten::pixel_shuffle.out", [x, 3], [channels_last(aten.pixel_shuffle.default(x, 3))])
    x = channels_last(_vals(g, (2, 2, 6, 3), F32))
    _add(g, "aten::pixel_unshuffle.out", [x, 3], [channels_last(aten.pixel_unshuffle.default(x, 3))])
    for x in [_vals(g, (4, 2, 2), F32), _vals(g, (2, 1, 4, 1, 2), F32), torch.zeros(0, 4, 1, 1)]:
        _add(g, "aten::pixel_shuffle.out", [x, 2] if x.shape[-3] % 4 == 0 else [x, 1],
             [aten.pixel_shuffle.default(x, 2 if x.shape[-3] % 4 == 0 else 1)])
    x = _vals(g, (1, 4, 2), F32)
    _add(g, "aten::pixel_unshuffle.out", [x, 2], [aten.pixel_unshuffle.default(x, 2)])
    # torch 1.13 returns an empty input unchanged ([2, 0, 2, 2]); ExecuTorch computes the
    # unshuffled shape [2, 0, 1, 1]: follow ExecuTorch.
    g.hand("aten::pixel_unshuffle.out", [torch.zeros(2, 0, 2, 2), 2], [torch.zeros(2, 0, 1, 1)], tol=EXACT,
           label="empty")
    g.error("aten::pixel_shuffle.out", [torch.zeros(1, 6, 2, 2), 2], [torch.zeros(1, 1, 4, 4)], label="channels")
    g.error("aten::pixel_shuffle.out", [torch.zeros(4, 2), 2], [torch.zeros(4, 2)], label="rank2")
    g.error("aten::pixel_unshuffle.out", [torch.zeros(1, 1, 3, 4), 2], [torch.zeros(1, 4, 1, 2)], label="spatial")
    g.error("aten::pixel_unshuffle.out", [torch.zeros(1, 1, 2, 2), 0], [torch.zeros(1, 1, 2, 2)], label="factor0")


def _converting_ops(g):
    # copy.out / copy_: src broadcast to self, converted to self's dtype
    for dt in ALL_DTYPES:
        self_, src = g.rand((2, 3), dt), _vals(g, (2, 3), dt)
        _add(g, "aten::copy.out", [self_, src, False], [aten.copy.default(self_, src)])
        _add(g, "aten::copy_", [self_.clone(), src, False], [],
             expect={0: self_.clone().copy_(src)})
        # from float32 to dt, broadcasting a row
        src = _conv_vals(g, (3,))
        _add(g, "aten::copy.out", [self_, src, False], [aten.copy.default(self_, src)], label=f"from_f32_{dt}")
        _add(g, "aten::copy_", [self_.clone(), src, False], [], expect={0: self_.clone().copy_(src)},
             label=f"from_f32_{dt}")
    a, s = channels_last(g.rand((2, 3, 2, 2))), g.rand((3, 1, 1), torch.int32)
    _add(g, "aten::copy.out", [a, s, False], [channels_last(aten.copy.default(a, s))], label="channels_last")
    _add(g, "aten::copy_", [a.clone(), s, False], [], expect={0: a.clone().copy_(s)}, label="channels_last")
    a = torch.tensor(1.0)
    _add(g, "aten::copy.out", [a, torch.tensor([4.5]).reshape(()), False], [torch.tensor(4.5)], label="0-dim")
    a = torch.zeros(0, 3, dtype=torch.int16)
    _add(g, "aten::copy.out", [a, torch.ones(3), False], [a.clone()], label="empty")
    _add(g, "aten::copy_", [a.clone(), torch.ones(1, 3), False], [], expect={0: a.clone()}, label="empty")
    g.error("aten::copy.out", [torch.zeros(2, 3), torch.zeros(2), False], [torch.zeros(2, 3)], label="broadcast")
    g.error("aten::copy.out", [torch.zeros(2, 3), torch.zeros(3), False], [torch.zeros(2, 3, dtype=torch.int32)],
            label="out_dtype")
    g.error("aten::copy.out", [torch.zeros(2, 3), torch.zeros(3), True], [torch.zeros(2, 3)], label="non_blocking")
    g.error("aten::copy_", [torch.zeros(2, 3), torch.zeros(4), False], [], label="broadcast")

    # _to_copy: every dtype to three others (and itself), rotating through the pairs
    for i, src_dt in enumerate(ALL_DTYPES):
        x = _conv_vals(g, (2, 3)).to(src_dt)
        for dst_dt in [ALL_DTYPES[(i + k) % len(ALL_DTYPES)] for k in (0, 1, 4, 7)]:
            _add(g, "aten::_to_copy.out", [x, False, None], [aten._to_copy.default(x, dtype=dst_dt)])
    for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64]:  # edges between floats
        x = g.edges(torch.float64)
        _add(g, "aten::_to_copy.out", [x, False, None], [aten._to_copy.default(x, dtype=dt)], label=f"edges_{dt}")
    x = g.edges(torch.int64)
    _add(g, "aten::_to_copy.out", [x, False, None], [aten._to_copy.default(x, dtype=torch.int8)], label="wrap")
    x = channels_last(_conv_vals(g, (2, 3, 2, 2)))
    _add(g, "aten::_to_copy.out", [x, False, None], [channels_last(x.to(torch.float16))], label="channels_last")
    x = torch.tensor(2.75)
    _add(g, "aten::_to_copy.out", [x, False, 0], [x.to(torch.int32)], label="0-dim")
    _add(g, "aten::_to_copy.out", [torch.zeros(0, 2), False, None], [torch.zeros(0, 2, dtype=torch.bool)],
         label="empty")
    g.error("aten::_to_copy.out", [torch.zeros(2), True, None], [torch.zeros(2)], label="non_blocking")
    g.error("aten::_to_copy.out", [torch.zeros(2, 3, 2, 2), False, 2], [channels_last(torch.zeros(2, 3, 2, 2))],
            label="memory_format")
    g.error("aten::_to_copy.out", [torch.zeros(2), False, None], [torch.zeros(3)], label="out_shape")

    # stack
    for dt in ALL_DTYPES:
        ts = [_vals(g, (2, 3), dt) for _ in range(3)]
        dim = [0, 2, -2][ALL_DTYPES.index(dt) % 3]
        _add(g, "aten::stack.out", [ts, dim], [_out(aten.stack.out, [ts, dim], dt)])
    ts = [g.rand((2, 3), torch.int8), g.rand((2, 3), torch.int32), g.rand((2, 3), torch.bool)]
    _add(g, "aten::stack.out", [ts, 1], [_out(aten.stack.out, [ts, 1], torch.float32)], label="mixed")
    ts = [channels_last(g.rand((1, 2, 2, 3))), g.rand((1, 2, 2, 3))]
    _add(g, "aten::stack.out", [ts, -1], [aten.stack.default(ts, -1)], label="channels_last")
    ts = [torch.tensor(1.0), torch.tensor(2.0)]
    _add(g, "aten::stack.out", [ts, 0], [aten.stack.default(ts, 0)], label="0-dim")
    ts = [torch.zeros(0, 2), torch.zeros(0, 2)]
    _add(g, "aten::stack.out", [ts, 1], [aten.stack.default(ts, 1)], label="empty")
    g.error("aten::stack.out", [[torch.zeros(2), torch.zeros(3)], 0], [torch.zeros(2, 2)], label="shapes")
    g.error("aten::stack.out", [[torch.zeros(2), torch.zeros(2)], 2], [torch.zeros(2, 2)], label="bad_dim")
    g.error("aten::stack.out", [[torch.zeros(2), torch.zeros(2)], 0], [torch.zeros(2, 2, dtype=torch.int32)],
            label="cannot_cast")

    # unfold_copy (out dtype may differ, as upstream; torch requires equal, so those are by hand)
    for dt in ALL_DTYPES:
        x = _vals(g, (3, 7), dt)
        _add(g, "aten::unfold_copy.out", [x, 1, 3, 2], [_out(aten.unfold_copy.out, [x, 1, 3, 2], dt)])
    x = _vals(g, (2, 5, 3), F32)
    for dim, size, step in [(0, 2, 1), (-2, 5, 1), (1, 0, 3), (2, 1, 5)]:
        _add(g, "aten::unfold_copy.out", [x, dim, size, step], [aten.unfold_copy.default(x, dim, size, step)])
    xc = channels_last(_vals(g, (1, 2, 4, 3), F32))
    _add(g, "aten::unfold_copy.out", [xc, 2, 2, 2], [aten.unfold_copy.default(xc, 2, 2, 2)], label="channels_last")
    x = torch.tensor(5.0)
    _add(g, "aten::unfold_copy.out", [x, 0, 1, 1], [aten.unfold_copy.default(x, 0, 1, 1)], label="0-dim")
    x = torch.zeros(0, 4)
    _add(g, "aten::unfold_copy.out", [x, 1, 2, 2], [aten.unfold_copy.default(x, 1, 2, 2)], label="empty")
    x = _conv_vals(g, (6,))
    g.hand("aten::unfold_copy.out", [x, 0, 2, 2], [aten.unfold_copy.default(x, 0, 2, 2).to(torch.int16)],
           tol=EXACT, label="convert")
    g.error("aten::unfold_copy.out", [torch.zeros(4), 0, 5, 1], [torch.zeros(0, 5)], label="size")
    g.error("aten::unfold_copy.out", [torch.zeros(4), 0, 2, 0], [torch.zeros(2, 2)], label="step")


def _list_ops(g):
    for dt in ALL_DTYPES:
        x = _vals(g, (5, 3), dt)
        _add(g, "aten::split_copy.Tensor_out", [x, 2, 0], [OutList(aten.split_copy.Tensor(x, 2, 0))])
        _add(g, "aten::split_with_sizes_copy.out", [x, [1, 0, 2], -1],
             [OutList(aten.split_with_sizes_copy.default(x, [1, 0, 2], -1))])
        _add(g, "aten::unbind_copy.int_out", [x, 1], [OutList(aten.unbind_copy.int(x, 1))])
    xc = channels_last(_vals(g, (2, 4, 3, 2), F32))
    _add(g, "aten::split_copy.Tensor_out", [xc, 3, 1],
         [OutList([channels_last(t) for t in aten.split_copy.Tensor(xc, 3, 1)])], label="channels_last")
    _add(g, "aten::split_with_sizes_copy.out", [xc, [2, 1], 2],
         [OutList([channels_last(t) for t in aten.split_with_sizes_copy.default(xc, [2, 1], 2)])],
         label="channels_last")
    _add(g, "aten::unbind_copy.int_out", [xc, -1], [OutList(aten.unbind_copy.int(xc, -1))], label="channels_last")
    x = torch.zeros(0, 3)
    _add(g, "aten::split_copy.Tensor_out", [x, 0, 0], [OutList(aten.split_copy.Tensor(x, 0, 0))], label="empty")
    _add(g, "aten::split_copy.Tensor_out", [x, 2, 1], [OutList(aten.split_copy.Tensor(x, 2, 1))], label="empty2")
    _add(g, "aten::split_with_sizes_copy.out", [x, [0], 0], [OutList([x.clone()])], label="empty")
    _add(g, "aten::unbind_copy.int_out", [x, 1], [OutList(aten.unbind_copy.int(x, 1))], label="empty")
    x = _vals(g, (4,), F32)
    _add(g, "aten::split_copy.Tensor_out", [x, 9, 0], [OutList([x.clone()])], label="big_split")
    _add(g, "aten::unbind_copy.int_out", [x, 0], [OutList(aten.unbind_copy.int(x, 0))], label="to_0-dim")
    # a different out dtype converts (ExecuTorch; torch requires equal dtypes): by hand
    x = _conv_vals(g, (4, 2))
    g.hand("aten::split_copy.Tensor_out", [x, 3, 0], [OutList([t.to(torch.int32) for t in x.split(3, 0)])],
           tol=EXACT, label="convert")
    g.hand("aten::unbind_copy.int_out", [x, 0], [OutList([t.to(torch.float16) for t in x.unbind(0)])],
           tol=EXACT, label="convert")
    g.hand("aten::split_with_sizes_copy.out", [x, [1, 3], 0],
           [OutList([t.to(torch.uint8) for t in x.split([1, 3], 0)])], tol=EXACT, label="convert")
    x = torch.zeros(5, 2)
    g.error("aten::split_copy.Tensor_out", [x, 2, 0], [OutList([torch.zeros(2, 2), torch.zeros(3, 2)])],
            label="count")
    g.error("aten::split_copy.Tensor_out", [x, 3, 0], [OutList([torch.zeros(3, 2), torch.zeros(3, 2)])],
            label="last_shape")
    g.error("aten::split_copy.Tensor_out", [x, 3, 2], [OutList([torch.zeros(3, 2), torch.zeros(2, 2)])],
            label="bad_dim")
    g.error("aten::split_with_sizes_copy.out", [x, [2, 2], 0], [OutList([torch.zeros(2, 2), torch.zeros(2, 2)])],
            label="sum")
    g.error("aten::split_with_sizes_copy.out", [x, [2, 3], 0],
            [OutList([torch.zeros(2, 2), torch.zeros(3, 2, dtype=torch.int32)])], label="mixed_dtypes")
    g.error("aten::unbind_copy.int_out", [x, 1], [OutList([torch.zeros(5)])], label="count")
    g.error("aten::unbind_copy.int_out", [torch.tensor(1.0), 0], [OutList([torch.zeros(1)])], label="0-dim")


def _existing_ops(g):
    # clone.out and the dim-order copies: out carries the layout
    for dt in ALL_DTYPES:
        x = _vals(g, (2, 3, 2, 2), dt)
        _add(g, "aten::clone.out", [x, None], [_out(aten.clone.out, [x], dt)])
        g.hand("dim_order_ops::_clone_dim_order.out", [x, False, [0, 2, 3, 1]], [channels_last(x)], tol=EXACT)
        g.hand("dim_order_ops::_to_dim_order_copy.out", [x, False, None], [x.clone()], tol=EXACT)
    x = _vals(g, (2, 3, 2, 2), F32)
    _add(g, "aten::clone.out", [x, 2], [channels_last(x)], label="to_channels_last")
    g.hand("dim_order_ops::_clone_dim_order.out", [channels_last(x), False, None], [channels_last(x)],
           tol=EXACT, label="preserve")
    xc = channels_last(_vals(g, (1, 2, 2, 3), F32))
    _add(g, "aten::clone.out", [xc, 0], [xc.contiguous()], label="to_contiguous")
    _add(g, "aten::clone.out", [torch.tensor(3.0), None], [torch.tensor(3.0)], label="0-dim")
    _add(g, "aten::clone.out", [torch.zeros(0, 2), 1], [torch.zeros(0, 2)], label="empty")
    g.error("aten::clone.out", [torch.zeros(2), None], [torch.zeros(2, dtype=torch.int32)], label="out_dtype")
    g.error("aten::clone.out", [torch.zeros(1, 2, 2, 2), 2], [torch.zeros(1, 2, 2, 2)], label="memory_format")
    for i, src_dt in enumerate(ALL_DTYPES):
        x = _conv_vals(g, (2, 3)).to(src_dt)
        for dst_dt in [ALL_DTYPES[(i + k) % len(ALL_DTYPES)] for k in (2, 5)]:
            g.hand("dim_order_ops::_to_dim_order_copy.out", [x, False, [0, 1]], [x.to(dst_dt)], tol=EXACT)
    x = _conv_vals(g, (2, 3, 2, 2))
    g.hand("dim_order_ops::_to_dim_order_copy.out", [x, False, [0, 2, 3, 1]], [channels_last(x.to(torch.int32))],
           tol=EXACT, label="channels_last")
    g.hand("dim_order_ops::_to_dim_order_copy.out", [torch.tensor(1.5), False, []], [torch.tensor(1.5).half()],
           tol=EXACT, label="0-dim")
    g.hand("dim_order_ops::_clone_dim_order.out", [torch.zeros(0, 3), False, None], [torch.zeros(0, 3)],
           tol=EXACT, label="empty")
    g.error("dim_order_ops::_clone_dim_order.out", [torch.zeros(1, 2, 2, 2), False, [0, 2, 3, 1]],
            [torch.zeros(1, 2, 2, 2)], label="dim_order")
    g.error("dim_order_ops::_to_dim_order_copy.out", [torch.zeros(2, 2), False, [0]], [torch.zeros(2, 2)],
            label="dim_order_len")
    g.error("dim_order_ops::_clone_dim_order.out", [torch.zeros(2), False, None], [torch.zeros(2).half()],
            label="out_dtype")

    # _empty_dim_order: vkrt zero-fills (contents are unspecified upstream)
    for dt in ALL_DTYPES:
        g.hand("dim_order_ops::_empty_dim_order.out", [[2, 3], None], [torch.zeros(2, 3, dtype=dt)], tol=EXACT)
    g.hand("dim_order_ops::_empty_dim_order.out", [[2, 3, 2, 2], [0, 2, 3, 1]],
           [channels_last(torch.zeros(2, 3, 2, 2))], tol=EXACT, label="channels_last")
    g.hand("dim_order_ops::_empty_dim_order.out", [[], None], [torch.zeros(())], tol=EXACT, label="0-dim")
    g.hand("dim_order_ops::_empty_dim_order.out", [[0, 4], [0, 1]], [torch.zeros(0, 4)], tol=EXACT, label="empty")
    g.hand("dim_order_ops::_empty_dim_order.out", [[3, 2], None], [torch.zeros(3, 2)], tol=EXACT, dynamic=[[4, 5]],
           label="dynamic")
    g.error("dim_order_ops::_empty_dim_order.out", [[2, 3], None], [torch.zeros(3, 2)], label="out_shape")
    g.error("dim_order_ops::_empty_dim_order.out", [[1, 2, 2, 2], [0, 2, 3, 1]], [torch.zeros(1, 2, 2, 2)],
            label="dim_order")

    # permute / expand
    for dt in ALL_DTYPES:
        x = _vals(g, (2, 3, 4), dt)
        _add(g, "aten::permute_copy.out", [x, [2, 0, -2]], [_out(aten.permute_copy.out, [x, [2, 0, -2]], dt)])
        y = _vals(g, (3, 1), dt)
        _add(g, "aten::expand_copy.out", [y, [2, -1, 4], False], [_out(aten.expand_copy.out, [y, [2, -1, 4]], dt)])
    xc = channels_last(_vals(g, (2, 3, 2, 2), F32))
    _add(g, "aten::permute_copy.out", [xc, [0, 3, 1, 2]], [channels_last(aten.permute_copy.default(xc, [0, 3, 1, 2]))])
    _add(g, "aten::permute_copy.out", [torch.tensor(2.0), []], [torch.tensor(2.0)], label="0-dim")
    _add(g, "aten::permute_copy.out", [torch.zeros(0, 2), [1, 0]], [torch.zeros(2, 0)], label="empty")
    g.error("aten::permute_copy.out", [torch.zeros(2, 3), [0, 0]], [torch.zeros(2, 3)], label="duplicate")
    xc = channels_last(_vals(g, (2, 3, 1, 2), F32))
    _add(g, "aten::expand_copy.out", [xc, [2, 3, 4, 2], False], [channels_last(xc.expand(2, 3, 4, 2))],
         label="channels_last")
    _add(g, "aten::expand_copy.out", [torch.tensor(7.0), [3, 2], False], [torch.full((3, 2), 7.0)], label="0-dim")
    _add(g, "aten::expand_copy.out", [torch.zeros(1, 2), [0, 2], False], [torch.zeros(0, 2)], label="empty")
    g.error("aten::expand_copy.out", [torch.zeros(2, 3), [4, 3], False], [torch.zeros(4, 3)], label="bad_size")

    # view / unsqueeze / squeeze
    for dt in ALL_DTYPES:
        x = _vals(g, (2, 1, 6), dt)
        _add(g, "aten::view_copy.out", [x, [3, -1]], [_out(aten.view_copy.out, [x, [3, -1]], dt)])
        _add(g, "aten::unsqueeze_copy.out", [x, -1], [_out(aten.unsqueeze_copy.out, [x, -1], dt)])
        _add(g, "aten::squeeze_copy.out", [x], [_out(aten.squeeze_copy.out, [x], dt)])
        _add(g, "aten::squeeze_copy.dim_out", [x, 1], [_out(aten.squeeze_copy.dim_out, [x, 1], dt)])
        g.hand("aten::squeeze_copy.dims_out", [x, [0, -2]], [x.squeeze(1).clone()], tol=EXACT)  # not in torch 1.13
    xc = channels_last(_vals(g, (2, 3, 1, 2), F32))
    _add(g, "aten::view_copy.out", [xc, [6, 2]], [aten.view_copy.default(xc, [6, 2])], label="channels_last")
    _add(g, "aten::unsqueeze_copy.out", [xc, 0], [aten.unsqueeze_copy.default(xc, 0)], label="channels_last")
    _add(g, "aten::squeeze_copy.dim_out", [xc, 2], [aten.squeeze_copy.dim(xc, 2)], label="channels_last")
    x = torch.tensor(4.0)
    _add(g, "aten::view_copy.out", [x, [1, 1]], [x.reshape(1, 1)], label="0-dim")
    _add(g, "aten::unsqueeze_copy.out", [x, 0], [x.reshape(1)], label="0-dim")
    _add(g, "aten::squeeze_copy.out", [x], [x.clone()], label="0-dim")
    _add(g, "aten::squeeze_copy.dim_out", [x, -1], [x.clone()], label="0-dim")
    g.hand("aten::squeeze_copy.dims_out", [x, [0]], [x.clone()], tol=EXACT, label="0-dim")
    x = torch.zeros(0, 1, 3)
    _add(g, "aten::view_copy.out", [x, [3, -1, 1]], [x.reshape(3, 0, 1)], label="empty")
    _add(g, "aten::squeeze_copy.out", [x], [x.squeeze()], label="empty")
    g.hand("aten::squeeze_copy.dims_out", [x, [0, 1]], [x.squeeze(1)], tol=EXACT, label="empty")
    g.error("aten::view_copy.out", [torch.zeros(2, 3), [4, -1]], [torch.zeros(4, 2)], label="bad_size")
    g.error("aten::unsqueeze_copy.out", [torch.zeros(2, 3), 4], [torch.zeros(2, 3, 1)], label="bad_dim")
    g.error("aten::squeeze_copy.dim_out", [torch.zeros(2, 3), 2], [torch.zeros(2, 3)], label="bad_dim")
    g.error("aten::squeeze_copy.dims_out", [torch.zeros(2, 1), [5]], [torch.zeros(2)], label="bad_dim")
    g.error("aten::squeeze_copy.out", [torch.zeros(2, 1)], [torch.zeros(2, 1)], label="out_shape")

    # slice / select
    for dt in ALL_DTYPES:
        x = _vals(g, (4, 6), dt)
        _add(g, "aten::slice_copy.Tensor_out", [x, 1, 1, -1, 2],
             [_out(aten.slice_copy.Tensor_out, [x, 1, 1, -1, 2], dt)])
        _add(g, "aten::select_copy.int_out", [x, 0, -1], [_out(aten.select_copy.int_out, [x, 0, -1], dt)])
    xc = channels_last(_vals(g, (2, 3, 4, 2), F32))
    _add(g, "aten::slice_copy.Tensor_out", [xc, 2, None, None, 3],
         [channels_last(aten.slice_copy.Tensor(xc, 2, None, None, 3))], label="channels_last")
    _add(g, "aten::select_copy.int_out", [xc, 1, 2], [aten.select_copy.int(xc, 1, 2)], label="channels_last")
    x = _vals(g, (5,), F32)
    for args in [[x, 0, -100, 100, 1], [x, 0, 4, 2, 1], [torch.zeros(0, 2), 1, 0, 1, 1]]:
        _add(g, "aten::slice_copy.Tensor_out", args, [_out(aten.slice_copy.Tensor_out, args, F32)])
    _add(g, "aten::select_copy.int_out", [x, 0, 2], [x[2].clone()], label="to_0-dim")
    _add(g, "aten::select_copy.int_out", [torch.zeros(2, 0), 0, 1], [torch.zeros(0)], label="empty")
    g.error("aten::slice_copy.Tensor_out", [x, 0, 0, 5, 0], [torch.zeros(5)], label="step0")
    g.error("aten::select_copy.int_out", [x, 0, 5], [torch.zeros(())], label="index")

    # cat
    for dt in ALL_DTYPES:
        ts = [_vals(g, (2, 3), dt), _vals(g, (1, 3), dt)]
        _add(g, "aten::cat.out", [ts, 0], [_out(aten.cat.out, [ts, 0], dt)])
    ts = [g.rand((2, 2), torch.int16), g.rand((2, 1), torch.bool), g.rand((2, 3), torch.float16)]
    _add(g, "aten::cat.out", [ts, -1], [_out(aten.cat.out, [ts, -1], F32)], label="mixed")
    ts = [channels_last(g.rand((1, 2, 2, 2))), g.rand((1, 3, 2, 2))]
    _add(g, "aten::cat.out", [ts, 1], [channels_last(aten.cat.default(ts, 1))], label="channels_last")
    ts = [torch.zeros(0), g.rand((2, 2)), torch.zeros(0, 2)]
    _add(g, "aten::cat.out", [ts, 0], [aten.cat.default(ts, 0)], label="empty")
    g.error("aten::cat.out", [[torch.zeros(2, 2), torch.zeros(2, 3)], 0], [torch.zeros(4, 2)], label="shapes")
    g.error("aten::cat.out", [[torch.zeros(2)], 0], [torch.zeros(2, dtype=torch.int32)], label="cannot_cast")


def cases(g):
    _same_dtype_ops(g)
    _converting_ops(g)
    _list_ops(g)
    _existing_ops(g)
    _view_as_real_ops(g)


_PART = oracle.COMPLEX_PART


def _view_as_real_ops(g):
    op = "aten::view_as_real_copy.out"
    for dt in _PART:
        for label, x in [("random", g.rand_complex((2, 3, 4), dt)), ("edges", g.rand_complex((4, 5), dt, edges=True)),
                         ("empty", g.rand_complex((0, 3), dt)), ("0-dim", g.rand_complex((), dt)),
                         ("transposed", g.rand_complex((3, 5), dt).t())]:
            want = _out(aten.view_as_real_copy.out, [x], _PART[dt])
            _add(g, op, [x], [want], label=f"{dt}/{label}".replace("torch.", ""))
        # PyTorch's result of a transposed self keeps self's layout (dim order [1, 0, 2]).
        x = g.rand_complex((3, 4), dt).t()
        _add(g, op, [x], [aten.view_as_real_copy.default(x)], label=f"{dt}/transposed_layout".replace("torch.", ""))
    x = channels_last(g.rand_complex((2, 3, 2, 2), torch.complex64))
    _add(g, op, [x], [aten.view_as_real_copy.default(x)], label="channels_last")
    # Byte-moving copies take complex elements too (4, 8 and 16 bytes).
    for dt in _PART:
        x = g.rand_complex((3, 4), dt, edges=True).t()
        _add(g, "aten::alias_copy.out", [x], [x.contiguous()], label=str(dt).replace("torch.", ""))
        _add(g, "aten::permute_copy.out", [x, [1, 0]], [x.permute(1, 0).contiguous()],
             label=str(dt).replace("torch.", ""))
    # The parts convert to another floating out dtype (ExecuTorch's kernel and PyTorch both do).
    x = g.rand_complex((3, 2), torch.complex64, edges=True)
    _add(g, op, [x], [_out(aten.view_as_real_copy.out, [x], torch.float64)], label="complex64_to_float64")
    x = g.rand_complex((3, 2), torch.complex128)
    _add(g, op, [x], [_out(aten.view_as_real_copy.out, [x], torch.float32)], label="complex128_to_float32",
         dynamic=True)
    c = g.rand_complex((2, 3), torch.complex64)
    g.error(op, [c], [torch.zeros(2, 3, 2, dtype=torch.int32)], label="out_dtype_int")
    g.error(op, [c], [torch.zeros(2, 3, 2, dtype=torch.complex64)], label="out_dtype_complex")
    g.error(op, [c], [torch.zeros(2, 3)], label="out_shape")
    g.error(op, [c], [torch.zeros(3, 2, 2)], label="out_shape_swapped")
    g.error(op, [torch.zeros(2, 3)], [torch.zeros(2, 3, 2)], label="real_self")
    g.error(op, [torch.zeros(2, 3, dtype=torch.int64)], [torch.zeros(2, 3, 2)], label="int_self")
