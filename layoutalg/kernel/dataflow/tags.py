"""Data-flow tags: one int64 per 16-bit unit of a value, saying where that unit came from.

A register of ``w`` bits has ``max(1, w // 16)`` *units* (unit ``u`` = bits ``16u .. 16u+15``); shared and
local memory have one unit per 2 bytes.  Each unit carries a tag, an ``int64``:

* ``NONE`` (-1): computed by the kernel from untagged values (constants, addresses, indices);
* ``ZERO`` (-2): a unit that is zero by construction (zero extension, a vacated shift position, a masked
  unit, cp.async's zero fill) even where the interpreter does not know the register's whole value;
* ``GLOBAL``: the 2 bytes at byte offset ``off`` of global buffer ``buf``, as loaded (``buf`` 16 bits,
  ``off`` 40 bits), or with ``derived`` after element-wise arithmetic (``beta * C``; never an operand);
* ``ACC``: a unit of the accumulator of C element ``(m, n)`` after ``depth`` k-products, as an ``mma``
  (or an A x B ``fma``) left it.  ``wide`` says the accumulator is a 32-bit value (two units, ``part``
  0 low / 1 high), otherwise a 16-bit one; ``derived`` says it went through element-wise arithmetic or a
  float conversion since (an epilogue's ``alpha * acc``, ``cvt.rn.f16x2.f32``);
* ``OPAQUE``: derived from tagged data by something the data-flow model does not follow; ``op`` names the
  instruction (index in the function body), ``why`` one of :data:`WHY`.

Layout (bit 63 is never set, so every tag but ``NONE`` is >= 0)::

    kind  bits 60..62        GLOBAL 1, ACC 2, OPAQUE 3
    GLOBAL: buf 40..55, off 0..39, derived 58
    ACC:    m 0..19, n 20..39, depth 40..55, part 56, wide 57, derived 58
    OPAQUE: op 0..31, why 32..39

Everything here is vectorised: functions take and return numpy int64 arrays of any shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

NONE = np.int64(-1)
ZERO = np.int64(-2)
K_GLOBAL, K_ACC, K_OPAQUE = 1, 2, 3
KIND_SHIFT = 60
_M20 = (1 << 20) - 1
_M16 = (1 << 16) - 1
_M40 = (1 << 40) - 1
MAX_DIM = 1 << 20
MAX_DEPTH = _M16
MAX_OFFSET = 1 << 40

#: reasons an OPAQUE tag carries (the report prints the text)
WHY = {
    1: "an instruction the data-flow model does not follow",
    2: "a global load whose address is unknown at trace time",
    3: "a global load of memory this launch already wrote",
    4: "a shared-memory write the data-flow model does not follow (atomics, TMA, wgmma, unknown address)",
    5: "lanes of one instruction writing different values to the same location",
    6: "a guard predicate unknown at trace time",
    7: "an 8-bit access (tags are 16-bit units)",
    8: "a permutation or shift that splits a 16-bit unit",
    9: "element-wise arithmetic that mixes accumulators or operand elements",
    10: "an mma or fma whose operands were not all proved (see the counterexample)",
    11: "a cp.async src-size (or ignore predicate) unknown at trace time, cutting a 16-bit unit, or past the copy size",
}
W_UNMODELLED, W_GLOBAL_ADDR, W_WRITTEN, W_SMEM_WRITE, W_CONFLICT, W_GUARD, W_BYTE, W_SPLIT, W_MIX, W_MMA, \
    W_SRC_SIZE = range(1, 12)


def kind(t: Any) -> Any:
    """The kind field (-1 for NONE; works on arrays)."""
    return np.asarray(t, dtype=np.int64) >> KIND_SHIFT


def glob(buf: Any, off: Any) -> Any:
    """GLOBAL tags of byte offsets ``off`` of buffers ``buf`` (offsets outside [0, 2**40) give OPAQUE-free NONE)."""
    buf = np.asarray(buf, dtype=np.int64)
    off = np.asarray(off, dtype=np.int64)
    ok = (buf >= 0) & (buf <= _M16) & (off >= 0) & (off < MAX_OFFSET)
    return np.where(ok, (np.int64(K_GLOBAL) << KIND_SHIFT) | (buf << 40) | (off & _M40), NONE)


def glob_buf(t: Any) -> Any:
    return (np.asarray(t, dtype=np.int64) >> 40) & _M16


def glob_off(t: Any) -> Any:
    return np.asarray(t, dtype=np.int64) & _M40


def glob_derived(t: Any) -> Any:
    return (np.asarray(t, dtype=np.int64) >> 58) & 1


def acc(m: Any, n: Any, depth: Any, part: Any = 0, wide: Any = False, derived: Any = False) -> Any:
    """ACC tags (see the module doc); callers keep m, n < 2**20 and depth < 2**16."""
    m, n, depth = (np.asarray(x, dtype=np.int64) for x in (m, n, depth))
    part, wide, derived = (np.asarray(x, dtype=np.int64) for x in (part, wide, derived))
    return ((np.int64(K_ACC) << KIND_SHIFT) | (derived << 58) | (wide << 57) | (part << 56) | (depth << 40)
            | (n << 20) | m)


def acc_fields(t: Any) -> tuple[Any, Any, Any, Any, Any, Any]:
    """(m, n, depth, part, wide, derived) of ACC tags (meaningless elsewhere)."""
    t = np.asarray(t, dtype=np.int64)
    return (t & _M20, (t >> 20) & _M20, (t >> 40) & _M16, (t >> 56) & 1, (t >> 57) & 1, (t >> 58) & 1)


def acc_identity(t: Any) -> Any:
    """An ACC tag with ``part`` cleared: equal for the units of one accumulator value."""
    return np.asarray(t, dtype=np.int64) & ~np.int64(1 << 56)


def set_derived(t: Any) -> Any:
    t = np.asarray(t, dtype=np.int64)
    return np.where(kind(t) == K_ACC, t | np.int64(1 << 58), t)


def opaque(op: int, why: int) -> np.int64:
    return np.int64((K_OPAQUE << KIND_SHIFT) | (why << 32) | op)


def opaque_fields(t: Any) -> tuple[Any, Any]:
    """(op index, why code) of OPAQUE tags."""
    t = np.asarray(t, dtype=np.int64)
    return t & 0xFFFF_FFFF, (t >> 32) & 0xFF


def describe(t: int, names: dict[int, str] | None = None, where: Any = None) -> str:
    """A tag in words: ``A(3, 17)`` style names come from ``where`` (a callable tag -> text or None)."""
    t = int(t)
    if t == ZERO:
        return "zero"
    if t < 0:
        return "an untagged value (computed by the kernel, not loaded)"
    k = t >> KIND_SHIFT
    if where is not None:
        text = where(t)
        if text:
            return str(text)
    if k == K_GLOBAL:
        b = int(glob_buf(t))
        name = (names or {}).get(b, f"buffer {b}")
        return f"bytes {int(glob_off(t))}..{int(glob_off(t)) + 1} of {name}"
    if k == K_ACC:
        m, n, d, part, wide, der = (int(x) for x in acc_fields(t))
        what = f"the accumulator of C({m}, {n}) after {d} k-products"
        if wide:
            what += f" ({'high' if part else 'low'} half of its 32-bit value)"
        return what + (", after element-wise arithmetic" if der else "")
    if k == K_OPAQUE:
        op, why = (int(x) for x in opaque_fields(t))
        return f"a value derived at instruction #{op} through {WHY.get(why, 'something unmodelled')}"
    return f"tag {t:#x}"


def units_of_bits(bits: int) -> int:
    """Units of a ``bits``-wide register or access (8-bit ones have one partial unit)."""
    return max(1, bits // 16)


def any_tagged(planes: list[Any]) -> bool:
    return any(p is not None for p in planes)
