"""PyTorch as the oracle for the portable kernels: the case writer shared by every family.

A family module (cases_<family>.py in this folder) defines `cases(g)` and calls `g.add(...)`
once per case: the operator's ExecuTorch name, its schema arguments before the out
tensor(s), and the expected outputs (computed with torch, usually by calling the very
`.out` overload). gen_cases.py runs every family and writes one text file that
oracle_test.cpp reads; the format is described there and in `Gen._tensor`.

Everything here is deterministic: each family gets its own seeded generator.
"""
import math
import warnings

import torch

# torch 1.13 warns on every complex32 tensor it makes; the cases need only its plain copies.
warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

# ExecuTorch ScalarType codes (runtime/core/portable_type/scalar_type.h).
DTYPE_CODE = {
    torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
    torch.float16: 5, torch.float32: 6, torch.float64: 7,
    torch.complex32: 8, torch.complex64: 9, torch.complex128: 10, torch.bool: 11,
    torch.bfloat16: 15,
}
COMPLEX_DTYPES = [torch.complex32, torch.complex64, torch.complex128]

# The complex dtypes and the dtype of their parts.
COMPLEX_PART = {torch.complex32: torch.float16, torch.complex64: torch.float32, torch.complex128: torch.float64}

INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
REAL_DTYPES = INT_DTYPES + FLOAT_DTYPES          # ExecuTorch's "realhbf16"
ALL_DTYPES = REAL_DTYPES + [torch.bool]           # "realhbbf16"

# Default tolerances (atol, rtol) by the dtype of the compared output. Families may pass
# their own; docs/ops.md lists them per family.
DEFAULT_TOL = {
    torch.float16: (1e-3, 1e-3), torch.bfloat16: (1e-2, 1e-2),
    torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10),
}


class OptTensors(list):
    """A `Tensor?[]` argument (e.g. index.Tensor's indices): items are tensors or None."""


class OutList(list):
    """A `Tensor(a!)[] out` argument (split_copy, unbind_copy, ...) given in `outs`: the
    expected tensors. The kernel gets one TensorList of sentinel-filled out tensors (each
    with its expected tensor's shape, dtype and dim order) and every item is checked
    ("expect <arg index>:<item index> ..."). In `expect`, a list value checks the items of a
    TensorList argument the same way."""


class DType:
    """A `ScalarType` argument: written as its Int code (pte-format.md §9.3)."""

    def __init__(self, dtype):
        self.dtype = dtype


class DoubleList(list):
    """A `float[]` argument (a Python list of ints would otherwise be written as int[])."""


def dtype_code(dtype):
    return DTYPE_CODE[dtype]


def dim_order_of(t):
    """The dim order of a strided tensor: dims from outermost to innermost in memory.
    Ties (size-1 dims) keep their logical order, as ExecuTorch's stride-to-dim-order does."""
    return sorted(range(t.dim()), key=lambda d: (-t.stride(d), d))


def channels_last(t):
    """`t` (4-D) laid out with dim order [0, 2, 3, 1]."""
    return t.contiguous(memory_format=torch.channels_last)


def _raw_bytes(t):
    """The bytes of `t` in memory order along its dim order."""
    order = dim_order_of(t)
    flat = t.permute(*order).contiguous().reshape(-1) if t.dim() else t.reshape(1)
    if flat.is_complex():
        # (real, imaginary) pairs of the parts' dtype, as ExecuTorch stores complex elements.
        flat = torch.view_as_real(flat).reshape(-1)
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    if flat.dtype in (torch.float16, torch.bfloat16):
        flat = flat.view(torch.int16)
    return flat.numpy().tobytes()


def _fmt_float(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x.hex()


class Gen:
    """Collects the cases of one family."""

    def __init__(self, family, seed):
        self.family = family
        self.rng = torch.Generator().manual_seed(seed)
        self.lines = []
        self.count = 0
        self.ops = set()

    # ----- values ------------------------------------------------------------------------
    def rand(self, shape, dtype=torch.float32, low=None, high=None):
        """Random values of `dtype`: floats uniform in [low, high) (default [-4, 4)),
        integers uniform over [low, high) (default a small range valid for the dtype)."""
        if dtype == torch.bool:
            return torch.randint(0, 2, shape, generator=self.rng).to(torch.bool)
        if dtype.is_floating_point:
            lo = -4.0 if low is None else low
            hi = 4.0 if high is None else high
            return (torch.rand(shape, generator=self.rng, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
        if low is None:
            low, high = (0, 20) if dtype == torch.uint8 else (-20, 20)
        return torch.randint(low, high, shape, generator=self.rng, dtype=torch.int64).to(dtype)

    def rand_complex(self, shape, dtype, edges=False):
        """Random complex values of `dtype` (parts uniform in [-4, 4)); with `edges`, the parts'
        edge values (NaN, +-inf, -0.0, tiny, huge) lead the real parts and, reversed, the
        imaginary ones."""
        part = COMPLEX_PART[dtype]
        re, im = self.rand(shape, part).reshape(-1), self.rand(shape, part).reshape(-1)
        if edges:
            e = self.edges(part)
            n = min(re.numel(), e.numel())
            re[:n] = e[:n]
            im[:n] = e.flip(0)[:n]
        # torch.complex has no float16 kernel: build complex64 and narrow (exact for float16 parts).
        wide = torch.float32 if part == torch.float16 else part
        return torch.complex(re.to(wide), im.to(wide)).to(dtype).reshape(shape)

    def edges(self, dtype):
        """A 1-D tensor of the dtype's edge values: NaN, ±inf, -0.0, tiny and huge values for
        floats; min, max, 0, ±1 for integers."""
        if dtype == torch.bool:
            return torch.tensor([False, True])
        if dtype.is_floating_point:
            fi = torch.finfo(dtype)
            vals = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.0, -1.0, 0.5, -2.5,
                    fi.tiny, -fi.tiny, fi.max, fi.min, 1e-3, 7.25]
            return torch.tensor(vals, dtype=torch.float64).to(dtype)
        ii = torch.iinfo(dtype)
        vals = [ii.min, ii.max, 0, 1, ii.max - 1, 7]
        if ii.min < 0:
            vals += [-1, ii.min + 1, -7]
        return torch.tensor(vals, dtype=torch.int64).to(dtype)

    # ----- cases ---------------------------------------------------------------------------
    def add(self, op, args, outs, *, label="", tol=None, expect=None, dynamic=False):
        """One case: `op` (e.g. "aten::abs.out") called with `args` (the schema arguments
        before the outs) and one out tensor per entry of `outs`, which are the expected
        results. The out tensors passed to the kernel have the expected shape, dtype and dim
        order (memory filled with a sentinel); `dynamic=True` makes them DYNAMIC_BOUND with
        the expected shape as capacity... or, when `dynamic` is a list of shapes, with those
        capacities. `expect` maps the index of a mutated argument (in-place ops) to its
        expected value. `tol` = (atol, rtol) for floating outputs (default DEFAULT_TOL)."""
        self.ops.add(op)
        self.count += 1
        w = self.lines
        w.append(f"case {op} {self.family}/{label or self.count}")
        for a in args:
            w.append("arg " + self._value(a))
        capacities = dynamic if isinstance(dynamic, list) else [None] * len(outs)
        for o, cap in zip(outs, capacities):
            if isinstance(o, OutList):
                w.append("arg " + self._out_list(o, bool(dynamic)))
                continue
            shape = list(o.shape) if cap is None else list(cap)
            w.append("arg " + self._out_tensor(o, shape, bool(dynamic)))
        first_out = len(args)
        expectations = dict(expect or {})
        for i, o in enumerate(outs):
            expectations[first_out + i] = o
        for index, t in sorted(expectations.items()):
            items = [(f"{index}:{k}", x) for k, x in enumerate(t)] if isinstance(t, list) else [(index, t)]
            for where, x in items:
                atol, rtol = tol if tol is not None else DEFAULT_TOL.get(x.dtype, (0.0, 0.0))
                w.append(f"expect {where} {_fmt_float(atol)} {_fmt_float(rtol)} {self._tensor(x)}")
        w.append("end")

    def error(self, op, args, outs, *, code="InvalidArgument", label="", dynamic=False):
        """A case the kernel must refuse with `code` (outs as in add(): tensors whose shape,
        dtype and dim order the out arguments get)."""
        self.ops.add(op)
        self.count += 1
        w = self.lines
        w.append(f"case {op} {self.family}/{label or self.count}")
        for a in args:
            w.append("arg " + self._value(a))
        for o in outs:
            if isinstance(o, OutList):
                w.append("arg " + self._out_list(o, dynamic))
            else:
                w.append("arg " + self._out_tensor(o, list(o.shape), dynamic))
        w.append(f"error {code}")
        w.append("end")

    def hand(self, op, args, outs, **kw):
        """add() for expectations computed by hand (ops torch 1.13 lacks): the same case,
        marked so the summary can count them."""
        kw["label"] = "hand:" + kw.get("label", "")
        self.add(op, args, outs, **kw)

    # ----- encoding ------------------------------------------------------------------------
    def _tensor(self, t, shape=None, dynamic=False, data=True):
        """T <dtype> <rank> <sizes...> <dim_order...> <dynamic 0|1> <hex bytes or ->"""
        if t.dtype not in DTYPE_CODE:
            raise ValueError(f"{self.family}: dtype {t.dtype} has no ExecuTorch code")
        sizes = list(t.shape) if shape is None else shape
        order = dim_order_of(t) if len(sizes) == t.dim() else list(range(len(sizes)))
        payload = _raw_bytes(t).hex() if data else "-"
        if data and not payload:
            payload = "-"
        return " ".join(["T", str(DTYPE_CODE[t.dtype]), str(len(sizes))] + [str(s) for s in sizes] +
                        [str(d) for d in order] + ["1" if dynamic else "0", payload])

    def _out_tensor(self, expected, shape, dynamic):
        return self._tensor(expected, shape, dynamic, data=False)

    def _out_list(self, items, dynamic):
        return f"TL {len(items)} " + " ".join(self._out_tensor(x, list(x.shape), dynamic) for x in items)

    def _value(self, a):
        if a is None:
            return "N"
        if isinstance(a, bool):
            return f"B {int(a)}"
        if isinstance(a, int):
            return f"I {a}"
        if isinstance(a, float):
            return f"D {_fmt_float(a)}"
        if isinstance(a, DType):
            return f"I {DTYPE_CODE[a.dtype]}"
        if isinstance(a, torch.dtype):
            return f"I {DTYPE_CODE[a]}"
        if isinstance(a, str):
            if not a or any(c.isspace() for c in a):
                raise ValueError("string arguments must be one non-empty word")
            return f"S {a}"
        if isinstance(a, torch.Tensor):
            return self._tensor(a)
        if isinstance(a, OptTensors):
            return f"OTL {len(a)} " + " ".join(self._value(x) for x in a)
        if isinstance(a, DoubleList):
            return f"DL {len(a)} " + " ".join(_fmt_float(x) for x in a)
        if isinstance(a, (list, tuple)):
            if all(isinstance(x, torch.Tensor) for x in a) and len(a) > 0:
                return f"TL {len(a)} " + " ".join(self._tensor(x) for x in a)
            if all(isinstance(x, bool) for x in a) and len(a) > 0:
                return f"BL {len(a)} " + " ".join(str(int(x)) for x in a)
            if all(isinstance(x, int) and not isinstance(x, bool) for x in a):
                return f"IL {len(a)} " + " ".join(str(x) for x in a)
            if all(isinstance(x, (int, float)) for x in a):
                return f"DL {len(a)} " + " ".join(_fmt_float(x) for x in a)
        raise ValueError(f"{self.family}: cannot encode argument {a!r}")
