"""Hopper ``wgmma.mma_async`` on the GPU, every element type: raw one-hot recordings.

One thread block is one warpgroup (128 threads) doing one run.  A comes from
shared memory through a descriptor (``SS``) or from registers (``RS``); B
always from shared memory.  Elements are ``E = bits/8`` bytes (tf32 4, f16/bf16 2,
e4m3/e5m2/s8/u8 1) and ``K = 256/bits``; an operand row of one K block is 32 bytes
for every type, so the canonical layouts (:func:`canonical_operand`) are the same
in bytes.  The kernel fills shared memory itself by a fixed rule (so the runs
need no per-run upload): A is one-hot (value 1 in A's type) at one element of its
region (SS) or at one register element ``tid*(K/2) + e`` (RS); every element ``j``
of the B region holds digit ``d`` of ``j`` in base ``base`` (the largest base whose
digits plus one are exact in B's type), plus one.  ``scale-d`` is false, so D = A x B.

From the runs (decoded on the GPU with CuPy) come the triples
``(a, b, d)``: A element/slot ``a`` times B element ``b`` landed in D slot ``d``
(``d = tid * (N/2) + i`` for element ``i`` of thread ``tid``).  They are
stored *factorised* (:mod:`layoutalg.gpu.wgmma_triples`), which is lossless because the
recorder checks that the triples are exactly the ones the factors generate:

* ``a``: ``[row_label, k_label]`` per A element/slot (``-1`` if it reaches nothing);
* ``b``: ``[k_label, col_label]`` per B element;
* ``d``: ``[row_label, col_label]`` per D slot;

with ``row_label`` the smallest A element of that row class, ``k_label`` and
``col_label`` the smallest B element of their classes (labels are raw element
numbers, no model involved).  Stored column by column as successive differences
(int32, little-endian), zlib-compressed, base64 (:func:`unpack` reverses it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutalg.core.dtypes import dtype_bits
from layoutalg.core.validate import describe
from layoutalg.errors import InstructionError
from layoutalg.gpu.wgmma_triples import expand, factorise, pack, triple_codes, unpack

_pack = pack  # the name record.py imports

_BITS = {name: dtype_bits(name) for name in ("tf32", "f16", "bf16", "e4m3", "e5m2", "s8", "u8")}
_CTYPE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned"}

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
    raise InstructionError(f"major must be 'K' or 'MN', got {describe(major)}")


@dataclass(frozen=True)
class WgmmaVariant:
    """One wgmma run set: N, A type (``ab_type``), D type, A source, the operands' smem forms,
    B's type when it differs from A's, and ``.satfinite`` (integers)."""

    n: int
    ab_type: str  # A's element type (and B's unless b_type says otherwise)
    d_type: str  # f16 / f32 / s32
    a_source: str  # "smem" / "reg"
    a: Operand | None
    b: Operand
    b_type: str | None = None
    saturate: bool = False

    @property
    def a_type(self) -> str:
        return self.ab_type

    @property
    def bt(self) -> str:
        return self.b_type or self.ab_type

    @property
    def bits(self) -> int:
        return _BITS[self.ab_type]

    @property
    def elem_bytes(self) -> int:
        return self.bits // 8

    @property
    def k(self) -> int:
        return 256 // self.bits

    @property
    def ptx(self) -> str:
        sat = ".satfinite" if self.saturate else ""
        return f"wgmma.mma_async.sync.aligned.m64n{self.n}k{self.k}.{self.d_type}.{self.ab_type}.{self.bt}{sat}"

    @property
    def d_units(self) -> int:
        return self.n // 4 if self.d_type == "f16" else self.n // 2

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
        types = self.ab_type if self.bt == self.ab_type else f"{self.ab_type}_{self.bt}"
        return (f"wgmma_n{self.n}_{self.d_type}_{types}_{a}_{self.b.major}{self.b.layout_type}"
                f"{'_sat' if self.saturate else ''}")

    def label(self) -> str:
        a = f"A {self.a.major}-major {self.a.layout_type}" if self.a else "A registers"
        return f"{self.ptx} {a}, B {self.b.major}-major {self.b.layout_type}"


def wgmma_variants() -> list[WgmmaVariant]:
    """Every N for f16->f32 SS and RS; N in {8, 64, 256} for the other 16-bit forms; descriptor modes
    at N=64; for tf32, fp8 and int8 (K-major only): N in {8, 24, 64} (and 256 for one type pair),
    SS and RS, and the swizzled K-major modes at N=64."""
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
    return v + _other_type_variants()


def _other_type_variants() -> list[WgmmaVariant]:
    k_int = canonical_operand(64, "K", "INTERLEAVE")
    kinds = [("tf32", "tf32", "f32", False), ("e4m3", "e4m3", "f32", False), ("e4m3", "e5m2", "f16", False),
             ("e5m2", "e4m3", "f32", False), ("e5m2", "e5m2", "f16", False), ("s8", "s8", "s32", False),
             ("s8", "u8", "s32", True), ("u8", "s8", "s32", False), ("u8", "u8", "s32", True)]
    v: list[WgmmaVariant] = []
    for a, b, d, sat in kinds:
        ns = (8, 24, 64, 256) if (a, b) in (("tf32", "tf32"), ("e4m3", "e4m3"), ("s8", "s8")) else (8, 24, 64)
        for n in ns:
            bk = canonical_operand(n, "K", "INTERLEAVE")
            v.append(WgmmaVariant(n, a, d, "smem", k_int, bk, b, sat))
            v.append(WgmmaVariant(n, a, d, "reg", None, bk, b, sat))
    for a, d in (("tf32", "f32"), ("e4m3", "f32"), ("s8", "s32")):
        for lt in ("B32", "B64", "B128"):
            v.append(WgmmaVariant(64, a, d, "smem", canonical_operand(64, "K", lt), canonical_operand(64, "K", lt)))
    return v


def kernel_source(v: WgmmaVariant) -> tuple[str, str]:
    name = v.name()
    nd = v.d_units
    c = "f" if v.d_type == "f32" else "r"
    ctype = "float" if c == "f" else "unsigned"
    et = _CTYPE[v.elem_bytes]
    d_list = ", ".join(f"%{i}" for i in range(nd))
    outs = ", ".join(f'"+{c}"(d[{i}])' for i in range(nd))
    trans_a = 1 if v.a and v.a.major == "MN" else 0
    trans_b = 1 if v.b.major == "MN" else 0
    sixteen = v.bits == 16
    if v.a is None:
        a_ops = "{" + ", ".join(f"%{nd + 1 + i}" for i in range(4)) + "}"
        ins = '"r"(zero), "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db)'
        tail = f"%{nd + 5}, p"
        per = 32 // v.bits  # elements per 32-bit register; 4 registers hold K/2 elements per thread
        a_fill = f"""
    unsigned ar[4];
    for (int j = 0; j < 4; ++j) {{
        ar[j] = 0;
        for (int e = 0; e < {per}; ++e)
            if (tid * {4 * per} + j * {per} + e == one_hot) ar[j] |= (unsigned)enc[base + 1] << ({v.bits} * e);
    }}"""
    else:
        a_ops = f"%{nd + 1}"
        ins = '"r"(zero), "l"(da), "l"(db)'
        tail = f"%{nd + 2}, p"
        a_fill = f"""
    for (int j = tid; j < {v.a.region_bytes // v.elem_bytes}; j += 128) smem[{v.a_offset // v.elem_bytes} + j] = (j == one_hot) ? enc[base + 1] : ({et})0;"""
    if v.ab_type not in ("s8", "u8"):
        tail += ", 1, 1"  # imm-scale-a, imm-scale-b
    if sixteen:
        tail += f", {trans_b}" if v.a is None else f", {trans_a}, {trans_b}"  # imm-trans (16-bit types only)
    src = f"""
extern "C" __global__ void __launch_bounds__(128) {name}(const {et}* enc, int digits, int base,
        unsigned long long desc_a, unsigned long long desc_b, unsigned* D) {{
    SMEM_DECL;
    {et}* smem = ({et}*)smem_raw;
    const int tid = threadIdx.x;
    const int one_hot = blockIdx.x / digits;
    const int digit = blockIdx.x % digits;
    int scale = 1;
    for (int j = 0; j < digit; ++j) scale *= base;
    for (int j = tid; j < {v.smem_bytes // v.elem_bytes}; j += 128) smem[j] = 0;
    __syncthreads();
    for (int j = tid; j < {v.b.region_bytes // v.elem_bytes}; j += 128) smem[{v.b_offset // v.elem_bytes} + j] = enc[(j / scale) % base + 1];
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


def record_wgmma(v: WgmmaVariant, kernel: Any) -> dict[str, Any]:
    """All one-hot runs of one variant; returns the factorised raw recording."""
    from layoutalg.gpu import require_cupy
    from layoutalg.gpu.encoding import encode

    cp = require_cupy()
    import numpy as np

    from layoutalg.gpu.encoding import DIGIT_BASE

    n_a = v.a.region_bytes // v.elem_bytes if v.a else 128 * (v.k // 2)
    n_b = v.b.region_bytes // v.elem_bytes
    per_thread = v.n // 2
    n_d = 128 * per_thread
    base = min(256, DIGIT_BASE[v.bt])
    digits = 1
    while base ** digits < n_b:
        digits += 1
    runs = n_a * digits
    # enc[0..base]: B's values 0..base; enc[base + 1]: A's 1 (A's 0 is all-zero bits in every type)
    table = np.concatenate([encode(np.arange(base + 1), v.bt), encode(np.array([1]), v.ab_type)])
    enc = cp.asarray(table.astype({1: np.uint8, 2: np.uint16, 4: np.uint32}[v.elem_bytes]))
    out = cp.zeros((runs, 128, v.d_units), dtype=cp.uint32)
    if v.smem_bytes > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = v.smem_bytes
    kernel((runs,), (128,), (enc, np.int32(digits), np.int32(base), np.uint64(v.a.descriptor() if v.a else 0),
                             np.uint64(v.b.descriptor()), out), shared_mem=v.smem_bytes)
    cp.cuda.Device().synchronize()
    if v.d_type == "f32":
        vals = out.view(cp.float32).reshape(n_a, digits, n_d)
    elif v.d_type == "s32":
        vals = out.view(cp.int32).reshape(n_a, digits, n_d).astype(cp.float32)
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
        "b_type": v.bt, "saturate": v.saturate, "k": v.k, "elem_bits": v.bits,
        "a_source": v.a_source, "digit_base": base, "digits": digits, "triples": int(len(triples)),
        "a_operand": None if v.a is None else {"major": v.a.major, "layout_type": v.a.layout_type, "lbo": v.a.lbo,
                                               "sbo": v.a.sbo, "region_bytes": v.a.region_bytes,
                                               "region_offset": v.a_offset},
        "b_operand": {"major": v.b.major, "layout_type": v.b.layout_type, "lbo": v.b.lbo, "sbo": v.b.sbo,
                      "region_bytes": v.b.region_bytes, "region_offset": v.b_offset},
        "a_slots": f"A register element tid*{v.k // 2}+e (register e//{32 // v.bits}, position e%{32 // v.bits})"
        if v.a is None else f"{v.bits}-bit element of the A region",
        "counts": {"a": n_a, "b": n_b, "d": n_d},
        "a_labels": pack(a_lab), "b_labels": pack(b_lab), "d_labels": pack(d_lab), "anomalies": anomalies,
    }
    if not exact:
        rec["triples_full"] = pack(triples, 3)
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


__all__ = ["Operand", "WgmmaVariant", "canonical_operand", "wgmma_variants", "kernel_source", "record_wgmma",
           "record_all_wgmma", "expand", "factorise", "triple_codes", "unpack"]
