"""ExecuTorch's quantized library, quantized_decomposed::* (op_quantize.cpp,
op_quant_choose_qparams.cpp, op_quant_embedding.cpp, op_quant_mixed.cpp).

torch 1.13 has no quantized_decomposed ops (torch.ao.quantization.fx._decomposed came later),
so every expectation is computed by hand (g.hand) with torch tensor ops that follow
ExecuTorch's kernels step by step, in their float32/float64 order:
- quantize: inv = 1.0f / (float)scale; q = (float)zp + round_half_even((float)(inv * x)), then
  clamped to [quant_min, quant_max]. Cross-checked against torch.quantize_per_tensor for
  float32 inputs (fbgemm rounds the same way).
- dequantize: (q - zp) * (float)scale in float32 (per-tensor float64 out: in float64 with the
  double scale, this runtime's choice; 1-D per-channel float64 out: float64 with the float
  scale, upstream's 1-D path).
- choose_qparams: a Python port of upstream's calculate_scale_and_zero_point; its zero point is
  cross-checked against torch._choose_qparams_per_tensor for the [0, 255] range.
The ops have no Scalar arguments (scale is `float`, passed both as a float and as an int).
"""
import math

import numpy as np
import torch

from oracle import DTYPE_CODE, channels_last

QD = "quantized_decomposed::"
Q_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32]
QIN_DTYPES = [torch.float16, torch.float32, torch.float64]      # ET_FORALL_FLOATH_TYPES
EMB_DTYPES = [torch.float32, torch.float16, torch.bfloat16]
F32 = torch.float32
TOL = {torch.float16: (1e-3, 1e-3), torch.bfloat16: (1e-2, 1e-2), torch.float32: (1e-5, 1e-5),
       torch.float64: (1e-10, 1e-10)}


def f32(v):
    return float(np.float32(v))


def qrange(dt):
    ii = torch.iinfo(dt)
    return ii.min, ii.max


ZP = {torch.uint8: 10, torch.int8: -3, torch.int16: 100, torch.int32: -1000}


# ----- references -------------------------------------------------------------------------
def ref_quantize(x, scales, zps, qmin, qmax, dtype, channel_of=None):
    """upstream quantize_val for every element; scales/zps: lists indexed by channel_of(n)."""
    flat = x.reshape(-1)
    n = flat.numel()
    ch = torch.zeros(n, dtype=torch.int64) if channel_of is None else channel_of
    # 1.0f / (float)scale
    inv = torch.tensor([np.float32(1.0) / np.float32(sc) for sc in scales], dtype=F32)[ch] if n else torch.zeros(0)
    z = torch.tensor(zps, dtype=torch.int64)[ch].to(F32) if n else torch.zeros(0)
    if x.dtype == torch.float64:
        prod = (flat * inv.double()).to(F32)
    else:
        prod = flat.to(F32) * inv
    total = z + torch.round(prod)
    out = []
    for v in total.tolist():
        if math.isnan(v):
            q = qmin
        elif v >= 2.0 ** 63:
            q = qmax
        elif v < -2.0 ** 63:
            q = qmin
        else:
            q = int(v)
        out.append(min(max(q, qmin), qmax))
    return torch.tensor(out, dtype=torch.int64).reshape(x.shape).to(dtype)


def ref_dequantize(q, scales, zps, out_dtype, channel_of=None, double_math=False, float_scale=False):
    flat = q.reshape(-1).to(torch.int64)
    n = flat.numel()
    ch = torch.zeros(n, dtype=torch.int64) if channel_of is None else channel_of
    sc = [f32(s) for s in scales] if float_scale else list(scales)
    if n == 0:
        return torch.zeros(q.shape, dtype=out_dtype)
    centered = flat - torch.tensor(zps, dtype=torch.int64)[ch]
    if double_math:
        r = centered.double() * torch.tensor(sc, dtype=torch.float64)[ch]
    else:
        r = centered.to(F32) * torch.tensor(sc, dtype=F32)[ch]
    return r.to(out_dtype).reshape(q.shape)


def channel_index(shape, axis):
    if len(shape) == 0:
        return torch.zeros(1, dtype=torch.int64)
    idx = torch.arange(int(np.prod(shape)), dtype=torch.int64).reshape(shape)
    inner = int(np.prod(shape[axis + 1:])) if axis + 1 < len(shape) else 1
    return ((idx // max(inner, 1)) % max(shape[axis], 1)).reshape(-1)


def token_index(shape):
    last = shape[-1] if shape[-1] > 0 else 1
    return (torch.arange(int(np.prod(shape)), dtype=torch.int64) // last)


def like(expected, layout_of):
    """`expected` with the dim order of `layout_of` (channels-last outs)."""
    return channels_last(expected) if layout_of.dim() == 4 and not layout_of.is_contiguous() else expected


def scale_zero_point(mn, mx, qmin, qmax):
    """upstream calculate_scale_and_zero_point (float32 / float64 steps as in C++)."""
    fmin = np.float32(min(np.float32(mn), np.float32(0.0)))
    fmax = np.float32(max(np.float32(mx), np.float32(0.0)))
    scale = (float(fmax) - float(fmin)) / (qmax - qmin)
    if np.float32(scale) == 0.0 or math.isinf(float(np.float32(1.0) / np.float32(scale))):
        scale = 0.1
    small = np.float32(6.1e-5)
    if scale < float(small):
        org = np.float32(scale)
        scale = float(small)
        if fmin == 0.0:
            fmax = np.float32(small * np.float32(qmax - qmin))
        elif fmax == 0.0:
            fmin = np.float32(-small * np.float32(qmax - qmin))
        else:
            amp = np.float32(small / org)
            fmin = np.float32(fmin * amp)
            fmax = np.float32(fmax * amp)
    zmin = qmin - float(fmin) / scale
    zmax = qmax - float(fmax) / scale
    emin = abs(qmin) - abs(float(fmin) / scale)
    emax = abs(qmax) - abs(float(fmax) / scale)
    init = zmin if emin < emax else zmax
    if init < qmin:
        zp = qmin
    elif init > qmax:
        zp = qmax
    else:
        zp = int(np.rint(np.float32(init)))
    return scale, zp


def et_min_max(vals):
    mn = mx = vals[0]
    for v in vals[1:]:
        if v < mn:
            mn = v
        if mx < v:
            mx = v
    return mn, mx


# ----- per-tensor ---------------------------------------------------------------------------
def per_tensor_cases(g):
    for dt in QIN_DTYPES:
        for qd in Q_DTYPES:
            lo, hi = qrange(qd)
            x = g.rand((3, 4), dt, -8.0, 8.0)
            zp, scale = ZP[qd], 0.0625 if qd in (torch.uint8, torch.int8) else 0.001
            ref = ref_quantize(x, [scale], [zp], lo, hi, qd)
            if dt == F32 and qd in (torch.uint8, torch.int8, torch.int32):
                tq = {torch.uint8: torch.quint8, torch.int8: torch.qint8, torch.int32: torch.qint32}[qd]
                torch_ref = torch.quantize_per_tensor(x, scale, zp, tq).int_repr()
                assert torch.equal(torch_ref, ref), (dt, qd, torch_ref, ref)
            g.hand(QD + "quantize_per_tensor.out", [x, scale, zp, lo, hi, qd], [ref])
            st, zt = torch.tensor([scale], dtype=torch.float64), torch.tensor([zp])
            g.hand(QD + "quantize_per_tensor.Tensor_out", [x, st, zt, lo, hi, qd], [ref])
        # edges: NaN -> quant_min, +-inf saturate, -0.0, huge values clamp
        e = g.edges(dt)
        g.hand(QD + "quantize_per_tensor.out", [e, 0.5, 3, -128, 127, torch.int8],
               [ref_quantize(e, [0.5], [3], -128, 127, torch.int8)], label=f"edges_{dt}")
        g.hand(QD + "quantize_per_tensor.tensor_out",
               [e, torch.tensor([0.25], dtype=torch.float64), torch.tensor([-7]), -100, 100, torch.int8],
               [ref_quantize(e, [0.25], [-7], -100, 100, torch.int8)], label=f"edges_lower_{dt}")
    # ties round half to even: x / 0.5 = 0.5, 1.5, 2.5, -0.5, -1.5, -2.5
    x = torch.tensor([0.25, 0.75, 1.25, -0.25, -0.75, -1.25])
    ref = torch.tensor([0, 2, 2, 0, -2, -2], dtype=torch.int8)
    assert torch.equal(ref, ref_quantize(x, [0.5], [0], -128, 127, torch.int8))
    g.hand(QD + "quantize_per_tensor.out", [x, 0.5, 0, -128, 127, torch.int8], [ref], label="ties_even")
    # scale as an int argument, narrow range, 0-dim, empty, channels-last, dynamic out
    x = g.rand((5,), F32, -3, 3)
    g.hand(QD + "quantize_per_tensor.out", [x, 1, 0, -2, 2, torch.int8],
           [ref_quantize(x, [1.0], [0], -2, 2, torch.int8)], label="int_scale")
    x = torch.tensor(1.7)
    g.hand(QD + "quantize_per_tensor.out", [x, 0.1, 5, 0, 255, torch.uint8],
           [ref_quantize(x, [0.1], [5], 0, 255, torch.uint8)], label="zero_dim")
    x = torch.zeros((0, 3))
    g.hand(QD + "quantize_per_tensor.out", [x, 0.1, 5, 0, 255, torch.uint8],
           [torch.zeros((0, 3), dtype=torch.uint8)], label="empty")
    x = channels_last(g.rand((2, 3, 2, 2), F32))
    g.hand(QD + "quantize_per_tensor.out", [x, 0.05, -1, -128, 127, torch.int8],
           [channels_last(ref_quantize(x.contiguous(), [0.05], [-1], -128, 127, torch.int8))], label="channels_last")
    x = g.rand((2, 3), F32)
    g.hand(QD + "quantize_per_tensor.out", [x, 0.05, 0, -128, 127, torch.int8],
           [ref_quantize(x, [0.05], [0], -128, 127, torch.int8)], dynamic=[(4, 4)], label="dynamic")
    # errors
    x = g.rand((4,), F32)
    op = QD + "quantize_per_tensor.out"
    g.error(op, [x, 0.1, 0, -128, 127, torch.int8], [torch.zeros(4, dtype=torch.uint8)], label="dtype_mismatch")
    g.error(op, [x, 0.1, 0, -128, 127, torch.int8], [torch.zeros(5, dtype=torch.int8)], label="out_shape")
    g.error(op, [x, 0.0, 0, -128, 127, torch.int8], [torch.zeros(4, dtype=torch.int8)], label="zero_scale")
    g.error(op, [x, 0.1, 0, -129, 127, torch.int8], [torch.zeros(4, dtype=torch.int8)], label="range")
    g.error(op, [x.to(torch.bfloat16), 0.1, 0, -128, 127, torch.int8], [torch.zeros(4, dtype=torch.int8)],
            label="bf16_input")
    g.error(op, [x, 0.1, 0, -128, 127, torch.int64], [torch.zeros(4, dtype=torch.int64)], label="int64_out")
    g.error(QD + "quantize_per_tensor.Tensor_out",
            [x, torch.tensor([0.1], dtype=F32), torch.tensor([0]), -128, 127, torch.int8],
            [torch.zeros(4, dtype=torch.int8)], label="float_scale_tensor")

    # dequantize_per_tensor
    for qd in Q_DTYPES:
        lo, hi = qrange(qd)
        for od in QIN_DTYPES:
            q = g.rand((3, 4), qd, lo, hi + 1 if qd != torch.int32 else hi)
            zp, scale = ZP[qd], 0.037
            ref = ref_dequantize(q, [scale], [zp], od, double_math=(od == torch.float64))
            g.hand(QD + "dequantize_per_tensor.out", [q, scale, zp, lo, hi, qd, od], [ref])
            st, zt = torch.tensor([scale], dtype=torch.float64), torch.tensor([zp])
            g.hand(QD + "dequantize_per_tensor.Tensor_out", [q, st, zt, lo, hi, qd, None], [ref])
        e = g.edges(qd)
        g.hand(QD + "dequantize_per_tensor.tensor_out",
               [e, torch.tensor([0.5], dtype=torch.float64), torch.tensor([ZP[qd]]), lo, hi, qd, None],
               [ref_dequantize(e, [0.5], [ZP[qd]], F32)], label=f"edges_{qd}")
    op = QD + "dequantize_per_tensor.out"
    q = g.rand((4,), torch.int8)
    g.hand(op, [q, 0.1, 2, -128, 127, torch.int8], [ref_dequantize(q, [0.1], [2], F32)], label="no_out_dtype")
    g.hand(op, [torch.tensor(5, dtype=torch.int8), 0.1, 2, -128, 127, torch.int8, None],
           [ref_dequantize(torch.tensor(5, dtype=torch.int8), [0.1], [2], F32)], label="zero_dim")
    g.hand(op, [torch.zeros((2, 0), dtype=torch.uint8), 0.1, 2, 0, 255, torch.uint8, None],
           [torch.zeros((2, 0))], label="empty")
    q = channels_last(g.rand((2, 3, 2, 2), torch.int8))
    g.hand(op, [q, 0.2, -1, -128, 127, torch.int8, None],
           [channels_last(ref_dequantize(q.contiguous(), [0.2], [-1], F32))], label="channels_last")
    g.error(op, [q, 0.2, -1, -128, 127, torch.int8, None], [torch.zeros((2, 3, 2, 2), dtype=torch.int32)],
            label="int_out")
    g.error(op, [q, 0.2, -1, -128, 127, torch.int8, torch.float64], [torch.zeros((2, 3, 2, 2))],
            label="out_dtype_mismatch")
    g.error(op, [q, 0.2, -1, -128, 127, torch.uint8, None], [torch.zeros((2, 3, 2, 2))], label="dtype_mismatch")
    g.error(op, [q, 0.2, -1, 5, 4, torch.int8, None], [torch.zeros((2, 3, 2, 2))], label="empty_range")
    g.error(op, [q, 0.2, -1, -128, 127, torch.int8, None], [torch.zeros((2, 3, 2, 1))], label="out_shape")


# ----- per-channel / per-token --------------------------------------------------------------
def per_channel_cases(g):
    op_q, op_dq = QD + "quantize_per_channel.out", QD + "dequantize_per_channel.out"
    for dt in QIN_DTYPES:
        for qd in Q_DTYPES:
            lo, hi = qrange(qd)
            x = g.rand((2, 3, 4), dt, -6.0, 6.0)
            scales = [0.05, 0.125, 0.3]
            zps = [ZP[qd], 0, 1]
            ref = ref_quantize(x, scales, zps, lo, hi, qd, channel_index((2, 3, 4), 1))
            g.hand(op_q, [x, torch.tensor(scales, dtype=torch.float64), torch.tensor(zps), 1, lo, hi, qd], [ref])
    x = g.rand((3, 5), F32)
    scales, zps = [0.1, 0.2, 0.05, 0.5, 1.0], [0, 1, -1, 2, -2]
    g.hand(op_q, [x, torch.tensor(scales, dtype=torch.float64), torch.tensor(zps), -1, -128, 127, torch.int8],
           [ref_quantize(x, scales, zps, -128, 127, torch.int8, channel_index((3, 5), 1))], label="neg_axis")
    e = g.edges(F32)
    n = e.numel()
    scales, zps = [0.5 + 0.1 * i for i in range(n)], [i - 7 for i in range(n)]
    g.hand(op_q, [e, torch.tensor(scales, dtype=torch.float64), torch.tensor(zps), 0, -128, 127, torch.int8],
           [ref_quantize(e, scales, zps, -128, 127, torch.int8, channel_index((n,), 0))], label="edges_1d")
    x = channels_last(g.rand((2, 3, 2, 2), F32))
    scales, zps = [0.05, 0.1, 0.2], [1, 2, 3]
    g.hand(op_q, [x, torch.tensor(scales, dtype=torch.float64), torch.tensor(zps), 1, -128, 127, torch.int8],
           [channels_last(ref_quantize(x.contiguous(), scales, zps, -128, 127, torch.int8,
                                       channel_index((2, 3, 2, 2), 1)))], label="channels_last")
    g.hand(op_q, [torch.zeros((0, 3)), torch.tensor(scales, dtype=torch.float64), torch.tensor(zps), 1, 0, 255,
                  torch.uint8], [torch.zeros((0, 3), dtype=torch.uint8)], label="empty")
    x = g.rand((2, 3), F32)
    st, zt = torch.tensor(scales, dtype=torch.float64), torch.tensor(zps)
    g.error(op_q, [x, st, zt, 2, -128, 127, torch.int8], [torch.zeros((2, 3), dtype=torch.int8)], label="bad_axis")
    g.error(op_q, [x, st.float(), zt, 1, -128, 127, torch.int8], [torch.zeros((2, 3), dtype=torch.int8)],
            label="float_scales")
    g.error(op_q, [x, st[:2], zt[:2], 1, -128, 127, torch.int8], [torch.zeros((2, 3), dtype=torch.int8)],
            label="scales_numel")
    g.error(op_q, [torch.tensor(1.0), st[:1], zt[:1], 0, -128, 127, torch.int8],
            [torch.zeros((), dtype=torch.int8)], label="zero_dim")

    # dequantize_per_channel: scales float64/float32, zero points int64/int32/None
    variants = [(torch.float64, torch.int64), (F32, torch.int32), (F32, None)]
    for qd in Q_DTYPES:
        lo, hi = qrange(qd)
        for i, od in enumerate(QIN_DTYPES):
            sdt, zdt = variants[i]
            q = g.rand((2, 3, 4), qd, max(lo, -1000), min(hi, 1000))
            scales, zps = [0.05, 0.125, 0.3], [ZP[qd], 0, 1]
            zt = None if zdt is None else torch.tensor(zps, dtype=zdt)
            ref = ref_dequantize(q, scales, zps if zt is not None else [0, 0, 0], od, channel_index((2, 3, 4), 1),
                                 float_scale=True)
            g.hand(op_dq, [q, torch.tensor(scales, dtype=sdt), zt, 1, lo, hi, qd, od if i else None], [ref])
    q = g.edges(torch.int16)
    n = q.numel()
    scales, zps = [0.3 + 0.01 * i for i in range(n)], [i for i in range(n)]
    g.hand(op_dq, [q, torch.tensor(scales, dtype=torch.float64), torch.tensor(zps), 0, -32768, 32767, torch.int16,
                   torch.float64],
           [ref_dequantize(q, scales, zps, torch.float64, channel_index((n,), 0), double_math=True, float_scale=True)],
           label="edges_1d_double")
    q = channels_last(g.rand((2, 3, 2, 2), torch.int8))
    scales, zps = [0.05, 0.1, 0.2], [1, 2, 3]
    st, zt = torch.tensor(scales, dtype=torch.float64), torch.tensor(zps)
    g.hand(op_dq, [q, st, zt, 1, -128, 127, torch.int8, None],
           [channels_last(ref_dequantize(q.contiguous(), scales, zps, F32, channel_index((2, 3, 2, 2), 1),
                                         float_scale=True))], label="channels_last")
    g.hand(op_dq, [torch.zeros((0, 3), dtype=torch.int8), st, zt, 1, -128, 127, torch.int8, None],
           [torch.zeros((0, 3))], label="empty")
    q = g.rand((2, 3), torch.int8)
    g.error(op_dq, [q, st, zt, -3, -128, 127, torch.int8, None], [torch.zeros((2, 3))], label="bad_axis")
    # upstream's int8 -> float32 fast path checks quant_min <= zero point <= quant_max
    g.error(op_dq, [q, st, zt, 1, -128, 2, torch.int8, None], [torch.zeros((2, 3))], label="zp_outside_range")
    g.error(op_dq, [q, st, zt.to(torch.int16), 1, -128, 127, torch.int8, None], [torch.zeros((2, 3))],
            label="int16_zero_points")
    g.error(op_dq, [q, st, zt, 1, -128, 127, torch.int8, torch.float16], [torch.zeros((2, 3))],
            label="out_dtype_mismatch")


def per_token_cases(g):
    op_q, op_dq = QD + "quantize_per_token.out", QD + "dequantize_per_token.out"
    shape = (2, 3, 4)
    for dt in QIN_DTYPES:
        for qd in Q_DTYPES:
            lo, hi = qrange(qd)
            x = g.rand(shape, dt, -5.0, 5.0)
            scales = [0.02 * (i + 1) for i in range(6)]
            zps = [ZP[qd] + i for i in range(6)]
            ref = ref_quantize(x, scales, zps, lo, hi, qd, token_index(shape))
            g.hand(op_q, [x, torch.tensor(scales, dtype=torch.float64).reshape(2, 3, 1),
                          torch.tensor(zps).reshape(2, 3, 1), lo, hi, qd], [ref])
    for qd in Q_DTYPES:
        lo, hi = qrange(qd)
        for od in QIN_DTYPES:
            q = g.rand(shape, qd, max(lo, -1000), min(hi, 1000))
            scales = [0.03 * (i + 1) for i in range(6)]
            zps = [ZP[qd] - i for i in range(6)]
            ref = ref_dequantize(q, scales, zps, od, token_index(shape), float_scale=True)
            sdt = F32 if od == torch.float16 else torch.float64
            g.hand(op_dq, [q, torch.tensor(scales, dtype=sdt).reshape(2, 3, 1), torch.tensor(zps).reshape(2, 3, 1),
                           lo, hi, qd, od], [ref])
    e = g.edges(F32)
    g.hand(op_q, [e, torch.tensor([0.5], dtype=torch.float64), torch.tensor([1]), -128, 127, torch.int8],
           [ref_quantize(e, [0.5], [1], -128, 127, torch.int8)], label="edges_1d")
    x = channels_last(g.rand((1, 2, 2, 3), F32))
    sh = (1, 2, 2, 3)
    scales, zps = [0.1, 0.2, 0.3, 0.4], [0, 1, 2, 3]
    st, zt = torch.tensor(scales, dtype=torch.float64).reshape(1, 2, 2, 1), torch.tensor(zps).reshape(1, 2, 2, 1)
    g.hand(op_q, [x, st, zt, -128, 127, torch.int8],
           [channels_last(ref_quantize(x.contiguous(), scales, zps, -128, 127, torch.int8, token_index(sh)))],
           label="channels_last")
    qx = channels_last(g.rand(sh, torch.int8))
    g.hand(op_dq, [qx, st, zt, -128, 127, torch.int8, F32],
           [channels_last(ref_dequantize(qx.contiguous(), scales, zps, F32, token_index(sh), float_scale=True))],
           label="channels_last")
    empty_s, empty_z = torch.zeros((0, 1), dtype=torch.float64), torch.zeros((0, 1), dtype=torch.int64)
    g.hand(op_q, [torch.zeros((0, 4)), empty_s, empty_z, -128, 127, torch.int8],
           [torch.zeros((0, 4), dtype=torch.int8)], label="empty")
    g.hand(op_dq, [torch.zeros((0, 4), dtype=torch.int8), empty_s, empty_z, -128, 127, torch.int8, F32],
           [torch.zeros((0, 4))], label="empty")
    x = g.rand((2, 3), F32)
    g.error(op_q, [x, torch.tensor([[0.1]], dtype=torch.float64), torch.tensor([0]), -128, 127, torch.int8],
            [torch.zeros((2, 3), dtype=torch.int8)], label="scales_numel")
    g.error(op_q, [torch.tensor(1.0), torch.tensor([0.1], dtype=torch.float64), torch.tensor([0]), -128, 127,
                   torch.int8], [torch.zeros((), dtype=torch.int8)], label="zero_dim")
    q = g.rand((2, 3), torch.int8)
    s2, z2 = torch.tensor([[0.1], [0.2]], dtype=torch.float64), torch.tensor([[0], [1]])
    g.error(op_dq, [q, s2, z2, -128, 127, torch.int8, torch.float64], [torch.zeros((2, 3))],
            label="output_dtype_mismatch")
    g.error(op_dq, [q, s2, z2, -128, 127, torch.int8, F32], [torch.zeros((2, 3), dtype=torch.bfloat16)],
            label="bf16_out")
    # upstream's int8 -> float32 fast path (any layout here: the input is viewed as contiguous 2-D)
    qx = channels_last(g.rand((1, 2, 2, 2), torch.int8))
    g.error(op_dq, [qx, torch.ones((1, 2, 2, 1), dtype=torch.float64), torch.full((1, 2, 2, 1), 50), -128, 10,
                    torch.int8, F32], [channels_last(torch.zeros((1, 2, 2, 2)))], label="zp_outside_range")


# ----- choose_qparams -----------------------------------------------------------------------
def choose_qparams_cases(g):
    op = QD + "choose_qparams.Tensor_out"
    inputs = [("rand", g.rand((4, 5), F32)), ("positive", g.rand((7,), F32, 0.5, 3.0)),
              ("negative", g.rand((7,), F32, -3.0, -0.5)), ("zeros", torch.zeros(6)),
              ("tiny", torch.tensor([1e-6, -2e-6, 3e-7])), ("tiny_pos", torch.tensor([1e-6, 2e-6])),
              ("tiny_neg", torch.tensor([-1e-6, -2e-6])), ("zero_dim", torch.tensor(2.5)),
              ("finite_edges", torch.tensor([-0.0, 0.0, 1.0, -1.0, 0.5, -2.5, 1e-3, 7.25, 1.1754944e-38])),
              ("huge", torch.tensor([3.0e38, -3.0e38, 1.0])),
              ("channels_last", channels_last(g.rand((2, 3, 2, 2), F32)))]
    for qmin, qmax in [(-128, 127), (0, 255), (-32768, 32767)]:
        for label, x in inputs:
            mn, mx = et_min_max([f32(v) for v in x.contiguous().reshape(-1).tolist()])
            scale, zp = scale_zero_point(mn, mx, qmin, qmax)
            if (qmin, qmax) == (0, 255) and label not in ("huge",):
                ts, tz = torch._choose_qparams_per_tensor(x.contiguous(), False)
                assert tz == zp and abs(ts - scale) <= 1e-6 * scale, (label, ts, tz, scale, zp)
            g.hand(op, [x, qmin, qmax, 1e-7, torch.int8 if qmin < 0 else torch.uint8],
                   [torch.tensor([scale], dtype=torch.float64), torch.tensor([zp])], label=f"{label}_{qmin}")
    x = g.rand((3, 3), F32)
    scale, zp = scale_zero_point(*et_min_max([f32(v) for v in x.reshape(-1).tolist()]), -2 ** 31, 2 ** 31 - 1)
    g.hand(op, [x, -2 ** 31, 2 ** 31 - 1, 1e-7, torch.int32],
           [torch.tensor([scale], dtype=torch.float64), torch.tensor([zp])], label="int32_range")
    x = g.rand((3,), F32)
    one_d, one_l = torch.zeros(1, dtype=torch.float64), torch.zeros(1, dtype=torch.int64)
    g.error(op, [torch.zeros(0), -128, 127, 1e-7, torch.int8], [one_d, one_l], label="empty")
    g.error(op, [x, 127, 127, 1e-7, torch.int8], [one_d, one_l], label="empty_range")
    g.error(op, [x.double(), -128, 127, 1e-7, torch.int8], [one_d, one_l], label="double_input")
    g.error(op, [x, -128, 127, 1e-7, torch.int8], [one_d.float(), one_l], label="float_scale_out")
    g.error(op, [x, -128, 127, 1e-7, torch.int8], [torch.zeros(2, dtype=torch.float64), one_l], label="scale_numel")

    op = QD + "choose_qparams_per_token_asymmetric.out"

    def per_token(x):
        rows = x.contiguous().reshape(-1, x.shape[-1]) if x.dim() else x.reshape(1, 1)
        res = [scale_zero_point(*et_min_max([f32(v) for v in r.tolist()]), -128, 127) for r in rows]
        shape = list(x.shape[:-1]) + [1]
        return (torch.tensor([s for s, _ in res], dtype=torch.float64).reshape(shape),
                torch.tensor([z for _, z in res], dtype=torch.int64).reshape(shape))
    x = g.rand((2, 3, 5), F32)
    x[0, 1] = torch.tensor([0.5, 1.0, 2.0, 0.25, 3.0])   # all positive
    x[1, 2] = 0.0                                       # all zero
    g.hand(op, [x, torch.int8], list(per_token(x)), label="rand")
    x = g.edges(F32)[3:]                                 # finite edges from -0.0 on (NaN/inf excluded)
    x = x[torch.isfinite(x)]
    g.hand(op, [x, torch.int8], list(per_token(x)), label="edges_1d")
    x = channels_last(g.rand((1, 2, 2, 3), F32))
    s, z = per_token(x)
    g.hand(op, [x, torch.int8], [s, z], label="channels_last")
    x = g.rand((4, 6), F32)
    g.hand(op, [x, torch.int8], list(per_token(x)), dynamic=[(8, 1), (8, 1)], label="dynamic")
    g.hand(op, [torch.zeros((0, 4)), torch.int8],
           [torch.zeros((0, 1), dtype=torch.float64), torch.zeros((0, 1), dtype=torch.int64)], label="empty")
    g.error(op, [torch.tensor(1.0), torch.int8], [torch.zeros((1,), dtype=torch.float64),
                                                  torch.zeros((1,), dtype=torch.int64)], label="zero_dim")
    g.error(op, [x, torch.int8], [torch.zeros((4, 1), dtype=torch.float64), torch.zeros((4, 1), dtype=torch.int32)],
            label="int32_zp_out")
    g.error(op, [x, torch.int8], [torch.zeros((4, 2), dtype=torch.float64), torch.zeros((4, 2), dtype=torch.int64)],
            label="out_shape")


# ----- embeddings --------------------------------------------------------------------------
def unpack(weight, bits):
    """Packed uint8 [rows, cols] -> values [rows, cols * 8 / bits] (upstream weight_value)."""
    w = weight.to(torch.int64)
    if bits == 8:
        return weight.to(torch.int64)
    if bits == 4:
        return torch.stack([(w >> 4) & 15, w & 15], dim=-1).reshape(w.shape[0], -1) - 8
    return torch.stack([(w >> (2 * k)) & 3 for k in range(4)], dim=-1).reshape(w.shape[0], -1) - 2


def ref_embedding(weight, bits, scales, zps, indices, out_dtype):
    vals = unpack(weight, bits).to(F32)
    rows, dim = vals.shape
    groups = scales.shape[1] if scales.dim() == 2 else 1
    s = scales.to(F32).reshape(rows, groups).repeat_interleave(dim // groups, dim=1)
    z = zps.to(F32).reshape(rows, groups).repeat_interleave(dim // groups, dim=1) if zps is not None else 0.0
    table = ((vals - z) * s)
    return table[indices.to(torch.int64)].to(out_dtype)


def embedding_cases(g):
    for name, bits in [("byte", 8), ("2bit", 2), ("4bit", 4)]:
        per_byte = 8 // bits
        dim = 8
        cols = dim // per_byte
        wdts = [torch.uint8, torch.int8] if bits == 8 else [torch.uint8]
        idts = [torch.int64] if bits == 8 else [torch.int64, torch.int32]
        for wdt in wdts:
            for od in EMB_DTYPES:
                w = g.rand((5, cols), wdt, -128 if wdt == torch.int8 else 0, 128 if wdt == torch.int8 else 256)
                scales = g.rand((5,), F32, 0.01, 0.2).to(od)
                zps = g.rand((5,), F32, -3, 3).round().to(od)
                for idt in idts:
                    idx = torch.randint(0, 5, (2, 3), generator=g.rng).to(idt)
                    ref = ref_embedding(w, bits, scales, zps, idx, od)
                    g.hand(f"{QD}embedding_{name}.out", [w, scales, zps, -128, 127, idx], [ref])
                # dtype_out: float32 group-wise scales, no zero points, out dtype given
                scales2 = g.rand((5, 2), F32, 0.01, 0.2)
                idx = torch.randint(0, 5, (4,), generator=g.rng)
                ref = ref_embedding(w, bits, scales2, None, idx, od)
                g.hand(f"{QD}embedding_{name}.dtype_out", [w, scales2, None, 0, 255, idx, od], [ref])
        op = f"{QD}embedding_{name}.out"
        w = g.rand((4, cols), torch.uint8, 0, 256)
        scales = g.rand((4,), F32, 0.01, 0.2)
        idx = torch.tensor(2)
        g.hand(op, [w, scales, None, 0, 255, idx], [ref_embedding(w, bits, scales, None, idx, F32)],
               label="zero_dim_index")
        idx = torch.zeros((0, 2), dtype=torch.int64)
        g.hand(op, [w, scales, None, 0, 255, idx], [torch.zeros((0, 2, dim))], label="empty")
        idx = torch.tensor([[0, 3, 1], [2, 2, 0]])
        g.hand(op, [w, scales, None, 0, 255, idx], [ref_embedding(w, bits, scales, None, idx, F32)],
               dynamic=[(4, 4, dim)], label="dynamic")
        idx = channels_last(torch.randint(0, 4, (1, 2, 2, 2), generator=g.rng))
        g.hand(op, [w, scales, None, 0, 255, idx],
               [ref_embedding(w, bits, scales, None, idx.contiguous(), F32)], label="index_channels_last")
        w2 = g.rand((4, cols), torch.uint8, 0, 256)
        g.hand(op, [w2.t().contiguous().t(), scales, None, 0, 255, torch.tensor([3, 0])],
               [ref_embedding(w2, bits, scales, None, torch.tensor([3, 0]), F32)], label="strided_weight")
        g.error(op, [w, scales, None, 0, 255, torch.tensor([0, 4])], [torch.zeros((2, dim))], label="index_oob")
        g.error(op, [w, scales, None, 0, 255, torch.tensor([-1])], [torch.zeros((1, dim))], label="index_negative")
        g.error(op, [w, scales, None, 0, 255, torch.tensor([0])], [torch.zeros((1, dim), dtype=torch.float64)],
                label="double_out")
        g.error(op, [w, scales[:3], None, 0, 255, torch.tensor([0])], [torch.zeros((1, dim))], label="scales_rows")
        g.error(op, [w, g.rand((4, 3), F32), None, 0, 255, torch.tensor([0])], [torch.zeros((1, dim))],
                label="groups")
        g.error(op, [w, scales, torch.zeros(4, dtype=torch.float16), 0, 255, torch.tensor([0])],
                [torch.zeros((1, dim))], label="zp_dtype")
        g.error(f"{QD}embedding_{name}.dtype_out", [w, scales, None, 0, 255, torch.tensor([0]), torch.float16],
                [torch.zeros((1, dim))], label="dtype_mismatch")
        if bits == 8:
            g.error(op, [w, scales, None, 0, 255, torch.tensor([0], dtype=torch.int32)], [torch.zeros((1, dim))],
                    label="int32_indices")
        else:
            g.error(op, [w.to(torch.int8), scales, None, 0, 255, torch.tensor([0])], [torch.zeros((1, dim))],
                    label="int8_weight")


# ----- mixed_mm / mixed_linear --------------------------------------------------------------
def ref_mixed_mm(x, w, s):
    xf, wf, sf = x.to(F32), w.to(F32), s.to(F32)
    acc = torch.zeros((x.shape[0], w.shape[1]), dtype=F32)
    for k in range(x.shape[1]):
        acc = acc + (xf[:, k:k + 1] * wf[k:k + 1, :]) * sf[k]
    return acc.to(x.dtype)


def ref_mixed_linear(x, w, s, out_dtype):
    m, n = x.shape
    p = w.shape[0]
    g_ = n if s.dim() == 1 else (n + s.shape[1] - 1) // s.shape[1]
    groups = (n + g_ - 1) // g_ if g_ else 0
    acc_t = torch.float64 if out_dtype == torch.float64 else F32
    sflat = s.reshape(-1).to(acc_t)
    xf, wf = x.to(F32), w.to(F32)
    total = torch.zeros((m, p), dtype=acc_t)
    for k in range(0, n, max(g_, 1)):
        psum = torch.zeros((m, p), dtype=acc_t)
        for k2 in range(k, min(k + g_, n)):
            psum = psum + (xf[:, k2:k2 + 1] * wf[:, k2].reshape(1, p)).to(acc_t)
        total = total + psum * sflat[torch.arange(p) * groups + k // g_].reshape(1, p)
    return total.to(out_dtype)


def mixed_cases(g):
    op = QD + "mixed_mm.out"
    for dt in [F32, torch.float16]:
        x = g.rand((3, 4), dt, -2, 2)
        w = g.rand((4, 5), torch.int8, -128, 128)
        s = g.rand((4,), dt, 0.001, 0.05)
        g.hand(op, [x, w, s, None], [ref_mixed_mm(x, w, s)])
    x, w, s = g.rand((2, 3), F32), g.rand((3, 2), torch.int8, -128, 128), g.rand((3,), F32, 0.01, 0.1)
    g.hand(op, [x, w, s, None], [ref_mixed_mm(x, w, s)], dynamic=[(4, 4)], label="dynamic")
    g.hand(op, [torch.zeros((0, 3)), w, s, None], [torch.zeros((0, 2))], label="empty")
    g.hand(op, [x.t().contiguous().t(), w.t().contiguous().t(), s, None], [ref_mixed_mm(x, w, s)],
           label="transposed_layouts")
    g.error(op, [x, w, s, s.clone()], [torch.zeros((2, 2))], label="zero_points")
    g.error(op, [x, w.to(torch.uint8), s, None], [torch.zeros((2, 2))], label="uint8_weight")
    g.error(op, [x, w[:2], s[:2], None], [torch.zeros((2, 2))], label="inner_mismatch")
    g.error(op, [x, w, s, None], [torch.zeros((2, 2), dtype=torch.float16)], label="out_dtype")
    g.error(op, [x.double(), w, s.double(), None], [torch.zeros((2, 2), dtype=torch.float64)], label="double")

    op = QD + "mixed_linear.out"
    for dt in [F32, torch.float16]:
        for od, dtype_arg in [(dt, None), (F32, F32), (torch.float16, torch.float16), (torch.float64, None)]:
            x = g.rand((3, 6), dt, -2, 2)
            w = g.rand((4, 6), torch.int8, -128, 128)
            s = g.rand((4,), dt, 0.001, 0.05)
            g.hand(op, [x, w, s, None, dtype_arg], [ref_mixed_linear(x, w, s, od)])
        for groups in [2, 3, 4]:   # n = 7: g = 4, 3, 2 (ceil)
            x = g.rand((2, 7), dt, -2, 2)
            w = g.rand((3, 7), torch.int8, -128, 128)
            s = g.rand((3, groups), dt, 0.001, 0.05)
            g.hand(op, [x, w, s, None, None], [ref_mixed_linear(x, w, s, dt)], label=f"groups{groups}_{dt}")
    x, w, s = g.rand((2, 3), F32), g.rand((2, 3), torch.int8, -128, 128), g.rand((2,), F32, 0.01, 0.1)
    g.hand(op, [x, w, s, None, None], [ref_mixed_linear(x, w, s, F32)], dynamic=[(3, 3)], label="dynamic")
    g.hand(op, [torch.zeros((2, 0)), torch.zeros((2, 0), dtype=torch.int8), s, None, None], [torch.zeros((2, 2))],
           label="empty_inner")
    g.error(op, [x, w, s, s.clone(), None], [torch.zeros((2, 2))], label="zero_points")
    g.error(op, [x, w, s, None, torch.float16], [torch.zeros((2, 2))], label="dtype_mismatch")
    g.error(op, [x, w, s, None, torch.float64], [torch.zeros((2, 2), dtype=torch.float64)], label="dtype_double")
    g.error(op, [x, w, s.half(), None, None], [torch.zeros((2, 2))], label="scales_dtype")
    g.error(op, [x, w[:, :2], s, None, None], [torch.zeros((2, 2))], label="inner_mismatch")


# ----- quantized add ------------------------------------------------------------------------
def ref_qadd(a, sa, za, b, sb, zb, so, zo, omin, omax):
    da = ((a.to(torch.int64) - za).double() * f32(sa)).to(F32)
    db = ((b.to(torch.int64) - zb).double() * f32(sb)).to(F32)
    return ref_quantize(da + db, [so], [zo], omin, omax, a.dtype)


def add_cases(g):
    op = QD + "add.out"
    for dt in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
        a = g.rand((3, 4), dt, 0, 128)
        b = g.rand((3, 4), dt, 0, 128)
        args = [a, 0.05, 10, 0, 255, b, 0.1, 3, 0, 255, 0.08, 20, 0, 255]
        g.hand(op, args, [ref_qadd(a, 0.05, 10, b, 0.1, 3, 0.08, 20, 0, 255)])
    e = g.edges(torch.int32)
    b = torch.ones_like(e) * 7
    g.hand(op, [e, 1e-9, 0, 0, 255, b, 0.5, 0, 0, 255, 0.25, 5, 10, 200],
           [ref_qadd(e, 1e-9, 0, b, 0.5, 0, 0.25, 5, 10, 200)], label="edges_clamp")
    a, b = torch.tensor(3, dtype=torch.uint8), torch.tensor(200, dtype=torch.uint8)
    g.hand(op, [a, 1, 0, 0, 255, b, 0.5, 100, 0, 255, 1, 0, 0, 255],
           [ref_qadd(a, 1.0, 0, b, 0.5, 100, 1.0, 0, 0, 255)], label="zero_dim_int_scale")
    a, b = channels_last(g.rand((1, 2, 2, 3), torch.uint8, 0, 256)), channels_last(g.rand((1, 2, 2, 3), torch.uint8, 0, 256))
    g.hand(op, [a, 0.02, 128, 0, 255, b, 0.03, 120, 0, 255, 0.04, 128, 0, 255],
           [channels_last(ref_qadd(a.contiguous(), 0.02, 128, b.contiguous(), 0.03, 120, 0.04, 128, 0, 255))],
           label="channels_last")
    ez = torch.zeros((0, 2), dtype=torch.uint8)
    g.hand(op, [ez, 0.1, 0, 0, 255, ez, 0.1, 0, 0, 255, 0.1, 0, 0, 255], [ez], label="empty")
    a, b = g.rand((2, 2), torch.uint8, 0, 256), g.rand((2, 2), torch.uint8, 0, 256)
    g.error(op, [a, 0.1, 0, 0, 255, b[:1], 0.1, 0, 0, 255, 0.1, 0, 0, 255], [a], label="shape_mismatch")
    g.error(op, [a, 0.1, 0, 0, 255, b.to(torch.int8), 0.1, 0, 0, 255, 0.1, 0, 0, 255], [a], label="dtype_mismatch")
    g.error(op, [a, 0.1, 0, 0, 256, b, 0.1, 0, 0, 255, 0.1, 0, 0, 255], [a], label="range")
    g.error(op, [a.float(), 0.1, 0, 0, 255, b.float(), 0.1, 0, 0, 255, 0.1, 0, 0, 255], [a.float()],
            label="float_input")
    g.error(op, [a, 0.1, 0, 0, 255, b, 0.1, 0, 0, 255, 0.1, 0, 0, 255], [torch.zeros((2, 3), dtype=torch.uint8)],
            label="out_shape")


def cases(g):
    assert DTYPE_CODE  # the dtype table the encoder uses
    per_tensor_cases(g)
    per_channel_cases(g)
    per_token_cases(g)
    choose_qparams_cases(g)
    embedding_cases(g)
    mixed_cases(g)
    add_cases(g)
