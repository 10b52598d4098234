"""Helpers shared by the atom modules: layouts from PTX formulas, and bit recasts.

``fit_layout(fn, modes)`` turns a PTX ISA fragment formula into the ``Layout``
that equals it on its whole domain.  Every PTX fragment formula is linear over
the bits of its inputs (``groupID = lane >> 2``, ``threadID_in_group = lane % 4``,
``i & 1``, ...), so the stride of each input bit is ``fn`` at the point where
only that bit is set; the candidate layout is then checked against ``fn`` at
every point of the domain (no sampling), and raises if they differ anywhere.

``upcast_bits(layout, bits)`` is CuTe's ``recast_layout<uint1_t, T>``, i.e.
``upcast<sizeof_bits<T>>``, applied leaf by leaf (cute/layout.hpp ``upcast``)::

    (s : d)  ->  (shape_div(s, shape_div(N, |d|)) : shape_div(d, N))     d != 0
    (s : 0)  ->  (s : 0)

which turns a copy atom's bit layouts into layouts of ``bits``-wide values.

``index_arg(value, hi, what)`` is the one check of a lane / element / register
argument of the PTX formulas: an int (numpy integers too) must lie in
``[0, hi)``; a symbolic term of :mod:`layoutalg.prove` passes through, so the
same formula builds terms (a bare variable's range is checked against
``[0, hi)``; a compound term's range is the claim's domain to state).
"""

from __future__ import annotations

import operator
from itertools import product
from typing import Any, Callable, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe, plain_int
from layoutalg.errors import InstructionError, LayoutError


def is_symbolic(value: Any) -> bool:
    """True for a term of the prover's expression language (recognised by class, without importing the prover)."""
    return any(c.__name__ == "Expr" and c.__module__ == "layoutalg.prove.terms" for c in type(value).__mro__)


def index_arg(value: Any, hi: int, what: str) -> Any:
    """``value`` as an int checked to lie in ``[0, hi)``, or a symbolic term passed through (see the module doc)."""
    if is_symbolic(value):
        if getattr(value, "kind", None) in ("var", "param") and not (value.lo >= 0 and value.hi <= hi):
            raise InstructionError(f"{what} must range over [0, {hi}), but the variable {describe(value.name)} ranges over "
                                   f"[{value.lo}, {value.hi}): declare it as var({describe(value.name)}, {hi})")
        return value
    if isinstance(value, bool):
        raise InstructionError(f"{what} must be an int in [0, {hi}) or a symbolic term, got {describe(value)}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InstructionError(f"{what} must be an int in [0, {hi}) or a symbolic term (layoutalg.prove.var), "
                               f"got {describe(value)} ({type(value).__name__})") from None
    if not 0 <= number < hi:
        raise InstructionError(f"{what} must be in [0, {hi}), got {number}")
    return number


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def fit_layout(fn: Callable[..., int], modes: Sequence[int], what: str = "formula") -> Layout:
    """The ``Layout`` of shape ``modes`` (each a power of two) equal to ``fn`` everywhere.

    ``fn`` takes one int per mode.  Bits of each mode become leaves; adjacent
    leaves whose strides continue each other are merged, so the
    m16n8k16 ``A`` formula yields ``((4,8),(2,2,2)):((32,1),(16,8,128))``.
    """
    for n in modes:
        if not _is_pow2(n):
            raise LayoutError(f"{what}: mode extent {n} is not a power of two")
    zero: list[int] = [0] * len(modes)
    if fn(*zero) != 0:
        raise LayoutError(f"{what}: value at the origin is {fn(*zero)}, not 0")
    shape: list[IntTuple] = []
    stride: list[IntTuple] = []
    for k, n in enumerate(modes):
        leaves: list[list[int]] = []  # [extent, stride]
        bit = 1
        while bit < n:
            point = list(zero)
            point[k] = bit
            d = fn(*point)
            if leaves and leaves[-1][1] * leaves[-1][0] == d:
                leaves[-1][0] *= 2
            else:
                leaves.append([2, d])
            bit <<= 1
        if not leaves:
            leaves = [[1, 0]]
        if len(leaves) == 1:
            shape.append(leaves[0][0])
            stride.append(leaves[0][1])
        else:
            shape.append(tuple(e for e, _ in leaves))
            stride.append(tuple(d for _, d in leaves))
    layout = Layout(tuple(shape), tuple(stride))
    for pt in product(*(range(n) for n in modes)):
        if layout(tuple(pt)) != fn(*pt):
            raise LayoutError(f"{what} is not a layout: at {pt} it gives {fn(*pt)}, the fitted {layout} gives {layout(tuple(pt))}")
    return layout


def _upcast_leaf(s: int, d: int, n: int) -> tuple[int, int]:
    if d == 0:
        return s, 0
    ad = abs(d)
    inner = n // ad if n % ad == 0 else (1 if ad % n == 0 else None)
    if inner is None:
        raise LayoutError(f"a stride of {d} bits cannot be recast to {n}-bit values (neither divides the other)")
    if s % inner == 0:
        new_s = s // inner
    elif inner % s == 0:
        new_s = 1
    else:
        raise LayoutError(f"a mode of {s} bits at stride {d} does not split into {n}-bit values")
    if d % n == 0:
        new_d = d // n
    else:  # inner is not None: ad divides n here (were n to divide ad, it would divide d)
        new_d = 1 if d > 0 else -1
    return new_s, new_d


def upcast_bits(layout: Layout, bits: int) -> Layout:
    """CuTe ``upcast<bits>(layout)``: a layout over bits viewed as ``bits``-wide values."""
    bits = plain_int(bits, "bits")
    if not isinstance(bits, int) or isinstance(bits, bool) or bits <= 0:
        raise LayoutError(f"bits must be a positive int, got {describe(bits)}")

    def go(s: IntTuple, d: IntTuple) -> tuple[IntTuple, IntTuple]:
        if it.is_tuple(s):
            parts = [go(a, b) for a, b in zip(s, d)]  # type: ignore[arg-type]
            return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
        return _upcast_leaf(s, d, bits)  # type: ignore[arg-type]

    shape, stride = go(layout.shape, layout.stride)
    return Layout(shape, stride)


__all__ = ["fit_layout", "upcast_bits", "index_arg", "is_symbolic"]
