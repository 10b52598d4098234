"""Warp-level matrix copy and mma atoms by any of the names a kernel author writes.

``copy_atom(spec)`` and ``mma_atom(spec)`` accept the atom object itself, CuTe's
name (``SM75_U16x8_LDSM_T``, ``SM80_16x8x16_F32F16F16F32_TN``), the full PTX
instruction (``ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16``), or the short
forms used across layoutalg:

* ``ldmatrix.x4.trans``, ``stmatrix.x2``, ``movmatrix``: the words of the PTX
  mnemonic, where ``.sync .aligned .m8n8 .shared{::cta} .b16`` may be left out
  (``.m8n8 .b16`` is the only shape).  The matrix count ``.x1``/``.x2``/``.x4``
  may not: PTX requires it, and a bare ``ldmatrix`` is refused here as in
  :mod:`layoutalg.banks.instruction`, ``layoutalg banks --access`` and the kernel
  tracer (CuTe's names carry their count: ``SM75_U32x1_LDSM_N`` is ``ldmatrix.x1``);
* ``wgmma.m64n64k16.f32.bf16.bf16`` (``.D.A.B``, A from shared memory) and CuTe's
  ``SM90_64xNx16_..._SS/RS`` names: warpgroup MMAs, whose register fragments
  (C, and A of ``_RS``) each warp holds 16 rows of;
* ``mma.m16n8k16.f16``: one type names A and B, and the accumulator is the usual
  one (``f32`` for floating-point inputs, ``s32`` for integers, ``f64`` for f64);
  ``mma.m16n8k16.f16.f16.f16.f16`` gives ``.dtype.atype.btype.ctype`` as PTX does;
  ``.sync .aligned`` and the ``.row.col`` layout words may be present.

Names are split on dots, so the cost is linear in the length of the text.
"""

from __future__ import annotations

from typing import Any, Union

from layoutalg.atoms import catalog
from layoutalg.atoms.copy import CopyAtom, TypedCopyAtom
from layoutalg.atoms.gmma import GmmaAtom
from layoutalg.atoms.mma import TYPE_BITS, MmaAtom, mma_type
from layoutalg.core.validate import describe
from layoutalg.errors import InstructionError

_MAX_NAME = 200
_MATRIX_KINDS = ("ldmatrix", "stmatrix", "movmatrix")
OPTIONAL_MATRIX_WORDS = frozenset({"sync", "aligned", "m8n8", "shared", "shared::cta", "b16"})
"""Words of ldmatrix / stmatrix / movmatrix that may be left out (here and in :mod:`layoutalg.banks.instruction`)."""
_INTEGER_TYPES = {"s8", "u8", "s4", "u4"}
_X1_NAMES = {"ldmatrix": "SM75_U32x1_LDSM_N", "stmatrix": "SM90_U32x1_STSM_N"}


def _text(spec: Any, what: str) -> str:
    if not isinstance(spec, str):
        raise InstructionError(f"{what} must be an atom or its name (a str), got {describe(spec)} ({type(spec).__name__})")
    text = spec.strip()
    head, _, operands = text.partition(" ")
    if operands.lstrip().startswith(("{", "[", "%")) or text.endswith(";"):  # a PTX line: its mnemonic
        text = head.removesuffix(";")
    if text.startswith("cute::"):
        text = text[len("cute::"):]
    if not text or len(text) > _MAX_NAME:
        raise InstructionError(f"{what} {describe(spec[:60])}{'...' if len(spec) > 60 else ''} is not an instruction name "
                               f"(empty or longer than {_MAX_NAME} characters)")
    return text


def copy_atom(spec: Any) -> tuple[CopyAtom, int | None]:
    """(the ldmatrix / stmatrix / movmatrix atom named by ``spec``, the value bits it is bound to or None)."""
    if not isinstance(spec, (TypedCopyAtom, CopyAtom)):
        spec = _copy_by_name(_text(spec, "copy"))
    if isinstance(spec, TypedCopyAtom):
        atom, bits = spec.atom, spec.bits
    else:
        atom, bits = spec, None
    if atom.kind.endswith(".b8"):  # ldmatrix.b8 / stmatrix.b8: warp-wide, but not the .m8n8 .b16 semantics
        raise InstructionError(f"{atom.name} ({atom.ptx}) is an 8-bit {atom.kind.split('.')[0]} form (sm_100a/sm_120a), "
                               "whose rows and registers the fragment theorems do not model; state it with the "
                               ".m8n8 .b16 forms (e.g. 'ldmatrix.x4' over 8-bit data), or compare its TV layout "
                               "with equivalent()")
    if atom.kind not in _MATRIX_KINDS:
        raise InstructionError(f"{atom.name} ({atom.ptx}) is a per-thread copy: a fragment theorem needs a warp-wide "
                               "matrix instruction, ldmatrix, stmatrix or movmatrix (e.g. 'ldmatrix.x4.trans')")
    return atom, bits


def _copy_by_name(text: str) -> CopyAtom | TypedCopyAtom:
    words = text.lower().split(".")
    kind = words[0]
    if kind in ("ld", "st", "cp") or kind.startswith(("ld::", "st::")):  # ld.shared.v4, cp.async.cg, ...
        raise InstructionError(f"{describe(text)} is a per-thread copy: a fragment theorem needs a warp-wide matrix "
                               "instruction, ldmatrix, stmatrix or movmatrix (e.g. 'ldmatrix.x4.trans')")
    if kind not in _MATRIX_KINDS:
        found = catalog.get(text)  # a CuTe name (or an unknown name: its error suggests close ones)
        if isinstance(found, (CopyAtom, TypedCopyAtom)):  # Copy_Atom<OP, T> comes bound to T's width
            return found
        raise InstructionError(f"{describe(text)} names {getattr(found, 'ptx', found)}, not a copy instruction: write "
                               "ldmatrix / stmatrix with .x1, .x2 or .x4 and optionally .trans (e.g. "
                               "'ldmatrix.x4.trans'), 'movmatrix', or a CuTe name such as SM75_U16x8_LDSM_T")
    counts, trans = [], kind == "movmatrix"
    for word in words[1:]:
        if word in ("x1", "x2", "x4"):
            counts.append(word)
        elif word == "trans":
            trans = True
        elif word not in OPTIONAL_MATRIX_WORDS:
            raise InstructionError(f"{describe(text)}: {describe(word)} is not a word of {kind} (it takes .x1/.x2/.x4, .trans, "
                                   f".sync.aligned.m8n8, .shared and .b16; e.g. '{kind}.x4.trans')")
    if kind == "movmatrix":
        if counts not in ([], ["x1"]) or not trans:
            raise InstructionError(f"{describe(text)}: movmatrix exists only as movmatrix.sync.aligned.m8n8.trans.b16 "
                                   "(one matrix, transposed); write 'movmatrix'")
        return catalog.movmatrix()
    if len(counts) != 1:  # PTX requires .num; a default would guess (CuTe's names carry theirs: U32x1 is .x1)
        raise InstructionError(f"{describe(text)}: {kind} needs exactly one of .x1, .x2, .x4 (PTX's .num, how many "
                               f"8x8 matrices; e.g. '{kind}.x4', or '{kind}.x1' for CuTe's {_X1_NAMES[kind]})")
    num = int(counts[0][1])
    return catalog.ldmatrix(num, trans) if kind == "ldmatrix" else catalog.stmatrix(num, trans)  # type: ignore[return-value]


def _type_word(word: str, text: str) -> str:
    """The PTX type an mma name's type word spells, in any spelling of the dtype table (``float16``, ``half``,
    ``bfloat16``, ``int8``, ``float8_e4m3fn``: :func:`layoutalg.atoms.mma.mma_type`); InstructionError otherwise."""
    name = mma_type(word)
    if name is None:
        raise InstructionError(f"{describe(text)}: {describe(word)} is not an mma type (one of {', '.join(TYPE_BITS)})")
    return name


def mma_atom(spec: Any) -> Union[MmaAtom, GmmaAtom]:
    """The ``mma.sync`` (or ``wgmma``) atom named by ``spec`` (see the module docstring)."""
    if isinstance(spec, (MmaAtom, GmmaAtom)):
        return spec
    text = _text(spec, "mma")
    if text.lower().startswith("wgmma."):
        return _wgmma_by_name(text)
    if not text.lower().startswith("mma."):
        found = catalog.get(text)  # a CuTe name (or an unknown name: its error suggests close ones)
        if isinstance(found, (MmaAtom, GmmaAtom)):
            return found
        raise InstructionError(f"{describe(text)} is not an mma.sync instruction: name one such as 'mma.m16n8k16.f16' or "
                               "SM80_16x8x16_F32F16F16F32_TN")
    words = [w for w in text.lower().split(".") if w not in ("sync", "aligned")]
    if len(words) < 3 or words[0] != "mma" or not words[1].startswith("m"):
        raise InstructionError(f"unknown mma {describe(text)}: write mma.SHAPE.TYPE (e.g. 'mma.m16n8k16.f16', "
                               "'mma.m16n8k32.s8') or mma.SHAPE.DTYPE.ATYPE.BTYPE.CTYPE, or a CuTe name such as "
                               "SM80_16x8x16_F32F16F16F32_TN")
    shape, rest = words[1], words[2:]
    layout = "row.col"
    if len(rest) >= 2 and rest[0] in ("row", "col") and rest[1] in ("row", "col"):
        layout, rest = f"{rest[0]}.{rest[1]}", rest[2:]
    rest = [_type_word(t, text) for t in rest]
    if len(rest) == 1:
        a = b = rest[0]
        c = "s32" if a in _INTEGER_TYPES else "f64" if a == "f64" else "f32"
    elif len(rest) == 4:
        d, a, b, c = rest
        if d != c:
            raise InstructionError(f"{describe(text)}: layoutalg's mma atoms have D of C's type; got D {d}, C {c}")
    else:
        raise InstructionError(f"{describe(text)}: give one type (A and B, e.g. 'mma.{shape}.f16') or four "
                               f"(D, A, B, C as PTX orders them, e.g. 'mma.{shape}.f32.f16.f16.f32')")
    return catalog.mma(shape, a=a, b=b, c=c, layout=layout)


def _wgmma_by_name(text: str) -> GmmaAtom:
    """``wgmma.m64nNk16.D.A.B`` (``.mma_async .sync .aligned`` optional), A from shared memory."""
    words = [w for w in text.lower().split(".") if w not in ("mma_async", "sync", "aligned")]
    shape = words[1] if len(words) > 1 else ""
    n = shape[len("m64n"):-len("k16")] if shape.startswith("m64n") and shape.endswith("k16") else ""
    if len(words) != 5 or not n.isdigit():
        raise InstructionError(f"unknown wgmma {describe(text)}: write wgmma.m64nNk16.D.A.B (e.g. 'wgmma.m64n64k16.f32.bf16.bf16') "
                               "or a CuTe name such as SM90_64x64x16_F32BF16BF16_SS")
    d, a, b = (_type_word(t, text) for t in words[2:])
    if a != b:
        raise InstructionError(f"{describe(text)}: layoutalg's wgmma atoms take A and B of one type, got {a} and {b}")
    return catalog.wgmma(int(n), a=a, c=d)


__all__ = ["copy_atom", "mma_atom", "OPTIONAL_MATRIX_WORDS"]
