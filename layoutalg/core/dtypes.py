"""The one table of element types: every dtype name the package reads, Python and CLI alike.

Each :class:`DType` has a canonical name in PTX's spelling (``f16``, ``bf16``,
``e4m3``, ``s8``), its width in bits, CuTe's spelling in atom names (``F16``,
``BF16``, ``E4M3``) and CUTLASS's C++ type (``cutlass::half_t``).  :func:`dtype`
reads any of the spellings users type or libraries print::

    f16 fp16 float16 half half_t cutlass::half_t torch.float16 cutlass.Float16 np.float16 (Triton: fp16)
    bf16 bfloat16 bfloat16_t torch.bfloat16 cutlass.BFloat16
    e4m3 e4m3fn float8_e4m3fn float_e4m3_t cutlass.Float8E4M3FN fp8e4nv tl.float8e4nv
    e5m2 float8_e5m2 float_e5m2_t fp8e5 tl.float8e5
    tf32 tfloat32_t cutlass.TFloat32      f32 float float32 fp32      f64 double float64 fp64
    s8 i8 int8 int8_t    u8 uint8 uint8_t    s16 ...    s32 int32 int    s64 ...    s4 int4b_t    u4 uint4b_t
    b8 b16 b32 b64 b128 (untyped bits)

as a string or as the library's own object (``torch.float16``, ``numpy.dtype``,
``cutlass.Float16``, ``triton.language.float16``: read through their name).
Prefixes ``torch.``, ``numpy.``/``np.``, ``cutlass.``, ``cute.``, ``triton.language.``/``tl.``/``gl.``,
``cutlass::``, ``cute::`` and ``std::`` are dropped and case is ignored.  An
unknown name raises :class:`LayoutError` listing the nearest valid names (up to four, closest first).

The formats are those of the PTX ISA ("Alternate floating point data formats")
and CUTLASS's ``numeric_types.h``.  ``float8_e4m3fnuz``/``float8_e5m2fnuz``
(another exponent bias), ``float8_e4m3`` (IEEE-style, with infinities; CuTe DSL's
``Float8E4M3``) and Triton's ``fp8e4b15`` are different formats from PTX's ``e4m3`` and
are not accepted; nor is ``bool`` (8 bits in C++ and numpy, 1 in CuTe DSL).  ``fp8`` names only a width (an 8-bit float of
either format): it serves where only the width matters (bank conflicts,
recasts); :func:`ptx_name` refuses it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError


@dataclass(frozen=True)
class DType:
    """One element type: ``name`` (PTX), ``bits``, ``kind`` (float/int/uint/bits), ``cute`` (atom names), ``cpp``."""

    name: str
    bits: int
    kind: str
    cute: str
    cpp: str
    aliases: tuple[str, ...] = ()

    @property
    def bytes(self) -> int:
        """Whole bytes of one element (0 for sub-byte types)."""
        return self.bits // 8

    def __str__(self) -> str:
        return self.name


def _t(name: str, bits: int, kind: str, cute: str, cpp: str, *aliases: str) -> DType:
    return DType(name, bits, kind, cute, cpp, aliases)


#: Every element type, canonical name first.
DTYPES: tuple[DType, ...] = (
    _t("f64", 64, "float", "F64", "double", "fp64", "float64", "double", "Float64"),
    _t("f32", 32, "float", "F32", "float", "fp32", "float32", "float", "Float32"),
    _t("tf32", 32, "float", "TF32", "cutlass::tfloat32_t", "tfloat32", "tfloat32_t", "TFloat32", "fp32_tf32"),
    _t("f16", 16, "float", "F16", "cutlass::half_t", "fp16", "float16", "half", "half_t", "__half", "Float16"),
    _t("bf16", 16, "float", "BF16", "cutlass::bfloat16_t", "bfloat16", "bfloat16_t", "__nv_bfloat16", "nv_bfloat16", "BFloat16"),
    _t("e4m3", 8, "float", "E4M3", "cutlass::float_e4m3_t", "fp8_e4m3", "float8_e4m3fn", "float_e4m3_t",
       "Float8E4M3FN", "fp8e4nv", "float8e4nv", "f8e4m3fn", "e4m3fn", "fp8_e4m3fn", "fp8e4m3", "__nv_fp8_e4m3"),
    _t("e5m2", 8, "float", "E5M2", "cutlass::float_e5m2_t", "fp8_e5m2", "float8_e5m2", "float_e5m2_t",
       "Float8E5M2", "fp8e5", "float8e5", "f8e5m2", "fp8e5m2", "__nv_fp8_e5m2"),
    _t("ue8m0", 8, "float", "UE8M0", "cutlass::float_ue8m0_t", "e8m0", "float8_e8m0fnu", "float_ue8m0_t",
       "Float8E8M0FNU"),
    _t("e3m2", 6, "float", "E3M2", "cutlass::float_e3m2_t", "fp6_e3m2", "float6_e3m2fn", "float_e3m2_t",
       "Float6E3M2FN"),
    _t("e2m3", 6, "float", "E2M3", "cutlass::float_e2m3_t", "fp6_e2m3", "float6_e2m3fn", "float_e2m3_t",
       "Float6E2M3FN"),
    _t("e2m1", 4, "float", "E2M1", "cutlass::float_e2m1_t", "fp4", "fp4_e2m1", "float4_e2m1fn", "float_e2m1_t",
       "Float4E2M1FN"),
    _t("fp8", 8, "float", "FP8", "uint8_t", "f8"),
    _t("s64", 64, "int", "S64", "int64_t", "i64", "int64", "int64_t", "long long", "Int64"),
    _t("u64", 64, "uint", "U64", "uint64_t", "uint64", "uint64_t", "Uint64"),
    _t("s32", 32, "int", "S32", "int32_t", "i32", "int32", "int32_t", "int", "Int32"),
    _t("u32", 32, "uint", "U32", "uint32_t", "uint32", "uint32_t", "unsigned", "Uint32"),
    _t("s16", 16, "int", "S16", "int16_t", "i16", "int16", "int16_t", "short", "Int16"),
    _t("u16", 16, "uint", "U16", "uint16_t", "uint16", "uint16_t", "Uint16"),
    _t("s8", 8, "int", "S8", "int8_t", "i8", "int8", "int8_t", "signed char", "Int8"),
    _t("u8", 8, "uint", "U8", "uint8_t", "uint8", "uint8_t", "unsigned char", "Uint8"),
    _t("s4", 4, "int", "S4", "cutlass::int4b_t", "i4", "int4", "int4b_t", "Int4"),
    _t("u4", 4, "uint", "U4", "cutlass::uint4b_t", "uint4", "uint4b_t", "Uint4"),
    _t("b1", 1, "bits", "U1", "cutlass::uint1b_t", "bin", "uint1b_t", "B1"),
    _t("b8", 8, "bits", "B8", "uint8_t"),
    _t("b16", 16, "bits", "B16", "uint16_t"),
    _t("b32", 32, "bits", "B32", "uint32_t"),
    _t("b64", 64, "bits", "B64", "uint64_t"),
    _t("b128", 128, "bits", "B128", "cute::uint128_t", "uint128_t"),
)

_PREFIXES = ("triton.language.", "torch.", "numpy.", "np.", "cutlass.cute.", "cutlass.", "cute.", "tl.", "gl.",
             "cutlass::", "cute::", "std::")


def _key(text: str) -> str:
    key = text.strip()
    changed = True
    while changed:
        changed = False
        for prefix in _PREFIXES:
            if key.lower().startswith(prefix):
                key = key[len(prefix):]
                changed = True
    return " ".join(key.lower().split())


_BY_KEY: dict[str, DType] = {}
for _d in DTYPES:
    for _spelling in (_d.name, _d.cute, *_d.aliases):
        _BY_KEY.setdefault(_key(_spelling), _d)
for _d in DTYPES:
    _BY_KEY.setdefault(_key(_d.cpp), _d)  # C++ storage names last: uint8_t stays u8, never b8 or fp8

#: Names used in suggestions (canonical names first, then the aliases).
_SUGGESTIONS = [d.name for d in DTYPES] + [a.lower() for d in DTYPES for a in d.aliases]


def _object_name(x: Any) -> str | None:
    """The name a library object spells its dtype with: ``str`` for strings, torch and Triton dtypes; ``.name`` or
    ``__name__`` for numpy dtypes and CuTe DSL / numpy scalar classes."""
    if isinstance(x, str):
        return x
    if isinstance(x, type):
        return x.__name__
    if isinstance(x, (tuple, list, dict, set)):  # no container names a dtype (and its str may not end)
        return None
    try:  # a foreign object's own attribute or __str__ may raise anything: it then names no dtype
        name = getattr(x, "name", None)
        if isinstance(name, str) and name:
            return name
        text = str(x)
    except Exception:  # noqa: BLE001
        return None
    return text if isinstance(text, str) and text and "<" not in text and "object at" not in text else None


def dtype(x: Any) -> DType:
    """The :class:`DType` that ``x`` names (see the module docstring); LayoutError naming the nearest names."""
    if isinstance(x, DType):
        return x
    if isinstance(x, bool) or x is None or any(x is t for t in (int, float, bool, complex)):
        raise LayoutError(f"dtype {describe(x)} is not an element type; use a name such as f16, bf16, f32, e4m3, s8")
    name = _object_name(x)
    if name is None:
        raise LayoutError(f"dtype {describe(x)} ({type(x).__name__}) is not an element type; use a name such as "
                          "f16, bf16")
    key = _key(name)
    found = _BY_KEY.get(key)
    if found is not None:
        return found
    close = difflib.get_close_matches(key, _SUGGESTIONS, n=4, cutoff=0.5)
    nearest = f"; nearest: {', '.join(dict.fromkeys(close))}" if close else ""
    raise LayoutError(f"unknown dtype {describe(name)}{nearest}; known: {', '.join(d.name for d in DTYPES)}")


def dtype_bits(x: Any) -> int:
    """Bits of one element: a dtype name or object (see :func:`dtype`), or a width in bits given as an int."""
    if isinstance(x, int) and not isinstance(x, bool):
        if x <= 0:
            raise LayoutError(f"an element width in bits must be positive, got {x}")
        return x
    return dtype(x).bits


def ptx_name(x: Any) -> str:
    """The canonical (PTX) name, e.g. ``ptx_name("torch.bfloat16") == "bf16"``; refuses the width-only ``fp8``."""
    found = dtype(x)
    if found.name == "fp8":
        raise LayoutError("fp8 names only a width: say which format, e4m3 or e5m2")
    return found.name


def cute_name(x: Any) -> str:
    """CuTe's spelling in atom names: ``cute_name("f16") == "F16"``."""
    return dtype(ptx_name(x)).cute


def names() -> list[str]:
    """Every canonical name."""
    return [d.name for d in DTYPES]


__all__ = ["DType", "DTYPES", "dtype", "dtype_bits", "ptx_name", "cute_name", "names"]
