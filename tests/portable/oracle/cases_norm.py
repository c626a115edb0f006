"""Pooling, normalisation, upsampling, convolution and matmul (op_pool.cpp, op_norm.cpp,
op_upsample.cpp, op_convolution.cpp, op_matmul.cpp).

torch 1.13's CPU kernels lack most of the dtypes ExecuTorch's portable kernels accept here
(float16 everywhere, integers for pooling/upsampling/norms). Those cases are g.hand: the
expectation is torch's op computed in float64 and converted the way the kernel converts
(rounded to the floating dtype; truncated toward zero for integers, as upstream's casts),
or a small Python model of upstream's kernel where its semantics are not PyTorch's
(max pooling's NaN handling, anti-aliased upsampling of integers).

Tolerances: DEFAULT_TOL except ACC_TOL for float32 outputs of ops that sum many terms
(convolution, matmul, normalisation, pooling): the kernels accumulate in double, torch in
float32, so results differ by float32 rounding of the sum (~1e-6 relative on these sizes).
"""
import math

import numpy as np
import torch

from oracle import (DEFAULT_TOL, FLOAT_DTYPES, INT_DTYPES, REAL_DTYPES, DoubleList, channels_last)

aten = torch.ops.aten
F64 = torch.float64
POOL_DTYPES = FLOAT_DTYPES + [torch.int64]          # FLOATHBF16 + Long
NATIVE = (torch.float32, torch.float64)               # dtypes torch 1.13 runs for every op here


def tol_for(dt, acc=False):
    if dt == torch.float32 and acc:
        return (1e-4, 1e-4)
    return DEFAULT_TOL.get(dt, (0.0, 0.0))


def cast(t, dt):
    """float64 result -> dt as the kernels store it (integers truncate toward zero)."""
    if dt.is_floating_point:
        return t.to(dt)
    return torch.trunc(t).to(dt)


def like(t, ref):
    """`t` laid out like `ref` (channels-last when ref is)."""
    if ref.dim() == 4 and ref.stride(1) == 1 and ref.size(1) > 1:
        return channels_last(t)
    return t.contiguous()


def add(g, op, args, outs, dt, acc=False, native=None, **kw):
    """g.add for dtypes torch computed natively, g.hand otherwise."""
    native = dt in NATIVE if native is None else native
    (g.add if native else g.hand)(op, args, outs, tol=kw.pop("tol", tol_for(dt, acc)), **kw)


# ----- pooling ----------------------------------------------------------------------------
def _pool_out(size, k, s, p, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = num // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool_model(x, k, s, p, d, ceil):
    """Upstream's max pooling: first in-bounds element, then strictly greater (NaN never
    wins unless first); indices y * W + x."""
    x4 = x if x.dim() == 4 else x[None]
    n, c, h, w = x4.shape
    oh, ow = _pool_out(h, k[0], s[0], p[0], d[0], ceil), _pool_out(w, k[1], s[1], p[1], d[1], ceil)
    vals = x4.tolist()
    out = [[[[None] * ow for _ in range(oh)] for _ in range(c)] for _ in range(n)]
    idx = [[[[0] * ow for _ in range(oh)] for _ in range(c)] for _ in range(n)]
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    best, bi = None, 0
                    for ky in range(k[0]):
                        y = oy * s[0] - p[0] + ky * d[0]
                        if y < 0 or y >= h:
                            continue
                        for kx in range(k[1]):
                            xx = ox * s[1] - p[1] + kx * d[1]
                            if xx < 0 or xx >= w:
                                continue
                            v = vals[b][ch][y][xx]
                            if best is None or v > best:
                                best, bi = v, y * w + xx
                    out[b][ch][oy][ox] = 0 if best is None else best
                    idx[b][ch][oy][ox] = bi
    o = torch.tensor(out, dtype=F64 if x.dtype.is_floating_point else torch.int64).to(x.dtype)
    i = torch.tensor(idx, dtype=torch.int64)
    if x.dim() == 3:
        o, i = o[0], i[0]
    return o, i


def pool_cases(g):
    # _adaptive_avg_pool2d
    op = "aten::_adaptive_avg_pool2d.out"
    for dt in POOL_DTYPES:
        for shape, size in [((2, 3, 5, 7), [2, 3]), ((3, 4, 4), [3, 2]), ((0, 2, 4, 4), [2, 2])]:
            x = g.rand(shape, dt)
            if dt in (torch.float32, torch.float64, torch.bfloat16):
                ref = aten._adaptive_avg_pool2d(x, size)
                g.add(op, [x, size], [ref], tol=tol_for(dt, True))
            else:
                g.hand(op, [x, size], [cast(aten._adaptive_avg_pool2d(x.to(F64), size), dt)], tol=tol_for(dt, True))
    for dt in FLOAT_DTYPES:  # edges (float64 reference: the kernel sums in double)
        x = g.edges(dt).reshape(1, 1, 3, 5)
        g.hand(op, [x, [2, 2]], [aten._adaptive_avg_pool2d(x.to(F64), [2, 2]).to(dt)])
    x = channels_last(g.rand((2, 3, 6, 5)))
    g.add(op, [x, [4, 2]], [channels_last(aten._adaptive_avg_pool2d(x, [4, 2]))], tol=tol_for(torch.float32, True))
    g.error(op, [g.rand((2, 3, 4, 4)), [2, 2]], [torch.zeros(2, 3, 2, 2, dtype=torch.float64)], label="out_dtype")
    g.error(op, [g.rand((2, 3, 4, 4)), [2, 2, 2]], [torch.zeros(2, 3, 2, 2)], label="size_len")
    g.error(op, [g.rand((4, 4)), [2, 2]], [torch.zeros(2, 2)], label="rank2")
    g.error(op, [g.rand((1, 2, 4, 4), torch.int32), [2, 2]], [torch.zeros(1, 2, 2, 2, dtype=torch.int32)], label="int32")

    # avg_pool2d
    op = "aten::avg_pool2d.out"
    configs = [([3, 3], [2, 2], [1, 1], False, True, None), ([3, 3], [2, 2], [1, 1], True, False, None),
               ([2, 3], [], [0, 1], False, True, 3), ([2, 2], [1, 2], [1, 0], True, True, None)]
    for dt in POOL_DTYPES:
        for k, s, p, ceil, inc, div in configs:
            x = g.rand((2, 3, 6, 7), dt)
            args = [x, k, s, p, ceil, inc, div]
            if dt == torch.float16:
                g.hand(op, args, [aten.avg_pool2d(x.to(F64), k, s, p, ceil, inc, div).to(dt)])
            else:
                g.add(op, args, [aten.avg_pool2d(x, k, s, p, ceil, inc, div)], tol=tol_for(dt, True))
    x = g.rand((3, 5, 5), torch.int64, -100, 100)
    g.add(op, [x, [2, 2], [2, 2], [1, 1], True, False, -3], [aten.avg_pool2d(x, [2, 2], [2, 2], [1, 1], True, False, -3)],
          label="neg_divisor")
    for dt in FLOAT_DTYPES:
        x = g.edges(dt).reshape(1, 3, 5)
        g.hand(op, [x, [2, 2], [1, 1], [0, 0], False, True, None],
               [aten.avg_pool2d(x.to(F64), [2, 2], [1, 1], [0, 0]).to(dt)])
    x = channels_last(g.rand((2, 3, 6, 5)))
    g.add(op, [x, [3, 2], [2, 1], [1, 1], False, True, None],
          [channels_last(aten.avg_pool2d(x, [3, 2], [2, 1], [1, 1]))], tol=tol_for(torch.float32, True))
    x = g.rand((0, 2, 4, 4))
    g.add(op, [x, [2, 2], [], [0], False, True, None], [aten.avg_pool2d(x, [2, 2])], label="empty")
    x = g.rand((1, 2, 4, 4))
    g.error(op, [x, [2, 2], [], [2, 2], False, True, None], [torch.zeros(1, 2, 4, 4)], label="pad_gt_half")
    g.error(op, [x, [2, 2], [], [0], False, True, 0], [torch.zeros(1, 2, 2, 2)], label="divisor0")
    g.error(op, [x, [2, 2], [], [0], False, True, None], [torch.zeros(1, 2, 3, 3)], label="out_shape")
    g.error(op, [x.to(torch.int32), [2, 2], [], [0], False, True, None], [torch.zeros(1, 2, 2, 2, dtype=torch.int32)],
            label="int32")

    # max_pool2d_with_indices (a model of upstream, checked against torch where they agree)
    op = "aten::max_pool2d_with_indices.out"
    configs = [([2, 2], [2, 2], [0, 0], [1, 1], False), ([3, 3], [2, 2], [1, 1], [1, 1], True),
               ([3, 2], [], [1, 0], [2, 1], False)]
    for dt in REAL_DTYPES:
        for k, s, p, d, ceil in configs:
            x = g.rand((2, 3, 7, 6), dt)
            o, i = max_pool_model(x, k, s or k, p, d, ceil)
            if dt in (torch.float32, torch.float64):
                to, ti = aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
                assert torch.equal(to, o) and torch.equal(ti, i), "max pool model differs from torch"
                g.add(op, [x, k, s, p, d, ceil], [o, i])
            else:
                g.hand(op, [x, k, s, p, d, ceil], [o, i])
        e = g.edges(dt)
        x = e.repeat(4)[:24].reshape(1, 4, 6)
        o, i = max_pool_model(x, [2, 2], [2, 2], [1, 1], [1, 1], False)
        g.hand(op, [x, [2, 2], [2, 2], [1, 1], [1, 1], False], [o, i], label="edges_nan_first_only")
    x = channels_last(g.rand((2, 3, 5, 6)))
    o, i = aten.max_pool2d_with_indices(x, [2, 2], [1, 2], [1, 1], [1, 1], True)
    g.add(op, [x, [2, 2], [1, 2], [1, 1], [1, 1], True], [channels_last(o), channels_last(i)])
    x = g.rand((0, 2, 4, 4))
    g.add(op, [x, [2, 2], [], [0], [1], False], list(aten.max_pool2d_with_indices(x, [2, 2])), label="empty")
    x = g.rand((1, 2, 4, 4))
    g.error(op, [x, [2, 2], [], [0], [1], False], [torch.zeros(1, 2, 2, 2), torch.zeros(1, 2, 2, 2, dtype=torch.int32)],
            label="indices_dtype")
    g.error(op, [x, [2, 2], [], [0], [0], False], [torch.zeros(1, 2, 2, 2), torch.zeros(1, 2, 2, 2, dtype=torch.int64)],
            label="dilation0")
    g.error(op, [x.bool(), [2, 2], [], [0], [1], False],
            [torch.zeros(1, 2, 2, 2, dtype=torch.bool), torch.zeros(1, 2, 2, 2, dtype=torch.int64)], label="bool")

    # max_pool2d_with_indices_backward
    op = "aten::max_pool2d_with_indices_backward.grad_input"
    for dt in FLOAT_DTYPES:
        for k, s, p, d, ceil in configs[:2] + [([3, 3], [1, 1], [1, 1], [1, 1], False)]:
            x = g.rand((2, 3, 7, 6), dt)
            o, i = aten.max_pool2d_with_indices(x.to(F64), k, s, p, d, ceil)
            go = g.rand(o.shape, dt)
            ref = aten.max_pool2d_with_indices_backward(go.to(F64), x.to(F64), k, s, p, d, ceil, i).to(dt)
            add(g, op, [go, x, k, s, p, d, ceil, i], [ref], dt, acc=True)
    x = channels_last(g.rand((1, 2, 5, 5)))
    o, i = aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1])
    go = channels_last(g.rand(o.shape))
    g.add(op, [go, x, [3, 3], [2, 2], [1, 1], [1, 1], False, channels_last(i)],
          [channels_last(aten.max_pool2d_with_indices_backward(go, x, [3, 3], [2, 2], [1, 1], [1, 1], False, i))])
    x = g.rand((1, 1, 4, 4))
    go = g.rand((1, 1, 2, 2))
    bad = torch.tensor([[[[0, 1], [16, 3]]]])
    g.error(op, [go, x, [2, 2], [2, 2], [0], [1], False, bad], [torch.zeros(1, 1, 4, 4)], label="index_oob")
    g.error(op, [go, x, [2, 2], [2, 2], [0], [1], False, bad.clamp(max=3)], [torch.zeros(1, 1, 4, 4, dtype=F64)],
            label="grad_dtype")


# ----- normalisation ---------------------------------------------------------------------
def norm_cases(g):
    for dt in FLOAT_DTYPES:
        for shape, affine in [((2, 3, 4, 5), True), ((4, 3, 6), False), ((5, 3), True)]:
            x = g.rand(shape, dt)
            c = shape[1]
            w, b = (g.rand((c,), dt), g.rand((c,), dt)) if affine else (None, None)
            rm, rv = g.rand((c,), dt), g.rand((c,), dt, 0.5, 2.0)
            d = lambda t: None if t is None else t.to(F64)  # noqa: E731
            out = aten.native_batch_norm(x.to(F64), d(w), d(b), rm.to(F64), rv.to(F64), False, 0.1, 1e-5)[0].to(dt)
            empty = torch.empty(0, dtype=dt)
            add(g, "aten::_native_batch_norm_legit_no_training.out", [x, w, b, rm, rv, 0.1, 1e-5], [out, empty, empty],
                dt, acc=True, native=False)
            add(g, "aten::_native_batch_norm_legit.out", [x, w, b, rm.clone(), rv.clone(), False, 0.1, 1e-5],
                [out, empty, empty], dt, acc=True, native=False)
            o, m, s = aten.native_batch_norm(x.to(F64), d(w), d(b), None, None, True, 0.1, 1e-5)
            add(g, "aten::_native_batch_norm_legit.no_stats_out", [x, w, b, True, 0.1, 1e-5],
                [o.to(dt), m.to(dt), s.to(dt)], dt, acc=True, native=False)
            # group norm: N, C, HxW and 1 or 3 groups (C = 3 or 6)
            xg = g.rand((2, 6) + tuple(shape[2:]), dt)
            hxw = int(np.prod(shape[2:])) if len(shape) > 2 else 1
            wg, bg = (g.rand((6,), dt), g.rand((6,), dt)) if affine else (None, None)
            for groups in (3, 1):
                o, m, s = aten.native_group_norm(xg.to(F64), d(wg), d(bg), 2, 6, hxw, groups, 1e-5)
                add(g, "aten::native_group_norm.out", [xg, wg, bg, 2, 6, hxw, groups, 1e-5],
                    [o.to(dt), m.to(dt), s.to(dt)], dt, acc=True, native=False)
            # layer norm over the last one or two dims
            for nd in (1, 2):
                ns = list(shape[-nd:])
                wl, bl = (g.rand(ns, dt), g.rand(ns, dt)) if affine else (None, None)
                o, m, s = aten.native_layer_norm(x.to(F64), ns, d(wl), d(bl), 1e-5)
                add(g, "aten::native_layer_norm.out", [x, ns, wl, bl, 1e-5], [o.to(dt), m.to(dt), s.to(dt)], dt,
                    acc=True, native=False)
    # float32 through torch directly; channels-last inputs and outs
    x = channels_last(g.rand((2, 3, 4, 5)))
    w, b, rm, rv = g.rand((3,)), g.rand((3,)), g.rand((3,)), g.rand((3,), low=0.5, high=2.0)
    o = aten.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-3)[0]
    e = torch.empty(0)
    g.add("aten::_native_batch_norm_legit_no_training.out", [x, w, b, rm, rv, 0.1, 1e-3], [channels_last(o), e, e],
          tol=tol_for(torch.float32, True))
    o, m, s = aten.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-3)
    g.add("aten::_native_batch_norm_legit.no_stats_out", [x, w, b, False, 0.1, 1e-3], [channels_last(o), m, s],
          tol=tol_for(torch.float32, True))
    x = channels_last(g.rand((2, 6, 3, 4)))
    o, m, s = aten.native_group_norm(x, None, None, 2, 6, 12, 2, 1e-5)
    g.add("aten::native_group_norm.out", [x, None, None, 2, 6, 12, 2, 1e-5], [channels_last(o), m, s],
          tol=tol_for(torch.float32, True))
    o, m, s = aten.native_layer_norm(x, [3, 4], None, None, 1e-5)
    g.add("aten::native_layer_norm.out", [x, [3, 4], None, None, 1e-5], [channels_last(o), m, s],
          tol=tol_for(torch.float32, True))
    # empty (0 rows) and a constant row (variance 0)
    x = g.rand((0, 4))
    o, m, s = aten.native_layer_norm(x, [4], None, None, 1e-5)
    g.add("aten::native_layer_norm.out", [x, [4], None, None, 1e-5], [o, m, s], label="empty")
    x = torch.full((2, 4), 3.0)
    o, m, s = aten.native_layer_norm(x, [4], None, None, 1e-5)
    g.add("aten::native_layer_norm.out", [x, [4], None, None, 1e-5], [o, m, s], label="constant")
    x = g.rand((0, 6, 2))
    o, m, s = aten.native_group_norm(x, None, None, 0, 6, 2, 3, 1e-5)
    g.add("aten::native_group_norm.out", [x, None, None, 0, 6, 2, 3, 1e-5], [o, m, s], label="empty")
    x = g.rand((0, 3, 2))
    o = torch.empty((0, 3, 2))  # torch 1.13's native_batch_norm dies (SIGFPE) on 0 elements
    g.hand("aten::_native_batch_norm_legit_no_training.out", [x, None, None, torch.zeros(3), torch.ones(3), 0.1, 1e-5],
          [o, e, e], label="empty")
    # errors
    x = g.rand((2, 3, 4))
    g.error("aten::_native_batch_norm_legit.out", [x, None, None, torch.zeros(3), torch.ones(3), True, 0.1, 1e-5],
            [x, e, e], label="training")
    g.error("aten::_native_batch_norm_legit_no_training.out", [x, None, None, torch.zeros(4), torch.ones(3), 0.1, 1e-5],
            [x, e, e], label="mean_shape")
    g.error("aten::_native_batch_norm_legit.no_stats_out", [x, None, None, True, 0.1, 1e-5],
            [x, torch.zeros(3, dtype=F64), torch.zeros(3)], label="mean_dtype")
    g.error("aten::native_group_norm.out", [x, None, None, 2, 3, 4, 2, 1e-5], [x, torch.zeros(2, 2), torch.zeros(2, 2)],
            label="group")
    g.error("aten::native_layer_norm.out", [x, [5], None, None, 1e-5], [x, torch.zeros(2, 3, 1), torch.zeros(2, 3, 1)],
            label="normalized_shape")
    xi = x.to(torch.int32)
    g.error("aten::native_layer_norm.out", [xi, [4], None, None, 1e-5],
            [xi, torch.zeros(2, 3, 1, dtype=torch.int32), torch.zeros(2, 3, 1, dtype=torch.int32)], label="int32")


# ----- upsampling -------------------------------------------------------------------------
def aa_model(x, size, align_corners, scales):
    """Upstream's _upsample_bilinear2d_aa for integer inputs: float32 weights, one 2-D sum
    accumulated in the integer type (truncating after every term)."""
    f = np.float32
    n, c, h, w = x.shape

    def scale(i, o, s):
        if align_corners:
            return f((i - 1) / (o - 1)) if o > 1 else f(0)
        return f(1.0 / s) if s is not None else f(f(i) / f(o))

    def params(o, sc, size_in):
        center = f(sc * f(f(o) + f(0.5)))
        support = sc if sc >= f(1) else f(1)
        lo = max(int(f(center - support + f(0.5))), 0)
        hi = min(int(f(center + support + f(0.5))), size_in)
        inv = f(f(1) / sc) if sc >= f(1) else f(1)

        def filt(v):
            v = abs(v)
            return f(f(1) - v) if v < f(1) else f(0)
        total = f(0)
        for i in range(lo, hi):
            total = f(total + filt(f(f(f(i) - center) + f(0.5)) * inv))
        if hi <= lo or total <= f(0):
            fb = max(0, min(int(center), size_in - 1))
            return fb, fb + 1, lambda i: f(1) if i == fb else f(0)
        return lo, hi, lambda i: f(filt(f(f(f(i) - center) + f(0.5)) * inv) / total)

    sh, sw = scale(h, size[0], scales[0]), scale(w, size[1], scales[1])
    vals = x.to(torch.int64).tolist()
    out = torch.zeros(n, c, size[0], size[1], dtype=torch.int64)
    for oy in range(size[0]):
        ylo, yhi, wy = params(oy, sh, h)
        for ox in range(size[1]):
            xlo, xhi, wx = params(ox, sw, w)
            for b in range(n):
                for ch in range(c):
                    v = 0
                    for iy in range(ylo, yhi):
                        for ix in range(xlo, xhi):
                            term = f(f(f(vals[b][ch][iy][ix]) * wy(iy)) * wx(ix))
                            v = int(f(f(v) + term))  # truncates toward zero
                    out[b, ch, oy, ox] = v
    return out.to(x.dtype)


def nearest_ref(x, size, scales):
    """upsample_nearest2d by gathering: torch picks the source index of each output from an
    index image (exact for every dtype)."""
    n, c, h, w = x.shape
    idx = torch.arange(h * w, dtype=F64).reshape(1, 1, h, w)
    src = aten.upsample_nearest2d.vec(idx, size, scales).to(torch.int64)
    flat = x.reshape(n, c, h * w)
    return flat[:, :, src.reshape(-1)].reshape(n, c, src.shape[2], src.shape[3])


def _tdiv(a, b):
    """C++ integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def grid_int_model(x, grid, mode, pad, align):
    """grid_sampler_2d for integer dtypes as upstream computes it: coordinates in integer
    arithmetic (the kernel uses int64; the cases keep values small so no narrowing occurs),
    so bilinear and bicubic reduce to the sample at the truncated coordinate."""
    n, c, h, w = x.shape
    vals, gv = x.to(torch.int64).tolist(), grid.to(torch.int64).tolist()

    def unnorm(v, size):
        return _tdiv(v + 1, 2) * (size - 1) if align else _tdiv((v + 1) * size - 1, 2)

    def clip(v, size):
        return min(size - 1, max(v, 0))

    def reflect(v, lo2, hi2):
        if lo2 == hi2:
            return 0
        lo, span = _tdiv(lo2, 2), _tdiv(hi2 - lo2, 2)
        if span == 0:
            return 0
        v = abs(v - lo)
        extra, flips = v % span, v // span
        return extra + lo if flips % 2 == 0 else span - extra + lo

    def refl(v, size):
        return reflect(v, 0, 2 * (size - 1)) if align else reflect(v, -1, 2 * size - 1)

    def source(v, size):
        v = unnorm(v, size)
        if pad == 1:
            v = clip(v, size)
        elif pad == 2:
            v = clip(refl(v, size), size)
        return v

    oh, ow = grid.shape[1], grid.shape[2]
    out = torch.zeros(n, c, oh, ow, dtype=torch.int64)
    for b in range(n):
        for yy in range(oh):
            for xx in range(ow):
                gx, gy = gv[b][yy][xx]
                if mode == 2:
                    ix, iy = unnorm(gx, w), unnorm(gy, h)
                    if pad == 1:
                        ix, iy = clip(ix, w), clip(iy, h)
                    elif pad == 2:
                        ix, iy = clip(refl(ix, w), w), clip(refl(iy, h), h)
                else:
                    ix, iy = source(gx, w), source(gy, h)
                    if pad != 0:
                        ix, iy = clip(ix, w), clip(iy, h)
                inside = 0 <= ix < w and 0 <= iy < h
                for ch in range(c):
                    out[b, ch, yy, xx] = vals[b][ch][iy][ix] if inside else 0
    return out.to(x.dtype)


def upsample_cases(g):
    op = "aten::upsample_bilinear2d.vec_out"
    for dt in REAL_DTYPES:
        configs = [([8, 10], False, None), (None, False, [2.0, 2.0])]
        if dt.is_floating_point:
            configs += [([7, 6], True, None), (None, False, [1.5, 0.5]), ([3, 4], False, None)]
        for size, align, scales in configs:
            x = g.rand((2, 3, 4, 5), dt, *((0, 100) if not dt.is_floating_point else (None, None)))
            sf = DoubleList(scales) if scales else None
            if dt in (torch.float32, torch.float64):
                g.add(op, [x, size, align, sf], [aten.upsample_bilinear2d.vec(x, size, align, scales)])
            else:
                g.hand(op, [x, size, align, sf], [cast(aten.upsample_bilinear2d.vec(x.to(F64), size, align, scales), dt)])
    for dt in FLOAT_DTYPES:
        x = g.edges(dt)[:12].reshape(1, 1, 3, 4)
        g.hand(op, [x, [6, 8], False, None], [aten.upsample_bilinear2d.vec(x.to(F64), [6, 8], False, None).to(dt)])
    x = channels_last(g.rand((1, 3, 3, 4)))
    g.add(op, [x, [5, 7], True, None], [channels_last(aten.upsample_bilinear2d.vec(x, [5, 7], True, None))])
    x = g.rand((0, 2, 3, 3))
    g.add(op, [x, [6, 6], False, None], [aten.upsample_bilinear2d.vec(x, [6, 6], False, None)], label="empty")
    x = g.rand((1, 2, 3, 3))
    g.error(op, [x, [6, 6], False, DoubleList([2.0, 2.0])], [torch.zeros(1, 2, 6, 6)], label="both")
    g.error(op, [x, None, False, None], [torch.zeros(1, 2, 6, 6)], label="neither")
    g.error(op, [x, [6, 6], False, None], [torch.zeros(1, 2, 6, 6, dtype=F64)], label="out_dtype")
    g.error(op, [x[0], [6, 6], False, None], [torch.zeros(2, 6, 6)], label="rank3")

    op = "aten::upsample_nearest2d.vec_out"
    for dt in REAL_DTYPES:
        for size, scales in [([5, 7], None), (None, [2.0, 1.5]), ([2, 3], None)]:
            x = g.rand((2, 3, 3, 4), dt)
            ref = nearest_ref(x, size, scales)
            sf = DoubleList(scales) if scales else None
            if dt in (torch.float32, torch.float64, torch.uint8):
                assert torch.equal(ref, aten.upsample_nearest2d.vec(x, size, scales))
                g.add(op, [x, size, sf], [ref])
            else:
                g.hand(op, [x, size, sf], [ref])
        e = g.edges(dt)
        x = e.repeat(2)[:12].reshape(1, 1, 3, 4)
        g.hand(op, [x, [6, 8], None], [nearest_ref(x, [6, 8], None)])
    x = channels_last(g.rand((1, 3, 3, 4)))
    g.add(op, [x, [5, 9], None], [channels_last(aten.upsample_nearest2d.vec(x, [5, 9], None))])
    x = g.rand((0, 2, 3, 3))
    g.add(op, [x, [6, 6], None], [aten.upsample_nearest2d.vec(x, [6, 6], None)], label="empty")
    g.error(op, [g.rand((1, 2, 3, 3)), [6, 6, 1], None], [torch.zeros(1, 2, 6, 6)], label="size_len")
    g.error(op, [g.rand((1, 2, 3, 3)), None, DoubleList([0.0, 2.0])], [torch.zeros(1, 2, 6, 6)], label="scale0")

    op = "aten::_upsample_bilinear2d_aa.out"
    for dt in REAL_DTYPES:
        for size, align, sh, sw in [([3, 4], False, None, None), ([10, 12], False, None, None),
                                    ([4, 3], True, None, None), ([3, 5], False, 0.4, 0.5)]:
            x = g.rand((1, 2, 8, 9), dt, *((0, 100) if not dt.is_floating_point else (None, None)))
            if dt.is_floating_point:
                ref = aten._upsample_bilinear2d_aa(x.to(F64), size, align, sh, sw).to(dt)
                add(g, op, [x, size, align, sh, sw], [ref], dt, acc=True, native=dt in NATIVE,
                    tol=(1e-5, 1e-5) if dt == torch.float64 else None)
            else:
                scales = (sh, sw) if sh is not None else (None, None)
                g.hand(op, [x, size, align, sh, sw], [aa_model(x, size, align, scales)])
    x = channels_last(g.rand((2, 3, 6, 6)))
    g.add(op, [x, [3, 4], False, None, None], [channels_last(aten._upsample_bilinear2d_aa(x, [3, 4], False))])
    x = g.rand((0, 2, 4, 4))
    g.add(op, [x, [2, 2], False, None, None], [aten._upsample_bilinear2d_aa(x, [2, 2], False)], label="empty")
    g.error(op, [g.rand((1, 2, 4, 4)), [2], False, None, None], [torch.zeros(1, 2, 2, 2)], label="size_len")
    g.error(op, [g.rand((1, 2, 4, 4)), [2, 2], False, None, None], [torch.zeros(1, 2, 2, 3)], label="out_shape")
    g.error(op, [g.rand((1, 2, 4, 4)), [2, 2], False, 1e-12, 0.5], [torch.zeros(1, 2, 2, 2)], label="tiny_scale")

    op = "aten::grid_sampler_2d.out"
    for dt in FLOAT_DTYPES:
        combos = [(m, p, a) for m in (0, 1, 2) for p in (0, 1, 2) for a in (False, True)]
        if dt != torch.float32:
            combos = combos[::4]
        for mode, pad, align in combos:
            x = g.rand((2, 3, 4, 5), dt)
            grid = g.rand((2, 3, 4, 2), dt, -1.3, 1.3)
            ref = aten.grid_sampler_2d(x.to(F64), grid.to(F64), mode, pad, align).to(dt)
            add(g, op, [x, grid, mode, pad, align], [ref], dt, acc=True, native=dt in NATIVE)
    for dt in INT_DTYPES:
        for mode, pad, align in [(0, 0, False), (1, 1, True), (2, 2, False), (0, 2, True), (1, 0, False),
                                 (2, 1, True)]:
            x = g.rand((2, 2, 3, 4), dt)
            grid = g.rand((2, 3, 2, 2), dt, 0 if dt == torch.uint8 else -2, 3)
            g.hand(op, [x, grid, mode, pad, align], [grid_int_model(x, grid, mode, pad, align)], label="int")
    # the model agrees with torch where integer and float arithmetic coincide
    x = g.rand((1, 2, 3, 5), torch.int64).to(F64)
    grid = torch.tensor([[[[-1.0, -1.0], [1.0, 1.0]], [[1.0, -1.0], [-1.0, 1.0]]]], dtype=F64)
    for mode in (0, 1, 2):
        assert torch.equal(aten.grid_sampler_2d(x, grid, mode, 1, True),
                           grid_int_model(x, grid, mode, 1, True).to(F64)), "grid model differs from torch"
    x = channels_last(g.rand((1, 3, 4, 4)))
    grid = g.rand((1, 2, 3, 2), low=-1.0, high=1.0)
    g.add(op, [x, grid, 0, 0, False], [channels_last(aten.grid_sampler_2d(x, grid, 0, 0, False))])
    x = g.rand((0, 2, 3, 3))
    grid = g.rand((0, 2, 2, 2))
    g.add(op, [x, grid, 0, 0, False], [aten.grid_sampler_2d(x, grid, 0, 0, False)], label="empty")
    x, grid = g.rand((1, 2, 3, 3)), g.rand((1, 2, 2, 2))
    g.error(op, [x, grid, 3, 0, False], [torch.zeros(1, 2, 2, 2)], label="mode")
    g.error(op, [x, grid, 0, 3, False], [torch.zeros(1, 2, 2, 2)], label="padding")
    g.error(op, [x, g.rand((1, 2, 2, 3)), 0, 0, False], [torch.zeros(1, 2, 2, 2)], label="grid_shape")
    g.error(op, [x, grid.to(F64), 0, 0, False], [torch.zeros(1, 2, 2, 2)], label="grid_dtype")


# ----- convolution and matmul -------------------------------------------------------------
def conv_cases(g):
    op = "aten::convolution.out"
    # (input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups)
    configs = [((2, 4, 6, 7), (6, 2, 3, 2), True, [1, 2], [1, 0], [1], False, [0], 2),
               ((1, 3, 5, 5), (4, 3, 2, 2), False, [2], [1], [2], False, [0], 1),
               ((2, 3, 9), (4, 3, 3), True, [2], [1], [1], False, [0], 1),
               ((1, 4, 3, 4), (4, 3, 3, 2), True, [2, 1], [1, 0], [1], True, [1, 0], 2),
               ((2, 2, 5), (2, 3, 2), False, [3], [0], [2], True, [1], 1)]
    for dt in REAL_DTYPES:
        for xs, ws, has_b, s, p, d, tr, op_, gr in configs:
            lo, hi = (0, 4) if dt == torch.uint8 else (-4, 4)
            x, w = g.rand(xs, dt, lo, hi), g.rand(ws, dt, lo, hi)
            out_c = ws[0] if not tr else ws[1] * gr
            b = g.rand((out_c,), dt, lo, hi) if has_b else None
            d64 = lambda t: None if t is None else t.to(F64)  # noqa: E731
            ref = aten.convolution(x.to(F64), w.to(F64), d64(b), s, p, d, tr, op_, gr)
            args = [x, w, b, s, p, d, tr, op_, gr]
            if dt in NATIVE:
                g.add(op, args, [aten.convolution(x, w, b, s, p, d, tr, op_, gr)], tol=tol_for(dt, True))
            else:
                g.hand(op, args, [cast(ref, dt)], tol=tol_for(dt, True))
    # integer wrap-around (torch's integer convolution wraps as well)
    x = torch.full((1, 1, 2, 2), 100, dtype=torch.int8)
    w = torch.full((1, 1, 2, 2), 3, dtype=torch.int8)
    g.add(op, [x, w, None, [1], [0], [1], False, [0], 1], [aten.convolution(x, w, None, [1], [0], [1], False, [0], 1)],
          label="int8_wrap")
    # a bias of another dtype (upstream loads it with conversion)
    x, w, b = g.rand((1, 2, 4, 4)), g.rand((3, 2, 2, 2)), g.rand((3,), torch.int32)
    g.hand(op, [x, w, b, [1], [0], [1], False, [0], 1], [aten.convolution(x, w, b.float(), [1], [0], [1], False, [0], 1)],
           tol=tol_for(torch.float32, True), label="int_bias")
    for dt in FLOAT_DTYPES:
        x = g.edges(dt)[:12].reshape(1, 1, 3, 4)
        w = torch.tensor([[[[1.0, -1.0]]]], dtype=dt)
        g.hand(op, [x, w, None, [1], [0], [1], False, [0], 1],
               [aten.convolution(x.to(F64), w.to(F64), None, [1], [0], [1], False, [0], 1).to(dt)], label="edges")
    x, w, b = channels_last(g.rand((2, 4, 5, 5))), channels_last(g.rand((6, 4, 3, 3))), g.rand((6,))
    for tr in (False, True):
        wt = channels_last(g.rand((4, 3, 3, 3))) if tr else w
        ref = channels_last(aten.convolution(x, wt, None if tr else b, [2], [1], [1], tr, [1] if tr else [0], 1))
        g.add(op, [x, wt, None if tr else b, [2], [1], [1], tr, [1] if tr else [0], 1], [ref],
              tol=tol_for(torch.float32, True), label=f"channels_last_t{int(tr)}")
    x, w = g.rand((0, 2, 4, 4)), g.rand((3, 2, 2, 2))
    g.add(op, [x, w, None, [1], [0], [1], False, [0], 1], [aten.convolution(x, w, None, [1], [0], [1], False, [0], 1)],
          label="empty")
    x, w = g.rand((1, 2, 4, 4)), g.rand((2, 3, 2, 2))
    g.error(op, [x, w, None, [1], [0], [1], True, [1], 1], [torch.zeros(1, 3, 6, 6)], label="output_padding")
    g.error(op, [x, w, None, [1], [0], [1], True, [0], 1], [torch.zeros(1, 3, 5, 5, dtype=F64)], label="out_dtype")
    g.error(op, [x.bool(), w.bool(), None, [1], [0], [1], True, [0], 1], [torch.zeros(1, 3, 5, 5, dtype=torch.bool)],
            label="bool")

    op = "aten::convolution_backward.out"
    for dt in FLOAT_DTYPES:
        for xs, ws, s, p, d, gr, mask in [((2, 4, 6, 5), (6, 2, 3, 2), [1, 2], [1, 0], [1], 2, [True, True, True]),
                                          ((1, 3, 5, 5), (2, 3, 2, 2), [2], [1], [2], 1, [True, False, True]),
                                          ((2, 2, 4, 4), (3, 2, 3, 3), [1], [1], [1], 1, [False, True, False])]:
            x, w = g.rand(xs, dt), g.rand(ws, dt)
            out = aten.convolution(x.to(F64), w.to(F64), None, s, p, d, False, [0], gr)
            go = g.rand(out.shape, dt)
            gi, gw, gb = aten.convolution_backward(go.to(F64), x.to(F64), w.to(F64), [ws[0]], s, p, d, False, [0], gr,
                                                   mask)
            outs = [t.to(dt) if m else torch.empty(0, dtype=dt) for t, m in zip((gi, gw, gb), mask)]
            add(g, op, [go, x, w, [ws[0]], s, p, d, False, [0], gr, mask], outs, dt, acc=True, native=False)
    x, w = channels_last(g.rand((1, 2, 4, 4))), channels_last(g.rand((3, 2, 2, 2)))
    go = channels_last(g.rand((1, 3, 3, 3)))
    gi, gw, gb = aten.convolution_backward(go, x, w, None, [1], [0], [1], False, [0], 1, [True, True, True])
    g.add(op, [go, x, w, None, [1], [0], [1], False, [0], 1, [True, True, True]],
          [channels_last(gi), channels_last(gw), gb], tol=tol_for(torch.float32, True))
    e = torch.empty(0)
    g.error(op, [go, x, w, None, [1], [0], [1], True, [0], 1, [True, False, False]], [x, e, e], label="transposed")
    g.error(op, [g.rand((1, 3, 2, 2)), x, w, None, [1], [0], [1], False, [0], 1, [True, False, False]], [x, e, e],
            label="grad_output_shape")
    g.error(op, [go, x, w, [4], [1], [0], [1], False, [0], 1, [False, False, True]], [e, e, torch.zeros(3)],
            label="bias_sizes")


def matmul_cases(g):
    for dt in REAL_DTYPES:
        lo, hi = (0, 6) if dt == torch.uint8 else (-6, 6)
        a, b = g.rand((3, 4), dt, lo, hi), g.rand((4, 5), dt, lo, hi)
        bt = g.rand((5, 4), dt, lo, hi).t()  # dim order [1, 0]
        c, c1 = g.rand((3, 5), dt, lo, hi), g.rand((5,), dt, lo, hi)
        ba, bb = g.rand((2, 3, 4), dt, lo, hi), g.rand((2, 4, 2), dt, lo, hi)
        nat = dt not in (torch.float16, torch.bfloat16)  # torch 1.13 rounds bf16 products in bf16
        r = (lambda f, *t: f(*t)) if nat else (lambda f, *t: cast(f(*[x.to(F64) for x in t]), dt))
        add(g, "aten::mm.out", [a, b], [r(aten.mm, a, b)], dt, acc=True, native=nat)
        add(g, "aten::mm.out", [a, bt], [r(aten.mm, a, bt)], dt, acc=True, native=nat)
        add(g, "aten::bmm.out", [ba, bb], [r(aten.bmm, ba, bb)], dt, acc=True, native=nat)
        for beta, alpha, bias in [(1, 1, c), (2, 3, c1), (0, 1, c1), (True, False, c)]:
            if dt.is_floating_point:
                ref = r(lambda x, y, z: aten.addmm(x, y, z, beta=beta, alpha=alpha), bias, a, b)
            else:
                ref = aten.addmm(bias, a, b, beta=beta, alpha=alpha)
            add(g, "aten::addmm.out", [bias, a, b, beta, alpha], [ref], dt, acc=True, native=nat)
        if dt.is_floating_point:
            ref = r(lambda x, y, z: aten.addmm(x, y, z, beta=0.5, alpha=-1.5), c, a, b)
            add(g, "aten::addmm.out", [c, a, b, 0.5, -1.5], [ref], dt, acc=True, native=nat, label="float_scalars")
            e = g.edges(dt)[:12]
            ea, eb = e.reshape(3, 4), torch.ones(4, 2, dtype=dt)
            g.hand("aten::mm.out", [ea, eb], [aten.mm(ea.to(F64), eb.to(F64)).to(dt)], label="edges")
    # beta == 0 still reads self: upstream computes sum * alpha + self * beta, so NaN/inf in self
    # give NaN (torch 1.13's addmm skips self when beta == 0)
    a, b = g.rand((2, 3)), g.rand((3, 4))
    c = torch.tensor([float("nan"), float("inf"), 1.0, -0.0])
    g.hand("aten::addmm.out", [c, a, b, 0, 2], [(a.to(F64) @ b.to(F64) * 2 + c.to(F64) * 0).float()],
           tol=tol_for(torch.float32, True), label="beta0_nan_self")
    # integer wrap-around
    a = torch.tensor([[2**31 - 1, 2]], dtype=torch.int32)
    b = torch.tensor([[2], [3]], dtype=torch.int32)
    g.add("aten::mm.out", [a, b], [aten.mm(a, b)], label="int32_wrap")
    # empty products and a 0-size batch
    for sa, sb in [((0, 3), (3, 4)), ((2, 0), (0, 3))]:
        a, b = g.rand(sa), g.rand(sb)
        g.add("aten::mm.out", [a, b], [aten.mm(a, b)], label="empty")
    a, b = g.rand((0, 2, 3)), g.rand((0, 3, 2))
    g.add("aten::bmm.out", [a, b], [aten.bmm(a, b)], label="empty")
    s = g.rand(())
    g.add("aten::addmm.out", [s, g.rand((2, 0)), g.rand((0, 3)), 2, 1], [s.expand(2, 3) * 2], label="zero_dim_bias")
    # errors
    a, b = g.rand((2, 3)), g.rand((4, 2))
    g.error("aten::mm.out", [a, b], [torch.zeros(2, 2)], label="inner")
    g.error("aten::mm.out", [a, g.rand((3, 2))], [torch.zeros(2, 2, dtype=F64)], label="out_dtype")
    g.error("aten::bmm.out", [g.rand((2, 2, 3)), g.rand((3, 3, 2))], [torch.zeros(2, 2, 2)], label="batch")
    g.error("aten::addmm.out", [g.rand((3, 2)), a, g.rand((3, 2)), 1, 1], [torch.zeros(2, 2)], label="bias_shape")
    ab = a.bool()
    g.error("aten::mm.out", [ab, ab.t()], [torch.zeros(2, 2, dtype=torch.bool)], label="bool")


def shape_cases(g):
    """DYNAMIC_BOUND outs (resized from a larger capacity) and 0-dim inputs (refused)."""
    x = g.rand((2, 3, 6, 5))
    g.add("aten::avg_pool2d.out", [x, [2, 2], [], [0], False, True, None], [aten.avg_pool2d(x, [2, 2])],
          dynamic=[[2, 3, 6, 5]], label="dynamic")
    o, i = aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1])
    g.add("aten::max_pool2d_with_indices.out", [x, [3, 3], [2, 2], [1, 1], [1], False], [o, i],
          dynamic=[[2, 3, 6, 5], [2, 3, 6, 5]], label="dynamic")
    o, m, r = aten.native_layer_norm(x, [6, 5], None, None, 1e-5)
    g.add("aten::native_layer_norm.out", [x, [6, 5], None, None, 1e-5], [o, m, r],
          dynamic=[[2, 3, 6, 5], [2, 3, 6, 5], [2, 3, 6, 5]], tol=tol_for(torch.float32, True), label="dynamic")
    w = g.rand((4, 3, 3, 3))
    g.add("aten::convolution.out", [x, w, None, [1], [1], [1], False, [0], 1],
          [aten.convolution(x, w, None, [1], [1], [1], False, [0], 1)], dynamic=[[2, 4, 8, 8]],
          tol=tol_for(torch.float32, True), label="dynamic")
    g.add("aten::upsample_nearest2d.vec_out", [x, None, DoubleList([2.0, 2.0])],
          [aten.upsample_nearest2d.vec(x, None, [2.0, 2.0])], dynamic=[[2, 3, 12, 12]], label="dynamic")
    a, b = g.rand((3, 4)), g.rand((4, 2))
    g.add("aten::mm.out", [a, b], [aten.mm(a, b)], dynamic=[[4, 4]], tol=tol_for(torch.float32, True), label="dynamic")
    # 0-dim inputs have no channels / spatial dims / matrix dims
    z = g.rand(())
    g.error("aten::avg_pool2d.out", [z, [1, 1], [], [0], False, True, None], [z], label="zero_dim")
    g.error("aten::_adaptive_avg_pool2d.out", [z, [1, 1]], [z], label="zero_dim")
    g.error("aten::native_layer_norm.out", [z, [1], None, None, 1e-5], [z, z, z], label="zero_dim")
    g.error("aten::upsample_nearest2d.vec_out", [z, [1, 1], None], [z], label="zero_dim")
    g.error("aten::convolution.out", [z, z, None, [1], [0], [1], False, [0], 1], [z], label="zero_dim")
    g.error("aten::mm.out", [z, z], [z], label="zero_dim")
    g.error("aten::_native_batch_norm_legit.no_stats_out", [z, None, None, True, 0.1, 1e-5], [z, z, z],
            label="zero_dim")


def cases(g):
    pool_cases(g)
    norm_cases(g)
    upsample_cases(g)
    conv_cases(g)
    matmul_cases(g)
    shape_cases(g)
