"""ExecuTorch's Cortex-M backend, cortex_m::* (backends/cortex_m/ops/operators.yaml at cff6f4dd32),
run by vkrt's host kernels (cpu_fallback/cortex_m/).

torch has no such ops, so every expectation is computed by hand (g.hand), independently of the
kernels: integer accumulations exactly (torch conv2d / conv_transpose2d on float64 of small
integers, or int64 sums), then CMSIS-NN's arithmetic written here in Python from
/work/shared/docs/cortex-m-ops.md §3-§4: requantize with its double rounding (SRDHM then a
rounding divide by a power of two), requantize_s64 with REDUCE_MULTIPLIER for the int16
(A16W8) paths with int64 accumulation, add with left_shift 20 (int8) / 15 (int16), the softmax
fixed-point algorithm of §4.7 (exp_on_negative_values, one_over_one_plus_x), pooling's
ties-away integer division, quantize's float32 `zp + nearbyint((1/scale)·x)` (half to even).

Layouts: activations are logical NCHW in dim order [0,2,3,1] (oracle.channels_last), or the
ambiguous layouts upstream also accepts (one channel, or H == W == 1, in another dim order).
Weights as vkrt takes them: OHWI conv / transposed conv, [1,KH,KW,C_out] depthwise, [out,in]
linear, [B,N,K] batch-matmul RHS. Conv/linear/bmm offsets are CMSIS offsets (−zp for inputs,
+zp for the output); add/mul/div take raw zero points. Scratch tensors are never read.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from oracle import DType, channels_last

CM = "cortex_m::"
I8, I16, I32, I64 = torch.int8, torch.int16, torch.int32, torch.int64
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


# ----- CMSIS-NN primitives (cortex-m-ops.md §3) -----------------------------------------------
def wrap32(v):
    return ((int(v) + (1 << 31)) % (1 << 32)) - (1 << 31)


def wrap64(v):
    return ((int(v) + (1 << 63)) % (1 << 64)) - (1 << 63)


def srdhm(a, b):
    """Saturating rounding doubling high multiply."""
    if a == INT32_MIN and b == INT32_MIN:
        return INT32_MAX
    return (a * b + (1 << 30)) >> 31


def rdbpot(x, e):
    """Rounding divide by 2^e, ties away from zero."""
    mask = (1 << e) - 1
    rem = x & mask
    q = x >> e
    threshold = (mask >> 1) + (1 if q < 0 else 0)
    return q + (1 if rem > threshold else 0)


def requantize(v, m, s):
    left, right = max(s, 0), max(-s, 0)
    return rdbpot(srdhm(wrap32(v << left), m), right)


def reduce_multiplier(m):
    return (m + (1 << 15)) >> 16 if m < 0x7FFF0000 else 0x7FFF


def requantize_s64(v64, rm, s):
    return wrap32(wrap32(wrap64(v64 * rm) >> (14 - s)) + 1) >> 1


def clamp(v, lo, hi):
    return min(max(v, lo), hi)


def quantize_multiplier(scale):
    """passes_utils.py quantize_multiplier: (q, e) with real ≈ q·2^(e−31)."""
    if scale == 0:
        return 0, 0
    f, e = math.frexp(scale)
    q = round(f * (1 << 31))
    if q == 1 << 31:
        q //= 2
        e += 1
    return clamp(q, INT32_MIN, INT32_MAX), e


def qms(scales):
    ms, ss = zip(*(quantize_multiplier(s) for s in scales))
    return list(ms), list(ss)


def t32(vals):
    return torch.tensor(list(vals), dtype=I32)


def scratch():
    return torch.zeros(4, dtype=I8)


def irange(dt):
    ii = torch.iinfo(dt)
    return ii.min, ii.max


def nchw_from_nhwc_values(vals, shape, dtype):
    return torch.tensor(vals, dtype=I64).reshape(shape).to(dtype)


def order_0213(x):
    """x ([N,1,H,W], one channel) with dim order [0,2,1,3] (the exporter's ambiguous layout)."""
    n, c, h, w = x.shape
    assert c == 1
    return torch.as_strided(x.contiguous(), x.shape, (h * w, 1, w, 1))


# ----- convolutions (§4.3, §4.4, §4.6, §4.8) ----------------------------------------------------
def finish_conv(acc, bias, in_dtype, mult, shift, out_off, amin, amax, bias64=False):
    """acc: int64 [N, OC, OH, OW] exact sums; per-channel requantize as CMSIS."""
    n, oc, oh, ow = acc.shape
    out = torch.empty(acc.shape, dtype=I64)
    a = acc.tolist()
    for b in range(n):
        for c in range(oc):
            bc = 0 if bias is None else int(bias[c])
            for y in range(oh):
                for x in range(ow):
                    v = a[b][c][y][x]
                    if in_dtype == I8:
                        r = wrap32(requantize(wrap32(v + bc), mult[c], shift[c]) + out_off)
                    elif bias64:
                        r = requantize_s64(v + bc, reduce_multiplier(mult[c]), shift[c])
                    else:
                        r = requantize(wrap32(wrap32(v) + bc), mult[c], shift[c])
                    out[b, c, y, x] = clamp(r, amin, amax)
    return out.to(in_dtype)


def conv_acc(x, w_ohwi, stride, pad, dil, in_off):
    groups = x.shape[1] // w_ohwi.shape[3]
    xi = x.to(torch.float64) + (in_off if x.dtype == I8 else 0)
    acc = F.conv2d(xi, w_ohwi.permute(0, 3, 1, 2).to(torch.float64), None, stride, pad, dil, groups)
    return acc.round().to(I64)


def dw_acc(x, w_1hwo, stride, pad, dil, in_off):
    xi = x.to(torch.float64) + (in_off if x.dtype == I8 else 0)
    acc = F.conv2d(xi, w_1hwo.permute(3, 0, 1, 2).to(torch.float64), None, stride, pad, dil, x.shape[1])
    return acc.round().to(I64)


def tconv_acc(x, w_ohwi, stride, pad, in_off):
    xi = x.to(torch.float64) + in_off
    acc = F.conv_transpose2d(xi, w_ohwi.permute(3, 0, 1, 2).to(torch.float64), None, stride, pad)
    return acc.round().to(I64)


def channel_scales(g, oc, lo=0.002, hi=0.03, positive_shift_channels=()):
    """Per-channel real scales; the listed channels get scales > 1 (positive CMSIS shifts)."""
    s = (torch.rand(oc, generator=g.rng, dtype=torch.float64) * (hi - lo) + lo).tolist()
    for c in positive_shift_channels:
        if c < oc:
            s[c] = 1.5 + 3 * s[c] / hi
    return s


def conv_cases(g):
    op = CM + "quantized_conv2d.out"
    configs = [
        # N, C, H, W, OC, KH, KW, stride, pad, dil, groups
        (1, 3, 6, 7, 4, 3, 3, [1, 1], [1, 1], [1, 1], 1),
        (2, 4, 7, 6, 5, 3, 2, [2, 1], [1, 0], [1, 1], 1),
        (1, 8, 5, 5, 6, 1, 1, [1, 1], [0, 0], [1, 1], 1),        # 1x1 direct
        (1, 5, 6, 6, 3, 1, 1, [2, 2], [0, 0], [1, 1], 1),        # 1x1 strided
        (1, 4, 9, 8, 3, 3, 3, [1, 2], [2, 1], [2, 2], 1),        # dilation
        (1, 6, 5, 6, 4, 3, 3, [1, 1], [1, 1], [1, 1], 2),        # grouped
        (1, 3, 1, 9, 4, 1, 3, [1, 1], [0, 1], [1, 1], 1),        # 1xN
        (1, 16, 4, 4, 17, 3, 3, [1, 1], [1, 1], [1, 1], 1),      # wider
        (1, 1, 10, 5, 3, 4, 2, [2, 1], [2, 1], [1, 1], 1),       # one input channel
        (1, 2, 3, 3, 1, 3, 3, [1, 1], [0, 0], [1, 1], 1),        # one output channel (1x1 out)
    ]
    for i, (n, c, h, w, oc, kh, kw, stride, pad, dil, groups) in enumerate(configs):
        for in_zp, out_zp, with_bias in [(-5, 3, True), (17, -128, groups > 1)]:
            x = g.rand([n, c, h, w], I8, -128, 128)
            wt = g.rand([oc, kh, kw, c // groups], I8, -127, 128)
            bias = g.rand([oc], I32, -3000, 3000) if with_bias else None
            mult, shift = qms(channel_scales(g, oc, positive_shift_channels=(1,) if i % 2 else ()))
            amin, amax = (-128, 127) if i % 3 else (-100, 90)
            acc = conv_acc(x, wt, stride, pad, dil, -in_zp)
            exp = finish_conv(acc, bias, I8, mult, shift, out_zp, amin, amax)
            xin = order_0213(x) if c == 1 and in_zp > 0 else channels_last(x)
            g.hand(op, [xin, wt, bias, stride, pad, dil, -in_zp, out_zp, t32(mult), t32(shift),
                        amin, amax, scratch()], [channels_last(exp)], label=f"conv_s8_{i}_{in_zp}")
    # Saturating requantize: large scales push most outputs to the clamp bounds; shifts of both signs.
    x = g.rand([1, 4, 5, 5], I8, -128, 128)
    wt = g.rand([6, 3, 3, 4], I8, -128, 128)
    x[0, :, 0, 0] = 127
    wt[0] = 127
    mult = [INT32_MAX, 1 << 30, 1518500250, 1073741824, 2000000000, 1717986918]
    shift = [-1, 0, 3, -31, 30, -12]
    exp = finish_conv(conv_acc(x, wt, [1, 1], [1, 1], [1, 1], 128), None, I8, mult, shift, -7, -128, 127)
    g.hand(op, [channels_last(x), wt, None, [1, 1], [1, 1], [1, 1], 128, -7, t32(mult), t32(shift),
                -128, 127, scratch()], [channels_last(exp)], label="conv_s8_saturate")
    # Edge offsets: input_offset -127 / 128 (padding bytes 127 / -128) and an offset beyond int8
    # (the kernel's portable path).
    for in_off in [-127, 128, 300]:
        x = g.rand([1, 3, 4, 4], I8, -128, 128)
        wt = g.rand([2, 2, 2, 3], I8, -128, 128)
        mult, shift = qms([0.0011, 0.0007])
        exp = finish_conv(conv_acc(x, wt, [1, 1], [1, 1], [1, 1], in_off), None, I8, mult, shift, 0, -128, 127)
        g.hand(op, [channels_last(x), wt, None, [1, 1], [1, 1], [1, 1], in_off, 0, t32(mult), t32(shift),
                    -128, 127, scratch()], [channels_last(exp)], label=f"conv_s8_off{in_off}")
    # 14 arguments (no scratch: older exporters).
    x = g.rand([1, 2, 4, 4], I8, -128, 128)
    wt = g.rand([3, 3, 3, 2], I8, -128, 128)
    mult, shift = qms([0.01, 0.02, 0.005])
    exp = finish_conv(conv_acc(x, wt, [1, 1], [0, 0], [1, 1], 3), None, I8, mult, shift, 1, -128, 127)
    g.hand(op, [channels_last(x), wt, None, [1, 1], [0, 0], [1, 1], 3, 1, t32(mult), t32(shift), -128, 127],
           [channels_last(exp)], label="conv_s8_no_scratch")
    # int16 activations (A16W8): offsets ignored; int32 bias (wrapped int32 sum) or int64 bias
    # (requantize_s64 with the reduced multiplier).
    for k, (bias_dtype, cfg) in enumerate([(None, (1, 3, 5, 5, 4, 3, 3, [1, 1], [1, 1], [1, 1])),
                                           (I32, (2, 2, 6, 5, 3, 2, 3, [2, 1], [0, 1], [1, 2])),
                                           (I64, (1, 4, 5, 6, 5, 3, 3, [1, 1], [1, 1], [1, 1])),
                                           (I64, (1, 3, 4, 4, 2, 1, 1, [1, 1], [0, 0], [1, 1]))]):
        n, c, h, w, oc, kh, kw, stride, pad, dil = cfg
        x = g.rand([n, c, h, w], I16, -32768, 32768)
        if k == 3:
            x[0, :, 0, 0] = 32767
            x[0, :, 1, 1] = -32768
        wt = g.rand([oc, kh, kw, c], I8, -127, 128)
        bias = None if bias_dtype is None else g.rand([oc], bias_dtype, -100000, 100000)
        mult, shift = qms(channel_scales(g, oc, 2e-4, 2e-3, positive_shift_channels=(1,) if k == 3 else ()))
        amin, amax = (-32768, 32767) if k != 1 else (-20000, 25000)
        acc = conv_acc(x, wt, stride, pad, dil, 0)
        exp = finish_conv(acc, bias, I16, mult, shift, 0, amin, amax, bias64=bias_dtype == I64)
        g.hand(op, [channels_last(x), wt, bias, stride, pad, dil, 0, 0, t32(mult), t32(shift), amin, amax,
                    scratch()], [channels_last(exp)], label=f"conv_s16_{k}")

    # Errors.
    x = channels_last(g.rand([1, 2, 4, 4], I8))
    wt = g.rand([3, 3, 3, 2], I8)
    good = [x, wt, None, [1, 1], [1, 1], [1, 1], 0, 0, t32([1 << 30] * 3), t32([-1] * 3), -128, 127, scratch()]
    out = channels_last(torch.zeros([1, 3, 4, 4], dtype=I8))

    def err(label, at, value, o=out):
        args = list(good)
        args[at] = value
        g.error(op, args, [o], label="err_" + label)

    err("shift_31", 9, t32([-1, 31, -1]))
    err("shift_m32", 9, t32([-1, -32, -1]))
    err("input_f32", 0, channels_last(torch.zeros([1, 2, 4, 4])))
    err("weight_i16", 1, wt.to(I16))
    err("input_nchw", 0, g.rand([1, 2, 4, 4], I8))
    err("mult_count", 8, t32([1 << 30] * 2))
    err("mult_i64", 8, torch.tensor([1 << 30] * 3, dtype=I64))
    err("bias_i64_s8", 2, torch.zeros(3, dtype=I64))
    err("act_range", 10, -129)
    args = list(good)
    args[11] = 50
    args[10] = 60
    g.error(op, args, [out], label="err_act_min_gt_max")
    err("stride0", 3, [0, 1])
    err("dilation0", 5, [1, 0])
    err("pad_neg", 4, [-1, 0])
    err("groups", 1, g.rand([3, 3, 3, 3], I8))
    err("out_dtype", 0, x, o=channels_last(torch.zeros([1, 3, 4, 4], dtype=I16)))
    err("out_channels", 0, x, o=channels_last(torch.zeros([1, 4, 4, 4], dtype=I8)))


def depthwise_cases(g):
    op = CM + "quantized_depthwise_conv2d.out"
    configs = [
        # C, H, W, mult, KH, KW, stride, pad, dil
        (4, 6, 6, 1, 3, 3, [1, 1], [1, 1], [1, 1]),
        (3, 7, 5, 2, 3, 3, [2, 2], [1, 1], [1, 1]),
        (8, 5, 7, 1, 3, 2, [1, 2], [1, 0], [1, 1]),
        (5, 9, 9, 1, 3, 3, [1, 1], [2, 2], [2, 2]),
        (1, 8, 6, 4, 3, 3, [1, 1], [1, 1], [1, 1]),        # one input channel, depth_multiplier 4
        (33, 4, 4, 1, 3, 3, [1, 1], [1, 1], [1, 1]),       # more channels than one vector
        (16, 6, 5, 2, 5, 3, [1, 1], [2, 1], [1, 1]),
        (6, 1, 1, 1, 1, 1, [1, 1], [0, 0], [1, 1]),        # H == W == 1
    ]
    for i, (c, h, w, cm, kh, kw, stride, pad, dil) in enumerate(configs):
        for in_zp, out_zp, with_bias in [(-68, -128, True), (10, 5, False)]:
            oc = c * cm
            x = g.rand([1, c, h, w], I8, -128, 128)
            wt = g.rand([1, kh, kw, oc], I8, -127, 128)
            bias = g.rand([oc], I32, -5000, 5000) if with_bias else None
            mult, shift = qms(channel_scales(g, oc, 0.004, 0.05, positive_shift_channels=(0,) if i % 2 else ()))
            amin, amax = (-128, 127) if i % 3 else (-128, 0)
            exp = finish_conv(dw_acc(x, wt, stride, pad, dil, -in_zp), bias, I8, mult, shift, out_zp, amin, amax)
            if c == 1 and in_zp > 0:
                xin = order_0213(x)
            elif h == 1 and w == 1 and in_zp > 0:
                xin = x  # contiguous NCHW: ambiguous with H == W == 1
            else:
                xin = channels_last(x)
            g.hand(op, [xin, wt, bias, stride, pad, dil, cm, -in_zp, out_zp, t32(mult), t32(shift), amin, amax,
                        scratch()], [channels_last(exp)], label=f"dw_s8_{i}_{in_zp}")
    # Saturation with shifts of both signs.
    x = g.rand([1, 4, 4, 4], I8, -128, 128)
    wt = g.rand([1, 3, 3, 4], I8, -128, 128)
    mult, shift = [INT32_MAX, 1 << 30, 1300000000, 1999999999], [4, -31, 0, -3]
    exp = finish_conv(dw_acc(x, wt, [1, 1], [1, 1], [1, 1], 128), None, I8, mult, shift, 20, -128, 127)
    g.hand(op, [channels_last(x), wt, None, [1, 1], [1, 1], [1, 1], 1, 128, 20, t32(mult), t32(shift), -128, 127,
                scratch()], [channels_last(exp)], label="dw_s8_saturate")
    # 15 arguments (no scratch).
    x = g.rand([1, 3, 5, 5], I8, -128, 128)
    wt = g.rand([1, 3, 3, 3], I8, -128, 128)
    mult, shift = qms([0.01, 0.02, 0.03])
    exp = finish_conv(dw_acc(x, wt, [1, 1], [0, 0], [1, 1], 0), None, I8, mult, shift, 0, -128, 127)
    g.hand(op, [channels_last(x), wt, None, [1, 1], [0, 0], [1, 1], 1, 0, 0, t32(mult), t32(shift), -128, 127],
           [channels_last(exp)], label="dw_s8_no_scratch")
    # int16.
    for k, bias_dtype in enumerate([None, I32, I64]):
        c, cm = 3, 1 + k % 2
        x = g.rand([1, c, 5, 4], I16, -32768, 32768)
        wt = g.rand([1, 3, 3, c * cm], I8, -128, 128)
        bias = None if bias_dtype is None else g.rand([c * cm], bias_dtype, -200000, 200000)
        mult, shift = qms(channel_scales(g, c * cm, 1e-3, 1e-2, positive_shift_channels=(1,)))
        exp = finish_conv(dw_acc(x, wt, [1, 1], [1, 1], [1, 1], 0), bias, I16, mult, shift, 0, -32768, 32767,
                          bias64=bias_dtype == I64)
        g.hand(op, [channels_last(x), wt, bias, [1, 1], [1, 1], [1, 1], cm, 0, 0, t32(mult), t32(shift),
                    -32768, 32767, scratch()], [channels_last(exp)], label=f"dw_s16_{k}")
    # Errors.
    x = channels_last(g.rand([1, 2, 4, 4], I8))
    wt = g.rand([1, 3, 3, 2], I8)
    good = [x, wt, None, [1, 1], [1, 1], [1, 1], 1, 0, 0, t32([1 << 30] * 2), t32([-1] * 2), -128, 127, scratch()]
    out = channels_last(torch.zeros([1, 2, 4, 4], dtype=I8))

    def err(label, at, value, o=out):
        args = list(good)
        args[at] = value
        g.error(op, args, [o], label="err_" + label)

    err("shift_31", 10, t32([31, 0]))
    err("batch2", 0, channels_last(g.rand([2, 2, 4, 4], I8)), o=channels_last(torch.zeros([2, 2, 4, 4], dtype=I8)))
    err("depth_mult", 6, 2)
    err("input_u8", 0, channels_last(g.rand([1, 2, 4, 4], torch.uint8)))
    err("input_nchw", 0, g.rand([1, 2, 4, 4], I8))
    err("weight_shape", 1, g.rand([2, 3, 3, 1], I8))
    err("act_range", 12, 128)


def tconv_cases(g):
    op = CM + "quantized_transpose_conv2d.out"
    configs = [
        # N, C, H, W, OC, KH, KW, stride, pad
        (1, 3, 3, 4, 4, 3, 3, [2, 2], [1, 1]),    # k3 s2 p1 (the pinned CMSIS scatter bug; math here)
        (1, 20, 3, 3, 5, 2, 2, [2, 2], [0, 0]),   # C_in > 16: CMSIS's reverse-conv path
        (2, 4, 4, 3, 3, 3, 2, [1, 2], [0, 0]),
        (1, 2, 2, 2, 2, 4, 4, [3, 3], [1, 1]),
        (1, 5, 3, 3, 6, 1, 1, [1, 1], [0, 0]),
    ]
    for i, (n, c, h, w, oc, kh, kw, stride, pad) in enumerate(configs):
        in_zp, out_zp = (-3, 6) if i % 2 else (25, -128)
        x = g.rand([n, c, h, w], I8, -128, 128)
        wt = g.rand([oc, kh, kw, c], I8, -127, 128)
        bias = g.rand([oc], I32, -4000, 4000) if i != 2 else None
        mult, shift = qms(channel_scales(g, oc, 0.003, 0.03, positive_shift_channels=(1,) if i == 3 else ()))
        exp = finish_conv(tconv_acc(x, wt, stride, pad, -in_zp), bias, I8, mult, shift, out_zp, -128, 127)
        args = [channels_last(x), wt, bias, stride, pad, [0, 0], [1, 1], -in_zp, out_zp, t32(mult), t32(shift),
                -128, 127]
        if i != 4:
            args += [scratch(), scratch()]
        g.hand(op, args, [channels_last(exp)], label=f"tconv_s8_{i}")
    x = channels_last(g.rand([1, 2, 3, 3], I8))
    wt = g.rand([2, 3, 3, 2], I8)
    good = [x, wt, None, [2, 2], [1, 1], [0, 0], [1, 1], 0, 0, t32([1 << 30] * 2), t32([-1] * 2), -128, 127,
            scratch(), scratch()]
    out = channels_last(torch.zeros([1, 2, 5, 5], dtype=I8))
    for label, at, value in [("output_padding", 5, [1, 1]), ("dilation", 6, [2, 2]), ("shift", 10, t32([-40, 0])),
                             ("input_i16", 0, channels_last(g.rand([1, 2, 3, 3], I16))),
                             ("input_nchw", 0, g.rand([1, 2, 3, 3], I8)),
                             ("groups", 1, g.rand([2, 3, 3, 1], I8))]:
        args = list(good)
        args[at] = value
        g.error(op, args, [out], label="err_" + label)
    g.error(op, good[:-1], [out], label="err_16_args")


# ----- linear and batch matmul (§4.1, §4.8) ----------------------------------------------------------
def linear_cases(g):
    op = CM + "quantized_linear.out"
    for i, (shape, out_f, form) in enumerate([([1, 16], 8, "bias"), ([3, 10], 5, "kernel_sum"),
                                              ([2, 3, 7], 4, "bias"), ([4, 40], 17, "none"),
                                              ([1, 64], 10, "kernel_sum"), ([5], 3, "bias"),
                                              ([2, 33], 6, "bias_woff")]):
        in_f = shape[-1]
        x = g.rand(shape, I8, -128, 128)
        wt = g.rand([out_f, in_f], I8, -127, 128)
        in_zp, out_zp = [(-128, 23), (5, -128), (0, 0), (77, -3), (-20, 10), (3, 4), (-9, 2)][i]
        w_zp = 3 if form == "bias_woff" else 0     # weight zero point: filter_offset = -w_zp
        bias = g.rand([out_f], I32, -20000, 20000)
        xi = x.reshape(-1, in_f).to(I64)
        wi = wt.to(I64)
        acc = (xi - in_zp) @ (wi - w_zp).T + (bias.to(I64) if form != "none" else 0)
        ksum = bias.to(I64) - in_zp * (wi - w_zp).sum(1)    # kernel_sum = bias + in_off·Σ(w + w_off)
        m, s = quantize_multiplier([0.003, 0.0015, 0.05, 0.0009, 0.4, 2.5, 0.002][i])
        amax, amin = (127, -128) if i % 3 else (100, -50)
        exp = [clamp(wrap32(requantize(wrap32(v), m, s) + out_zp), amin, amax) for v in acc.reshape(-1).tolist()]
        exp = torch.tensor(exp, dtype=I64).reshape(shape[:-1] + [out_f]).to(I8)
        b_arg = bias if form in ("bias", "bias_woff") else None
        k_arg = t32(ksum.tolist()) if form == "kernel_sum" else None
        g.hand(op, [x, wt, b_arg, k_arg, -in_zp, -w_zp, out_zp, [m], [s], amax, amin], [exp],
               label=f"linear_s8_{i}_{form}")
    # Saturation: max/min inputs and weights, multiplier near 2^31, shift 30 and -31.
    x = torch.tensor([[127] * 8, [-128] * 8, [1, -1, 0, 5, 7, -7, 127, -128]], dtype=I8)
    wt = torch.tensor([[127] * 8, [-128] * 8, [0] * 8, [1, 2, 3, 4, 5, 6, 7, 8]], dtype=I8)
    for m, s in [(INT32_MAX, 0), (1 << 30, 30), (1 << 30, -31), (1500406475, -8)]:
        acc = (x.to(I64) + 128) @ wt.to(I64).T
        exp = torch.tensor([clamp(wrap32(requantize(wrap32(v), m, s) - 128), -128, 127)
                            for v in acc.reshape(-1).tolist()], dtype=I64).reshape(3, 4).to(I8)
        g.hand(op, [x, wt, None, None, 128, 0, -128, [m], [s], 127, -128], [exp], label=f"linear_s8_sat_{s}")
    # int16 input (A16W8): 64-bit accumulation, requantize_s64 with the reduced multiplier.
    for k, bias_dtype in enumerate([I64, I32, None]):
        x = g.rand([2, 12], I16, -32768, 32768)
        x[0, :4] = 32767
        wt = g.rand([5, 12], I8, -128, 128)
        bias = None if bias_dtype is None else g.rand([5], bias_dtype, -1000000, 1000000)
        m, s = quantize_multiplier([0.0007, 0.003, 0.5][k])
        acc = x.to(I64) @ wt.to(I64).T + (0 if bias is None else bias.to(I64))
        amin, amax = (-32768, 32767) if k != 1 else (-1000, 30000)
        exp = torch.tensor([clamp(requantize_s64(v, reduce_multiplier(m), s), amin, amax)
                            for v in acc.reshape(-1).tolist()], dtype=I64).reshape(2, 5).to(I16)
        g.hand(op, [x, wt, bias, None, 0, 0, 0, [m], [s], amax, amin], [exp], label=f"linear_s16_{k}")
    # Errors.
    x = g.rand([2, 4], I8)
    wt = g.rand([3, 4], I8)
    good = [x, wt, None, None, 0, 0, 0, [1 << 30], [-1], 127, -128]
    out = torch.zeros([2, 3], dtype=I8)
    for label, at, value in [("shift_31", 8, [31]), ("shift_m32", 8, [-32]), ("input_f32", 0, torch.zeros([2, 4])),
                             ("weights_3d", 1, g.rand([3, 4, 1], I8)), ("in_features", 1, g.rand([3, 5], I8)),
                             ("bias_count", 2, t32([0, 0])), ("mult_empty", 7, []), ("act_inverted", 9, -128 - 1),
                             ("kernel_sum_i64", 3, torch.zeros(3, dtype=I64)),
                             ("input_layout", 0, g.rand([4, 2], I8).T)]:
        args = list(good)
        args[at] = value
        g.error(op, args, [out], label="err_" + label)
    args = list(good)
    args[2], args[3] = t32([0, 0, 0]), t32([0, 0, 0])
    g.error(op, args, [out], label="err_bias_and_kernel_sum")
    args = list(good)
    args[9], args[10] = -128, 127    # min and max swapped (max comes first)
    g.error(op, args, [out], label="err_act_swapped")


def bmm_cases(g):
    op = CM + "quantized_batch_matmul.out"
    for i, (b, n, k, m_) in enumerate([(1, 3, 8, 4), (2, 5, 16, 3), (3, 4, 33, 7), (1, 1, 1, 1), (2, 8, 20, 9)]):
        lhs = g.rand([b, n, k], I8, -128, 128)
        rhs = g.rand([b, m_, k], I8, -128, 128)
        lzp, rzp, ozp = [(3, -2, 0), (-128, 0, 10), (12, 7, -5), (0, 0, 0), (-1, 127, 127)][i]
        mult, shift = quantize_multiplier([0.004, 0.0008, 0.002, 1.7, 0.01][i])
        acc = torch.einsum("bnk,bmk->bnm", lhs.to(I64) - lzp, rhs.to(I64) - rzp)
        exp = torch.tensor([clamp(wrap32(requantize(wrap32(v), mult, shift) + ozp), -128, 127)
                            for v in acc.reshape(-1).tolist()], dtype=I64).reshape(b, n, m_).to(I8)
        args = [lhs, -lzp, rhs, -rzp, ozp, mult, shift]
        if i != 3:
            args.append(scratch())
        g.hand(op, args, [exp], label=f"bmm_s8_{i}")
    # int16 x int16: offsets ignored, requantize_s64.
    for i in range(2):
        lhs = g.rand([2, 3, 6], I16, -32768, 32768)
        rhs = g.rand([2, 4, 6], I16, -32768, 32768)
        mult, shift = quantize_multiplier([3e-6, 2e-4][i])
        acc = torch.einsum("bnk,bmk->bnm", lhs.to(I64), rhs.to(I64))
        exp = torch.tensor([clamp(requantize_s64(v, reduce_multiplier(mult), shift), -32768, 32767)
                            for v in acc.reshape(-1).tolist()], dtype=I64).reshape(2, 3, 4).to(I16)
        g.hand(op, [lhs, 0, rhs, 0, 0, mult, shift, scratch()], [exp], label=f"bmm_s16_{i}")
    lhs, rhs = g.rand([2, 3, 4], I8), g.rand([2, 5, 4], I8)
    good = [lhs, 0, rhs, 0, 0, 1 << 30, -1, scratch()]
    out = torch.zeros([2, 3, 5], dtype=I8)
    for label, at, value in [("shift", 6, 31), ("rhs_dtype", 2, rhs.to(I16)), ("rhs_depth", 2, g.rand([2, 5, 3], I8)),
                             ("lhs_2d", 0, g.rand([3, 4], I8)), ("rhs_layout", 2, g.rand([2, 4, 5], I8).transpose(1, 2))]:
        args = list(good)
        args[at] = value
        g.error(op, args, [out], label="err_" + label)


# ----- elementwise (§4.2, div) -----------------------------------------------------------------------
def add_ref(a, b, zp1, m1, s1, zp2, m2, s2, ozp, mo, so, amin, amax, s16):
    ls = 15 if s16 else 20
    out = []
    for x1, x2 in zip(a, b):
        if s16:
            va = requantize(wrap32(x1 << ls), m1, s1)
            vb = requantize(wrap32(x2 << ls), m2, s2)
            out.append(clamp(requantize(wrap32(va + vb), mo, so), amin, amax))
        else:
            va = requantize(wrap32((x1 - zp1) << ls), m1, s1)
            vb = requantize(wrap32((x2 - zp2) << ls), m2, s2)
            out.append(clamp(wrap32(requantize(wrap32(va + vb), mo, so) + ozp), amin, amax))
    return out


def add_params(s1, s2, so, left_shift=20):
    big = 2 * max(s1, s2)
    m1, sh1 = quantize_multiplier(s1 / big)
    m2, sh2 = quantize_multiplier(s2 / big)
    mo, sho = quantize_multiplier(big / (so * (1 << left_shift)))
    return m1, sh1, m2, sh2, mo, sho


def binary_operands(g, shape, dtype, kind):
    """(self, other, out shape) for a layout kind: same shapes (contiguous or channels-last),
    or a per-channel broadcast on either side."""
    lo, hi = irange(dtype)
    a = g.rand(shape, dtype, lo, hi + 1)
    if kind == "bcast_other":
        b = g.rand([1, shape[1], 1, 1], dtype, lo, hi + 1)
    elif kind == "bcast_self":
        a, b = g.rand([1, shape[1], 1, 1], dtype, lo, hi + 1), a
    else:
        b = g.rand(shape, dtype, lo, hi + 1)
    return a, b


def layout(t, kind):
    return channels_last(t) if kind in ("cl", "bcast_other", "bcast_self") and t.dim() == 4 and t.numel() > t.shape[1] else t


def flat_pair(a, b):
    ab = torch.broadcast_tensors(a.to(I64), b.to(I64))
    return ab[0].reshape(-1).tolist(), ab[1].reshape(-1).tolist(), ab[0].shape


def add_cases(g):
    op = CM + "quantized_add.out"
    cases = [([2, 3, 4, 5], "contig", I8), ([1, 8, 3, 3], "cl", I8), ([1, 6, 2, 5], "bcast_other", I8),
             ([2, 4, 3, 2], "bcast_self", I8), ([7], "contig", I8), ([3, 9], "contig", I16),
             ([1, 5, 3, 2], "cl", I16), ([1, 4, 2, 3], "bcast_other", I16)]
    for i, (shape, kind, dt) in enumerate(cases):
        a, b = binary_operands(g, shape, dt, kind)
        s16 = dt == I16
        if s16:
            zp1 = zp2 = ozp = 0
            m1, sh1, m2, sh2, mo, sho = add_params(0.002, 0.0013, 0.003, 15)
        else:
            zp1, zp2, ozp = [(3, -7, 1), (-128, 127, -20), (0, 5, 9), (12, -3, 0), (-1, -1, -1)][i % 5]
            m1, sh1, m2, sh2, mo, sho = add_params(*[(0.05, 0.03, 0.06), (0.1, 0.01, 0.04), (0.02, 0.02, 0.02),
                                                      (0.5, 0.07, 0.3), (0.01, 0.9, 0.5)][i % 5])
        lo, hi = irange(dt)
        amin, amax = (lo, hi) if i % 3 else ((-100, 100) if not s16 else (-20000, 20000))
        fa, fb, bshape = flat_pair(a, b)
        exp = torch.tensor(add_ref(fa, fb, zp1, m1, sh1, zp2, m2, sh2, ozp, mo, sho, amin, amax, s16),
                           dtype=I64).reshape(bshape).to(dt)
        g.hand(op, [layout(a, kind), zp1, m1, sh1, layout(b, kind), zp2, m2, sh2, ozp, mo, sho, amin, amax],
               [layout(exp, kind)], label=f"add_{i}_{kind}")
    # Extremes: min/max values, zero points at the ends, shifts of both signs.
    a = torch.tensor([-128, 127, 0, -1, 1, 127, -128, 50], dtype=I8)
    b = torch.tensor([-128, 127, 0, 1, -1, -128, 127, -50], dtype=I8)
    for k, (m1, sh1, m2, sh2, mo, sho) in enumerate([(INT32_MAX, 0, INT32_MAX, 0, INT32_MAX, -20),
                                                       (1 << 30, -1, 1 << 30, -1, 1 << 30, -15),
                                                       (1 << 30, 2, 1 << 30, 2, 1 << 30, -25)]):
        exp = torch.tensor(add_ref(a.tolist(), b.tolist(), -128, m1, sh1, 127, m2, sh2, 5, mo, sho, -128, 127, False),
                           dtype=I64).to(I8)
        g.hand(op, [a, -128, m1, sh1, b, 127, m2, sh2, 5, mo, sho, -128, 127], [exp], label=f"add_edge_{k}")
    a = g.rand([2, 3], I8)
    good = [a, 0, 1 << 30, -1, g.rand([2, 3], I8), 0, 1 << 30, -1, 0, 1 << 30, -20, -128, 127]
    out = torch.zeros([2, 3], dtype=I8)
    for label, at, value in [("shift_31", 3, 31), ("shift_m32", 10, -32), ("other_dtype", 4, g.rand([2, 3], I16)),
                             ("shape", 4, g.rand([3, 2], I8)), ("act_min", 11, -129), ("act_max", 12, 128),
                             ("act_max_below_min", 12, -129)]:
        args = list(good)
        args[at] = value
        g.error(op, args, [out], label="err_" + label)


def mul_cases(g):
    op = CM + "quantized_mul.out"
    cases = [([2, 3, 4, 5], "contig", I8), ([1, 8, 3, 3], "cl", I8), ([1, 6, 2, 5], "bcast_other", I8),
             ([2, 4, 3, 2], "bcast_self", I8), ([11], "contig", I8), ([3, 9], "contig", I16),
             ([1, 4, 2, 3], "bcast_self", I16)]
    for i, (shape, kind, dt) in enumerate(cases):
        a, b = binary_operands(g, shape, dt, kind)
        zp1, zp2, ozp = [(3, -7, 1), (-128, 127, -20), (0, 5, 9), (12, -3, 0), (-1, -1, -1), (4, -9, 2),
                         (0, 0, 0)][i]
        m, s = quantize_multiplier([0.004, 0.0006, 0.01, 0.002, 2.5, 1e-4, 3e-5][i])
        lo, hi = irange(dt)
        fa, fb, bshape = flat_pair(a, b)
        exp = [clamp(wrap32(requantize(wrap32((x - zp1) * (y - zp2)), m, s) + ozp), lo, hi) for x, y in zip(fa, fb)]
        exp = torch.tensor(exp, dtype=I64).reshape(bshape).to(dt)
        g.hand(op, [layout(a, kind), zp1, layout(b, kind), zp2, ozp, m, s], [layout(exp, kind)], label=f"mul_{i}_{kind}")
    a = torch.tensor([-128, 127, -128, 127, 0, 5], dtype=I8)
    b = torch.tensor([-128, -128, 127, 127, 0, -5], dtype=I8)
    for k, (m, s) in enumerate([(INT32_MAX, 0), (1 << 30, 15), (1 << 30, -31)]):
        exp = [clamp(wrap32(requantize(wrap32((x - 127) * (y + 128)), m, s) - 128), -128, 127)
               for x, y in zip(a.tolist(), b.tolist())]
        g.hand(op, [a, 127, b, -128, -128, m, s], [torch.tensor(exp, dtype=I64).to(I8)], label=f"mul_edge_{k}")
    good = [g.rand([2, 3], I8), 0, g.rand([2, 3], I8), 0, 0, 1 << 30, -1]
    out = torch.zeros([2, 3], dtype=I8)
    for label, at, value in [("shift", 6, 31), ("self_i32", 0, g.rand([2, 3], I32)), ("shape", 2, g.rand([2, 2], I8)),
                             ("zp_range", 1, 70000)]:
        args = list(good)
        args[at] = value
        g.error(op, args, [out], label="err_" + label)


def div_cases(g):
    op = CM + "quantized_div.out"

    def roundf(v):
        v = float(v)
        return math.copysign(math.floor(abs(v) + 0.5), v)

    def ref(fa, fb, zp1, zp2, ozp, scale, dt):
        lo, hi = irange(dt)
        sc = np.float32(scale)
        out = []
        for x, y in zip(fa, fb):
            num, den = x - zp1, y - zp2
            quot = np.float32(num) / np.float32(den) if den != 0 else np.float32(0)
            r = np.float32(np.float32(roundf(np.float32(quot * sc))) + np.float32(ozp))
            out.append(int(min(max(float(r), lo), hi)))
        return out

    cases = [([2, 3, 4], "contig", I8), ([1, 5, 3, 3], "cl", I8), ([1, 6, 2, 2], "bcast_other", I8),
             ([3, 7], "contig", I16), ([1, 4, 2, 3], "bcast_self", I16)]
    for i, (shape, kind, dt) in enumerate(cases):
        a, b = binary_operands(g, shape, dt, kind)
        zp1, zp2, ozp = [(3, -7, 1), (0, 10, -20), (-128, 0, 0), (5, -4, 100), (0, 0, -3)][i]
        scale = [12.5, 0.75, 40.0, 2000.0, 0.3][i]
        fa, fb, bshape = flat_pair(a, b)
        exp = torch.tensor(ref(fa, fb, zp1, zp2, ozp, scale, dt), dtype=I64).reshape(bshape).to(dt)
        g.hand(op, [layout(a, kind), zp1, layout(b, kind), zp2, ozp, scale], [layout(exp, kind)], label=f"div_{i}_{kind}")
    # Halves (roundf rounds away from zero), division by zero (0), saturation.
    a = torch.tensor([1, -1, 3, -3, 5, 0, 127, -128, 10], dtype=I8)
    b = torch.tensor([2, 2, 2, 2, 0, 0, 1, 1, -4], dtype=I8)
    exp = torch.tensor(ref(a.tolist(), b.tolist(), 0, 0, 0, 1.0, I8), dtype=I64).to(I8)
    g.hand(op, [a, 0, b, 0, 0, 1.0], [exp], label="div_halves")
    exp = torch.tensor(ref(a.tolist(), b.tolist(), 0, 0, 3, 1e6, I8), dtype=I64).to(I8)
    g.hand(op, [a, 0, b, 0, 3, 1e6], [exp], label="div_saturate")
    good = [g.rand([2, 3], I8), 0, g.rand([2, 3], I8), 0, 0, 1.0]
    out = torch.zeros([2, 3], dtype=I8)
    for label, at, value in [("scale_inf", 5, float("inf")), ("scale_nan", 5, float("nan")),
                             ("other_u8", 2, g.rand([2, 3], torch.uint8)), ("shape", 2, g.rand([3, 3], I8))]:
        args = list(good)
        args[at] = value
        g.error(op, args, [out], label="err_" + label)


def activation_cases(g):
    op = CM + "quantized_activation.out"

    def lut_of(f, s_in, zp_in, s_out, zp_out):
        vals = []
        for q in range(-128, 128):
            y = f((q - zp_in) * s_in) / s_out + zp_out
            vals.append(clamp(int(math.copysign(math.floor(abs(y) + 0.5), y)), -128, 127))
        return torch.tensor(vals, dtype=I64).to(I8)

    luts = [lut_of(lambda v: 1 / (1 + math.exp(-v)), 0.05, -10, 1 / 256, -128),
            lut_of(math.tanh, 0.03, 4, 1 / 128, 0),
            lut_of(lambda v: v / (1 + math.exp(-v)), 0.04, 0, 0.03, -20),
            lut_of(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))), 0.05, 7, 0.04, -30),
            g.rand([256], I8, -128, 128)]
    for i, lut in enumerate(luts):
        shape = [[2, 3, 4, 5], [1, 256], [7], [1, 8, 3, 3], [3, 5, 2]][i]
        x = g.rand(shape, I8, -128, 128)
        if i == 1:
            x = torch.arange(-128, 128, dtype=I64).to(I8).reshape(1, 256)
        exp = lut[x.to(I64) + 128]
        xin = channels_last(x) if i == 3 else x
        g.hand(op, [xin, lut], [channels_last(exp) if i == 3 else exp], label=f"activation_{i}")
    x = g.rand([2, 3], I8)
    g.error(op, [x, luts[0][:255]], [torch.zeros([2, 3], dtype=I8)], label="err_lut_size")
    g.error(op, [x.to(I16), luts[0]], [torch.zeros([2, 3], dtype=I16)], label="err_input_i16")
    g.error(op, [x, luts[0].to(I16)], [torch.zeros([2, 3], dtype=I8)], label="err_lut_i16")


def minmax_cases(g):
    for name, fn in [("minimum", lambda x, y: torch.where(x <= y, x, y)),
                     ("maximum", lambda x, y: torch.where(x >= y, x, y))]:
        op = CM + name + ".out"
        for i, (sa, sb, dt) in enumerate([([2, 3, 4], [2, 3, 4], I8), ([2, 3, 4, 5], [1, 3, 1, 5], I8),
                                          ([4, 1], [1, 6], I8), ([5], [2, 3, 5], I8), ([1, 4, 3, 3], [], I8),
                                          ([3, 7], [3, 7], I16), ([2, 1, 3], [4, 3], I16)]):
            lo, hi = irange(dt)
            a = g.rand(sa, dt, lo, hi + 1)
            b = g.rand(sb, dt, lo, hi + 1)
            if i == 0:
                a.view(-1)[:4] = torch.tensor([lo, hi, 0, 5], dtype=dt)
                b.view(-1)[:4] = torch.tensor([hi, lo, 0, 5], dtype=dt)
            ab = torch.broadcast_tensors(a, b)
            exp = fn(ab[0], ab[1])
            if i == 4:  # channels-last self and out against a scalar-shaped other
                g.hand(op, [channels_last(a), b], [channels_last(exp)], label=f"{name}_{i}_cl")
            else:
                g.hand(op, [a, b], [exp], label=f"{name}_{i}")
        a = g.rand([2, 3], I8)
        g.error(op, [a, g.rand([2, 3], I32)], [torch.zeros([2, 3], dtype=I8)], label="err_other_i32")
        g.error(op, [a.to(I32), a.to(I32)], [torch.zeros([2, 3], dtype=I32)], label="err_i32")
        g.error(op, [a, g.rand([3, 3], I8)], [torch.zeros([2, 3], dtype=I8)], label="err_broadcast")
        g.error(op, [g.rand([1, 1, 1, 1, 2], I8), g.rand([2], I8)], [torch.zeros([1, 1, 1, 1, 2], dtype=I8)],
                label="err_rank5")


# ----- softmax (§4.7) --------------------------------------------------------------------------------
def mul_pow2(v, e):
    thr = (1 << (31 - e)) - 1
    if v > thr:
        return INT32_MAX
    if v < -thr:
        return INT32_MIN
    return wrap32(v << e)


def exp_on_neg(a):
    am = wrap32((a & ((1 << 24) - 1)) - (1 << 24))
    rem = wrap32(am - a)
    x = wrap32(wrap32(am << 5) + (1 << 28))
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    poly = rdbpot(wrap32(srdhm(wrap32(rdbpot(x4, 2) + x3), 715827883) + x2), 1)
    r = wrap32(1895147668 + srdhm(1895147668, wrap32(x + poly)))
    for k, c in enumerate([1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242]):
        if rem & (1 << (24 + k)):
            r = srdhm(r, c)
    return INT32_MAX if a == 0 else r


def one_over_one_plus_x(v):
    s = v + INT32_MAX
    hd = wrap32((s + (1 if s >= 0 else -1)) // 2 if s >= 0 else -((-s + 1) // 2))
    x = wrap32(1515870810 + srdhm(hd, -1010580540))
    for _ in range(3):
        x = wrap32(x + mul_pow2(srdhm(x, wrap32((1 << 29) - srdhm(hd, x))), 2))
    return mul_pow2(x, 1)


def softmax_row(row, mult, shift, diff_min, s16_out):
    mx = max(row)
    exps = [exp_on_neg(srdhm(wrap32((x - mx) << shift), mult)) if x - mx >= diff_min else None for x in row]
    total = sum(rdbpot(e, 12) for e in exps if e is not None)
    hr = 32 - total.bit_length()
    scale = one_over_one_plus_x(wrap32(((total << hr) & 0xFFFFFFFF) - 0x80000000))
    bits = 12 - hr + (15 if s16_out else 23)
    lo, hi = (-32768, 32767) if s16_out else (-128, 127)
    assert bits <= 31
    return [clamp(rdbpot(srdhm(scale, e), bits) + lo, lo, hi) if e is not None else lo for e in exps]


def softmax_params(s_in):
    real = min(s_in * (1 << 26), (1 << 31) - 1)
    mult, shift = quantize_multiplier(real)
    diff_min = -math.floor(31 * (1 << 26) / (1 << shift))
    return mult, shift, diff_min


def softmax_cases(g):
    op = CM + "softmax.out"
    for i, (shape, s_in, s16) in enumerate([([2, 10], 0.1, False), ([3, 4, 7], 0.05, False), ([1, 100], 0.2, False),
                                            ([4, 16], 0.02, False), ([2, 5], 1.0, False), ([2, 12], 0.1, True),
                                            ([1, 1, 2, 9], 0.08, False), ([1, 300], 0.5, False)]):
        mult, shift, diff_min = softmax_params(s_in)
        x = g.rand(shape, I8, -128, 128)
        if i == 0:
            x[0] = torch.tensor([127, 127, -128, -128, 0, 1, 2, 3, 126, 125], dtype=I8)
            x[1] = 5
        if i == 4:
            x[1] = torch.tensor([127, -128, -128, -128, -128], dtype=I8)
        rows = x.reshape(-1, shape[-1]).to(I64).tolist()
        exp = torch.tensor([softmax_row(r, mult, shift, diff_min, s16) for r in rows], dtype=I64).reshape(shape)
        exp = exp.to(I16 if s16 else I8)
        g.hand(op, [x, -1 if i % 2 else len(shape) - 1, 7, -32768 if s16 else -128, mult, shift, diff_min], [exp],
               label=f"softmax_{i}")
    # diff_min excluding far elements: those give the output minimum.
    x = torch.tensor([[100, 99, 90, 50, -100, 100]], dtype=I8)
    mult, shift, _ = softmax_params(0.1)
    exp = torch.tensor([softmax_row(x[0].tolist(), mult, shift, -20, False)], dtype=I64).to(I8)
    g.hand(op, [x, 1, 0, -128, mult, shift, -20], [exp], label="softmax_diff_min")
    x = g.rand([2, 6], I8)
    out = torch.zeros([2, 6], dtype=I8)
    good = [x, 1, 0, -128, 1 << 30, 5, -100]
    for label, at, value in [("dim0", 1, 0), ("out_zp", 3, 0), ("shift_neg", 5, -1), ("diff_min_pos", 6, 1),
                             ("input_i16", 0, x.to(I16)), ("in_zp", 2, 200)]:
        args = list(good)
        args[at] = value
        g.error(op, args, [out], label="err_" + label)
    g.error(op, [channels_last(g.rand([1, 3, 2, 2], I8)), 3, 0, -128, 1 << 30, 5, -100],
            [channels_last(torch.zeros([1, 3, 2, 2], dtype=I8))], label="err_dim_not_innermost")


# ----- data movement and pooling ---------------------------------------------------------------------
def transpose_cases(g):
    op = CM + "transpose.out"
    for i, (shape, perm, dt) in enumerate([([2, 3], [1, 0], I8), ([2, 3, 4], [2, 0, 1], I8),
                                           ([2, 3, 4, 5], [0, 2, 3, 1], I8), ([1, 4, 1, 6], [3, 1, 0, 2], I8),
                                           ([5], [0], I8), ([3, 2, 4], [-1, 0, 1], I16), ([2, 2, 3, 2], [3, 2, 1, 0], I16)]):
        lo, hi = irange(dt)
        x = g.rand(shape, dt, lo, hi + 1)
        exp = x.permute(*[p % len(shape) for p in perm]).contiguous()
        g.hand(op, [x, perm], [exp], label=f"transpose_{i}")
    x = g.rand([2, 3], I8)
    out = torch.zeros([3, 2], dtype=I8)
    g.error(op, [x, [0, 0]], [out], label="err_not_perm")
    g.error(op, [x, [0, 1, 2]], [out], label="err_perm_len")
    g.error(op, [x.to(I32), [1, 0]], [out.to(I32)], label="err_i32")
    g.error(op, [g.rand([1, 1, 1, 1, 2], I8), [0, 1, 2, 3, 4]], [torch.zeros([1, 1, 1, 1, 2], dtype=I8)],
            label="err_rank5")


def pad_cases(g):
    op = CM + "pad.out"
    for i, (shape, pre, post, value, cl) in enumerate([([1, 3, 4, 5], [0, 1, 2, 0], [0, 1, 0, 3], -5, True),
                                                       ([2, 2, 3, 3], [1, 0, 0, 1], [0, 2, 1, 2], 127, True),
                                                       ([2, 3, 4, 5], [0, 0, 1, 0], [1, 1, 0, 2], -128, False),
                                                       ([3, 4], [0, 0, 1, 2], [0, 0, 3, 0], 0, False),
                                                       ([2, 3, 2], [0, 1, 0, 1], [0, 0, 2, 1], 9, False)]):
        x = g.rand(shape, I8, -128, 128)
        if cl:  # pre/post are in memory (NHWC) order
            phys = x.permute(0, 2, 3, 1)
        else:
            phys = x.reshape([1] * (4 - len(shape)) + shape)
        pads = []
        for d in reversed(range(4)):
            pads += [pre[d], post[d]]
        po = F.pad(phys.to(torch.float64), pads, value=float(value)).to(I64).to(I8)
        if cl:
            exp = po.permute(0, 3, 1, 2)
            xin = channels_last(x)
        else:
            exp = po.reshape([po.shape[4 - len(shape) + k] for k in range(len(shape))])
            xin = x
        g.hand(op, [xin, pre, post, value], [exp], label=f"pad_{i}")
    x = channels_last(g.rand([1, 2, 3, 3], I8))
    out = channels_last(torch.zeros([1, 2, 4, 3], dtype=I8))
    g.error(op, [x, [0, 1, 0, 0], [0, 0, 0, 0], 128], [out], label="err_value")
    g.error(op, [x, [0, -1, 0, 0], [0, 2, 0, 0], 0], [out], label="err_negative")
    g.error(op, [x, [0, 1, 0], [0, 0, 0], 0], [out], label="err_list_len")
    g.error(op, [x, [0, 0, 1, 0], [0, 0, 0, 0], 0], [out], label="err_out_size")
    g.error(op, [x, [0, 1, 0, 0], [0, 0, 0, 0], 0], [torch.zeros([1, 2, 4, 3], dtype=I8)], label="err_out_order")


def pool_windows(size, k, s, p, out):
    for o in range(out):
        start = o * s - p
        yield o, [i for i in range(start, start + k) if 0 <= i < size]


def avg_pool_ref(x, k, s, p, oh, ow):
    n, c, h, w = x.shape
    xl = x.to(I64).tolist()
    out = torch.zeros([n, c, oh, ow], dtype=I64)
    for b in range(n):
        for ch in range(c):
            for oy, ys in pool_windows(h, k[0], s[0], p[0], oh):
                for ox, xs in pool_windows(w, k[1], s[1], p[1], ow):
                    taps = [xl[b][ch][y][xx] for y in ys for xx in xs]
                    total, cnt = sum(taps), len(taps)
                    num = total + cnt // 2 if total > 0 else total - cnt // 2
                    q = abs(num) // cnt
                    out[b, ch, oy, ox] = q if num >= 0 else -q
    return out


def pool_out(size, k, s, p, ceil):
    num = size + 2 * p - k
    o = num // s + 1
    if ceil and num % s != 0:
        o += 1
        if (o - 1) * s >= size + p:
            o -= 1
    return o


def avg_pool_cases(g):
    op = CM + "quantized_avg_pool2d.out"
    for i, (shape, k, s, p, ceil, dt) in enumerate([([1, 4, 6, 6], [2, 2], [2, 2], [0, 0], False, I8),
                                                    ([2, 3, 7, 5], [3, 3], [2, 1], [1, 1], False, I8),
                                                    ([1, 5, 7, 7], [3, 2], [2, 2], [1, 0], True, I8),
                                                    ([1, 65, 5, 5], [5, 5], [1, 1], [0, 0], False, I8),
                                                    ([1, 1, 8, 6], [4, 3], [3, 2], [1, 1], True, I8),
                                                    ([1, 6, 3, 4], [3, 3], [1, 1], [1, 1], False, I16),
                                                    ([1, 16, 17, 17], [17, 17], [1, 1], [0, 0], False, I8)]):
        lo, hi = irange(dt)
        x = g.rand(shape, dt, lo, hi + 1)
        if i == 3:
            x[0, :32] = hi
            x[0, 32:] = lo
        oh, ow = pool_out(shape[2], k[0], s[0], p[0], ceil), pool_out(shape[3], k[1], s[1], p[1], ceil)
        exp = avg_pool_ref(x, k, s, p, oh, ow).to(dt)
        args = [channels_last(x), k, s, p, ceil, 3, 1 << 30, -2]
        if i != 1:
            args.append(scratch())
        g.hand(op, args, [channels_last(exp)], label=f"avgpool_{i}")
    x = channels_last(g.rand([1, 2, 4, 4], I8))
    out = channels_last(torch.zeros([1, 2, 2, 2], dtype=I8))
    g.error(op, [x, [2, 2], [2, 2], [0, 0], False, 0, 0, 0, scratch()], [channels_last(torch.zeros([1, 2, 3, 3], dtype=I8))],
            label="err_out_size")
    g.error(op, [x, [0, 2], [2, 2], [0, 0], False, 0, 0, 0, scratch()], [out], label="err_kernel0")
    g.error(op, [x.to(I32), [2, 2], [2, 2], [0, 0], False, 0, 0, 0, scratch()], [out.to(I32)], label="err_i32")
    g.error(op, [g.rand([1, 2, 4, 4], I8), [2, 2], [2, 2], [0, 0], False, 0, 0, 0, scratch()], [out],
            label="err_nchw")


def max_pool_cases(g):
    op = CM + "quantized_max_pool2d.out"
    for i, (shape, k, s, p, amin, amax, dt) in enumerate([([1, 4, 6, 6], [2, 2], [2, 2], [0, 0], -128, 127, I8),
                                                          ([2, 3, 7, 5], [3, 3], [2, 1], [1, 1], -128, 127, I8),
                                                          ([1, 5, 7, 7], [3, 2], [2, 2], [1, 0], -20, 40, I8),
                                                          ([1, 1, 9, 4], [3, 3], [1, 1], [1, 1], -128, 127, I8),
                                                          ([1, 6, 3, 4], [3, 3], [1, 1], [1, 1], -32768, 32767, I16),
                                                          ([1, 3, 5, 5], [2, 2], [1, 1], [0, 0], -1000, 1000, I16)]):
        lo, hi = irange(dt)
        x = g.rand(shape, dt, lo, hi + 1)
        oh, ow = pool_out(shape[2], k[0], s[0], p[0], False), pool_out(shape[3], k[1], s[1], p[1], False)
        # In-bounds taps only: pad with the dtype minimum (never above an in-bounds tap).
        xp = F.pad(x.to(torch.float64), [p[1], p[1], p[0], p[0]], value=-1e9)
        exp = F.max_pool2d(xp, k, s).clamp(amin, amax).to(I64).to(dt)
        assert list(exp.shape[2:]) == [oh, ow]
        zp = -5 if i % 2 else 12
        xin = order_0213(x) if shape[1] == 1 else channels_last(x)
        g.hand(op, [xin, k, s, p, [1, 1], False, zp, zp, amin, amax], [channels_last(exp)], label=f"maxpool_{i}")
    x = channels_last(g.rand([1, 2, 4, 4], I8))
    out = channels_last(torch.zeros([1, 2, 2, 2], dtype=I8))
    good = [x, [2, 2], [2, 2], [0, 0], [1, 1], False, 0, 0, -128, 127]
    for label, at, value in [("zero_points", 7, 1), ("dilation", 4, [2, 2]), ("act_range", 8, -129),
                             ("input_nchw", 0, g.rand([1, 2, 4, 4], I8)), ("stride0", 2, [0, 2])]:
        args = list(good)
        args[at] = value
        g.error(op, args, [out], label="err_" + label)


# ----- quantize / dequantize -------------------------------------------------------------------------
def quant_cases(g):
    qop, dqop = CM + "quantize_per_tensor.out", CM + "dequantize_per_tensor.out"
    f32 = np.float32
    for i, (scale, zp, dt) in enumerate([(0.05, -3, I8), (0.1, 10, I8), (1 / 256, -128, I8), (0.5, 0, I16),
                                         (0.001, 100, I16), (3.0, 127, I8)]):
        qmin, qmax = irange(dt)
        x = g.rand([3, 17], torch.float32, -8, 8)
        x.view(-1)[:10] = torch.tensor([0.0, -0.0, 1e30, -1e30, scale * 0.5, -scale * 0.5, scale * 1.5, scale * 2.5,
                                        float("inf"), -float("inf")], dtype=torch.float32)
        inv = f32(1.0) / f32(scale)
        prod = (x * torch.tensor(inv, dtype=torch.float32))      # float32 product
        q = torch.round(prod.to(torch.float64)).clamp(-2.0 ** 31, 2.0 ** 31 - 128).to(I64) + zp
        exp = q.clamp(qmin, qmax).to(dt)
        # Cross-check with torch's own quantizer (half to even too) where it is defined.
        if dt == I8 and zp > -128:
            tq = torch.quantize_per_tensor(x[:, 10:].contiguous(), float(f32(scale)), zp + 128, torch.quint8)
            assert torch.equal(tq.int_repr().to(I64) - 128, exp[:, 10:].to(I64)), "torch.quantize_per_tensor disagrees"
        g.hand(qop, [x, scale, zp, qmin, qmax, DType(dt)], [exp], label=f"quantize_{i}")
        qv = g.rand([2, 3, 4], dt, qmin, qmax + 1)
        qv.view(-1)[:2] = torch.tensor([qmin, qmax], dtype=dt)
        deq = (qv.to(I64) - zp).to(torch.float32) * torch.tensor(f32(scale), dtype=torch.float32)
        g.hand(dqop, [qv, scale, zp, qmin, qmax, DType(dt)], [deq], label=f"dequantize_{i}")
    # Narrow ranges (quant_min/max inside the dtype) and a channels-last input (memory order walk).
    x = channels_last(g.rand([1, 3, 2, 2], torch.float32, -3, 3))
    exp = (torch.round((x * torch.tensor(f32(1.0) / f32(0.02), dtype=torch.float32)).double()).to(I64) + 1)
    exp = channels_last(exp.clamp(-100, 100).to(I8))
    g.hand(qop, [x, 0.02, 1, -100, 100, DType(I8)], [exp], label="quantize_narrow_cl")
    x = torch.zeros([4])
    for label, args, out in [("q_dtype_i32", [x, 0.1, 0, -128, 127, DType(I32)], torch.zeros([4], dtype=I32)),
                             ("q_scale0", [x, 0.0, 0, -128, 127, DType(I8)], torch.zeros([4], dtype=I8)),
                             ("q_qmin", [x, 0.1, 0, -129, 127, DType(I8)], torch.zeros([4], dtype=I8)),
                             ("q_input_f64", [x.double(), 0.1, 0, -128, 127, DType(I8)], torch.zeros([4], dtype=I8)),
                             ("q_out_dtype", [x, 0.1, 0, -128, 127, DType(I8)], torch.zeros([4], dtype=I16))]:
        g.error(qop, args, [out], label="err_" + label)
    q = torch.zeros([4], dtype=I8)
    for label, args, out in [("dq_zp", [q, 0.1, 200, -128, 127, DType(I8)], torch.zeros([4])),
                             ("dq_dtype", [q, 0.1, 0, -128, 127, DType(I16)], torch.zeros([4])),
                             ("dq_out_i8", [q, 0.1, 0, -128, 127, DType(I8)], torch.zeros([4], dtype=I8)),
                             ("dq_scale_inf", [q, float("inf"), 0, -128, 127, DType(I8)], torch.zeros([4]))]:
        g.error(dqop, args, [out], label="err_" + label)


def cases(g):
    conv_cases(g)
    depthwise_cases(g)
    tconv_cases(g)
    linear_cases(g)
    bmm_cases(g)
    add_cases(g)
    mul_cases(g)
    div_cases(g)
    activation_cases(g)
    minmax_cases(g)
    softmax_cases(g)
    transpose_cases(g)
    pad_cases(g)
    avg_pool_cases(g)
    max_pool_cases(g)
    quant_cases(g)
