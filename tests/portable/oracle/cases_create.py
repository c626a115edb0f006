"""Creation, random and padding ops (op_fill.cpp, op_arange.cpp, op_random.cpp, op_pad.cpp).

Random values cannot match torch's: rand/randn/native_dropout get their deterministic cases
here (empty outputs, train=False, p=0, p=1, errors); tests/portable/random_ops_test.cpp checks
ranges and moments of the random ones.
"""
import torch

from oracle import ALL_DTYPES, FLOAT_DTYPES, REAL_DTYPES, channels_last

aten = torch.ops.aten

PADS = {  # op -> (n, [(self shape, padding)])
    "reflection_pad1d": (1, [((2, 5), [2, 3]), ((2, 3, 4), [0, 1]), ((1, 2, 4), [3, 0])]),
    "replication_pad1d": (1, [((2, 5), [2, 3]), ((2, 3, 4), [0, 4]), ((1, 2, 1), [3, 2])]),
    "reflection_pad2d": (2, [((2, 3, 4), [1, 2, 2, 1]), ((1, 2, 3, 4), [3, 0, 0, 2])]),
    "replication_pad2d": (2, [((2, 3, 4), [1, 2, 2, 1]), ((1, 2, 3, 4), [4, 0, 0, 3])]),
    "reflection_pad3d": (3, [((2, 3, 4, 3), [1, 2, 2, 1, 0, 1]), ((1, 2, 2, 3, 4), [1, 1, 1, 1, 1, 0])]),
    "replication_pad3d": (3, [((2, 3, 4, 3), [1, 2, 2, 1, 0, 1]), ((1, 2, 2, 3, 4), [2, 1, 1, 3, 1, 0])]),
}


def _no_expect(g, op, args, outs, label, dynamic=False):
    """A case that must succeed (no heap use) but whose out values are unspecified (empty.out)."""
    g.ops.add(op)
    g.count += 1
    g.lines.append(f"case {op} {g.family}/{label}")
    for a in args:
        g.lines.append("arg " + g._value(a))
    for o in outs:
        g.lines.append("arg " + g._out_tensor(o, list(o.shape), dynamic))
    g.lines.append("end")


def _values(g, dt, shape):
    """Random values of dt, or the dtype's edge values when shape is None."""
    return g.edges(dt) if shape is None else g.rand(shape, dt)


def _scalars(dt):
    """Scalar fill values of each kind (int, float, bool) that fit dt."""
    if dt == torch.bool:
        return [True, 0, 1.0]
    if dt.is_floating_point:
        return [3, True, -2.5, float("nan"), float("-inf") if dt == torch.float16 else -0.0]
    return [-3 if dt != torch.uint8 else -1, True, 2.75, torch.iinfo(dt).max, torch.iinfo(dt).min]


def _fill_cases(g):
    for k, dt in enumerate(ALL_DTYPES):
        for i, v in enumerate(_scalars(dt)):
            shape = [(2, 3), (), (0, 4), (4,)][(i + k) % 4]
            ref = aten.full.default(shape, v, dtype=dt)
            g.add("aten::full.out", [list(shape), v], [ref], label=f"full_{dt}_{v}")
            x = _values(g, dt, None if i == 0 else [(3, 2), (), (0, 2)][(i + k) % 3])
            if i % 2 == 0:
                g.add("aten::fill.Scalar_out", [x, v], [aten.fill.Scalar(x, v)], label=f"fill_{dt}_{v}")
            else:
                g.add("aten::full_like.out", [x, v, None], [aten.full_like.default(x, v)],
                      label=f"full_like_{dt}_{v}")
            if i % 3 == 0:
                g.add("aten::scalar_tensor.out", [v], [aten.full.default([], v, dtype=dt)],
                      label=f"scalar_tensor_{dt}_{v}")
        for shape in [[(2, 3), ()], [(0,), (1, 1, 5)]][k % 2]:
            g.add("aten::ones.out", [list(shape)], [torch.ones(shape, dtype=dt)])
            g.add("aten::zeros.out", [list(shape)], [torch.zeros(shape, dtype=dt)])
        # channels-last outs and self; DYNAMIC_BOUND outs resized from a larger capacity
        x = channels_last(g.rand((2, 3, 2, 2), dt))
        g.add("aten::full_like.out", [x, 1, 0], [channels_last(aten.full_like.default(x, 1))])
        g.add("aten::fill.Scalar_out", [x, 0], [channels_last(aten.fill.Scalar(x, 0))])
        g.add("aten::ones.out", [[2, 3, 2, 2]], [channels_last(torch.ones((2, 3, 2, 2), dtype=dt))])
        g.add("aten::zeros.out", [[2, 1, 3]], [torch.zeros((2, 1, 3), dtype=dt)], dynamic=[(4, 4, 4)])
        g.add("aten::full.out", [[3, 1], 1], [aten.full.default([3, 1], 1, dtype=dt)], dynamic=[(5, 5)])
        # fill.Tensor_out: a 0-dim value of the same dtype, and of a floating or bool one
        for vdt in ALL_DTYPES:
            if vdt in (dt, [torch.bool, torch.float32][k % 2]):
                v = g.rand((), vdt, 0, 2) if not vdt.is_floating_point else g.rand((), vdt, 0.0, 2.0)
                x = g.rand((2, 3), dt) if vdt != torch.float32 else torch.zeros((0, 2), dtype=dt)
                g.add("aten::fill.Tensor_out", [x, v], [aten.fill.Tensor(x, v)])
        x = channels_last(g.rand((1, 2, 2, 3), dt))
        v = g.rand((), dt)
        g.add("aten::fill.Tensor_out", [x, v], [channels_last(aten.fill.Tensor(x, v))])
        # empty.out: the values are unspecified; the shape must be right.
        _no_expect(g, "aten::empty.out", [[2, 3], None], [torch.zeros((2, 3), dtype=dt)], f"empty_{dt}")
    _no_expect(g, "aten::empty.out", [[0, 3], 0], [torch.zeros((0, 3))], "empty_0el")
    _no_expect(g, "aten::empty.out", [[], None], [torch.zeros(())], "empty_0dim")
    _no_expect(g, "aten::empty.out", [[2, 2], None], [torch.zeros((4, 4))], "empty_dynamic", dynamic=True)

    # errors: values that overflow the dtype (ExecuTorch's check_overflow_scalar_cast,
    # as torch), wrong out dtype or shape, bad sizes and memory formats.
    z = torch.zeros
    g.error("aten::full.out", [[2], 300], [z(2, dtype=torch.uint8)])
    g.error("aten::full.out", [[2], -256], [z(2, dtype=torch.uint8)])
    g.error("aten::full.out", [[2], 70000], [z(2, dtype=torch.float16)])
    g.error("aten::full.out", [[2], 1e40], [z(2, dtype=torch.float32)])
    g.error("aten::full.out", [[2], float("nan")], [z(2, dtype=torch.int32)])
    g.error("aten::full.out", [[2], 2.0 ** 31], [z(2, dtype=torch.int32)])
    g.error("aten::full.out", [[2, 3], 1], [z((3, 2))], label="full_bad_shape")
    g.error("aten::full.out", [[-1], 1], [z(0)], label="full_negative_size")
    g.error("aten::full_like.out", [z(2), 1, 2], [z(2)], label="full_like_channels_last_format")
    g.error("aten::full_like.out", [z(2), 1, None], [z(3)], label="full_like_bad_shape")
    g.error("aten::full_like.out", [z(2), 128, None], [z(2, dtype=torch.int8)], label="full_like_overflow")
    g.error("aten::fill.Scalar_out", [z(2), 1], [z(2, dtype=torch.float64)], label="fill_dtype")
    g.error("aten::fill.Scalar_out", [z(2, dtype=torch.int16), 40000], [z(2, dtype=torch.int16)])
    g.error("aten::fill.Tensor_out", [z(2), z(1)], [z(2)], label="fill_tensor_not_0dim")
    g.error("aten::fill.Tensor_out", [z(2), z(())], [z(2, dtype=torch.int32)], label="fill_tensor_dtype")
    g.error("aten::ones.out", [[2, 2]], [z((2, 3))], label="ones_bad_shape")
    g.error("aten::zeros.out", [[2, 2]], [z(4)], label="zeros_bad_rank")
    g.error("aten::scalar_tensor.out", [1], [z(1)], label="scalar_tensor_not_0dim")
    g.error("aten::scalar_tensor.out", [-129], [z((), dtype=torch.int8)], label="scalar_tensor_overflow")
    g.error("aten::empty.out", [[2, 2], None], [z((2, 3))], label="empty_bad_shape")
    g.error("aten::empty.out", [[2], 3], [z(2)], label="empty_format")


def _arange_cases(g):
    for k, dt in enumerate(REAL_DTYPES):
        g.add("aten::arange.out", [[5, 0][k % 2]], [aten.arange.out([5, 0][k % 2], out=torch.empty(0, dtype=dt))])
        for start, end, step in [[(2, 11, 3), (3, 3, 1)], [(10, -3, -2), (-4, 4, 1)]][k % 2]:
            ref = aten.arange.start_out(start, end, step, out=torch.empty(0, dtype=dt))
            g.add("aten::arange.start_out", [start, end, step], [ref])
        g.add("aten::arange.out", [6], [aten.arange.out(6, out=torch.empty(0, dtype=dt))], dynamic=[(10,)])
    for dt in FLOAT_DTYPES:
        g.add("aten::arange.out", [4.5], [aten.arange.out(4.5, out=torch.empty(0, dtype=dt))])
        for start, end, step in [(0.5, 2.0, 0.25), (1, -1.5, -0.5), (-1.0, 1, 0.3)]:
            ref = aten.arange.start_out(start, end, step, out=torch.empty(0, dtype=dt))
            g.add("aten::arange.start_out", [start, end, step], [ref])
    # An integral out with floating start/step: upstream computes start + i * step in double
    # and truncates, with ceil((end - start) / step) elements; torch 1.13 first truncates
    # start, end and step to the integral type (step 0.75 -> 0 is an error there, and
    # (-2.5, 2.0, 1.5) gives [-2, -1, 0, 1]). We follow upstream.
    g.hand("aten::arange.start_out", [0.5, 4.0, 0.75], [torch.tensor([0, 1, 2, 2, 3], dtype=torch.int32)],
           label="arange_int_float_step")
    g.hand("aten::arange.start_out", [-2.5, 2.0, 1.5], [torch.tensor([-2, -1, 0], dtype=torch.int64)],
           label="arange_int_float_start")
    z = torch.zeros
    g.error("aten::arange.out", [3], [z(3, dtype=torch.bool)], label="arange_bool")
    g.error("aten::arange.out", [-3], [z(0)], label="arange_negative_end")
    g.error("aten::arange.out", [4], [z(5)], label="arange_bad_length")
    g.error("aten::arange.out", [True], [z(1)], label="arange_bool_end")
    g.error("aten::arange.out", [float("inf")], [z(1)], label="arange_inf")
    g.error("aten::arange.start_out", [0, 4, 0], [z(4)], label="arange_zero_step")
    g.error("aten::arange.start_out", [0, 4, -1], [z(4)], label="arange_step_sign")
    g.error("aten::arange.start_out", [0, 4, 1], [z((2, 2))], label="arange_2d_out")


def _random_cases(g):
    for dt in FLOAT_DTYPES:
        for op in ["aten::rand.out", "aten::randn.out"]:
            g.add(op, [[0, 3]], [torch.zeros((0, 3), dtype=dt)])
            g.add(op, [[2, 0]], [torch.zeros((2, 0), dtype=dt)], dynamic=[(4, 4)])
    for op in ["aten::rand.out", "aten::randn.out"]:
        g.error(op, [[2]], [torch.zeros(2, dtype=torch.int32)], label="int_out")
        g.error(op, [[2, 3]], [torch.zeros((3, 2))], label="bad_shape")
        g.error(op, [[2, -3]], [torch.zeros((2, 0))], label="negative_size")

    op = "aten::native_dropout.out"
    for k, dt in enumerate(ALL_DTYPES):
        for x in [g.edges(dt), [g.rand((), dt), g.rand((0, 2), dt)][k % 2]]:
            out, mask = aten.native_dropout.default(x, 0.5, False)
            # torch 1.13 returns a mask of input's dtype for an empty input; upstream's mask is
            # always bool.
            g.add(op, [x, 0.5, False], [out, mask.to(torch.bool)])
        if k % 2:
            continue
        x = channels_last(g.rand((2, 3, 2, 2), dt))
        out, mask = aten.native_dropout.default(x, 0.3, False)
        g.add(op, [x, 0.3, False], [channels_last(out), channels_last(mask)])
    for dt in FLOAT_DTYPES:
        x = g.edges(dt)
        # p = 0 while training keeps everything (train=None trains, as upstream and torch)
        out, mask = aten.native_dropout.default(x, 0.0, True)
        g.add(op, [x, 0.0, True], [out, mask])
        g.add(op, [x, 0, None], [out, mask], label=f"dropout_p0_none_{dt}")
        # p = 1 drops everything. Upstream writes 0 where the mask is false; torch 1.13
        # multiplies by the mask and by 0 (1/(1-p) taken as 0), so NaN and inf inputs give NaN
        # there. We follow upstream: the expectation is all zeros.
        g.hand(op, [x, 1.0, True], [torch.zeros_like(x), torch.zeros(x.shape, dtype=torch.bool)],
               label=f"dropout_p1_{dt}")
        x = g.rand((3, 4), dt)
        out, mask = aten.native_dropout.default(x, 1.0, True)
        g.add(op, [x, 1.0, True], [out, mask])
    x = torch.ones(3)
    b = torch.zeros(3, dtype=torch.bool)
    g.error(op, [x, 1.5, True], [x, b], label="p_above_1")
    g.error(op, [x, -0.1, False], [x, b], label="p_negative")
    g.error(op, [x, float("nan"), False], [x, b], label="p_nan")
    g.error(op, [x, 0.5, False], [x, torch.zeros(3, dtype=torch.uint8)], label="mask_uint8")
    g.error(op, [x, 0.5, False], [x.double(), b], label="out_dtype")
    g.error(op, [x, 0.5, False], [torch.ones(4), b], label="out_shape")
    g.error(op, [x.int(), 0.5, True], [x.int(), b], label="train_int_input")


def _index_map(op, shape, padding):
    """For each out element, the flat index into self it copies (torch's op on indices)."""
    idx = torch.arange(torch.Size(shape).numel(), dtype=torch.float64).reshape(shape)
    return getattr(aten, op).default(idx, padding).long()


def _pad_cases(g):
    pad_cases = [((2, 3), [1, 2], 0), ((2, 3, 4), [1, 0, 0, 2], 1.5), ((3,), [], True),
                 ((), [], 1), ((0, 3), [2, 1, 1, 1], 7), ((2, 2), [0, 0, 3, 0], False)]
    for k, dt in enumerate(ALL_DTYPES):
        for shape, pad, v in pad_cases[k % 3::3] + [pad_cases[1]]:
            x = g.rand(shape, dt)
            if dt.is_floating_point and v == 1.5:
                v = float("-inf")
            g.add("aten::constant_pad_nd.out", [x, pad, v], [aten.constant_pad_nd.default(x, pad, v)])
        x = g.edges(dt)
        g.add("aten::constant_pad_nd.out", [x, [2, 1], 1], [aten.constant_pad_nd.default(x, [2, 1], 1)])
        x = channels_last(g.rand((2, 3, 2, 2), dt))
        g.add("aten::constant_pad_nd.out", [x, [1, 1, 0, 2, 1, 0], 0],
              [channels_last(aten.constant_pad_nd.default(x, [1, 1, 0, 2, 1, 0], 0))])
        for op, (n, shapes) in PADS.items():
            for shape, padding in shapes[k % len(shapes):][:1]:
                x = g.rand(shape, dt)
                if dt in (torch.float32, torch.float64):
                    g.add(f"aten::{op}.out", [x, padding], [getattr(aten, op).default(x, padding)])
                else:  # torch 1.13 pads float and double only: gather self through the index map
                    ref = x.reshape(-1)[_index_map(op, shape, padding)]
                    g.hand(f"aten::{op}.out", [x, padding], [ref], label=f"{op}_{dt}_{list(shape)}")
            if n == 2 and k % 3 == 0:  # a channels-last 4-D self and out
                x = channels_last(g.rand((1, 3, 3, 4), dt))
                ref = channels_last(x.reshape(-1)[_index_map(op, x.shape, [2, 1, 0, 2])])
                g.hand(f"aten::{op}.out", [x, [2, 1, 0, 2]], [ref], label=f"{op}_{dt}_channels_last")
    for op, (n, shapes) in PADS.items():
        for dt in FLOAT_DTYPES[2:]:
            x = g.edges(dt).reshape(1, 3, 5)
            padding = [1, 2] + ([1, 1] if n >= 2 else []) + ([0, 0] if n == 3 else [])
            x = x.reshape((1,) * (n - 1) + (3, 5))
            g.add(f"aten::{op}.out", [x, padding], [getattr(aten, op).default(x, padding)])
        shape, padding = shapes[0]
        x = g.rand(shape)
        g.add(f"aten::{op}.out", [x, padding], [getattr(aten, op).default(x, padding)],
              dynamic=[[s + 4 for s in getattr(aten, op).default(x, padding).shape]])
        g.error(f"aten::{op}.out", [x, padding[:-1]], [getattr(aten, op).default(x, padding)],
                label=f"{op}_padding_count")
        g.error(f"aten::{op}.out", [x.reshape((1,) * 3 + tuple(x.shape)), padding],
                [getattr(aten, op).default(x, padding).reshape((1,) * 3 + tuple(getattr(aten, op).default(x, padding).shape))],
                label=f"{op}_rank")
        g.error(f"aten::{op}.out", [x, padding], [getattr(aten, op).default(x, padding).double()],
                label=f"{op}_out_dtype")
        if op.startswith("reflection"):
            big = list(padding)
            big[0] = shape[-1]
            out_shape = list(shape)
            out_shape[-1] = shape[-1] + big[0] + big[1]
            g.error(f"aten::{op}.out", [x, big], [torch.zeros(out_shape)], label=f"{op}_pad_too_big")
    # upstream accepts negative (cropping) padding for replication; torch does too
    x = g.rand((2, 6))
    g.add("aten::replication_pad1d.out", [x, [-2, 3]], [aten.replication_pad1d.default(x, [-2, 3])])
    z = torch.zeros
    op = "aten::constant_pad_nd.out"
    # torch 1.13 crops with negative pads; ExecuTorch's portable kernel refuses them.
    g.error(op, [z((2, 3)), [1, -1], 0], [z((2, 3))], label="negative_pad")
    g.error(op, [z((2, 3)), [1], 0], [z((2, 4))], label="odd_pad_list")
    g.error(op, [z((2, 3)), [1, 1, 1, 1, 1, 1], 0], [z((4, 5))], label="too_many_pads")
    g.error(op, [z(3, dtype=torch.int8), [1, 1], 200], [z(5, dtype=torch.int8)], label="value_overflow")
    g.error(op, [z(3), [1, 1], 0], [z(5, dtype=torch.float64)], label="out_dtype")
    g.error(op, [z(3), [1, 1], 0], [z(6)], label="out_shape")


def cases(g):
    _fill_cases(g)
    _arange_cases(g)
    _random_cases(g)
    _pad_cases(g)
