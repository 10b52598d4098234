"""Look atoms up by CuTe name or by PTX name; both return the same objects.

* ``get("SM80_16x8x16_F32F16F16F32_TN")``, ``get("SM75_U16x8_LDSM_T")``, ``get("SM90_64x128x16_F32F16F16_SS")``,
  ``get("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16")`` (the full PTX string also works);
  ``get(name, bits=16)`` binds a copy atom to 16-bit values (CuTe ``Copy_Atom<Op, half_t>``),
  and delegates shared-memory layout atom names (``Layout_K_SW128_Atom`` ...) to
  :func:`layoutalg.atoms.smem.get_smem_atom`.
* ``mma("m16n8k16", a="f16", b="f16", c="f32")``, ``ldmatrix(num=4, trans=True)``,
  ``stmatrix(num, trans)``, ``movmatrix()``, ``ld_shared(bits)``, ``st_shared(bits)``,
  ``cp_async(nbytes, cache="ca")``, ``wgmma(n, a, c, a_source, b=, saturate=)``,
  ``ldmatrix_b8(shape, num, src_fmt)``, ``stmatrix_b8(num)`` (the PTX 8-bit forms).

The catalog holds every dense CuTe atom with TV layouts through SM90 (CUTLASS 4.2, checked
against CuTe C++ by tests/test_atoms_cute_cpp.py) and CuTe's SM100 8-bit ldmatrix/stmatrix atoms.
"""

from __future__ import annotations

import difflib
from typing import Any, Union

from layoutalg.atoms.copy import COPY_ATOMS, CopyAtom, TypedCopyAtom, find_matrix_atom
from layoutalg.atoms.copy_ext import COPY_ALIASES, COPY_EXT_ATOMS
from layoutalg.atoms.gmma import GmmaAtom, gmma_names, make_gmma, parse_gmma_name
from layoutalg.atoms.ldmatrix_b8 import B8_COPY_ATOMS, B8MatrixForm, find_form
from layoutalg.atoms.mma import MMA_ATOMS, MmaAtom
from layoutalg.atoms.mma_ext import MMA_EXT_ATOMS
from layoutalg.core.dtypes import ptx_name
from layoutalg.core.validate import as_int, describe, is_bool
from layoutalg.errors import InstructionError, LayoutError

Atom = Union[MmaAtom, CopyAtom, GmmaAtom]

_BY_NAME: dict[str, Atom] = {}
_BY_PTX: dict[str, Atom] = {}
#: Every warp-level MMA atom (mma.sync, dp4a/dp2a, UniversalFMA): :mod:`.mma` and :mod:`.mma_ext`.
ALL_MMA_ATOMS: tuple[MmaAtom, ...] = (*MMA_ATOMS, *MMA_EXT_ATOMS)
#: Every copy atom: :mod:`.copy`, :mod:`.copy_ext` and CuTe's SM100 8-bit ldmatrix/stmatrix (:mod:`.ldmatrix_b8`).
ALL_COPY_ATOMS: tuple[CopyAtom, ...] = (*COPY_ATOMS, *COPY_EXT_ATOMS, *B8_COPY_ATOMS)
_ALL: list[Atom] = [*ALL_MMA_ATOMS, *ALL_COPY_ATOMS]
for _atom in _ALL:
    _BY_NAME.setdefault(_atom.name, _atom)  # UniversalCopy<T>: the ld.shared form (CuTe has one atom for both)
    _BY_PTX.setdefault(_atom.ptx, _atom)
_GMMA_CACHE: dict[tuple[int, str, str, str, str, bool], GmmaAtom] = {}


def _gmma(n: int, a: str, b: str, c: str, a_source: str, saturate: bool = False) -> GmmaAtom:
    """The wgmma atom, memoised; arguments are checked (and types read in any spelling) before they key the memo."""
    n = as_int(n, "wgmma N", InstructionError)
    for what, value in (("a", a), ("b", b), ("c", c), ("a_source", a_source)):
        if not isinstance(value, str):
            raise InstructionError(f"wgmma {what} must be a str such as 'f16', got {describe(value)}")
    if not isinstance(saturate, bool):
        raise InstructionError(f"wgmma saturate must be True or False, got {describe(saturate)}")
    a, b, c = (_type_name(x, what, "wgmma") for x, what in ((a, "a"), (b, "b"), (c, "c")))
    key = (n, a, b, c, a_source, saturate)
    try:
        hash(key)
    except TypeError:  # an unhashable argument: make_gmma's own checks say which and why
        return make_gmma(n, a, b, c, a_source, saturate)
    if key not in _GMMA_CACHE:
        _GMMA_CACHE[key] = make_gmma(n, a, b, c, a_source, saturate)
    return _GMMA_CACHE[key]


def names() -> list[str]:
    """Every CuTe atom name (all 1056 dense wgmma atoms included)."""
    return list(_BY_NAME) + gmma_names()


def _normalize(name: str) -> str:
    """C++ spellings of one atom to its catalog name: ``cute::`` / ``cutlass::`` and spaces dropped,
    ``SM90::GMMA::MMA_64x...`` (CUTLASS's namespace form) read as ``SM90_64x...``, GMMA template
    arguments (majors and scales, which do not change the TV layouts) dropped, and
    ``UniversalCopy<T, T>`` / ``SM80_CP_ASYNC_*<T, T>`` read as ``<T>``."""
    key = "".join(name.split()).replace("cute::", "").replace("cutlass::", "")
    for prefix in ("SM90::GMMA::MMA_", "SM90::MMA_"):
        if key.startswith(prefix):
            key = "SM90_" + key[len(prefix):]
    if key.startswith("SM90_64x") and "<" in key:
        key = key[:key.index("<")]
    if key.endswith(">") and "<" in key:
        head, args = key[:-1].split("<", 1)
        parts = args.split(",")
        if len(parts) == 2 and parts[0] == parts[1]:
            key = f"{head}<{parts[0]}>"
    return key


def _unwrap(name: str) -> tuple[str, str | None]:
    """CuTe's wrappers as C++ writes them: ``Copy_Atom<OP, T>`` -> (OP, T), ``MMA_Atom<OP>`` and
    ``Copy_Atom<Copy_Traits<OP>, T>`` / ``MMA_Atom<MMA_Traits<OP>>`` -> (OP, None or T); other names unchanged."""
    key = "".join(name.split()).replace("cute::", "")
    element = None
    for wrapper in ("Copy_Atom<", "MMA_Atom<"):
        if key.startswith(wrapper) and key.endswith(">"):
            inner = key[len(wrapper):-1]
            depth, cut = 0, len(inner)
            for i, ch in enumerate(inner):  # the first top-level comma splits the op from the value type
                depth += ch == "<"
                depth -= ch == ">"
                if ch == "," and depth == 0:
                    cut = i
                    break
            key, element = inner[:cut], (inner[cut + 1:] or None)
            for traits in ("Copy_Traits<", "MMA_Traits<"):
                if key.startswith(traits) and key.endswith(">"):
                    key = key[len(traits):-1]
            return key, element
    return name, None


def get(name: str, bits: int | None = None) -> Any:
    """The atom called ``name`` (CuTe or PTX spelling, or CuTe's ``Copy_Atom<OP, T>`` / ``MMA_Atom<OP>``, a copy
    bound to ``T``'s width); see the module docstring."""
    if not isinstance(name, str):
        raise InstructionError(f"atom name must be a str, got {describe(name)}")
    name, element = _unwrap(name)
    if element is not None and bits is None:
        from layoutalg.core.dtypes import dtype_bits

        try:
            bits = dtype_bits(element)
        except LayoutError as exc:
            raise InstructionError(f"Copy_Atom<{name}, {element}>: {exc}") from None
    key = name.strip()
    atom: Atom | None = _BY_NAME.get(key) or _BY_PTX.get(key)  # PTX strings may hold spaces (cp.async)
    if atom is None:
        key = _normalize(name)
        key = COPY_ALIASES.get(key, key)
        atom = _BY_NAME.get(key) or _BY_PTX.get(key)
    if atom is None:
        parsed = parse_gmma_name(key)
        if parsed:
            n, a, b, c, a_source, saturate = parsed
            atom = _gmma(n, a, b, c, a_source, saturate)
    if atom is None and key.startswith(("ldmatrix", "stmatrix")):
        form = find_form(key)
        if form is not None:
            return form
    if atom is None and "_Atom" in key:
        from layoutalg.atoms import smem

        if bits is None:
            raise InstructionError(f"{name} is a shared-memory layout atom: give the element width, get({describe(name)}, bits=16)")
        return smem.get_smem_atom(key, bits)
    if atom is None:
        close = difflib.get_close_matches(key, names() + list(_BY_PTX), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else "; layoutalg.atoms.catalog.names() lists them"
        raise InstructionError(f"unknown atom {describe(name)}{hint}")
    if bits is not None:
        if isinstance(atom, CopyAtom):
            return atom.bind(bits)
        raise InstructionError(f"{atom.name} is an MMA atom: its element types are fixed, bits= does not apply")
    return atom


def mma(shape: str, a: Any, b: Any = None, c: Any = "f32", arch: int | None = None,
        layout: str = "row.col", satfinite: bool = False) -> MmaAtom:
    """The ``mma.sync`` atom ``mma.sync.aligned.{shape}.{layout}[.satfinite].{c}.{a}.{b}.{c}``.

    ``arch`` picks between identical instructions of several generations (m16n8k8 f16 is
    both SM75 and SM80; the newest is the default).  ``layout`` is ``.alayout.blayout``,
    only variable for sm70 ``m8n8k4`` f16.  ``satfinite`` picks CuTe's ``_SATURATE`` integer atoms.
    The b1 atoms (``.xor.popc`` / ``.and.popc``) are found by name or full PTX string with :func:`get`.
    """
    for what, value in (("shape", shape), ("layout", layout)):
        if not isinstance(value, str):
            raise InstructionError(f"mma: {what} must be a PTX name such as 'm16n8k16' or 'row.col', got {describe(value)}")
    for what, value in (("a", a), ("b", b), ("c", c)):  # any dtype spelling or object (torch.float16, cutlass.Float16)
        if value is None and what != "b" or isinstance(value, (bool, int, float)):
            raise InstructionError(f"mma: {what} must be an element type such as 'f16', got {describe(value)}")
    if arch is not None:
        arch = as_int(arch, "mma arch", InstructionError)
    a, b, c = _type_name(a, "a"), _type_name(b or a, "b"), _type_name(c, "c")
    shape = shape.strip().lstrip(".")
    if not isinstance(satfinite, bool):
        raise InstructionError(f"mma satfinite must be True or False, got {describe(satfinite)}")
    sat = ".satfinite" if satfinite else ""
    matches = [x for x in ALL_MMA_ATOMS
               if x.ptx == f"mma.sync.aligned.{shape}.{layout}{sat}.{c}.{a}.{b}.{c}" and (arch is None or x.arch == arch)]
    if not matches:
        have = sorted({x.ptx for x in ALL_MMA_ATOMS if f".{shape}." in x.ptx})
        hint = ("; with that shape: " + ", ".join(have)) if have else ""
        raise InstructionError(f"no mma.sync {shape} with a={a}, b={b}, c={c}, layout {layout}"
                               f"{'' if arch is None else f', arch sm{arch}'}{hint}")
    return max(matches, key=lambda x: x.arch)


def _type_name(value: Any, what: str, instruction: str = "mma") -> str:
    """A dtype in any spelling of :mod:`layoutalg.core.dtypes` as its PTX name (``half`` -> ``f16``)."""
    try:
        return ptx_name(value)
    except LayoutError as exc:
        raise InstructionError(f"{instruction}: {what}: {exc}") from None


def _matrix(kind: str, num: int, trans: bool) -> CopyAtom:
    num = as_int(num, f"{kind} num", InstructionError)
    if not (is_bool(trans) or (type(trans) is int and trans in (0, 1))):
        raise InstructionError(f"{kind}: trans must be True or False, got {describe(trans)}")
    if num not in (1, 2, 4):
        raise InstructionError(f"{kind}: num (matrices, .x1/.x2/.x4) must be 1, 2 or 4, got {describe(num)}")
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
    bits = as_int(bits, f"{kind} bits", InstructionError)
    for atom in COPY_ATOMS:
        if atom.kind == kind and atom.vector_bits == bits:
            return atom
    raise InstructionError(f"{kind} moves 8, 16, 32, 64 or 128 bits per thread, got {describe(bits)}")


def ld_shared(bits: int) -> CopyAtom:
    """``ld.shared`` of ``bits`` per thread (CuTe ``UniversalCopy<uintN_t>``)."""
    return _per_thread("ld.shared", bits)


def st_shared(bits: int) -> CopyAtom:
    """``st.shared`` of ``bits`` per thread (CuTe ``UniversalCopy<uintN_t>``; same layouts as ld.shared)."""
    return _per_thread("st.shared", bits)


def cp_async(nbytes: int = 16, cache: str = "ca") -> CopyAtom:
    """``cp.async.{ca|cg}.shared.global`` of 4, 8 or 16 bytes (``.cg`` only 16), CuTe SM80_CP_ASYNC_CACHE{ALWAYS|GLOBAL}."""
    nbytes = as_int(nbytes, "cp_async nbytes", InstructionError)
    if not isinstance(cache, str) or cache not in ("ca", "cg"):
        raise InstructionError(f"cache must be 'ca' or 'cg', got {describe(cache)}")
    if nbytes not in (4, 8, 16) or (cache == "cg" and nbytes != 16):
        raise InstructionError(f"cp.async.{cache} copies {'16' if cache == 'cg' else '4, 8 or 16'} bytes, got {describe(nbytes)}")
    for atom in COPY_ATOMS:
        if atom.kind == "cp.async" and atom.vector_bits == 8 * nbytes and f"cp.async.{cache}." in atom.ptx:
            return atom
    raise InstructionError(f"no cp.async.{cache} of {nbytes} bytes")  # pragma: no cover


def wgmma(n: int, a: str = "f16", c: str = "f32", a_source: str = "smem", b: str | None = None,
          saturate: bool = False) -> GmmaAtom:
    """``wgmma.mma_async.sync.aligned.m64n{n}k{K}.{c}.{a}.{b}[.satfinite]`` (CuTe ``SM90_64x{n}x{K}_...``).

    f16/bf16 (K 16), tf32 (K 8), e4m3/e5m2 and s8/u8 (K 32); see :func:`layoutalg.atoms.gmma.make_gmma`.
    """
    return _gmma(n, a, b or a, c, a_source, saturate)


def ldmatrix_b8(shape: str = "m16n16", num: int = 1, src_fmt: str = "b8") -> B8MatrixForm:
    """The PTX 8-bit ldmatrix form ``ldmatrix.sync.aligned.{shape}.x{num}[.trans].shared.{b8 | b8x16.src_fmt}``."""
    return B8MatrixForm("ldmatrix", shape, num, src_fmt)


def stmatrix_b8(num: int = 1) -> B8MatrixForm:
    """``stmatrix.sync.aligned.m16n8.x{num}.trans.shared.b8``."""
    return B8MatrixForm("stmatrix", "m16n8", num)


__all__ = ["get", "names", "mma", "ldmatrix", "stmatrix", "movmatrix", "ld_shared", "st_shared", "cp_async", "wgmma",
           "ldmatrix_b8", "stmatrix_b8", "ALL_MMA_ATOMS", "ALL_COPY_ATOMS"]
