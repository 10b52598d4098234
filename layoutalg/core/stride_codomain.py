"""The codomain side of basis-stride layouts: ``coshape``, ``right_inverse``, ``left_inverse``, ``weak_complement``.

A layout with basis strides (``E<i>``) maps into coordinates.  Its ``coshape`` is the
extent reached on each codomain axis (``coshape((4,8):(E(1),E(0))) == (8, 4)``); numbering
the codomain column-major by the coshape turns the layout into an int one, where the int
algebra applies; the result's domain is then given the coshape's structure, so an inverse
takes coordinates (``R((j, i))``), as PyCuTe's inverses of coordinate layouts do (their
shape is weakly congruent to the codomain's profile).

``weak_complement`` of a coordinate layout works axis by axis: when every stride is one
basis vector, the layout is a product of one layout per codomain axis, each axis gets
its own weak complement (with that axis of the cotarget shape, if given), and the
result has one mode per axis, so it is ordered colexicographically and its values past 0
avoid ``L``'s image.  A stride mixing axes (``ArithTuple(1, 1)``) is refused.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout, has_scalar_strides, stride_layout
from layoutalg.core.stride_layout_ops import _by_mode, _pairs
from layoutalg.core.stride_scalars import F2, ArithTuple, ScaledBasis
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, NotInjectiveError, ShapeError


def coshape(layout: Any) -> Any:
    """The extent of the codomain per axis: ``coshape((4,8):(E(1),E(0))) == (8, 4)``; an int layout's cosize."""
    if not isinstance(layout, (Layout, StrideLayout)):
        if hasattr(layout, "shape") and callable(getattr(layout, "cosize", None)):
            return layout.cosize()  # a swizzled (composed) layout: offsets, one axis
        raise ShapeError(f"coshape takes a layout, got {type(layout).__name__}")
    if isinstance(layout, Layout):
        return layout.cosize()
    if not has_scalar_strides(layout.stride):  # int strides in a StrideLayout: the plain layout's cosize
        return stride_layout(layout.shape, layout.stride).cosize()
    top: dict[tuple[int, ...], int] = {}
    leaves_on: dict[tuple[int, ...], list[tuple[int, Any]]] = {}  # each axis's leaves (extent, value there)
    for s, d in _pairs(layout):
        terms = d.terms() if isinstance(d, ArithTuple) else ([(d, ())] if d != 0 else [])
        for v, p in terms:
            leaves_on.setdefault(p, []).append((s, v))
            top[p] = top.get(p, 0) + (s - 1) * max(int(v), 0)
    for p, leaves in leaves_on.items():  # an XOR of carry-less products: its largest value by enumeration
        if any(isinstance(v, F2) for _, v in leaves):
            top[p] = _f2_axis_max(layout, p, leaves)
    if not top:
        return 1  # every stride is 0
    if () in top:
        if len(top) > 1:
            raise ShapeError(f"coshape of {layout}: its strides mix plain values with basis vectors")
        return top[()] + 1
    return _nest({p: m + 1 for p, m in top.items()})


def _f2_axis_max(layout: Any, path: tuple[int, ...], leaves: list[tuple[int, Any]]) -> int:
    """The top of an F2 codomain axis: ``2^b - 1`` for the ``b`` bits its values span (the values: the XOR of
    ``c (x) v``, carry-less, over the leaves ``s:v`` on that axis, every ``c < s``, on plain ints over this axis's
    leaves only, :func:`f2_strides.int_values`).  An axis that also holds int strides is enumerated through the
    layout (whose values then do not add: it raises)."""
    from layoutalg.core.f2_strides import int_values

    if not all(isinstance(v, F2) for _, v in leaves):
        return max(int(_component(v, path)) for v in layout.values())
    # an F2 axis is a GF(2) space: its extent is the smallest power of two holding every value (PyCuTe's coshape,
    # ``coshape(4:F3) == 8``: the values 0, 3, 6, 5 span 3 bits)
    return (1 << max(int_values(leaves)).bit_length()) - 1


def _component(v: Any, path: tuple[int, ...]) -> Any:
    for i in path:
        v = v[i] if isinstance(v, ArithTuple) else 0
    return v


def _nest(extents: dict[tuple[int, ...], int]) -> Any:
    """The nested tuple with ``extents[path]`` at each path (1 where no stride reaches)."""
    out: list[Any] = []
    for i in range(1 + max(p[0] for p in extents)):
        sub = {p[1:]: e for p, e in extents.items() if p[0] == i}
        if not sub:
            out.append(1)
        elif () in sub:
            if len(sub) > 1:
                raise ShapeError(f"basis strides reach position {i} both as an int and as a tuple")
            out.append(sub[()])
        else:
            out.append(_nest(sub))
    return tuple(out)


def _axis_strides(cs: Any) -> dict[tuple[int, ...], int]:
    """Each codomain path's stride when the coshape ``cs`` is numbered column-major."""
    out: dict[tuple[int, ...], int] = {}
    running = 1

    def walk(t: Any, path: tuple[int, ...]) -> None:
        nonlocal running
        if isinstance(t, tuple):
            for i, e in enumerate(t):
                walk(e, path + (i,))
        else:
            out[path] = running
            running *= t

    walk(cs, ())
    return out


def _numbered(layout: StrideLayout) -> tuple[Layout, Any]:
    """(the int layout of the codomain numbered column-major by coshape, that coshape)."""
    cs = coshape(layout)
    axis = _axis_strides(cs)
    strides = []
    for _, d in _pairs(layout):
        if isinstance(d, F2) or (isinstance(d, ArithTuple) and any(isinstance(v, F2) for v, _ in d.terms())):
            raise ShapeError(f"{layout}: an F2 codomain has no column-major numbering")
        terms = d.terms() if isinstance(d, ArithTuple) else []
        if any(v < 0 for v, _ in terms):
            raise ShapeError(f"{layout}: a negative basis stride leaves the codomain's coshape")
        strides.append(sum(v * axis[p] for v, p in terms))
    return Layout(layout.shape, it.unflatten(strides, layout.shape)), cs


def _prefix_of(cs: Any, n: int) -> Any:
    """The coshape's largest column-major prefix of size <= n, as a shape congruent to it."""
    flat, out, acc, full = it.flatten(cs), [], 1, True
    for c in flat:
        if not full:
            out.append(1)
            continue
        t = max(k for k in range(1, c + 1) if c % k == 0 and n % (acc * k) == 0)
        out.append(t)
        acc *= t
        full = t == c
    return it.unflatten(out, cs)


def _axis_layouts(layout: StrideLayout, cs: Any) -> list[tuple[tuple[int, ...], Any]] | None:
    """One layout per codomain axis of the coshape ``cs``, over L's whole domain (other axes' leaves at stride
    0), or None when some stride is not a single basis vector."""
    pairs = _pairs(layout)
    axes: dict[tuple[int, ...], list[Any]] = {}
    for k, (_, d) in enumerate(pairs):
        if d == 0:
            continue
        terms = d.terms() if isinstance(d, ArithTuple) else []
        if len(terms) != 1:
            return None
        value, path = terms[0]
        axes.setdefault(path, [0] * len(pairs))[k] = value
    out = []
    for path in _axis_strides(cs):
        strides = axes.get(path, [0] * len(pairs))
        stride = it.unflatten(strides, layout.shape)
        if all(type(d) is int for d in strides):  # L's own shape, int strides: a plain layout, valid as L is
            out.append((path, Layout._trusted(layout.shape, stride)))
        else:
            out.append((path, stride_layout(layout.shape, stride)))
    return out


def _by_axis(layout: StrideLayout, name: str) -> Any:
    """``name`` (right_inverse or left_inverse) taken axis by axis; R's modes follow the codomain's profile, so
    ``R(c) = sum_k R_k(c_k)`` takes L's coordinates."""
    from layoutalg.core import f2_strides, inverses

    cs = coshape(layout)
    axes = _axis_layouts(layout, cs)
    if axes is None:
        return None
    if name == "left_inverse":
        parts = _axis_left_inverses(layout, [one for _, one in axes])
    else:
        parts = _summable([f2_strides.right_inverse(one) if isinstance(one, StrideLayout)
                           else inverses.right_inverse(one) for _, one in axes])
    return stride_layout(it.unflatten([p.shape for p in parts], cs), it.unflatten([p.stride for p in parts], cs))


def _summable(parts: list[Any]) -> list[Any]:
    """Per-axis right inverses whose sum is L's index: ``R(c) = sum_k R_k(c_k)``.

    One layout adds its F2 strides by XOR, which is their sum only where the F2 parts set disjoint index bits.
    Every extent a power of two makes that so (each leaf owns its bits, each part moves only its axis's leaves);
    other extents need not (``(5,2):(F1@1,F1@0)``: the parts ``2:F5`` and ``5:F1`` share bit 0, and ``5 ^ 3 !=
    5 + 3``).  There each F2 part is read as the int layout of its values (``2:5``, ``5:1``), on the longest prefix
    of them an int layout lists (fewer values, still a right inverse there).  An F2 part beside an int part keeps
    its F2 strides (PyCuTe's ``right_inverse((8,8):(F1@0,E1)) == (8,8):(F1,8)``, raising where they meet)."""
    from layoutalg.core.composition import synthesise_1d
    from layoutalg.core.f2_strides import int_values
    from layoutalg.core.flat import from_pairs

    values = [int_values(p.pairs()) if isinstance(p, StrideLayout) else [] for p in parts]  # the F2 parts' values
    f2_bits = [_or_all(v) for v in values]
    seen = 0
    for bits in f2_bits:
        if bits & seen:
            break
        seen |= bits
    else:
        return parts
    out = []
    for part, bits, part_values in zip(parts, f2_bits, values):
        if not bits:
            out.append(part)
            continue
        n = len(part_values)  # at least 2: a part with a bit set has a second value
        while (found := synthesise_1d(part_values[:n])) is None:
            n -= 1  # values[:2] is always the layout 2:values[1]
        out.append(from_pairs(found))
    return out


def _or_all(values: list[int]) -> int:
    bits = 0
    for v in values:
        bits |= v
    return bits


def _axis_left_inverses(layout: StrideLayout, axes: list[Any]) -> list[Any]:
    """Each axis's left inverse ``R_k``, so that ``R(c) = sum_k R_k(c_k)`` is a preimage of every value ``c``.

    Axis ``k``'s layout runs over L's whole domain with every other leaf at stride 0.  ``R(c_k e_k)`` must be a
    preimage of ``c_k e_k``, so ``R_k`` must leave the other axes' leaves at 0; and the sum is a preimage only
    where no two ``R_k`` move the same leaf.  So each ``R_k`` first leaves every leaf but its own at 0
    (:func:`~layoutalg.core.inverses.left_inverse_fixing`); where an axis has no such inverse, it alone may also
    move the leaves of stride 0 on every axis (``(2,4,2,2):(0,E0,3E0,3E0)`` needs the first).  Two axes that both
    need those leaves are refused, saying so (an answer might share them out; not searched)."""
    own = [{k for k, d in enumerate(it.flatten(one.stride)) if not d == 0} for one in axes]
    int_axis = any(not isinstance(one, StrideLayout) for one in axes)
    everywhere_zero = {k for k in range(len(it.flatten(layout.shape))) if not any(k in o for o in own)}
    parts: list[Any] = []
    shared_by = None
    for axis, one in enumerate(axes):
        others = tuple(sorted(k for o in own[:axis] + own[axis + 1:] for k in o))
        try:
            parts.append(_axis_left_inverse(one, others + tuple(sorted(everywhere_zero)), int_axis))
            continue
        except LayoutError as refused:
            if not everywhere_zero:
                raise
            first_refusal = refused
        if shared_by is not None:
            raise type(first_refusal)(
                f"left_inverse of {layout}: axes {shared_by} and {axis} both need the leaves of stride 0 "
                f"({sorted(everywhere_zero)}), which a sum of per-axis inverses cannot share ({first_refusal})")
        parts.append(_axis_left_inverse(one, others, int_axis))
        shared_by = axis
    return parts


def _axis_left_inverse(one: Any, fixed: tuple[int, ...], int_axis: bool) -> Any:
    """One axis's left inverse, its answers leaving the leaves ``fixed`` (all of stride 0 there) at 0.

    An F2 axis beside an int axis is first read as an int layout on its values as integers: the sum with the
    int axes' indices is then an int (``(8,4):(F7@0,E1)`` has ``((3,8,2),4):((-1,1,4),8)``).  Where no int
    layout fits, the GF(2)-linear inverse answers, as PyCuTe's ``right_inverse((8,8):(F1@0,E1)) ==
    (8,8):(F1,8)`` does: exact on every value with one axis non-zero, and, like PyCuTe's, raising where an F2
    index bit pattern would be added to an int."""
    from layoutalg.core import f2_strides, inverses

    if not isinstance(one, StrideLayout):
        return inverses.left_inverse_fixing(one, fixed)
    if int_axis:
        try:
            return _left_inverse_of_f2_values(one, ShapeError(f"{one}: an F2 axis beside an int axis"), fixed)
        except LayoutError:
            pass
    try:  # GF(2)-linear: stride-0 leaves are zero columns, whose index bits it never sets
        return f2_strides.left_inverse(one)
    except (ShapeError, NotInjectiveError) as not_linear:
        return _left_inverse_of_f2_values(one, not_linear, fixed)


def _f2_only(layout: StrideLayout) -> bool:
    """Some stride is an F2 and the rest are 0 (every stride 0 is not an F2 layout: its extents need not be powers
    of two)."""
    pairs = _pairs(layout)
    return any(isinstance(d, F2) for _, d in pairs) and all(isinstance(d, F2) or d == 0 for _, d in pairs)


def right_inverse(layout: StrideLayout) -> Any:
    """``R`` with ``L(R(c)) == c`` on R's domain; for a coordinate layout R takes coordinates (its modes follow
    the codomain axes); for F2 strides see :mod:`layoutalg.core.f2_strides`."""
    from layoutalg.core import f2_strides
    from layoutalg.core.algebra import composition as int_composition
    from layoutalg.core.inverses import right_inverse as int_right_inverse

    if _f2_only(layout):
        return f2_strides.right_inverse(layout)
    by_axis = _by_axis(layout, "right_inverse")
    if by_axis is not None:
        return by_axis
    numbered, cs = _numbered(layout)
    inv = int_right_inverse(numbered)
    return int_composition(inv, Layout(_prefix_of(cs, inv.size())))


def left_inverse(layout: StrideLayout) -> Any:
    """``R`` with ``L(R(L(i))) == L(i)``, taking L's values (coordinates, or F2 bits) as its domain."""
    from layoutalg.core import f2_strides
    from layoutalg.core.algebra import composition as int_composition
    from layoutalg.core.inverses import left_inverse as int_left_inverse

    if _f2_only(layout):
        try:
            return f2_strides.left_inverse(layout)
        except (ShapeError, NotInjectiveError) as not_linear:
            return _left_inverse_of_f2_values(layout, not_linear)
    by_axis = _by_axis(layout, "left_inverse")
    if by_axis is not None:
        return by_axis
    numbered, cs = _numbered(layout)
    return int_composition(int_left_inverse(numbered), Layout(cs))


def _left_inverse_of_f2_values(layout: StrideLayout, not_linear: LayoutError, fixed: tuple[int, ...] = ()) -> Any:
    """Where no GF(2)-linear left inverse exists (an extent that is no power of two, or index bits the strides
    do not keep apart), an int layout read on L's values as integers (XOR patterns, all non-negative, 0 at index
    0): ``R(L(i)) == i``, or the generalized ``L(R(v)) == v`` (:func:`layoutalg.core.inverses.
    left_inverse_of_values`, complete): ``6:F1`` (values 0..5) has ``8:1``.  Refused, both reasons named, where
    no layout fits (``(3,4):(F1,F3)``: ``1 ^ 3 == 2`` repeats a value, and no layout picks preimages).
    ``fixed``: leaves (positions, each of stride 0) every answer leaves at 0 (one axis of a coordinate layout, as
    :func:`layoutalg.core.inverses.left_inverse_fixing`)."""
    from layoutalg.core.f2_strides import int_values
    from layoutalg.core.inverses import fixed_digits, left_inverse_of_values
    from layoutalg.core.left_inverse_search import WORK_LIMIT

    if layout.size() > WORK_LIMIT:
        raise not_linear
    pairs = _pairs(layout)
    try:
        return left_inverse_of_values(int_values(pairs), str(layout), fixed_digits([s for s, _ in pairs], fixed))
    except LayoutError as no_layout:
        raise type(no_layout)(f"{not_linear}; read as integers: {no_layout}") from None


def weak_complement(layout: StrideLayout, cotarget: Any = None) -> Any:
    """Axis by axis weak complement of a coordinate layout (see the module docstring)."""
    from layoutalg.core.weak_complement import weak_complement as int_weak_complement

    return _per_axis(layout, cotarget, int_weak_complement, "weak_complement")


def complement(layout: StrideLayout, cotarget: Any = None) -> Any:
    """CuTe's ``complement`` of a coordinate layout, axis by axis (:func:`layoutalg.core.complement.complement` on
    each axis, with that axis of the cotarget shape): returned exactly when every axis has one."""
    from layoutalg.core.complement import complement as int_complement

    return _per_axis(layout, cotarget, int_complement, "complement")


def _per_axis(layout: StrideLayout, cotarget: Any, int_op: Any, name: str) -> Any:
    """``int_op`` (an int layout's complement) on each codomain axis of a coordinate layout, one mode per axis.

    A cotarget shape with more top-level modes than the coshape extends the codomain: each extra mode ``k`` (which
    ``layout`` does not reach) is covered whole, ``cotarget[k]`` on the basis ``E(k)`` (as PyCuTe extends its
    complement, so that ``logical_divide((4,3):(E(0),E(1)), 2:E(0))`` keeps axis 1 and has size 12)."""
    cs = coshape(layout)
    extra: tuple[Any, ...] = ()
    if isinstance(cotarget, (tuple, list)) and isinstance(cs, tuple) and len(cotarget) > len(cs):
        extra, cotarget = tuple(cotarget[len(cs):]), tuple(cotarget[:len(cs)])
    axes = list(_axis_strides(cs))
    per_axis: dict[tuple[int, ...], list[tuple[int, int]]] = {p: [] for p in axes}
    for s, d in _pairs(layout):
        if d == 0 or s == 1:
            continue
        terms = d.terms() if isinstance(d, ArithTuple) else []
        if len(terms) != 1 or isinstance(terms[0][0], F2):
            raise ShapeError(f"{name} of {layout}: stride {d} is not a single basis vector")
        per_axis[terms[0][1]].append((s, terms[0][0]))
    target = None if cotarget is None else _axis_targets(it.to_int_tuple(cotarget, f"{name} cotarget"), axes)
    if target is not None and len(target) < len(axes):
        raise ShapeError(f"{name} of {layout}: cotarget {describe(cotarget)} has {len(target)} extents, "
                         f"fewer than the {len(axes)} axes of its coshape {cs}")
    modes = []
    for k, path in enumerate(axes):
        pairs = per_axis[path]
        one = Layout(tuple(s for s, _ in pairs), tuple(d for _, d in pairs)) if pairs else Layout(1, 0)
        comp = int_op(one, None if target is None else target[k])
        modes.append(stride_layout(comp.shape, _scaled(comp.stride, path)))
    shapes: Any = it.unflatten(tuple(m.shape for m in modes), cs)
    strides: Any = it.unflatten(tuple(m.stride for m in modes), cs)
    if extra:  # cs is a tuple here, so shapes and strides are too
        whole: Any = it.to_int_tuple(extra, f"{name} cotarget")
        shapes = tuple(shapes) + tuple(whole)
        strides = tuple(strides) + tuple(_basis_like(e, (len(cs) + j,)) for j, e in enumerate(whole))
    return stride_layout(shapes, strides)


def _axis_targets(cotarget: Any, axes: list[tuple[int, ...]]) -> list[int]:
    """Each codomain axis's extent in the cotarget shape: the size of the cotarget's mode at the axis's path (a
    coordinate's entry for a nested mode of ``A`` is its 1-D index there, so a shape ``((3,2),8)`` gives axis 0 the
    extent 6); where the cotarget is not that deep, its leaves in order (one per axis)."""
    out = []
    for path in axes:
        sub = cotarget
        for i in path:
            if not isinstance(sub, tuple) or i >= len(sub):
                return list(it.flatten(cotarget))
            sub = sub[i]
        out.append(it.product(sub))
    return out


def _basis_like(shape: Any, path: tuple[int, ...]) -> Any:
    """``E(path)`` for an int extent; each leaf of a nested one on its own sub-axis (PyCuTe's ``make_basis_like``)."""
    if isinstance(shape, tuple):
        return tuple(_basis_like(e, path + (i,)) for i, e in enumerate(shape))
    return ScaledBasis(1, path)


def logical_divide(a: Any, tiler: Any) -> Any:
    """CuTe's ``logical_divide`` where ``A`` or the tiler has basis strides: ``A o (T, C)``, mode 0 the tile
    ``A o T``, mode 1 walking the tiles.  ``C`` is ``complement(T, size(A))`` for an int tiler and the axis-by-axis
    ``weak_complement(T, shape(A))`` for a coordinate tiler (PyCuTe's divide by a basis tiler).  A tuple tiler
    divides mode by mode; ``None`` keeps ``A``."""
    from layoutalg.core.complement import complement
    from layoutalg.core.stride_layout_ops import composition, tiler_to_layout

    if tiler is None:
        return a
    if isinstance(tiler, (tuple, list)):
        return _by_mode(logical_divide, a, tiler, "logical_divide")
    t = tiler_to_layout(tiler)
    if isinstance(t, StrideLayout):
        rest = weak_complement(t, a.shape if isinstance(a.shape, tuple) else (a.shape,))
    else:
        rest = complement(t, a.size())
    return composition(a, stride_layout((t.shape, rest.shape), (t.stride, rest.stride)))


def divide_identity(tiler: Any, zipped: bool = False) -> Any:
    """PyCuTe's ``logical_divide(None, T)``: the identity (of unbounded extent) divided by ``T``, i.e. ``(T, C)`` with
    ``C = weak_complement(T)``; a tuple tiler divides axis by axis, mode ``i`` being ``(T_i, C_i)`` on axis ``i``
    (``zipped``: ``((T_0, T_1, ...), (C_0, C_1, ...))``); a ``None`` mode of the tiler is ``1:1`` there, as in
    ``composition(None, T)`` (:func:`layoutalg.core.stride_layout_ops.identity_composition`)."""
    from layoutalg.core.stride_layout_ops import tiler_to_layout
    from layoutalg.core.weak_complement import weak_complement as any_weak_complement

    if not isinstance(tiler, (tuple, list)):
        t = tiler_to_layout(tiler)
        c = any_weak_complement(t)
        return stride_layout((t.shape, c.shape), (t.stride, c.stride))
    tiles, rests = [], []
    for i, sub in enumerate(tiler):
        t = Layout(1, 1) if sub is None else tiler_to_layout(sub)  # a None mode keeps no extent: 1 on its axis
        c = any_weak_complement(t) if not isinstance(t, StrideLayout) else weak_complement(t)
        tiles.append((t.shape, _scaled(t.stride, (i,))))
        rests.append((c.shape, _scaled(c.stride, (i,))))
    if zipped:
        return stride_layout((tuple(s for s, _ in tiles), tuple(s for s, _ in rests)),
                             (tuple(d for _, d in tiles), tuple(d for _, d in rests)))
    return stride_layout(tuple((t[0], r[0]) for t, r in zip(tiles, rests)),
                         tuple((t[1], r[1]) for t, r in zip(tiles, rests)))


def logical_product(a: StrideLayout, tiler: Any) -> Any:
    """``(A, weak_complement(A) o B)`` for a coordinate layout ``A``: copies of ``A`` laid out by ``B`` past A's
    coshape, along the axes (a tuple tiler works mode by mode)."""
    from layoutalg.core.stride_layout_ops import composition, tiler_to_layout

    if tiler is None:
        return a
    if isinstance(tiler, (tuple, list)):
        return _by_mode(logical_product, a, tiler, "logical_product")
    rest = composition(weak_complement(a), tiler_to_layout(tiler))
    return stride_layout((a.shape, rest.shape), (a.stride, rest.stride))


def _block_and_repeat(a: StrideLayout, tiler: Any, name: str) -> tuple[list[Any], list[Any]]:
    """The top-level modes of ``logical_product`` of the block and the tiler (a Layout or an int), both padded
    with ``1:0`` modes to the larger rank first, as for int-stride blocks
    (:func:`layoutalg.core.divide_product.blocked_product`)."""
    from layoutalg.core.divide_product import _tiler_layout

    b = tiler if isinstance(tiler, StrideLayout) else _tiler_layout(tiler, f"{name} tiler")
    a_modes = list(a) if isinstance(a.shape, tuple) else [a]
    b_modes = list(b) if isinstance(b.shape, tuple) else [b]
    rank = max(len(a_modes), len(b_modes))
    if rank == 1:
        product = logical_product(a, b)
        return [product[0]], [product[1]]
    pad = [Layout(1, 0)] * rank
    a_pad = stride_layout(tuple(m.shape for m in (a_modes + pad)[:rank]), tuple(m.stride for m in (a_modes + pad)[:rank]))
    b_pad = stride_layout(tuple(m.shape for m in (b_modes + pad)[:rank]), tuple(m.stride for m in (b_modes + pad)[:rank]))
    product = logical_product(a_pad, b_pad)
    return list(product[0]), list(product[1])


def blocked_product(a: StrideLayout, tiler: Any) -> Any:
    """CuTe's ``blocked_product`` of a coordinate layout: mode ``i`` is ``(A_i, R_i)`` with ``R`` the second mode of
    :func:`logical_product` (copies of ``A`` past its coshape, along the axes)."""
    blocks, reps = _block_and_repeat(a, tiler, "blocked_product")
    return stride_layout(tuple((x.shape, y.shape) for x, y in zip(blocks, reps)),
                         tuple((x.stride, y.stride) for x, y in zip(blocks, reps)))


def raked_product(a: StrideLayout, tiler: Any) -> Any:
    """As :func:`blocked_product`, mode ``i`` being ``(R_i, A_i)``."""
    blocks, reps = _block_and_repeat(a, tiler, "raked_product")
    return stride_layout(tuple((y.shape, x.shape) for x, y in zip(blocks, reps)),
                         tuple((y.stride, x.stride) for x, y in zip(blocks, reps)))


def _scaled(stride: Any, path: tuple[int, ...]) -> Any:
    if isinstance(stride, tuple):
        return tuple(_scaled(d, path) for d in stride)
    return ScaledBasis(stride, path) if stride != 0 else 0


__all__ = ["coshape", "right_inverse", "left_inverse", "weak_complement", "complement", "logical_divide",
           "logical_product", "blocked_product", "raked_product", "divide_identity"]
