"""CuTe's algebra on :class:`~layoutalg.core.symbolic.SymbolicLayout` (PyCuTe's sympy layouts).

Each operation is CuTe's algorithm with provable arithmetic only (equalities by
``sympy.expand``, divisibility by ``is_integer``); a step whose condition sympy cannot
decide raises :class:`~layoutalg.errors.ShapeError` naming it, so a returned layout holds
for every positive-integer value of the symbols (the tests substitute values and check
the definitions by brute force).  PyCuTe's representation choices are kept:

* ``coalesce`` merges ``s0:d0, s1:d1`` when ``d1 == s0*d0`` *and* both extents are static
  or both symbolic: a static extent is never folded into a symbolic one (``(4,N):(1,4)``
  stays, keeping the 4 visible for later divisibility checks); static size-1 leaves drop;
* ``coalesce_z`` is the same, except that the last leaf is never dropped (the function on
  every index ``i >= 0``, past the size too);
* ``composition(A, B)``: ``A`` (``coalesce_z``) is divided by each of ``B``'s strides and
  cut to its extents; A's last mode extends without bound, so it needs no check;
* ``weak_complement`` / ``complement``: sorted strides must chain provably
  (``s_(k-1) d_(k-1)`` divides ``d_k``); the rest mode is ``ceil(M / current)`` for an
  int cotarget and ``shape_div(M, current)`` for a tuple one (PyCuTe's ``extend``);
* ``right_inverse``: the chain of modes with stride equal to the running product;
* ``make_layout_like``: static strides order first, symbolic ones after, left to right;
* ``logical_divide`` / ``zipped_divide``: CuTe's ``A o (B, complement(B, size(A)))`` by mode.
"""

from __future__ import annotations

import numbers
from typing import Any

import sympy

from layoutalg.core import symbolic as sy
from layoutalg.core.symbolic import SymbolicLayout
from layoutalg.errors import CompositionError, ShapeError


def as_symbolic(x: Any, what: str) -> SymbolicLayout:
    """A SymbolicLayout view of a SymbolicLayout or a plain Layout."""
    if type(x) is SymbolicLayout:
        return x
    from layoutalg.core.layout import Layout

    if isinstance(x, Layout):
        return SymbolicLayout(x.shape, x.stride)
    raise ShapeError(f"{what} must be a Layout or a symbolic layout, got {type(x).__name__}")


def cosize(layout: Any) -> Any:
    """One past the largest offset, ``1 + sum((s - 1) * max(d, 0))`` over the leaves, as the plain
    :meth:`Layout.cosize` (a negative stride lowers offsets below 0, never the largest one; CuTe's
    ``L(size-1) + 1`` misses that).  A symbolic stride of unknown sign stays ``Max(d, 0)``."""
    total: Any = 1
    for s, d in as_symbolic(layout, "cosize layout").pairs():
        total = total + (s - 1) * (max(d, 0) if isinstance(d, numbers.Integral) else sympy.Max(d, 0))
    return sy.simplify(total)


def _from_pairs(pairs: list[tuple[Any, Any]]) -> Any:
    if not pairs:
        return sy.make(1, 0)
    if len(pairs) == 1:
        return sy.make(*pairs[0])
    return sy.make(tuple(s for s, _ in pairs), tuple(d for _, d in pairs))


def _mergeable(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
    (sa, da), (sb, db) = a, b
    if (type(sa) is int) != (type(sb) is int):
        return False
    return sy.equal(db, sy.simplify(sa * da))


def _coalesce_pairs(pairs: list[tuple[Any, Any]], keep_last: bool) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []
    for k, (s, d) in enumerate(pairs):
        last = keep_last and k == len(pairs) - 1
        if type(s) is int and s == 1 and not last:
            continue
        if out and _mergeable(out[-1], (s, d)):
            out[-1] = (sy.simplify(out[-1][0] * s), out[-1][1])
        elif out and last and type(s) is int and s == 1 and sy.equal(d, sy.simplify(out[-1][0] * out[-1][1])):
            continue  # a trailing 1:(s0*d0) is what s0:d0 does past its size anyway
        else:
            out.append((s, d))
    return out


def coalesce(layout: Any) -> Any:
    """PyCuTe's symbolic ``coalesce`` (see the module docstring)."""
    return _from_pairs(_coalesce_pairs(as_symbolic(layout, "coalesce layout").pairs(), keep_last=False))


def coalesce_z(layout: Any) -> Any:
    """``coalesce`` keeping the function past the size: the last leaf is never dropped."""
    return _from_pairs(_coalesce_pairs(as_symbolic(layout, "coalesce_z layout").pairs(), keep_last=True))


# ---------------------------------------------------------------------------
# composition


def _compose_mode(a_pairs: list[tuple[Any, Any]], s: Any, d: Any) -> list[tuple[Any, Any]]:
    """``A o (s:d)`` as a list of modes (CuTe's divide-then-mod walk over A's modes)."""
    if type(d) is int and d == 0:
        return [(s, 0)]
    modes = list(a_pairs)
    rest = d
    i = 0
    while i < len(modes) - 1 and not (type(rest) is int and rest == 1):
        sa, da = modes[i]
        if sy.divides(sa, rest):
            rest = sy.quotient(rest, sa)
            i += 1
        elif sy.divides(rest, sa):
            modes[i] = (sy.quotient(sa, rest), sy.simplify(da * rest))
            rest = 1
        else:
            raise CompositionError(f"composition: stride {d} and A's extent {sa} (mode {i}) do not divide one another "
                                   "(provably, for every value of the symbols): CuTe's Stride divisibility condition")
    if not (type(rest) is int and rest == 1):
        sa, da = modes[i]
        modes[i] = (sa, sy.simplify(da * rest))
    out: list[tuple[Any, Any]] = []
    left = s
    for j in range(i, len(modes)):
        if type(left) is int and left == 1:
            break
        sa, da = modes[j]
        if j == len(modes) - 1:
            out.append((left, da))
            left = 1
        elif sy.divides(sa, left):
            out.append((sa, da))
            left = sy.quotient(left, sa)
        elif sy.divides(left, sa):
            out.append((left, da))
            left = 1
        else:
            raise CompositionError(f"composition: extent {s} and A's extent {sa} (mode {j}) do not divide one another "
                                   "(provably, for every value of the symbols): CuTe's Shape divisibility condition")
    out = [(x, y) for x, y in out if not (type(x) is int and x == 1)] or [(1, 0)]
    return out


def composition(a: Any, b: Any) -> Any:
    """``A o B`` with B's structure kept (each leaf of B becomes the modes it composes to); an extent ``n`` (an int
    or a sympy expression) as ``B`` is the layout ``n:1``, as in CuTe and PyCuTe."""
    if sy.is_sym(b) or (isinstance(b, numbers.Integral) and not isinstance(b, bool)):
        b = sy.make(sy.norm(b, "composition tiler"), 1)
    if isinstance(b, tuple):  # a by-mode tiler
        a_s = as_symbolic(a, "composition layout")
        if len(b) > a_s.rank():
            raise ShapeError(f"composition tiler {b} has more modes than {a_s}")
        modes = [composition(a_s[i], t) if t is not None else a_s[i] for i, t in enumerate(b)]  # the rest dropped
        return sy.make(tuple(m.shape for m in modes), tuple(m.stride for m in modes))
    a_s, b_s = as_symbolic(a, "composition A"), as_symbolic(b, "composition B")
    a_pairs = _coalesce_pairs(a_s.pairs(), keep_last=True) or [(1, 0)]  # an empty A is 0 everywhere: 1:0
    shapes: list[Any] = []
    strides: list[Any] = []
    for s, d in b_s.pairs():
        modes = _compose_mode(a_pairs, s, d)
        if len(modes) == 1:
            shapes.append(modes[0][0])
            strides.append(modes[0][1])
        else:
            shapes.append(tuple(m[0] for m in modes))
            strides.append(tuple(m[1] for m in modes))
    return sy.make(sy.unflatten(shapes, b_s.shape), sy.unflatten(strides, b_s.shape))


# ---------------------------------------------------------------------------
# complements and inverses


def _chain(layout: SymbolicLayout, what: str, sized: bool = False) -> tuple[list[tuple[Any, Any]], Any]:
    """The gap modes of CuTe's complement and the running product after A's last mode.

    ``sized`` (a complement sized by a cotarget): refused where a symbolic extent that may be 1 ends the chain
    with a stride past the product before it.  At 1 that mode drops out, and the rest mode is sized from the
    smaller product: another size (PyCuTe's size-free complement is still a complement there, so not refused)."""
    pairs = [(s, d) for s, d in layout.pairs() if not (type(d) is int and d == 0) and not (type(s) is int and s == 1)]
    order = sorted(range(len(pairs)), key=lambda k: sy.order_key(pairs[k][1], k))
    gaps: list[tuple[Any, Any]] = []
    current: Any = 1
    for position, k in enumerate(order):
        s, d = pairs[k]
        if not sy.divides(current, d):
            raise CompositionError(f"{what}: stride {d} is not provably a multiple of {current} (the strides of "
                                   f"{layout} do not chain for every value of the symbols)")
        if sized and _may_be_one(s) and all(_may_be_one(pairs[j][0]) for j in order[position + 1:]) and \
                sy.simplify(d - current) != 0:
            # Where s == 1 the mode drops out.  Before a mode that stays, its gap only splits the next one's (the
            # two coalesce back); as the last mode it opens a gap of its own and moves the rest: another answer.
            raise CompositionError(f"{what}: the extent {s} of {layout} may be 1, where its mode (stride {d}) drops "
                                   "out and the answer differs; it holds for every value of the symbols only with "
                                   "an extent known to be at least 2 (write it as 2*K or K + 2)")
        gaps.append((sy.quotient(d, current), current))
        current = sy.simplify(s * d)
    return gaps, current


def _may_be_one(extent: Any) -> bool:
    """Whether a (positive-integer) symbolic extent can equal 1: sympy cannot prove ``extent >= 2``."""
    if type(extent) is int:
        return extent == 1
    return (sympy.sympify(extent) - 2).is_nonnegative is not True


def weak_complement(layout: Any) -> Any:
    """PyCuTe's ``complement(A)``: the gaps of A's sorted strides and a kept rest mode ``1:current``."""
    a = as_symbolic(layout, "complement layout")
    gaps, current = _chain(a, "complement")
    return _from_pairs(_coalesce_pairs(gaps + [(1, current)], keep_last=True))


def shape_div(shape: Any, d: Any) -> Any:
    """CuTe ``shape_div`` of a (nested) shape by ``d`` from the left, with provable divisibility."""
    if isinstance(shape, tuple):
        out = []
        for s in shape:
            out.append(shape_div(s, d))
            d = sy.quotient(d, sy.product(s)) if sy.divides(sy.product(s), d) else 1
        return tuple(out)
    if sy.divides(d, shape):
        return sy.quotient(shape, d)
    if sy.divides(shape, d):
        return 1
    raise CompositionError(f"shape_div: {shape} and {d} do not divide one another (provably)")


def complement(layout: Any, cotarget: Any) -> Any:
    """CuTe ``complement(A, M)``; a tuple ``M`` keeps its structure in the rest mode (PyCuTe's ``extend``)."""
    a = as_symbolic(layout, "complement layout")
    gaps, current = _chain(a, "complement", sized=True)
    if isinstance(cotarget, (tuple, list)):
        target = sy.norm_tuple(tuple(cotarget), "complement cotarget")
        rest_shape = shape_div(target, current)
        rest = list(zip(sy.flat(rest_shape), sy.flat(sy.prefix_product(rest_shape, current))))
    else:
        m = sy.norm(cotarget, "complement cotarget")
        rest = [(sy.ceil_div(m, current), current)]
    return _from_pairs(_coalesce_pairs(gaps + rest, keep_last=False))


def right_inverse(layout: Any) -> Any:
    """CuTe ``right_inverse``: follow the modes whose stride is the running product (provably)."""
    a = as_symbolic(coalesce(layout), "right_inverse layout")
    pairs = a.pairs()
    positions = sy.flat(sy.prefix_product(tuple(s for s, _ in pairs)))
    out: list[tuple[Any, Any]] = []
    current: Any = 1
    used: set[int] = set()
    while True:
        k = next((k for k, (s, d) in enumerate(pairs) if k not in used and sy.equal(d, current)), None)
        if k is None:
            break
        used.add(k)
        out.append((pairs[k][0], positions[k]))
        current = sy.simplify(current * pairs[k][0])
    return _from_pairs(_coalesce_pairs(out, keep_last=False))


def make_layout_like(layout: Any) -> Any:
    """``layout``'s shape, compact in the order of its strides (static first, symbolic after, left to right)."""
    a = as_symbolic(layout, "make_layout_like layout")
    pairs = a.pairs()
    out: list[Any] = [0] * len(pairs)
    running: Any = 1
    live = [k for k, (_, d) in enumerate(pairs) if not (type(d) is int and d == 0)]
    for k in sorted(live, key=lambda k: sy.order_key(pairs[k][1], k)):
        out[k] = running
        running = sy.simplify(running * pairs[k][0])
    return sy.make(a.shape, sy.unflatten(out, a.shape))


# ---------------------------------------------------------------------------
# divides


def _tile_layout(t: Any) -> Any:
    from layoutalg.core.layout import Layout

    if isinstance(t, (Layout, SymbolicLayout)):
        return t
    return sy.make(sy.norm(t, "logical_divide tiler"), 1)  # a tuple tiler was split by mode before this


def logical_divide(a: Any, tiler: Any) -> Any:
    """CuTe ``logical_divide``: ``A o (B, complement(B, size(A)))``, by mode for a tuple tiler."""
    a_s = as_symbolic(a, "logical_divide layout")
    if tiler is None:  # as for plain layouts: no tiler keeps A
        return a_s
    if isinstance(tiler, (tuple, list)):
        if len(tiler) > a_s.rank():
            raise ShapeError(f"logical_divide tiler {tiler} has more modes than {a_s}")
        modes = [logical_divide(a_s[i], t) if t is not None else a_s[i] for i, t in enumerate(tiler)]
        modes += [a_s[i] for i in range(len(tiler), a_s.rank())]
        return sy.make(tuple(m.shape for m in modes), tuple(m.stride for m in modes))
    b = as_symbolic(_tile_layout(tiler), "logical_divide tiler")
    rest = as_symbolic(complement(b, a_s.size()), "complement")
    return composition(a_s, SymbolicLayout((b.shape, rest.shape), (b.stride, rest.stride)))


def zipped_divide(a: Any, tiler: Any) -> Any:
    """CuTe ``zipped_divide``: ``((tiles), (rests))`` gathered from the by-mode logical divide."""
    divided = as_symbolic(logical_divide(a, tiler), "zipped_divide")
    if not isinstance(tiler, (tuple, list)):
        return divided
    from layoutalg.core.divide_product import _zip2  # CuTe's zip2_by: tuple entries nest, None keeps a mode whole

    (ts, td), (rs, rd) = _zip2(divided.shape, divided.stride, tiler)
    return sy.make((ts, rs), (td, rd))


__all__ = ["coalesce", "coalesce_z", "complement", "composition", "logical_divide", "make_layout_like",
           "right_inverse", "shape_div", "weak_complement", "zipped_divide"]
