"""Look atoms up by CuTe name or by PTX name; both return the same objects.

* ``get("SM80_16x8x16_F32F16F16F32_TN")``, ``get("SM75_U16x8_LDSM_T")``, ``get("SM90_64x128x16_F32F16F16_SS")``,
  ``get("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16")`` (the full PTX string also works);
  ``get(name, bits=16)`` binds a copy atom to 16-bit values (CuTe ``Copy_Atom<Op, half_t>``),
  and delegates shared-memory layout atom names (``Layout_K_SW128_Atom`` ...) to
  :func:`layoutalg.atoms.smem.get_smem_atom`.
* ``mma("m16n8k16", a="f16", b="f16", c="f32")``, ``ldmatrix(num=4, trans=True)``,
  ``stmatrix(num, trans)``, ``movmatrix()``, ``ld_shared(bits)``, ``st_shared(bits)``,
  ``cp_async(nbytes, cache="ca")``, ``wgmma(n, a, c, a_source)``.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Union

from layoutalg.atoms.copy import COPY_ATOMS, CopyAtom, TypedCopyAtom, find_matrix_atom
from layoutalg.atoms.gmma import GMMA_NS, GmmaAtom, make_gmma
from layoutalg.atoms.mma import MMA_ATOMS, MmaAtom
from layoutalg.core.dtypes import ptx_name
from layoutalg.errors import InstructionError, LayoutError

Atom = Union[MmaAtom, CopyAtom, GmmaAtom]

_BY_NAME: dict[str, Atom] = {}
_BY_PTX: dict[str, Atom] = {}
_ALL: list[Atom] = [*MMA_ATOMS, *COPY_ATOMS]
for _atom in _ALL:
    _BY_NAME.setdefault(_atom.name, _atom)  # UniversalCopy<T>: the ld.shared form (CuTe has one atom for both)
    _BY_PTX.setdefault(_atom.ptx, _atom)
_GMMA_RE = re.compile(r"SM90_64x(\d+)x16_(F16|F32)(F16|BF16)(F16|BF16)_(SS|RS)$")
_GMMA_CACHE: dict[tuple[int, str, str, str], GmmaAtom] = {}


def _gmma(n: int, a: str, c: str, a_source: str) -> GmmaAtom:
    key = (n, a, c, a_source)
    if key not in _GMMA_CACHE:
        _GMMA_CACHE[key] = make_gmma(n, a, a, c, a_source)
    return _GMMA_CACHE[key]


def names() -> list[str]:
    """Every CuTe atom name (wgmma listed for all N)."""
    out = list(_BY_NAME)
    for n in GMMA_NS:
        for a, c in (("F16", "F16"), ("F16", "F32"), ("BF16", "F32")):
            for mode in ("SS", "RS"):
                out.append(f"SM90_64x{n}x16_{c}{a}{a}_{mode}")
    return out


def get(name: str, bits: int | None = None) -> Any:
    """The atom called ``name`` (CuTe or PTX spelling); see the module docstring."""
    if not isinstance(name, str):
        raise InstructionError(f"atom name must be a str, got {name!r}")
    key = name.strip()
    if key.startswith("cute::"):
        key = key[len("cute::"):]
    atom: Atom | None = _BY_NAME.get(key) or _BY_PTX.get(key)
    if atom is None:
        m = _GMMA_RE.match(key)
        if m and m.group(3) == m.group(4):
            atom = _gmma(int(m.group(1)), ptx_name(m.group(3)), ptx_name(m.group(2)), "smem" if m.group(5) == "SS" else "reg")
    if atom is None and "_Atom" in key:
        from layoutalg.atoms import smem

        if bits is None:
            raise InstructionError(f"{name} is a shared-memory layout atom: give the element width, get({name!r}, bits=16)")
        return smem.get_smem_atom(key, bits)
    if atom is None:
        close = difflib.get_close_matches(key, names() + list(_BY_PTX), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else "; layoutalg.atoms.catalog.names() lists them"
        raise InstructionError(f"unknown atom {name!r}{hint}")
    if bits is not None:
        if isinstance(atom, CopyAtom):
            return atom.bind(bits)
        raise InstructionError(f"{atom.name} is an MMA atom: its element types are fixed, bits= does not apply")
    return atom


def mma(shape: str, a: str, b: str | None = None, c: str = "f32", arch: int | None = None,
        layout: str = "row.col") -> MmaAtom:
    """The ``mma.sync`` atom ``mma.sync.aligned.{shape}.{layout}.{c}.{a}.{b}.{c}``.

    ``arch`` picks between identical instructions of several generations (m16n8k8 f16 is
    both SM75 and SM80; the newest is the default).  ``layout`` is ``.alayout.blayout``,
    only variable for sm70 ``m8n8k4`` f16.
    """
    for what, value in (("shape", shape), ("a", a), ("c", c), ("layout", layout)):
        if not isinstance(value, str):
            raise InstructionError(f"mma: {what} must be a PTX name such as 'm16n8k16' or 'f16', got {value!r}")
    a, b, c = _type_name(a, "a"), _type_name(b or a, "b"), _type_name(c, "c")
    shape = shape.strip().lstrip(".")
    matches = [x for x in MMA_ATOMS
               if x.ptx == f"mma.sync.aligned.{shape}.{layout}.{c}.{a}.{b}.{c}" and (arch is None or x.arch == arch)]
    if not matches:
        have = sorted({x.ptx for x in MMA_ATOMS if f".{shape}." in x.ptx})
        hint = ("; with that shape: " + ", ".join(have)) if have else ""
        raise InstructionError(f"no mma.sync {shape} with a={a}, b={b}, c={c}, layout {layout}"
                               f"{'' if arch is None else f', arch sm{arch}'}{hint}")
    return max(matches, key=lambda x: x.arch)


def _type_name(value: Any, what: str) -> str:
    """A dtype in any spelling of :mod:`layoutalg.core.dtypes` as its PTX name (``half`` -> ``f16``)."""
    try:
        return ptx_name(value)
    except LayoutError as exc:
        raise InstructionError(f"mma: {what}: {exc}") from None


def _matrix(kind: str, num: int, trans: bool) -> CopyAtom:
    if num not in (1, 2, 4):
        raise InstructionError(f"{kind}: num (matrices, .x1/.x2/.x4) must be 1, 2 or 4, got {num!r}")
    atom = find_matrix_atom(kind, num, bool(trans))
    if atom is None:  # pragma: no cover - every combination is declared
        raise InstructionError(f"no {kind} .x{num}{'.trans' if trans else ''}")
    return atom


def ldmatrix(num: int = 1, trans: bool = False, bits: int | None = None) -> Union[CopyAtom, TypedCopyAtom]:
    """``ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`` (CuTe SM75_U32x{num}_LDSM_N / SM75_U16x{2num}_LDSM_T)."""
    atom = _matrix("ldmatrix", num, trans)
    return atom if bits is None else atom.bind(bits)


def stmatrix(num: int = 1, trans: bool = False, bits: int | None = None) -> Union[CopyAtom, TypedCopyAtom]:
    """``stmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`` (CuTe SM90_U32x{num}_STSM_N / SM90_U16x{2num}_STSM_T)."""
    atom = _matrix("stmatrix", num, trans)
    return atom if bits is None else atom.bind(bits)


def movmatrix() -> CopyAtom:
    """``movmatrix.sync.aligned.m8n8.trans.b16`` (CuTe SM75_U32x1_MOVM_T)."""
    return _BY_NAME["SM75_U32x1_MOVM_T"]  # type: ignore[return-value]


def _per_thread(kind: str, bits: int) -> CopyAtom:
    for atom in COPY_ATOMS:
        if atom.kind == kind and atom.vector_bits == bits:
            return atom
    raise InstructionError(f"{kind} moves 8, 16, 32, 64 or 128 bits per thread, got {bits!r}")


def ld_shared(bits: int) -> CopyAtom:
    """``ld.shared`` of ``bits`` per thread (CuTe ``UniversalCopy<uintN_t>``)."""
    return _per_thread("ld.shared", bits)


def st_shared(bits: int) -> CopyAtom:
    """``st.shared`` of ``bits`` per thread (CuTe ``UniversalCopy<uintN_t>``; same layouts as ld.shared)."""
    return _per_thread("st.shared", bits)


def cp_async(nbytes: int = 16, cache: str = "ca") -> CopyAtom:
    """``cp.async.{ca|cg}.shared.global`` of 4, 8 or 16 bytes (``.cg`` only 16), CuTe SM80_CP_ASYNC_CACHE{ALWAYS|GLOBAL}."""
    if cache not in ("ca", "cg"):
        raise InstructionError(f"cache must be 'ca' or 'cg', got {cache!r}")
    if nbytes not in (4, 8, 16) or (cache == "cg" and nbytes != 16):
        raise InstructionError(f"cp.async.{cache} copies {'16' if cache == 'cg' else '4, 8 or 16'} bytes, got {nbytes!r}")
    for atom in COPY_ATOMS:
        if atom.kind == "cp.async" and atom.vector_bits == 8 * nbytes and f"cp.async.{cache}." in atom.ptx:
            return atom
    raise InstructionError(f"no cp.async.{cache} of {nbytes} bytes")  # pragma: no cover


def wgmma(n: int, a: str = "f16", c: str = "f32", a_source: str = "smem") -> GmmaAtom:
    """``wgmma.mma_async.sync.aligned.m64n{n}k16.{c}.{a}.{a}`` (CuTe SM90_64x{n}x16_{C}{A}{A}_{SS|RS})."""
    return _gmma(n, _type_name(a, "a"), _type_name(c, "c"), a_source)


__all__ = ["get", "names", "mma", "ldmatrix", "stmatrix", "movmatrix", "ld_shared", "st_shared", "cp_async", "wgmma"]
