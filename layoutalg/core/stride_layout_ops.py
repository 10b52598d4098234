"""The algebra on :class:`~layoutalg.core.stride_layout.StrideLayout` (basis and F2 strides).

A result is exact by construction where an argument below says so (``layout_add`` of Z-linear strides, or of
F2 strides at a size that is a power of two; ``nullspace`` of non-negative int or basis strides; the property
tests in ``tests/test_core_stride_layout_ops_contract.py`` compare those with the enumeration); every other
result is checked against the brute-force function on its whole domain (the values are enumerated; domains
above :data:`~layoutalg.core.flat.ENUMERATION_LIMIT` are refused):

* ``coalesce`` / ``coalesce_z``: CuTe's merge ``s0:d0, s1:d1 -> (s0*s1):d0`` when
  ``s0*d0 == d1``; for F2 strides also only when ``s0`` is a power of two (otherwise the
  index carries between the modes, and ``(3,4):(F2(1),F2(3))`` is not ``12:F2(1)``).
* ``composition(A, B)``: ``A`` with any strides and an int ``B``: CuTe's algorithm, B's
  leaves split along A's modes; a ``B`` with basis strides addresses ``A`` by coordinate, and
  ``A o B`` is read off the values with B's shape.
* ``layout_add``: the common refinement of the two index domains, summed leaf by leaf.
* ``nullspace``: the indices whose value is 0, as a layout.
* ``make_layout_like``: compact in the order of the strides (a basis vector orders by its
  path, colexicographically, then by its scale; an F2 by its bits).

The codomain side (``coshape``, the inverses, the complement) is in
:mod:`layoutalg.core.stride_codomain`.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.flat import check_domain, from_pairs
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout, stride_layout
from layoutalg.core.stride_scalars import F2, ArithTuple, ScaledBasis, value_as_coordinate
from layoutalg.core.validate import check_depth, describe
from layoutalg.errors import CompositionError, ShapeError

Pairs = list[tuple[int, Any]]


def _pairs(x: Any) -> Pairs:
    if isinstance(x, StrideLayout):
        return x.pairs()
    return list(zip(it.flatten(x.shape), it.flatten(x.stride)))


def _z_linear(pairs: Pairs) -> bool:
    """Every stride an int or an ArithTuple of int leaves (no F2 anywhere): the layout is Z-linear in each
    coordinate, so splitting a leaf ``s:d`` into ``(s1, s/s1):(d, s1*d)``, merging by CuTe's rule and summing
    strides leaf by leaf keep the function exactly (the by-construction cases that need no enumeration)."""
    for _, d in pairs:
        if isinstance(d, ArithTuple):
            if not all(type(v) is int for v, _ in d.terms()):
                return False
        elif type(d) is not int:
            return False
    return True


def _by_mode(op: Any, a: Any, tiler: Any, name: str, keep_rest: bool = True) -> Any:
    """``op(mode_i, tiler[i])`` for the first ``len(tiler)`` top-level modes (``None`` keeps a mode); modes past
    the tiler kept (CuTe's by-mode divides and products) or, with ``keep_rest`` False, dropped (its by-mode
    ``composition``), as :func:`~layoutalg.core.shape_ops.by_mode` for int-stride layouts."""
    check_depth(tiler, f"{name} tiler")
    modes = list(a) if isinstance(a.shape, tuple) else [a]
    if len(tiler) > len(modes):
        raise ShapeError(f"{name}: tiler of rank {len(tiler)} has more modes than the rank-{len(modes)} layout {a}")
    parts = [m if t is None else op(m, t) for m, t in zip(modes, tiler)] + (modes[len(tiler):] if keep_rest else [])
    return stride_layout(tuple(p.shape for p in parts), tuple(p.stride for p in parts))


def _values(x: Any) -> list[Any]:
    """``x(i)`` for every ``i < size``, by enumeration."""
    check_domain(x.size(), f"values of {x}")
    return x.values() if isinstance(x, StrideLayout) else [int(v) for v in x.to_numpy()]


def offset_values(x: Any, what: str) -> list[int]:
    """``x(i)`` for every ``i < size`` as ints, for a layout whose values are integers (int or F2 strides, or a
    plain layout); CompositionError naming ``what`` at a coordinate value, or past ENUMERATION_LIMIT points."""
    values = _values(x)
    for i, value in enumerate(values):
        if not isinstance(value, (int, F2)):
            raise CompositionError(f"{what}: {x} maps {i} to the coordinate {value}, not an integer offset")
    return [int(v) for v in values]


def _mergeable(s0: int, d0: Any, d1: Any) -> bool:
    if _has_f2(d0) or _has_f2(d1):  # an F2 stride, or a basis vector with an F2 component
        return s0 & (s0 - 1) == 0 and d1 == s0 * d0  # no carry between the modes: s0 a power of two
    return bool(d1 == s0 * d0)


def _has_f2(d: Any) -> bool:
    return isinstance(d, F2) or (isinstance(d, ArithTuple) and any(isinstance(v, F2) for v, _ in d.terms()))


def _coalesce_pairs(pairs: Pairs, keep_last: bool) -> Pairs:
    out: Pairs = []
    for k, (s, d) in enumerate(pairs):
        last = keep_last and k == len(pairs) - 1
        if s == 1 and not last:
            continue
        if out and _mergeable(out[-1][0], out[-1][1], d):
            out[-1] = (out[-1][0] * s, out[-1][1])
        elif s != 1 or last:
            out.append((s, d))
    return out


def _from(pairs: Pairs) -> Any:
    if not pairs:
        return Layout._trusted(1, 0)
    if len(pairs) == 1:
        return stride_layout(pairs[0][0], pairs[0][1])
    return stride_layout(tuple(s for s, _ in pairs), tuple(d for _, d in pairs))


def coalesce(layout: StrideLayout) -> Any:
    """CuTe ``coalesce`` (see the module docstring): the same values on ``[0, size)``, flat."""
    return _from(_coalesce_pairs(_pairs(layout), keep_last=False))


def coalesce_z(layout: StrideLayout) -> Any:
    """``coalesce`` keeping the function on every index (the last leaf stays, merged only when it continues)."""
    return _from(_coalesce_pairs(_pairs(layout), keep_last=True))


def _checked(result: Any, want: list[Any], what: str) -> Any:
    if _values(result) != want:
        raise CompositionError(f"{what}: no layout of this form has the function (checked on every index)")
    return result


def _split_leaf(flat_a: Pairs, s: int, r: int) -> Pairs | None:
    """CuTe's composition of flat ``A`` with one leaf ``s:r`` of B (stride-generic), None where a division fails."""
    rest_r, strided = r, []
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
    out, rest_s = [], s
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
        out.append((rest_s, flat_a[-1][1] * rest_r))
    return _coalesce_pairs(out, keep_last=False)


def composition(a: Any, b: Any) -> Any:
    """``A o B`` for basis or F2 strides on either side (see the module docstring), checked on B's domain.

    Where CuTe's construction fails (a division of B's leaf by A's extents does not go through) or gives
    another function (a carry between A's modes), the layout of B's shape is read off the values
    ``A(B(i))``, as :func:`layoutalg.core.composition.composition` does for int strides: ``(4,2):(1@1,1@1) o
    4:6`` is ``(2,2):(3@1,3@1)``.  A refusal then says that no layout of B's shape has the function."""
    if isinstance(b, StrideLayout):
        return _by_coordinate(a, b)
    if isinstance(b, (tuple, list)):  # by mode; modes past the tiler dropped, as for int strides
        return _by_mode(composition, a, b, "composition", keep_rest=False)
    flat_a, b = _coalesce_pairs(_pairs(a), keep_last=True) or [(1, 0)], _inner_operand(b)
    want = [a(int(j)) for j in _values(b)]
    what = f"{a} o {b}"

    def walk(shape: Any, stride: Any) -> tuple[Any, Any] | None:
        if isinstance(shape, tuple):
            parts = [walk(s, d) for s, d in zip(shape, stride)]
            if any(p is None for p in parts):
                return None
            return tuple(p[0] for p in parts if p), tuple(p[1] for p in parts if p)
        if stride == 0 or shape == 1:
            return shape, 0
        if stride < 0:
            raise CompositionError(f"composition with a negative stride {stride} of B into {a}")
        pairs = _split_leaf(flat_a, shape, stride)
        if pairs is None:
            return None  # CuTe's divisibility fails at this leaf of B
        if len(pairs) == 1:
            return pairs[0]
        return (tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)) if pairs else (1, 0)

    walked = walk(b.shape, b.stride)
    if walked is not None:
        candidate = stride_layout(*walked)
        if _values(candidate) == want:
            return candidate
    return read_values(b.shape, want, what)


def _by_coordinate(a: Any, b: StrideLayout) -> Any:
    """``A o B`` where B's values are coordinates of A: the values ``A(B(i))`` read as a layout of B's shape."""
    values = [a(_as_coordinate(v, a.shape)) for v in _values(b)]
    return read_values(b.shape, values, f"{a} o {b}")


def read_values(shape: Any, values: list[Any], what: str) -> Any:
    """The layout of ``shape`` (its modes refined as needed) whose function is ``values``, or CompositionError.

    Int values are read by :func:`layoutalg.core.composition._synth_tuple`'s exact synthesis, else (non-negative
    ones) as F2 strides where they are GF(2)-linear in the index bits (:func:`_read_f2`).  Basis values
    are numbered first: each path one balanced digit in a radix larger than twice any component, a map that
    is linear and one-to-one on the values and on the strides that could produce them (a stride is a value
    at one coordinate), so a basis layout has the function exactly when the numbered values are an int
    layout's, whose strides decode back; the result is checked on every index."""
    if all(isinstance(v, int) for v in values):
        try:
            return _checked(_read_ints(shape, values, what), values, what)
        except CompositionError as no_int_layout:
            if min(values, default=0) < 0:
                raise
            try:  # no int layout: an F2 one has these values where they are GF(2)-linear in the index bits
                return _read_f2(shape, [F2(v) for v in values], what)
            except CompositionError:
                raise no_int_layout from None
    if any(isinstance(v, ArithTuple) and any(isinstance(x, F2) for x, _ in v.terms()) for v in values):
        return _read_by_leaves(shape, values, what)  # an F2 axis beside others: leaf by leaf
    if any(isinstance(v, F2) for v in values):
        return _read_f2(shape, values, what)
    paths = sorted({p for v in values if isinstance(v, ArithTuple) for _, p in v.terms()}
                   | {() for v in values if isinstance(v, int) and v})
    top = max([abs(x) for v in values if isinstance(v, ArithTuple) for x, _ in v.terms()]
              + [abs(v) for v in values if isinstance(v, int)] + [1])
    radix = 2 * top + 1

    def number(v: Any) -> int:
        terms = v.terms() if isinstance(v, ArithTuple) else ([(v, ())] if v else [])
        return sum(x * radix ** paths.index(p) for x, p in terms)

    try:
        ints = _read_ints(shape, [number(v) for v in values], what)
    except CompositionError:
        raise CompositionError(f"{what}: no layout of B's shape {_fmt_shape(shape)} has the function "
                               f"(its values begin {', '.join(map(str, values[:8]))})") from None
    decoded = it.unflatten([_decode(d, paths, radix) for d in it.flatten(ints.stride)], ints.shape)
    return _checked(stride_layout(ints.shape, decoded), values, what)


def _fmt_shape(shape: Any) -> str:
    return str(shape).replace(" ", "").replace(",)", ")")


def _read_f2(shape: Any, values: list[Any], what: str) -> Any:
    """The F2-stride layout of ``shape`` (each leaf refined as needed) whose function is ``values``.

    An F2 leaf of a power-of-two extent is GF(2)-linear in its coordinate's bits (``clmul``), and a
    power-of-two extent splits only into power-of-two leaves, so a layout with F2 strides refining
    ``shape`` has the function exactly when it is linear in the index bits: bit ``b`` of leaf ``k`` then
    has the stride ``values[P_k << b]`` (``P_k`` the leaf's index stride), and adjacent bits merge where
    CuTe's coalesce allows.  A leaf of any other extent ``m`` (the index carries between its bits) is read
    as every ordered factorization of ``m`` in turn, each factor's stride the value at its prefix product
    (:func:`_leaf_fit`): ``2:F16 o 5:F27`` is ``5:F432``.  Checked on every index."""

    def read_leaf(m: int, running: int) -> list[tuple[int, Any]]:
        if m & (m - 1):
            pairs = _leaf_fit([values[running * c] for c in range(m)])
            if pairs is None:
                raise CompositionError(f"{what}: its values are F2, and along B's extent {m} they are no F2 "
                                       "layout's (every factorization of the extent tried)")
            return pairs
        bits = [(2, F2(int(values[running << b]))) for b in range(m.bit_length() - 1)]
        return _coalesce_pairs(bits, keep_last=False) or [(1, 0)]

    result = _read_leaf_by_leaf(shape, read_leaf)
    if _values(result) != values:
        raise CompositionError(f"{what}: no layout with F2 strides of B's shape {_fmt_shape(shape)} has the "
                               "function (it is not GF(2)-linear in the index bits, or its leaves' values do not "
                               "XOR together)")
    return result


def _read_leaf_by_leaf(shape: Any, read_leaf: Any) -> Any:
    """The layout of ``shape`` whose leaf of extent ``m`` at index stride ``P`` is refined into the flat pairs
    ``read_leaf(m, P)`` (read off the values along that leaf, the other leaves' coordinates 0)."""
    leaves = list(it.flatten(shape)) if isinstance(shape, tuple) else [shape]
    parts: list[tuple[Any, Any]] = []
    running = 1
    for m in leaves:
        pairs = read_leaf(m, running)
        parts.append(pairs[0] if len(pairs) == 1 else (tuple(x for x, _ in pairs), tuple(d for _, d in pairs)))
        running *= m
    leaf_shapes, leaf_strides = [x for x, _ in parts], [d for _, d in parts]
    if isinstance(shape, tuple):
        return stride_layout(it.unflatten(leaf_shapes, shape), it.unflatten(leaf_strides, shape))
    return stride_layout(leaf_shapes[0], leaf_strides[0])


def _leaf_fit(values: list[Any]) -> list[tuple[int, Any]] | None:
    """Flat pairs ``(f1, ..., fk):(d1, ..., dk)``, ``f1*...*fk == len(values)``, whose values
    ``c1*d1 + ... + ck*dk`` in index order are ``values``, in the values' own arithmetic (ints; F2: XOR and
    the carry-less product; basis vectors entry by entry, an F2 entry so, an int one plainly); None when none
    are.  A stride is the value at its prefix product, so each ordered factorization fixes one candidate."""
    for factors in _ordered_factorizations(len(values)):
        strides, running = [], 1
        for f in factors:
            strides.append(values[running])
            running *= f
        fits = True
        for c, want in enumerate(values):
            got: Any = 0
            rest = c
            for f, d in zip(factors, strides):
                digit = rest % f
                if digit:
                    got = got + d * digit
                rest //= f
            if not got == want:
                fits = False
                break
        if fits:
            return list(zip(factors, strides)) or [(1, 0)]
    return None


def _read_by_leaves(shape: Any, values: list[Any], what: str) -> Any:
    """The layout of ``shape`` (each leaf refined as :func:`_leaf_fit` finds) whose function is ``values``, for
    values no other reading takes (basis vectors with F2 entries): each leaf of B read alone, at the other
    leaves' coordinate 0, then the whole checked on every index (the leaves' values must add)."""

    def read_leaf(m: int, running: int) -> list[tuple[int, Any]]:
        pairs = _leaf_fit([values[running * c] for c in range(m)])
        if pairs is None:
            raise CompositionError(f"{what}: along B's extent {m} its values are no layout's (every factorization "
                                   "of the extent tried)")
        return pairs

    result = _read_leaf_by_leaf(shape, read_leaf)
    try:
        same = _values(result) == values
    except ShapeError:  # two leaves' strides that do not add (an int and an F2 on one axis)
        same = False
    if not same:
        raise CompositionError(f"{what}: no layout of B's shape {_fmt_shape(shape)} has the function (its values "
                               "along B's leaves do not add)")
    return result


def _ordered_factorizations(n: int) -> list[tuple[int, ...]]:
    """Every ordered factorization of ``n`` into factors >= 2, the single factor first."""
    if n == 1:
        return [()]
    out: list[tuple[int, ...]] = [(n,)]
    for f in range(2, n):
        if n % f == 0:
            out.extend((f,) + rest for rest in _ordered_factorizations(n // f))
    return out


def _decode(n: int, paths: list[tuple[int, ...]], radix: int) -> Any:
    """The basis value numbered ``n`` (balanced digits, one per path)."""
    out: Any = 0
    for p in paths:
        digit = (n + radix // 2) % radix - radix // 2
        n = (n - digit) // radix
        if digit:
            out = out + ScaledBasis(digit, p)
    if n:
        raise CompositionError(f"internal: {n} left over decoding a stride")
    return out


def _read_ints(shape: Any, values: list[int], what: str) -> Layout:
    import numpy as np

    from layoutalg.core.composition import _synth_tuple, synthesise_1d

    array = np.array(values, dtype=object if max(map(abs, values), default=0) >= 1 << 62 else np.int64)
    if isinstance(shape, tuple):
        synth = _synth_tuple(shape, array, what, True)
        result = Layout(*synth) if synth is not None else None
    else:
        pairs = synthesise_1d(array)
        result = from_pairs(pairs) if pairs is not None else None
    if result is None:
        raise CompositionError(f"{what}: the values are not those of any layout of B's shape")
    return result


def _as_coordinate(v: Any, shape: Any) -> Any:
    """A basis value as a coordinate of ``shape`` (implicit zeros filled in); CompositionError where it is none."""
    return value_as_coordinate(v, shape, CompositionError)


def layout_add(a: Any, b: Any) -> Any:
    """``i -> A(i) + B(i)`` as a layout (either may have basis or F2 strides), coalesced and checked."""
    from layoutalg.core.layout_add import _refine

    if a.size() != b.size():
        raise ShapeError(f"layout_add needs layouts of one size; {a} has {a.size()}, {b} has {b.size()}")
    pairs_a, pairs_b = _pairs(a), _pairs(b)
    summed = _refine(_coalesce_pairs(pairs_a, False), _coalesce_pairs(pairs_b, False))  # type: ignore[arg-type]
    if summed is None:
        raise CompositionError(f"layout_add({a}, {b}): the index domains do not refine each other")
    result = _from(_coalesce_pairs(summed, False))
    size = a.size()
    if (_z_linear(pairs_a) and _z_linear(pairs_b)) or size & (size - 1) == 0:
        # Exact by construction: Z-linear strides split and sum exactly (_z_linear); with F2 strides a size that
        # is a power of two makes every extent, so every split, a power of two: a carry-less split at a power of
        # two is a shift (no carry between the parts) and XOR sums distribute over the carry-less product.
        return result
    want = [x + y for x, y in zip(_values(a), _values(b))]
    return _checked(result, want, f"layout_add({a}, {b})")


def nullspace(layout: Any) -> Any:
    """The increasing layout of the indices whose value is 0.

    With int or basis strides whose every entry is non-negative, a sum ``sum c_k d_k`` is 0 exactly when every
    coordinate of a non-zero stride is 0, so the zeros are the stride-0 modes' coordinates: their extents at
    their index strides, coalesced (PyCuTe's construction, exact there); otherwise they are enumerated."""
    pairs = _pairs(layout)
    if _z_linear(pairs) and all(_non_negative(d) for _, d in pairs):
        zero_modes: Pairs = []
        index_stride = 1
        for s, d in pairs:
            if s > 1 and d == 0:  # an ArithTuple equals 0 when every leaf is 0
                zero_modes.append((s, index_stride))
            index_stride *= s
        return from_pairs(_coalesce_pairs(zero_modes, False) or [(1, 0)])
    return _nullspace_by_values(layout)


def _non_negative(d: Any) -> bool:
    return all(v >= 0 for v, _ in d.terms()) if isinstance(d, ArithTuple) else bool(d >= 0)


def _nullspace_by_values(layout: Any) -> Any:
    """:func:`nullspace` by enumerating every value (any strides): the zeros read in increasing order, else as a
    GF(2) subspace, else listed in any order (:func:`layoutalg.core.set_listing.layout_listing`)."""
    from layoutalg.core.composition import synthesise_1d
    from layoutalg.core.set_listing import layout_listing

    zeros = [i for i, v in enumerate(_values(layout)) if v == 0]
    pairs = synthesise_1d(zeros)
    if pairs is None:
        kernel = _f2_kernel(layout, zeros)
        if kernel is not None and sorted(int(v) for v in _values(kernel)) == zeros:
            return kernel
        return layout_listing(zeros, f"nullspace of {layout}")  # the zeros in another order (a complete search)
    return from_pairs(pairs)


def _f2_kernel(layout: Any, zeros: list[int]) -> Any:
    """The zeros of an F2-stride layout as an F2-stride layout of indices where they form a GF(2) subspace
    (closed under XOR), else None.

    With power-of-two extents an F2 layout is GF(2)-linear in its index bits (:mod:`layoutalg.core.f2_strides`),
    so its zeros are the kernel of that bit matrix, always a subspace; with other extents they may be one too.
    A subspace with the basis ``k1 < k2 < ...`` (reduced echelon, index bit patterns) is listed exactly, each
    index once, by ``(2, 2, ...):(F(k1), F(k2), ...)`` (the XOR of the chosen basis vectors), e.g.
    ``(4,4,8):(F7,F9,F2)`` has the zeros 0, 7, 114, 117 = ``(2,2):(F7,F114)``, which no int layout lists."""
    if len(zeros) < 2 or not any(isinstance(d, F2) for _, d in _pairs(layout)):
        return None
    from layoutalg.core.f2_strides import _reduce

    # Leading bit -> basis vector.  The zeros go in ascending, so each pivot is the smallest zero with its leading
    # bit, which is already reduced: XOR-ing a lower pivot into it would give a smaller zero with that leading bit.
    pivots = {top: vector for top, (vector, _) in _reduce(zeros).items()}
    if len(zeros) != 1 << len(pivots):
        return None  # |Z| != 2^rank: not closed under XOR
    basis = [pivots[top] for top in sorted(pivots)]
    return _from(_coalesce_pairs([(2, F2(k)) for k in basis], keep_last=False))


def _order_key(d: Any) -> Any:
    if isinstance(d, ArithTuple):
        path, value = max((p, v) for v, p in d.terms())
        return (1, path, int(value) if isinstance(value, F2) else value)
    return (0, (), int(d))


def make_layout_like(layout: Any) -> Layout:
    """Compact in the order of the strides, stride-0 leaves kept at 0 (an int layout of the same shape)."""
    pairs = _pairs(layout)
    out = [0] * len(pairs)
    running = 1
    for k in sorted((k for k in range(len(pairs)) if pairs[k][1] != 0), key=lambda k: (_order_key(pairs[k][1]), k)):
        out[k] = running
        running *= pairs[k][0]
    return Layout._trusted(layout.shape, it.unflatten(out, layout.shape))


def _lift(stride: Any, i: int) -> Any:
    if isinstance(stride, tuple):
        return tuple(_lift(d, i) for d in stride)
    return ScaledBasis(stride, (i,)) if stride != 0 else 0


def _scale(e: Any, stride: Any) -> Any:
    if isinstance(stride, tuple):
        return tuple(_scale(e, d) for d in stride)
    return e * stride


def tiler_to_layout(tiler: Any, e: Any = 1) -> Any:
    """CuTe's tiler as a layout: ``N -> N:1``; a layout is itself; a tuple ``(t0, t1, ...)`` is the layout whose
    mode ``i`` is ``t_i``'s layout with its strides moved to axis ``i``: ``(4, 5) -> (4,5):(E(0),E(1))``.

    ``e`` (PyCuTe's second argument, a stride scalar) is the unit an int or a layout is read on: ``N -> N:e``, a
    layout's strides ``d -> e * d`` (an ``F2`` unit multiplies carry-less); a tuple puts each mode on its own
    axis, so ``e`` does not enter."""
    from layoutalg.core.symbolic import SymbolicLayout, is_sym, symbolic_layout

    if isinstance(tiler, SymbolicLayout) or is_sym(tiler):  # PyCuTe's symbolic extent N -> N:e
        base = tiler if isinstance(tiler, SymbolicLayout) else symbolic_layout(tiler, 1)
        if not (type(e) is int or is_sym(e)):
            raise ShapeError(f"tiler_to_layout of a symbolic tiler: the unit e must be an int or a symbol, got "
                             f"{describe(e)}")
        return base if type(e) is int and e == 1 else symbolic_layout(base.shape, _scale(e, base.stride))
    if is_sym(e) and isinstance(tiler, (int, Layout)) and not isinstance(tiler, bool):  # a symbolic unit
        base = tiler_to_layout(tiler)
        return symbolic_layout(base.shape, _scale(e, base.stride))
    if e is not None and not (type(e) is int and e == 1) and not isinstance(tiler, (tuple, list)):
        from layoutalg.core.stride_scalars import is_stride_scalar

        if not is_stride_scalar(e):
            raise ShapeError(f"tiler_to_layout unit e must be a stride scalar (an int, an ArithTuple, an F2), "
                             f"got {describe(e)}")
        base = tiler_to_layout(tiler)
        return stride_layout(base.shape, _scale(e, base.stride))
    if isinstance(tiler, (Layout, StrideLayout)):
        return tiler
    if isinstance(tiler, int) and not isinstance(tiler, bool):
        return Layout(tiler, 1)
    if isinstance(tiler, (tuple, list)):
        check_depth(tiler, "tiler_to_layout tiler")
        modes = [tiler_to_layout(t) for t in tiler]
        return StrideLayout(tuple(m.shape for m in modes), tuple(_lift(m.stride, i) for i, m in enumerate(modes)))
    raise ShapeError(f"a tiler is an int, a layout or a tuple of tilers, got {describe(tiler)}")


def identity_composition(tiler: Any) -> Any:
    """``composition(None, B)``: ``None`` is PyCuTe's identity of unknown extents, which imposes no divisibility
    and leaves the coordinates ``B`` walks: an int ``N`` is ``N:1``, a layout itself, a tuple tiler its
    :func:`tiler_to_layout` (each mode on its own axis), where a ``None`` mode keeps no extent and stands at
    ``1`` with only its axis' stride (``(Layout(3,2), None) -> (3,1):(2@0,1@1)``); ``None`` gives ``None``.  So
    ``composition(A, composition(None, B)) == composition(A, B)``."""
    if tiler is None:
        return None
    if isinstance(tiler, (tuple, list)):
        modes = [Layout(1, 1) if t is None else identity_composition(t) for t in tiler]
        return StrideLayout(tuple(m.shape for m in modes), tuple(_lift(m.stride, i) for i, m in enumerate(modes)))
    return tiler_to_layout(tiler)


def _inner_operand(b: Any) -> Layout:
    """B of ``A o B`` with A of basis or F2 strides: a Layout, or an int extent ``n`` read as ``n:1`` (CuTe's
    tiler reading); a StrideLayout took the coordinate path before."""
    if isinstance(b, int) and not isinstance(b, bool) and b > 0:
        return Layout(b)
    if not isinstance(b, Layout):
        raise ShapeError(f"composition B of a basis- or F2-strided layout must be a Layout, a StrideLayout or a "
                         f"positive int, got {describe(b)}"
                         + (" (a swizzled layout: compose with its .inner)" if hasattr(b, "inner") else ""))
    return b


__all__ = ["coalesce", "coalesce_z", "composition", "layout_add", "nullspace", "make_layout_like",
           "tiler_to_layout", "identity_composition", "read_values", "offset_values"]
