"""Hopper ``wgmma.mma_async`` m64nNk16 on the GPU: raw one-hot recordings.

One thread block is one warpgroup (128 threads) doing one run.  A comes from
shared memory through a descriptor (``SS``) or from registers (``RS``); B
always from shared memory.  The kernel fills shared memory itself by a fixed
rule (so the runs need no per-run upload): A is one-hot (value 1) at one
16-bit unit of its region (SS) or at one register element ``tid*8 + e``
(RS); every unit ``j`` of the B region holds digit ``d`` of ``j`` in base
``base``, plus one.  ``scale-d`` is false, so D = A x B.

From the runs (decoded on the GPU with CuPy) come the triples
``(a, b, d)``: A unit/slot ``a`` times B unit ``b`` landed in D slot ``d``
(``d = tid * (N/2) + i`` for element ``i`` of thread ``tid``).  They are
stored *factorised*, which is lossless because the recorder checks that the
triples are exactly the ones the factors generate:

* ``a``: ``[row_label, k_label]`` per A unit/slot (``-1`` if it reaches nothing);
* ``b``: ``[k_label, col_label]`` per B unit;
* ``d``: ``[row_label, col_label]`` per D slot;

with ``row_label`` the smallest A unit of that row class, ``k_label`` and
``col_label`` the smallest B unit of their classes (labels are raw unit
numbers, no model involved).  Stored column by column as successive differences
(int32, little-endian), zlib-compressed, base64 (:func:`unpack` reverses it).
"""

from __future__ import annotations

import base64
import zlib
from dataclasses import dataclass
from typing import Any

from layoutalg.errors import InstructionError

LAYOUT_TYPES = {"INTERLEAVE": 0, "B128": 1, "B64": 2, "B32": 3}
_WIDTH_BYTES = {"INTERLEAVE": 16, "B32": 32, "B64": 64, "B128": 128}


@dataclass(frozen=True)
class Operand:
    """How A or B lies in shared memory: major-ness, swizzle mode, LBO/SBO (bytes), region size (bytes)."""

    major: str  # "K" or "MN"
    layout_type: str
    lbo: int
    sbo: int
    region_bytes: int

    def descriptor(self) -> int:
        """The descriptor word without its start address (the kernel adds that)."""
        return ((self.lbo >> 4) << 16) | ((self.sbo >> 4) << 32) | (LAYOUT_TYPES[self.layout_type] << 62)


def canonical_operand(mn: int, major: str, layout_type: str) -> Operand:
    """A compact layout of an ``mn x 16`` f16/bf16 operand (one K block) in each mode.

    K-major interleave: core matrices of 8 rows x 16 bytes; LBO = 128 B (next
    core matrix along K), SBO = 256 B (next 8 rows).  K-major swizzled: rows
    of the swizzle width (W bytes), 8-row atoms of 8*W bytes, SBO = 8*W.
    MN-major interleave: core matrices of 8 k-rows x 16 bytes of MN; LBO =
    128 B (next 8 k), SBO = 256 B (next 8 MN).  MN-major swizzled: atoms of
    W bytes of MN x 8 k; SBO = 8*W (next 8 k), LBO = 16*W (next W bytes of MN).
    """
    w = _WIDTH_BYTES[layout_type]
    if major == "K":
        if layout_type == "INTERLEAVE":
            return Operand("K", layout_type, 128, 256, mn * 32)
        return Operand("K", layout_type, 16, 8 * w, mn * w)
    if major == "MN":
        if layout_type == "INTERLEAVE":
            return Operand("MN", layout_type, 128, 256, mn * 32)
        groups = -(-(mn * 2) // w)  # ceil: a partial last group still takes a whole atom
        return Operand("MN", layout_type, 16 * w, 8 * w, groups * 16 * w)
    raise InstructionError(f"major must be 'K' or 'MN', got {major!r}")


@dataclass(frozen=True)
class WgmmaVariant:
    n: int
    ab_type: str  # f16 / bf16
    d_type: str  # f16 / f32
    a_source: str  # "smem" / "reg"
    a: Operand | None
    b: Operand

    @property
    def ptx(self) -> str:
        return f"wgmma.mma_async.sync.aligned.m64n{self.n}k16.{self.d_type}.{self.ab_type}.{self.ab_type}"

    @property
    def d_units(self) -> int:
        return self.n // 2 if self.d_type == "f32" else self.n // 4

    @property
    def a_offset(self) -> int:
        return 0

    @property
    def b_offset(self) -> int:
        a_bytes = self.a.region_bytes if self.a else 0
        return (a_bytes + 1023) // 1024 * 1024

    @property
    def smem_bytes(self) -> int:
        """Regions plus zero-filled slack, so a read past a region (a wrong LBO/SBO) sees zeros."""
        return max(32 * 1024, self.b_offset + self.b.region_bytes)

    def name(self) -> str:
        a = f"{self.a.major}{self.a.layout_type}" if self.a else "R"
        return f"wgmma_n{self.n}_{self.d_type}_{self.ab_type}_{a}_{self.b.major}{self.b.layout_type}"

    def label(self) -> str:
        a = f"A {self.a.major}-major {self.a.layout_type}" if self.a else "A registers"
        return f"{self.ptx} {a}, B {self.b.major}-major {self.b.layout_type}"


def wgmma_variants() -> list[WgmmaVariant]:
    """Every N for f16->f32 SS and RS; N in {8, 64, 256} for the other forms; descriptor modes at N=64."""
    from layoutalg.atoms.gmma import GMMA_NS

    v: list[WgmmaVariant] = []
    k_int = canonical_operand(64, "K", "INTERLEAVE")
    for n in GMMA_NS:
        bk = canonical_operand(n, "K", "INTERLEAVE")
        v.append(WgmmaVariant(n, "f16", "f32", "smem", k_int, bk))
        v.append(WgmmaVariant(n, "f16", "f32", "reg", None, bk))
    for n in (8, 64, 256):
        bk = canonical_operand(n, "K", "INTERLEAVE")
        v.append(WgmmaVariant(n, "f16", "f16", "smem", k_int, bk))
        v.append(WgmmaVariant(n, "f16", "f16", "reg", None, bk))
        v.append(WgmmaVariant(n, "bf16", "f32", "smem", k_int, bk))
        v.append(WgmmaVariant(n, "bf16", "f32", "reg", None, bk))
    for major in ("K", "MN"):
        for lt in ("B32", "B64", "B128") if major == "K" else ("INTERLEAVE", "B32", "B64", "B128"):
            v.append(WgmmaVariant(64, "f16", "f32", "smem", canonical_operand(64, major, lt),
                                  canonical_operand(64, major, lt)))
    v.append(WgmmaVariant(128, "f16", "f32", "smem", canonical_operand(64, "K", "B128"),
                          canonical_operand(128, "MN", "B128")))
    return v


def kernel_source(v: WgmmaVariant) -> tuple[str, str]:
    name = v.name()
    nd = v.d_units
    c = "f" if v.d_type == "f32" else "r"
    ctype = "float" if c == "f" else "unsigned"
    d_list = ", ".join(f"%{i}" for i in range(nd))
    outs = ", ".join(f'"+{c}"(d[{i}])' for i in range(nd))
    trans_a = 1 if v.a and v.a.major == "MN" else 0
    trans_b = 1 if v.b.major == "MN" else 0
    if v.a is None:
        a_ops = "{" + ", ".join(f"%{nd + 1 + i}" for i in range(4)) + "}"
        ins = '"r"(zero), "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db)'
        tail = f"%{nd + 5}, p, 1, 1, {trans_b}"
        a_fill = """
    unsigned ar[4];
    for (int j = 0; j < 4; ++j) {
        unsigned lo = (tid * 8 + 2 * j == one_hot) ? enc[1] : enc[0];
        unsigned hi = (tid * 8 + 2 * j + 1 == one_hot) ? enc[1] : enc[0];
        ar[j] = lo | (hi << 16);
    }"""
    else:
        a_ops = f"%{nd + 1}"
        ins = '"r"(zero), "l"(da), "l"(db)'
        tail = f"%{nd + 2}, p, 1, 1, {trans_a}, {trans_b}"
        a_fill = f"""
    for (int j = tid; j < {v.a.region_bytes // 2}; j += 128) smem[{v.a_offset // 2} + j] = (j == one_hot) ? enc[1] : enc[0];"""
    src = f"""
extern "C" __global__ void __launch_bounds__(128) {name}(const unsigned short* enc, int digits, int base,
        unsigned long long desc_a, unsigned long long desc_b, unsigned* D) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    const int tid = threadIdx.x;
    const int one_hot = blockIdx.x / digits;
    const int digit = blockIdx.x % digits;
    int scale = 1;
    for (int j = 0; j < digit; ++j) scale *= base;
    for (int j = tid; j < {v.smem_bytes // 2}; j += 128) smem[j] = 0;
    __syncthreads();
    for (int j = tid; j < {v.b.region_bytes // 2}; j += 128) smem[{v.b_offset // 2} + j] = enc[(j / scale) % base + 1];
    {a_fill}
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const unsigned base_addr = smem_base(smem_raw);
    const unsigned long long da = desc_a | (unsigned long long)(((base_addr + {v.a_offset}) & 0x3FFFF) >> 4);
    const unsigned long long db = desc_b | (unsigned long long)(((base_addr + {v.b_offset}) & 0x3FFFF) >> 4);
    const unsigned zero = 0;
    {ctype} d[{nd}];
    for (int j = 0; j < {nd}; ++j) d[j] = 0;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{nd}, 0;\\n"
                 "{v.ptx} {{{d_list}}}, {a_ops}, {tail};\\n}}\\n"
                 : {outs} : {ins} : "memory");
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int j = 0; j < {nd}; ++j) D[((size_t)blockIdx.x * 128 + tid) * {nd} + j] = {"__float_as_uint(d[j])" if c == "f" else "d[j]"};
}}
"""
    return name, src


def _pack(arr: Any, columns: int = 2) -> str:
    """int array (rows, columns) -> column by column, successive differences, int32 LE, zlib, base64."""
    import numpy as np

    flat = np.asarray(arr, dtype=np.int64).reshape(-1, columns).T.reshape(-1)
    return base64.b64encode(zlib.compress(np.diff(flat, prepend=0).astype("<i4").tobytes(), 9)).decode()


def unpack(text: str, columns: int = 2) -> Any:
    """Inverse of :func:`_pack`: an int64 array of shape ``(rows, columns)``."""
    import numpy as np

    flat = np.cumsum(np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype="<i4").astype(np.int64))
    return flat.reshape(columns, -1).T


def factorise(triples: Any, n_a: int, n_b: int, n_d: int) -> tuple[Any, Any, Any, bool]:
    """Row/k/col labels of A, B, D (see module doc) and whether they regenerate ``triples`` exactly."""
    import numpy as np

    t = np.asarray(triples, dtype=np.int64)
    a_lab = np.full((n_a, 2), -1, dtype=np.int64)
    b_lab = np.full((n_b, 2), -1, dtype=np.int64)
    d_lab = np.full((n_d, 2), -1, dtype=np.int64)
    big = np.iinfo(np.int64).max
    row_of_d = np.full(n_d, big)
    np.minimum.at(row_of_d, t[:, 2], t[:, 0])
    col_of_d = np.full(n_d, big)
    np.minimum.at(col_of_d, t[:, 2], t[:, 1])
    k_of_a = np.full(n_a, big)
    np.minimum.at(k_of_a, t[:, 0], t[:, 1])
    reached_d = row_of_d < big
    d_lab[reached_d, 0], d_lab[reached_d, 1] = row_of_d[reached_d], col_of_d[reached_d]
    a_lab[t[:, 0], 0] = row_of_d[t[:, 2]]
    a_lab[t[:, 0], 1] = k_of_a[t[:, 0]]
    b_lab[t[:, 1], 0] = k_of_a[t[:, 0]]
    b_lab[t[:, 1], 1] = col_of_d[t[:, 2]]
    regenerated = expand(a_lab, b_lab, d_lab, n_b, n_d)
    given = _sorted_unique(t[:, 0] * (n_b * n_d) + t[:, 1] * n_d + t[:, 2])
    return a_lab, b_lab, d_lab, bool(regenerated.shape == given.shape and (regenerated == given).all())


def triple_codes(a: Any, b: Any, d: Any, n_b: int, n_d: int) -> Any:
    """Sorted codes ``a*n_b*n_d + b*n_d + d`` of every triple a product structure generates.

    ``a`` rows are ``(id, row, k)``, ``b`` rows ``(id, k, col)``, ``d`` rows ``(id, row, col)``
    (int arrays); a triple exists when the k's match and D's (row, col) is (A's row, B's col).
    """
    import numpy as np

    a, b, d = (np.asarray(x, dtype=np.int64).reshape(-1, 3) for x in (a, b, d))
    if not len(a) or not len(b) or not len(d):
        return np.zeros(0, dtype=np.int64)
    span = int(max(a[:, 1].max(), d[:, 1].max(), b[:, 2].max(), d[:, 2].max())) + 1
    d_keys = d[:, 1] * span + d[:, 2]
    order = np.argsort(d_keys)
    d_sorted, d_ids = d_keys[order], d[order, 0]
    codes = []
    for k in np.unique(a[:, 2]):
        aa = a[a[:, 2] == k]
        bb = b[b[:, 1] == k]
        if not len(bb):
            continue
        keys = (aa[:, 1][:, None] * span + bb[:, 2][None, :]).reshape(-1)
        pos = np.clip(np.searchsorted(d_sorted, keys), 0, len(d_sorted) - 1)
        hit = d_sorted[pos] == keys
        a_rep = np.repeat(aa[:, 0], len(bb))[hit]
        b_rep = np.tile(bb[:, 0], len(aa))[hit]
        # several D slots may share a (row, col): take every one of them
        lo = np.searchsorted(d_sorted, keys[hit], side="left")
        hi = np.searchsorted(d_sorted, keys[hit], side="right")
        for extra in range(int((hi - lo).max(initial=1))):
            sel = lo + extra < hi
            codes.append(a_rep[sel] * (n_b * n_d) + b_rep[sel] * n_d + d_ids[(lo + extra)[sel]])
    return _sorted_unique(np.concatenate(codes)) if codes else np.zeros(0, dtype=np.int64)


def _sorted_unique(x: Any) -> Any:
    import numpy as np

    x = np.sort(x, kind="stable")
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if len(x) else x


def expand(a_lab: Any, b_lab: Any, d_lab: Any, n_b: int, n_d: int) -> Any:
    """The triples the labels generate, as sorted codes ``a*n_b*n_d + b*n_d + d``."""
    import numpy as np

    def with_ids(lab: Any) -> Any:
        ids = np.nonzero(lab[:, 0] >= 0)[0]
        return np.column_stack([ids, lab[ids, 0], lab[ids, 1]])

    return triple_codes(with_ids(a_lab), with_ids(b_lab), with_ids(d_lab), n_b, n_d)


def record_wgmma(v: WgmmaVariant, kernel: Any) -> dict[str, Any]:
    """All one-hot runs of one variant; returns the factorised raw recording."""
    from layoutalg.gpu import require_cupy
    from layoutalg.gpu.encoding import encode

    cp = require_cupy()
    import numpy as np

    n_a = v.a.region_bytes // 2 if v.a else 128 * 8
    n_b = v.b.region_bytes // 2
    per_thread = v.n // 2
    n_d = 128 * per_thread
    base = 256
    digits = 1
    while base ** digits < n_b:
        digits += 1
    runs = n_a * digits
    enc = cp.asarray(encode(np.arange(base + 1), v.ab_type).astype(np.uint16))
    out = cp.zeros((runs, 128, v.d_units), dtype=cp.uint32)
    if v.smem_bytes > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = v.smem_bytes
    kernel((runs,), (128,), (enc, np.int32(digits), np.int32(base), np.uint64(v.a.descriptor() if v.a else 0),
                             np.uint64(v.b.descriptor()), out), shared_mem=v.smem_bytes)
    cp.cuda.Device().synchronize()
    if v.d_type == "f32":
        vals = out.view(cp.float32).reshape(n_a, digits, n_d)
    else:
        vals = out.view(cp.float16).reshape(n_a, digits, n_d).astype(cp.float32)
    reached = vals != 0
    anomalies = []
    if not bool((reached == reached[:, :1, :]).all()):
        anomalies.append("reach set differs between digits")
    if not bool((vals == cp.round(vals)).all()):
        anomalies.append("non-integer D values")
    ids = cp.zeros((n_a, n_d), dtype=cp.int64)
    for d in range(digits):
        dig = cp.round(vals[:, d, :]).astype(cp.int64) - 1
        if bool((reached[:, d, :] & ((dig < 0) | (dig >= base))).any()):
            anomalies.append(f"digit {d} out of range")
        ids += cp.where(reached[:, d, :], dig, 0) * base ** d
    a_idx, d_idx = cp.nonzero(reached[:, 0, :])
    triples = cp.asnumpy(cp.stack([a_idx, ids[a_idx, d_idx], d_idx], axis=1))
    del out, vals, reached, ids
    a_lab, b_lab, d_lab, exact = factorise(triples, n_a, n_b, n_d)
    if not exact:
        anomalies.append("triples are not a product of row, k and column classes")
    rec: dict[str, Any] = {
        "instruction": v.ptx, "variant": v.label(), "n": v.n, "ab_type": v.ab_type, "d_type": v.d_type,
        "a_source": v.a_source, "digit_base": base, "digits": digits, "triples": int(len(triples)),
        "a_operand": None if v.a is None else {"major": v.a.major, "layout_type": v.a.layout_type, "lbo": v.a.lbo,
                                               "sbo": v.a.sbo, "region_bytes": v.a.region_bytes,
                                               "region_offset": v.a_offset},
        "b_operand": {"major": v.b.major, "layout_type": v.b.layout_type, "lbo": v.b.lbo, "sbo": v.b.sbo,
                      "region_bytes": v.b.region_bytes, "region_offset": v.b_offset},
        "a_slots": "A register element tid*8+e (e: register e//2, half e%2)" if v.a is None
        else "16-bit unit of the A region",
        "counts": {"a": n_a, "b": n_b, "d": n_d},
        "a_labels": _pack(a_lab), "b_labels": _pack(b_lab), "d_labels": _pack(d_lab), "anomalies": anomalies,
    }
    if not exact:
        rec["triples_full"] = _pack(triples, 3)
    return rec


def record_all_wgmma(progress: Any = None) -> list[dict[str, Any]]:
    """Compile and run every variant of :func:`wgmma_variants`; a failing variant records its error."""
    from layoutalg.gpu.runner import compile_kernels

    variants = wgmma_variants()
    sources = [kernel_source(v) for v in variants]
    try:
        kernels = compile_kernels(sources)
    except Exception:
        kernels = {}
        for name, src in sources:
            try:
                kernels.update(compile_kernels([(name, src)]))
            except Exception as exc:  # recorded below
                kernels[name] = exc
    out = []
    for v, (name, _) in zip(variants, sources):
        k = kernels.get(name)
        if isinstance(k, Exception) or k is None:
            out.append({"instruction": v.ptx, "variant": v.label(), "error": f"compile: {k}"})
            continue
        try:
            out.append(record_wgmma(v, k))
        except Exception as exc:
            out.append({"instruction": v.ptx, "variant": v.label(), "error": f"{type(exc).__name__}: {exc}"})
    if progress:
        progress(f"wgmma: {len(out)} variants")
    return out
