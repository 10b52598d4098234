"""CuTe's layout algebra on :class:`Layout`: coalesce, filter, composition, complement, inverses.

Every function keeps CuTe's name, argument order and result structure, and is
*sound*: it never returns a layout whose function differs from the
mathematical definition.  Where CuTe's algorithm is not provably right for an
input, the result is checked against the definition (by an exact argument
or, failing that, by enumerating the whole domain) and either repaired or
refused with a :class:`~layoutalg.errors.LayoutError` subclass that names the
mode at fault.

Conventions shared by all functions here:
  * a layout ``A`` is defined on every index ``x >= 0``: past ``size(A)`` the
    last mode keeps counting (CuTe's convention, which composition relies on);
  * "coalesced" means flat, no size-1 modes, no adjacent pair with
    ``s0 * d0 == d1``; its 1-D function is the same as the original's.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core import left_inverse_search
from layoutalg.core.complement_search import forced_offsets, layout_with_prefix
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout, as_layout, evaluate_modes, offsets_of_modes
from layoutalg.core.left_inverse_search import SearchExhaustedError, find_left_inverse
from layoutalg.errors import CompositionError, LayoutError, NotInjectiveError, ShapeError

Pairs = list[tuple[int, int]]

#: The largest domain the algebra enumerates to check a result it cannot prove (2^26 offsets).
ENUMERATION_LIMIT = 1 << 26
#: The most offsets complement's forced-offset walk (a Python loop) visits (2^22, about a second).
GREEDY_LIMIT = 1 << 22


# ---------------------------------------------------------------------------
# flat helpers (lists of (extent, stride) pairs)
# ---------------------------------------------------------------------------
def _pairs(layout: Layout) -> Pairs:
    """The leaves of ``layout`` as ``(extent, stride)`` pairs, left to right."""
    shape, stride = layout.shape, layout.stride
    if type(shape) is not tuple:
        return [(shape, stride)]  # type: ignore[list-item]
    out: Pairs = []
    _pairs_into(shape, stride, out)
    return out


def _pairs_into(shape: Any, stride: Any, out: Pairs) -> None:
    for s, d in zip(shape, stride):
        if type(s) is tuple:
            _pairs_into(s, d, out)
        else:
            out.append((s, d))


def _coalesce_pairs(pairs: Sequence[tuple[int, int]]) -> Pairs:
    """Drop size-1 modes and merge neighbours with ``s0 * d0 == d1`` (same 1-D function)."""
    out: Pairs = []
    for s, d in pairs:
        if s == 1:
            continue
        if out and out[-1][0] * out[-1][1] == d:
            out[-1] = (out[-1][0] * s, out[-1][1])
        else:
            out.append((s, d))
    return out


def _coalesce_extended(pairs: Sequence[tuple[int, int]]) -> Pairs:
    """Like :func:`_coalesce_pairs`, but the same function on *every* index ``x >= 0``.

    Past ``size`` a layout's last leaf keeps counting, so the last leaf is never
    dropped (``(4,1):(1,0)`` maps 5 to 1, where ``4:1`` maps it to 5); merging
    it into its neighbour when ``s0*d0 == d1`` keeps the extension.
    """
    if not pairs:
        return []
    out = _coalesce_pairs(pairs[:-1])
    s, d = pairs[-1]
    if out and out[-1][0] * out[-1][1] == d:
        out[-1] = (out[-1][0] * s, out[-1][1])
    else:
        out.append((s, d))
    return out


def _from_pairs(pairs: Sequence[tuple[int, int]]) -> Layout:
    """``1:0`` for no modes, ``s:d`` for one, a flat tuple otherwise."""
    if not pairs:
        return Layout._trusted(1, 0)
    if len(pairs) == 1:
        return Layout._trusted(pairs[0][0], pairs[0][1])
    shapes, strides = zip(*pairs)
    return Layout._trusted(shapes, strides)


def _check_layout(x: Any, what: str) -> Layout:
    try:
        return as_layout(x, what)
    except LayoutError as err:
        raise type(err)(f"{what}: {err}") from None


# ---------------------------------------------------------------------------
# coalesce / filter
# ---------------------------------------------------------------------------
def coalesce(layout: Layout, profile: IntTuple | None = None) -> Layout:
    """CuTe ``coalesce``: the shortest flat layout with the same 1-D function on ``[0, size)``.

    Size-1 modes are dropped and neighbouring modes with ``s0*d0 == d1`` merge
    into ``(s0*s1):d0``; an empty result is ``1:0`` and a single mode is an int
    shape.  With a tuple ``profile`` the coalescing is by mode: mode ``i`` is
    coalesced against ``profile[i]`` and modes past ``len(profile)`` are kept
    as they are (``coalesce(((2,2),(3,1),5):((1,2),(4,0),12), (1,1))`` is
    ``(4,3,5):(1,4,12)``); an int profile means "coalesce the whole mode".
    """
    if type(layout) is not Layout:
        layout = _check_layout(layout, "coalesce layout")
    if profile is None or type(profile) is not tuple:
        return _coalesced(layout)
    modes = list(layout) if it.is_tuple(layout.shape) else [layout]
    if len(profile) > len(modes):  # type: ignore[arg-type]
        raise ShapeError(f"coalesce profile {profile} has more modes than the rank-{len(modes)} layout {layout}")
    parts = [coalesce(modes[i], p) for i, p in enumerate(profile)]  # type: ignore[arg-type]
    parts += modes[len(parts) :]
    return Layout._trusted(tuple(p.shape for p in parts), tuple(p.stride for p in parts))


def _coalesced(layout: Layout) -> Layout:
    """Whole-layout coalesce, written out flat (the hot path of the algebra)."""
    if type(layout.shape) is int:
        return layout if layout.shape != 1 else Layout._trusted(1, 0)
    ss: list[int] = []
    dd: list[int] = []
    for s, d in _pairs(layout):
        if s == 1:
            continue
        if ss and ss[-1] * dd[-1] == d:
            ss[-1] *= s
        else:
            ss.append(s)
            dd.append(d)
    if len(ss) > 1:
        return Layout._trusted(tuple(ss), tuple(dd))
    return Layout._trusted(ss[0], dd[0]) if ss else Layout._trusted(1, 0)


def filter_zeros(layout: Layout) -> Layout:
    """CuTe ``filter_zeros``: every stride-0 mode gets extent 1 (the structure is kept)."""
    layout = _check_layout(layout, "filter_zeros layout")
    shape = it.zip_transform(lambda s, d: 1 if d == 0 else s, layout.shape, layout.stride)
    return Layout._trusted(shape, layout.stride)


def filter(layout: Layout) -> Layout:
    """CuTe ``filter``: ``coalesce(filter_zeros(layout))``, the layout without its broadcast modes."""
    layout = _check_layout(layout, "filter layout")
    return _from_pairs(_coalesce_pairs([(s, d) for s, d in _pairs(layout) if d != 0]))


# ---------------------------------------------------------------------------
# composition
# ---------------------------------------------------------------------------
def composition(a: Layout, b: Any) -> Layout:
    """``A o B``: the layout with B's shape whose value at ``c`` is ``A(B(c))``.

    ``b`` may be a :class:`Layout`, an int ``N`` (the tiler ``N:1``), ``None``
    (keep ``A``), or a tuple of tilers applied by mode (``A``'s mode ``i`` is
    composed with ``b[i]``; ``None`` keeps a mode; modes past ``len(b)`` are kept).

    **The rule (soundness beyond CuTe).**  The result is a layout ``R`` with
    ``B``'s top-level mode sizes and ``R(c) == A(B(c))`` for every ``c`` in
    ``B``'s domain, where ``A`` is extended past its size by its last mode.
    Such an ``R`` is returned exactly when one exists; otherwise
    :class:`CompositionError` is raised.  How:

    1. CuTe's algorithm runs on each leaf ``s:r`` of ``B`` against
       ``coalesce(A)``, with CuTe's stride- and shape-divisibility conditions
       checked (CuTe DSL does not check them).  ``A`` is coalesced keeping its
       last leaf, so that ``A``'s own extension past its size is the one used
       (CuTe coalesces it away: ``(4,1):(1,0) o 8:1`` is ``8:1`` in CuTe, but
       ``A(5) == 1``, so the answer is ``(4,2):(1,0)``).  When they hold, each leaf's
       result is exact on its own 1-D domain.
    2. The leaves are then summed, which is exact when ``A`` is additive across
       them.  That is proved without enumeration when ``coalesce(A)`` has one
       mode (``A`` is linear), or when the leaves' index blocks
       ``[r, r*s)`` are disjoint and each ends on a divisor boundary of ``A``
       (sorted by ``r``, each ``r*s`` divides the next ``r``): then no
       mixed-radix carry crosses from one leaf into another.  Otherwise the
       result is compared with ``A(B(i))`` on the whole domain.
    3. When CuTe's algorithm fails or its answer is wrong (pycute returns
       ``(2,(4)):(2,(2))`` for ``(8,2):(1,4) o (2,(4)):(2,(2))``, whose last
       value is 8 where ``A(B(7)) == 4``), the layout is synthesised from the
       function: it must be additive across B's top-level modes (else no
       layout of that shape exists), and each mode's 1-D function, read in
       coalesced form, fixes the extents and strides greedily (stride
       ``g(1)``, extent = first index deviating from ``i*g(1)``, recurse on
       the quotient); the candidate is checked on the whole domain.  B's nested
       structure is kept where the function is additive across sub-modes too.

    ``B(c) < 0`` is allowed only when ``A`` is linear; enumeration is limited
    to :data:`ENUMERATION_LIMIT` offsets (beyond, an unprovable case raises).
    """
    if type(a) is not Layout:
        a = _check_layout(a, "composition A")
    tb = type(b)
    if tb is Layout:
        return _compose(a, b)
    if b is None:
        return a
    if tb is tuple or tb is list:
        return _compose_by_mode(a, b)
    if it.is_int(b):
        b = _check_layout(b, "composition B")
    elif not isinstance(b, Layout):
        raise ShapeError(f"composition B must be a Layout, an int, None or a tuple of tilers, got {b!r}")
    return _compose(a, b)


def _scale(stride: IntTuple, d: int) -> IntTuple:
    """Every leaf of ``stride`` times ``d``."""
    if type(stride) is tuple:
        return tuple(_scale(x, d) for x in stride)  # type: ignore[union-attr]
    return stride * d  # type: ignore[operator]


def _compose_by_mode(a: Layout, tiler: Sequence[Any]) -> Layout:
    modes = list(a)
    if len(tiler) > len(modes):
        raise ShapeError(f"tiler of rank {len(tiler)} has more modes than the rank-{len(modes)} layout {a}")
    parts = []
    for i, mode in enumerate(modes):
        if i < len(tiler):
            try:
                parts.append(composition(mode, tiler[i]))
            except LayoutError as err:
                raise type(err)(f"mode {i}: {err}") from None
        else:
            parts.append(mode)
    return Layout._trusted(tuple(p.shape for p in parts), tuple(p.stride for p in parts))


def _leaf_cute(flat_a: Pairs, s: int, r: int) -> Pairs | None:
    """CuTe's composition of coalesced ``A`` (flat pairs, >= 2 modes) with ``s:r`` (``s > 1``, ``r > 0``).

    Returns None where CuTe's stride or shape divisibility condition fails.
    """
    rest_r = r
    strided: Pairs = []
    for a_s, a_d in flat_a[:-1]:
        if rest_r == 1:
            strided.append((a_s, a_d))
        elif rest_r % a_s == 0:
            rest_r //= a_s
        elif a_s % rest_r == 0:
            strided.append((a_s // rest_r, a_d * rest_r))
            rest_r = 1
        else:
            return None
    last_d = flat_a[-1][1] * rest_r
    out: Pairs = []
    rest_s = s
    for m_s, m_d in strided:
        if rest_s == 1:
            break
        if rest_s % m_s == 0:
            out.append((m_s, m_d))
            rest_s //= m_s
        elif m_s % rest_s == 0:
            out.append((rest_s, m_d))
            rest_s = 1
        else:
            return None
    if rest_s > 1:
        out.append((rest_s, last_d))
    return _coalesce_pairs(out)


@lru_cache(maxsize=4096)
def _compose(a: Layout, b: Layout) -> Layout:
    flat_a = _coalesce_extended(_pairs(a))
    if len(flat_a) <= 1:
        # A is linear on all integers: A(x) = x * d, so A o B scales B's strides.
        d = flat_a[0][1] if flat_a else 0
        return Layout._trusted(b.shape, _scale(b.stride, d))

    blocks: list[tuple[int, int]] = []
    failed = False

    def leaf(s: int, r: int) -> IntTuple:
        nonlocal failed
        if r == 0 or s == 1:
            return (s, 0)  # type: ignore[return-value]
        if r < 0:
            raise CompositionError(
                f"B has a negative stride {r} (extent {s}), so B reaches negative offsets where the "
                f"non-linear A = {a} is undefined"
            )
        pairs = _leaf_cute(flat_a, s, r)
        if pairs is None:
            failed = True
            return (s, 0)  # type: ignore[return-value]
        blocks.append((r, s))
        if len(pairs) == 1:
            return pairs[0]  # type: ignore[return-value]
        if not pairs:
            return (1, 0)  # type: ignore[return-value]
        return tuple(zip(*pairs))  # type: ignore[return-value]

    def walk(shape: IntTuple, stride: IntTuple) -> tuple[IntTuple, IntTuple]:
        if type(shape) is tuple:
            subs = [walk(s, d) for s, d in zip(shape, stride)]  # type: ignore[call-overload, arg-type]
            return tuple([x for x, _ in subs]), tuple([y for _, y in subs])
        return leaf(shape, stride)  # type: ignore[arg-type, return-value]

    shape, stride = walk(b.shape, b.stride)
    if not failed:
        candidate = Layout._trusted(shape, stride)
        if _blocks_disjoint(blocks) or _agrees(a, b, candidate):
            return candidate
    return _synthesise(a, b)


def _blocks_disjoint(blocks: list[tuple[int, int]]) -> bool:
    """True when the sorted index blocks ``[r, r*s)`` nest as a divisor chain (no carry between leaves)."""
    blocks.sort()
    return all(r0 * s0 > 0 and r1 % (r0 * s0) == 0 for (r0, s0), (r1, _) in zip(blocks, blocks[1:]))


def _check_domain(n: int, what: str) -> None:
    if n > ENUMERATION_LIMIT:
        raise CompositionError(
            f"{what}: cannot be proved without enumerating {n} offsets (limit {ENUMERATION_LIMIT}); "
            "no result is returned rather than an unchecked one"
        )


def _composed_values(a: Layout, b: Layout) -> Any:
    """``A(B(i))`` for every ``i < size(B)`` as a numpy array."""
    _check_domain(b.size(), f"composition {a} o {b}")
    b_vals = b.to_numpy()
    if b_vals.size and int(b_vals.min()) < 0:
        raise CompositionError(f"B = {b} reaches a negative offset, where the non-linear A = {a} is undefined")
    return evaluate_modes(it.flatten(a.shape), it.flatten(a.stride), b_vals)


def _agrees(a: Layout, b: Layout, candidate: Layout) -> bool:
    import numpy as np

    return bool(np.array_equal(candidate.to_numpy(), _composed_values(a, b)))


def _synthesise(a: Layout, b: Layout) -> Layout:
    """The layout with B's top-level mode sizes whose function is ``A(B(c))``, or CompositionError."""
    values = _composed_values(a, b)
    if not it.is_tuple(b.shape):
        pairs = synthesise_1d(values)
        if pairs is None:
            raise CompositionError(f"A o B is not a layout: A = {a}, B = {b}; {_why_not_1d(values)}")
        return _from_pairs(pairs)
    result = _synth_tuple(b.shape, values, f"A o B with A = {a}, B = {b}", top=True)
    assert result is not None  # top=True raises instead of returning None
    return Layout._trusted(result[0], result[1])


def _split_additive(sizes: Sequence[int], values: Any) -> list[Any] | None:
    """Per-mode value arrays when ``values`` (colex over ``sizes``) is a sum of per-mode functions."""
    import numpy as np

    grid = values.reshape(tuple(reversed(sizes)))
    rank = len(sizes)
    parts = []
    total = np.zeros_like(grid)
    for k in range(rank):
        axis = rank - 1 - k
        index = tuple(slice(None) if ax == axis else 0 for ax in range(rank))
        part = grid[index]
        parts.append(part)
        shape = [1] * rank
        shape[axis] = sizes[k]
        total = total + part.reshape(shape)
    if not np.array_equal(total, grid):
        return None
    return parts


def _synth_tuple(shape: IntTuple, values: Any, what: str, top: bool) -> tuple[IntTuple, IntTuple] | None:
    sizes = [it.product(m) for m in shape]  # type: ignore[union-attr]
    parts = _split_additive(sizes, values)
    if parts is None:
        if top:
            raise CompositionError(
                f"{what}: the function is not a sum of per-mode functions over B's modes {sizes}, "
                f"so no layout of that shape has it ({_first_non_additive(sizes, values)})"
            )
        return None
    out_s: list[IntTuple] = []
    out_d: list[IntTuple] = []
    for k, (mode, part) in enumerate(zip(shape, parts)):  # type: ignore[arg-type]
        sub = _synth_tuple(mode, part, what, top=False) if it.is_tuple(mode) and len(mode) > 1 else None  # type: ignore[arg-type]
        if sub is None:
            pairs = synthesise_1d(part)
            if pairs is None:
                raise CompositionError(f"{what}: mode {k} is not a layout ({_why_not_1d(part)})")
            res = _from_pairs(pairs)
            sub = (res.shape, res.stride)
            if it.is_tuple(mode) and len(mode) == 1:  # type: ignore[arg-type]
                sub = ((sub[0],), (sub[1],))
        out_s.append(sub[0])
        out_d.append(sub[1])
    return tuple(out_s), tuple(out_d)


def _first_non_additive(sizes: Sequence[int], values: Any) -> str:
    import numpy as np

    grid = values.reshape(tuple(reversed(sizes)))
    rank = len(sizes)
    for flat in range(values.size):
        crd = np.unravel_index(flat, grid.shape)
        parts = 0
        for axis in range(rank):
            index = tuple(crd[ax] if ax == axis else 0 for ax in range(rank))
            parts += int(grid[index])
        if parts != int(grid[crd]):
            coord = tuple(int(c) for c in reversed(crd))
            return f"at coordinate {coord} A(B(c)) = {int(grid[crd])}, but the modes' values sum to {parts}"
    return "no witness found"


def synthesise_1d(values: Any) -> Pairs | None:
    """The coalesced flat layout whose values on ``[0, n)`` are ``values``, or None if none exists.

    Greedy and exact: the first mode's stride is ``g(1)``; its extent ``e`` is the
    first index where ``g(i) != i*g(1)`` (it must divide ``n``); the rest is the
    layout of the quotient ``j -> g(j*e)``.  In a coalesced layout the first
    extent is exactly that index, so the greedy choice loses nothing; the
    candidate is compared with ``values`` at the end.
    """
    import numpy as np

    vals = np.asarray(values)
    n = int(vals.size)
    if n == 0 or int(vals[0]) != 0:
        return None
    pairs: Pairs = []
    step = 1
    m = n
    while m > 1:
        sub = vals[::step][:m]
        d = int(sub[1])
        deviates = np.flatnonzero(sub != np.arange(m, dtype=np.int64).astype(sub.dtype) * d)
        e = int(deviates[0]) if deviates.size else m
        if m % e:
            return None
        pairs.append((e, d))
        step *= e
        m //= e
    pairs = _coalesce_pairs(pairs)
    shapes = [s for s, _ in pairs] or [1]
    strides = [d for _, d in pairs] or [0]
    if not np.array_equal(offsets_of_modes(shapes, strides), vals):
        return None
    return pairs


def _why_not_1d(values: Any) -> str:
    head = ", ".join(str(int(v)) for v in values[:12])
    return f"its values {head}{', ...' if len(values) > 12 else ''} do not follow any shape:stride"


# ---------------------------------------------------------------------------
# complement
# ---------------------------------------------------------------------------
def complement(layout: Layout, cotarget: Any = None) -> Layout:
    """CuTe ``complement(A, M)``: the layout ``R`` of the offsets ``A`` leaves out, up to ``M``.

    ``M`` defaults to ``cosize(A)``; a shape is read as its size (as CuTe DSL
    does).  Stride-0 modes are ignored (CuTe filters them), so ``A`` means
    ``filter(A)`` below.  CuTe's algorithm sorts A's modes by stride and fills
    each gap: ``R = (d1/1, d2/(s1 d1), ..., ceil(M/(sn dn))) : (1, s1 d1, ..., sn dn)``,
    coalesced.

    The definition: ``R`` is ordered (``R(i) < R(i+1)``, CuTe's postcondition),
    ``make_layout(A, R)`` is injective, and its image covers ``[0, M)``.  A
    complement is returned **exactly when one exists**:

    * when A's sorted strides form a divisor chain, every division above is
      exact and CuTe's answer is a complement by construction;
    * otherwise (CuTe floors the division and can return a non-covering or
      malformed layout, e.g. a 0 extent, on which CuTe DSL even crashes with
      SIGFPE) CuTe's candidate is checked on the whole domain and returned if
      it is one; if not, the one candidate that every complement must start
      with is built and checked (offsets below ``M`` are forced greedily, and
      so is R's shortest prefix holding them; the proof is in
      :mod:`layoutalg.core.complement_search`).  If that fails, none exists.

    ``complement((2,2):(2,3), 1) == 1:0``; ``complement((2,2):(1,3), 12)``
    raises :class:`CompositionError` (A covers 0, 1, 3, 4, so offset 2 is
    forced, and A shifted by 2 covers 3 again).  Raises :class:`NotInjectiveError` when
    ``filter(A)`` is not injective.  Negative strides are outside CuTe's
    domain and raise.
    """
    if type(layout) is not Layout:
        layout = _check_layout(layout, "complement layout")
    m = _cotarget(layout, cotarget)
    return _complement(layout, m)


def _cotarget(layout: Layout, cotarget: Any) -> int:
    if type(cotarget) is int and cotarget >= 1:
        return cotarget
    if cotarget is None:
        return layout.cosize()
    if isinstance(cotarget, Layout):
        raise ShapeError("complement cotarget must be an int or a shape, not a Layout")
    value = it.product(it.to_int_tuple(cotarget, "complement cotarget"))
    if value < 1:
        raise ShapeError(f"complement cotarget must be positive, got {cotarget}")
    return value


def _complement(layout: Layout, m: int) -> Layout:
    by_stride = sorted([(d, s) for s, d in _pairs(layout) if d != 0 and s != 1])
    if by_stride and by_stride[0][0] < 0:
        d, s = by_stride[0]
        raise LayoutError(f"complement needs non-negative strides; {layout} has stride {d} (extent {s})")
    # Fast path, A's strides a divisor chain: CuTe's answer, built coalesced (gap modes never merge:
    # gap k ends at d_k and the next starts at s_k*d_k > d_k; only extent-1 gaps drop out).
    shapes: list[int] = []
    strides: list[int] = []
    cur = 1
    for d, s in by_stride:
        if d % cur:
            break
        if d != cur:
            shapes.append(d // cur)
            strides.append(cur)
        cur = s * d
    else:
        rest = -(-m // cur)
        if rest > 1 or not shapes:
            shapes.append(rest)
            strides.append(cur if rest > 1 else 0)
        if len(shapes) == 1:
            return Layout._trusted(shapes[0], strides[0])
        return Layout._trusted(tuple(shapes), tuple(strides))
    pairs = [(s, d) for d, s in by_stride]
    gaps: Pairs = []  # CuTe's gap-filling modes, one per mode of A
    currents = [1]  # the span covered after each mode of A
    exact = True
    cur = 1
    for d, s in by_stride:
        if d % cur:
            exact = False
        gaps.append((d // cur, cur))
        cur = s * d
        currents.append(cur)
    candidate = _gap_layout(gaps, currents[-1], m)
    if exact:
        return candidate
    return _check_complement(layout, pairs, gaps, currents, m)


def _gap_layout(gaps: Pairs, cur: int, m: int) -> Layout:
    """CuTe's complement from the gap modes and the rest mode ``ceil(M/cur):cur``, coalesced."""
    modes = [(g, c) for g, c in gaps if g > 1] + [(it.ceil_div(m, cur), cur)]
    return _from_pairs(_coalesce_pairs(modes))


def _check_complement(layout: Layout, pairs: Pairs, gaps: Pairs, currents: list[int], m: int) -> Layout:
    """CuTe's candidate when it is a complement, else the one candidate every complement starts with, else raise.

    The second candidate and why it decides existence: :mod:`layoutalg.core.complement_search`.
    """
    import numpy as np

    _check_injective(layout, pairs, "complement")
    a_vals = offsets_of_modes([s for s, _ in pairs] or [1], [d for _, d in pairs] or [0])
    what = f"complement of {layout} for {m}"
    cute = _gap_layout(gaps, currents[-1], m)
    if m + int(a_vals.max()) > GREEDY_LIMIT:
        if _is_complement(a_vals, cute, m, what):
            return cute
        raise CompositionError(
            f"{what}: CuTe's candidate is not a complement, and deciding whether another is walks "
            f"{m + int(a_vals.max())} offsets one by one (limit {GREEDY_LIMIT}); "
            "no result is returned rather than an unchecked one"
        )
    # The forced walk first: where it clashes (the usual failure) no complement exists, found cheaply.
    forced, clash = forced_offsets([int(v) for v in np.sort(a_vals)], m)
    if clash is not None:
        raise CompositionError(
            f"{layout} has no complement for cotarget {m}: covering [0, {m}) from 0 upwards forces the offsets "
            f"{_head(forced + [clash[0]])}, and A shifted by {clash[0]} hits offset {clash[1]}, which is already covered"
        )
    if _is_complement(a_vals, cute, m, what):
        return cute
    candidate = _from_pairs(layout_with_prefix(forced))
    if _is_complement(a_vals, candidate, m, what):
        return candidate
    raise CompositionError(
        f"{layout} has no complement for cotarget {m}: the only layout that can start with the forced "
        f"offsets {_head(forced)} is {candidate}, which is not one"
    )


def _head(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values[:8]) + (", ...]" if len(values) > 8 else "]")


def _is_complement(a_vals: Any, candidate: Layout, m: int, what: str) -> bool:
    """``candidate`` is ordered, ``(A, candidate)`` injective, and their offsets cover ``[0, m)``."""
    import numpy as np

    n = a_vals.size * candidate.size()
    if n < m:
        return False  # too few offsets to cover [0, M)
    _check_domain(n, what)
    r_vals = candidate.to_numpy()
    if r_vals.size > 1 and not bool((np.diff(r_vals) > 0).all()):
        return False
    vals = (a_vals[None, :] + r_vals[:, None]).ravel()
    return np.unique(vals).size == vals.size and bool(np.isin(np.arange(m), vals).all())


def _check_injective(layout: Layout, pairs: Pairs, what: str) -> None:
    """Raise NotInjectiveError, with two colliding coordinates, if the flat ``pairs`` layout is not injective."""
    import numpy as np

    n = math.prod(s for s, _ in pairs)
    _check_domain(n, f"{what}: injectivity of {layout}")
    vals = offsets_of_modes([s for s, _ in pairs] or [1], [d for _, d in pairs] or [0])
    _, first, counts = np.unique(vals, return_index=True, return_counts=True)
    if (counts > 1).any():
        dup = int(np.flatnonzero(counts > 1)[0])
        i = int(first[dup])
        j = int(np.flatnonzero(vals == vals[i])[1])
        raise NotInjectiveError(
            f"{what} needs an injective layout; {layout} (stride-0 modes ignored) maps "
            f"flat indices {i} and {j} both to offset {int(vals[i])}"
        )


# ---------------------------------------------------------------------------
# inverses
# ---------------------------------------------------------------------------
def _right_inverse(layout: Layout) -> Layout:
    flat = _coalesce_pairs(_pairs(layout))
    index_strides = []
    running = 1
    for s, _ in flat:
        index_strides.append(running)
        running *= s
    first_with_stride: dict[int, int] = {}
    for k, (_, d) in enumerate(flat):
        first_with_stride.setdefault(d, k)
    out: Pairs = []
    cur = 1
    while cur in first_with_stride:  # cur grows strictly (extents > 1), so no mode is taken twice
        j = first_with_stride[cur]
        out.append((flat[j][0], index_strides[j]))
        cur *= flat[j][0]
    return _from_pairs(out)


def right_inverse(layout: Layout) -> Layout:
    """CuTe ``right_inverse``: ``R`` with ``A(R(i)) == i`` for every ``i < size(R)``, ``R`` as large as CuTe makes it.

    Follows the chain of strides from 1 through ``coalesce(A)``: the mode with
    stride 1, then the one with stride equal to its extent, and so on; ``R``
    maps ``i`` to the index whose coordinates are ``i``'s digits in those modes.
    Exact by construction.  Only positive strides are followed (CuTe C++
    follows ``|d|`` and negates, which gives ``A(R(i)) == -i``; CuTe DSL returns
    ``1:0`` for ``(4,2):(-1,4)`` as this does).  Stride-0 modes are skipped,
    where pycute stops at the first one.
    """
    return _right_inverse(layout if type(layout) is Layout else _check_layout(layout, "right_inverse layout"))


def left_inverse(layout: Layout) -> Layout:
    """CuTe ``left_inverse``: ``L`` with ``L(A(i)) == i`` for every ``i < size(A)``.

    With ``coalesce(A)``'s modes sorted by stride ``d1 < d2 < ... < dn``,
    ``L = (d1, d2/d1, ..., dn/d(n-1), sn) : (0, j1, ..., j(n-1), jn)`` (``jk``
    the index stride of mode k), coalesced: the offset's mixed-radix digits in
    radices ``d(k+1)/dk`` are A's coordinates.  That is CuTe DSL's answer
    (``left_inverse((2,2):(1,3)) == (3,2):(1,2)``) and is exact when each
    stride divides the next and ``d(k+1) >= sk*dk``.

    Where those strides do not chain, a left inverse may still exist
    (``(2,2):(2,3)`` has ``(2,4):(1,1)``, ``(2,3):(3,2)`` has one with a negative
    stride); it is found by a complete search over prime radix sequences with
    an exact integer solve for the strides
    (:mod:`layoutalg.core.left_inverse_search` gives the argument), so ``L``
    is returned **exactly when one exists**.  Raises
    :class:`NotInjectiveError` for a non-injective ``A`` (a stride-0 mode of
    extent > 1 included), :class:`CompositionError` when no layout is a left
    inverse (with the reason), and also, saying so, when the search would
    pass its bound on the search (a few seconds; never met while every offset
    is below 4096).
    Negative strides raise: ``L`` is defined on non-negative offsets only.
    """
    return _left_inverse(layout if type(layout) is Layout else _check_layout(layout, "left_inverse layout"))


def _left_inverse(layout: Layout) -> Layout:
    flat = _coalesce_pairs(_pairs(layout))
    index_strides = []
    running = 1
    for s, _ in flat:
        index_strides.append(running)
        running *= s
    for s, d in flat:
        if d == 0:
            raise NotInjectiveError(
                f"left_inverse needs an injective layout; {layout} has a stride-0 mode of extent {s}"
            )
        if d < 0:
            raise LayoutError(f"left_inverse needs non-negative strides; {layout} has stride {d} (extent {s})")
    order = sorted(range(len(flat)), key=lambda k: flat[k][1])
    out: Pairs = []
    prev = 1
    for pos, k in enumerate(order):
        s, d = flat[k]
        chained = d % prev == 0 and (pos + 1 == len(order) or flat[order[pos + 1]][1] >= s * d)
        if not chained:
            return _searched_left_inverse(layout, flat)
        out.append((d // prev, 0 if pos == 0 else index_strides[order[pos - 1]]))
        prev = d
    if order:
        last = order[-1]
        out.append((flat[last][0], index_strides[last]))
    return _from_pairs(_coalesce_pairs(out))


def _searched_left_inverse(layout: Layout, flat: Pairs) -> Layout:
    """The left inverse found by the complete search, checked on every offset; or CompositionError."""
    import numpy as np

    _check_injective(layout, flat, "left_inverse")
    offsets = offsets_of_modes([s for s, _ in flat], [d for _, d in flat])
    try:
        found = find_left_inverse([int(v) for v in offsets])
    except SearchExhaustedError:
        raise CompositionError(
            f"left_inverse of {layout}: undecided; its strides do not chain, and the search for a left "
            f"inverse passed its bound of {left_inverse_search.NODE_LIMIT} radix prefixes or "
            f"{left_inverse_search.WORK_LIMIT} offset groups (largest offset {int(offsets.max())}; "
            "below 4096 it always decides)"
        ) from None
    if found is None:
        raise CompositionError(
            f"left_inverse of {layout}: no layout L has L(A(i)) == i for all i (its strides do not chain, "
            "and no radices and strides fit its offsets)"
        )
    candidate = _from_pairs(_coalesce_pairs(found))
    back = evaluate_modes(it.flatten(candidate.shape), it.flatten(candidate.stride), offsets)
    if not np.array_equal(back, np.arange(offsets.size)):  # pragma: no cover - the search solves exactly
        raise CompositionError(f"left_inverse of {layout}: internal search result {candidate} fails its check")
    return candidate


# ---------------------------------------------------------------------------
# common vectors
# ---------------------------------------------------------------------------
def _common_prefix(a: Layout, b: Layout) -> tuple[Layout, int]:
    """``(right_inverse(b), N)``: the first N offsets of B's codomain are the same offsets of A's."""
    inv_b = right_inverse(b)
    try:
        common = _coalesce_pairs(_pairs(composition(a, inv_b)))
    except CompositionError:
        # No layout has the function A o inv(B); read the common prefix off the values.
        import numpy as np

        vals = _composed_values(a, inv_b)
        bad = np.flatnonzero(vals != np.arange(vals.size))
        e = int(bad[0]) if bad.size else int(vals.size)
        return inv_b, _largest_divisor_at_most(inv_b.size(), e)
    if common and common[0][1] == 1:
        return inv_b, common[0][0]
    return inv_b, 0


def _largest_divisor_at_most(n: int, bound: int) -> int:
    """The largest divisor of ``n`` that is ``<= bound`` (1 at least)."""
    best = 1
    k = 1
    while k * k <= n:
        if n % k == 0:
            for q in (k, n // k):
                if best < q <= bound:
                    best = q
        k += 1
    return best


def max_common_vector(a: Layout, b: Layout) -> int:
    """CuTe ``max_common_vector``: the largest ``N`` with ``A(R(i)) == i`` for ``i < N``, ``R = right_inverse(B)``.

    That is, the first ``N`` offsets of B's codomain hold the same logical
    elements in ``A``, so ``N`` elements can move as one vector.  Computed as
    CuTe does (the first mode of ``coalesce(A o R)`` if its stride is 1, else 1).
    """
    a = _check_layout(a, "max_common_vector A")
    b = _check_layout(b, "max_common_vector B")
    n = _common_prefix(a, b)[1]
    return max(n, 1)


def max_common_layout(a: Layout, b: Layout) -> Layout:
    """CuTe ``max_common_layout``: ``right_inverse(B) o N:1`` for ``N = max_common_vector(A, B)``.

    It maps ``i < N`` to the logical index of B's offset ``i``; ``1:0`` when
    there is no common stride-1 vector.
    """
    a = _check_layout(a, "max_common_layout A")
    b = _check_layout(b, "max_common_layout B")
    inv_b, n = _common_prefix(a, b)
    if n == 0:
        return Layout._trusted(1, 0)
    return composition(inv_b, Layout._trusted(n, 1))


__all__ = [
    "ENUMERATION_LIMIT",
    "coalesce",
    "filter_zeros",
    "filter",
    "composition",
    "complement",
    "right_inverse",
    "left_inverse",
    "max_common_vector",
    "max_common_layout",
    "synthesise_1d",
]
