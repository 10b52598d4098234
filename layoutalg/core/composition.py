"""CuTe's ``composition``, made exact: CuTe's algorithm where it is provably right, synthesis otherwise."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.flat import (
    Pairs,
    check_domain,
    check_layout,
    coalesce_extended,
    coalesce_pairs,
    from_pairs,
    leaf_pairs,
)
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout, evaluate_modes, offsets_of_modes
from layoutalg.core.leaf_digits import Leaf, Place, carry_witness, cute_condition_failing, cute_leaf, first_carry
from layoutalg.core.shape_ops import by_mode
from layoutalg.core.validate import describe, is_bool
from layoutalg.errors import CompositionError, ShapeError


def composition(a: Layout, b: Any) -> Layout:
    """``A o B``: the layout with B's shape whose value at ``c`` is ``A(B(c))``.

    ``b`` may be a :class:`Layout`, an int ``N`` (the tiler ``N:1``), ``None``
    (keep ``A``), or a tuple of tilers applied by mode (``A``'s mode ``i`` is
    composed with ``b[i]``; ``None`` keeps a mode; modes past ``len(b)`` are
    dropped, as CuTe C++ does and PyCuTe's newest tests expect:
    ``(4,5):(1,4) o (2,) == (2):(1)``, so ``compatible(b, A o b)`` holds).

    **The rule (soundness beyond CuTe).**  The result is a layout ``R`` whose
    shape refines ``B``'s and ``R(c) == A(B(c))`` for every ``c`` in
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
       modes are refined the same way: each must be additive across its
       sub-modes (else no layout refining B's shape exists, and it is refused
       rather than read as one 1-D mode: PyCuTe's ``compatible(B, A o B)``).

    ``B(c) < 0`` is allowed only when ``A`` is linear; enumeration is limited
    to :data:`ENUMERATION_LIMIT` offsets (beyond, an unprovable case raises).
    """
    if type(a) is not Layout:
        a = check_layout(a, "composition A")
    tb = type(b)
    if tb is Layout:
        fast = compose_flat(a, b)
        if fast is not None:
            return fast
        return _compose_naming_cute(a, b)
    if b is None:
        return a
    if tb is tuple or tb is list:
        return by_mode(composition, a, b, "composition", keep_rest=False)
    if it.is_int(b) or _is_integer(b):
        b = check_layout(b, "composition B")
    elif not isinstance(b, Layout):
        raise ShapeError(f"composition B must be a Layout, an int, None or a tuple of tilers, got {describe(b)}")
    return _compose_naming_cute(a, b)


def _compose_naming_cute(a: Layout, b: Layout) -> Layout:
    """:func:`_compose`, a refusal saying which of CuTe's conditions fails first on B's leaves (the words
    PyCuTe's errors use: ``(4,6,8):(2,3,5) o 6:3`` breaks "Stride divisibility", ``o 6:1`` "Shape
    divisibility"); where none fails, the refusal is the values' alone."""
    try:
        return _compose(a, b)
    except CompositionError as refusal:
        flat_a = coalesce_extended(leaf_pairs(a))
        for s, r in leaf_pairs(b):
            failing = cute_condition_failing(flat_a, s, r) if len(flat_a) > 1 and s > 1 and r > 0 else None
            if failing:
                raise CompositionError(f"{refusal} (CuTe's {failing} condition fails at B's leaf {s}:{r})") from None
        raise


def _is_integer(x: Any) -> bool:
    """A non-bool integer of another type (numpy's): a tiler ``N`` like an int."""
    return hasattr(x, "__index__") and not is_bool(x) and getattr(x, "ndim", 0) == 0


def _scale(stride: IntTuple, d: int) -> IntTuple:
    """Every leaf of ``stride`` times ``d``."""
    if type(stride) is tuple:
        return tuple(_scale(x, d) for x in stride)  # type: ignore[union-attr]
    return stride * d  # type: ignore[operator]


def compose_flat(a: Layout, b: Layout) -> Layout | None:
    """``A o B`` for a flat B (an int shape or a tuple of ints) by the steps :func:`_compose` takes for it, without
    its memo or its walk over B's tree; None where ``_compose`` would go past CuTe's leaf algorithm (a negative
    stride, a failed divisibility condition, index blocks that are not a divisor chain), which then decides as
    before.  Only one path is skipped: the general one rebuilds the same candidate and returns it."""
    a_shape: Any = a.shape
    flat_a: Pairs = [(a_shape, a.stride)] if type(a_shape) is int else coalesce_extended(leaf_pairs(a))  # type: ignore[list-item]
    return compose_pairs(flat_a, b)


def compose_pairs(flat_a: Pairs, b: Layout) -> Layout | None:
    """:func:`compose_flat` with ``A`` given as ``coalesce_extended`` of its leaves."""
    b_shape: Any = b.shape
    b_stride: Any = b.stride
    if len(flat_a) <= 1:  # A linear: A o B scales B's strides
        d = flat_a[0][1] if flat_a else 0
        return Layout._trusted(b_shape, _scale(b_stride, d))
    if type(b_shape) is int:  # one leaf, one index block: no carry between leaves
        if b_stride == 0 or b_shape == 1:
            return Layout._trusted(b_shape, 0)
        if b_stride < 0:
            return None
        one = _one_digit_leaf(flat_a, b_shape, b_stride)  # the common case, and cheaper than CuTe's walk
        if one is not None:
            return one
        found = cute_leaf(flat_a, b_shape, b_stride)
        if found is None:
            return None
        pairs = found[0]
        if len(pairs) == 1:
            return Layout._trusted(pairs[0][0], pairs[0][1])
        if not pairs:
            return Layout._trusted(1, 0)
        shape, stride = zip(*pairs)
        return Layout._trusted(shape, stride)
    shapes: list[IntTuple] = []
    strides: list[IntTuple] = []
    blocks: list[tuple[int, int]] = []
    for s, r in zip(b_shape, b_stride):
        one, block = _flat_leaf(flat_a, s, r)
        if one is None:
            return None
        shapes.append(one.shape)
        strides.append(one.stride)
        if block:
            blocks.append((r, s))
    if not _blocks_disjoint(blocks):
        return None
    return Layout._trusted(tuple(shapes), tuple(strides))


def _one_digit_leaf(flat_a: Pairs, s: int, r: int) -> Layout | None:
    """``A o s:r`` (``s > 1``, ``r > 0``) where the leaf's offsets ``r*t`` all fall inside one digit of coalesced
    ``A`` without wrapping: that digit's step ``u`` (``r`` is the digits below times ``u``, ``u`` divides the
    digit's extent ``S``) with ``s <= S/u`` gives ``A(r*t) == a*u*t``, the mode ``s:(a*u)``.  That is CuTe's
    answer where its shape condition holds (``s`` divides ``S/u``), and what ``_compose``'s synthesis reads off
    the values where it does not.  None otherwise (and for a zero ``a``)."""
    rest_r = r
    for a_s, a_d in flat_a[:-1]:
        if rest_r != 1 and rest_r % a_s == 0:
            rest_r //= a_s
            continue
        if a_s % rest_r or s > a_s // rest_r or a_d == 0:
            return None
        return Layout._trusted(s, a_d * rest_r)
    return None


def _flat_leaf(flat_a: Pairs, s: int, r: int) -> tuple[Layout | None, bool]:
    """CuTe's ``A o s:r`` for one leaf of B, as ``_compose``'s ``leaf`` builds it, and whether it occupies an
    index block; None for a negative stride or a failed CuTe condition."""
    if type(s) is not int or type(r) is not int:
        return None, False
    if r == 0 or s == 1:
        return Layout._trusted(s, 0), False
    if r < 0:
        return None, False
    found = cute_leaf(flat_a, s, r)
    if found is None:
        return None, False
    pairs = found[0]
    if len(pairs) == 1:
        return Layout._trusted(pairs[0][0], pairs[0][1]), True
    if not pairs:
        return Layout._trusted(1, 0), True
    shape, stride = zip(*pairs)
    return Layout._trusted(shape, stride), True


@lru_cache(maxsize=4096)
def _compose(a: Layout, b: Layout) -> Layout:
    flat_a = coalesce_extended(leaf_pairs(a))
    if len(flat_a) <= 1:
        # A is linear on all integers: A(x) = x * d, so A o B scales B's strides.
        d = flat_a[0][1] if flat_a else 0
        return Layout._trusted(b.shape, _scale(b.stride, d))

    blocks: list[tuple[int, int]] = []
    leaves: list[tuple[int, int, int, tuple[Place, ...]]] = []  # a Leaf's fields, made one only when needed
    failed = False

    def leaf(s: int, r: int, top: int, index_stride: int) -> IntTuple:
        nonlocal failed
        if r == 0 or s == 1:
            return (s, 0)  # type: ignore[return-value]
        if r < 0:
            raise CompositionError(
                f"B has a negative stride {r} (extent {s}), so B reaches negative offsets where the "
                f"non-linear A = {a} is undefined"
            )
        found = cute_leaf(flat_a, s, r)
        if found is None:
            failed = True
            return (s, 0)  # type: ignore[return-value]
        pairs, places = found
        blocks.append((r, s))
        leaves.append((r, top, index_stride, places))
        if len(pairs) == 1:
            return pairs[0]  # type: ignore[return-value]
        if not pairs:
            return (1, 0)  # type: ignore[return-value]
        return tuple(zip(*pairs))  # type: ignore[return-value]

    def walk(shape: IntTuple, stride: IntTuple, top: int, index_stride: int) -> tuple[IntTuple, IntTuple]:
        if type(shape) is tuple:
            subs = []
            for s, d in zip(shape, stride):  # type: ignore[call-overload, arg-type]
                subs.append(walk(s, d, top, index_stride))
                index_stride *= it.product(s)
            return tuple([x for x, _ in subs]), tuple([y for _, y in subs])
        return leaf(shape, stride, top, index_stride)  # type: ignore[arg-type, return-value]

    if type(b.shape) is tuple:
        walked = [walk(s, d, p, 1) for p, (s, d) in enumerate(zip(b.shape, b.stride))]  # type: ignore[call-overload, arg-type]
        shape: IntTuple = tuple([x for x, _ in walked])
        stride: IntTuple = tuple([y for _, y in walked])
    else:
        shape, stride = walk(b.shape, b.stride, 0, 1)
    if not failed:
        candidate = Layout._trusted(shape, stride)
        if _blocks_disjoint(blocks):
            return candidate
        digits = [Leaf(*leaf) for leaf in leaves]
        carry = first_carry(flat_a, digits)
        if carry is None:
            return candidate  # no carry between leaves: CuTe's sum is exact (core.leaf_digits)
        if not _carry_refutes(a, b, digits, carry) and _agrees(a, b, candidate):
            return candidate
    return _synthesise(a, b)


def _carry_refutes(a: Layout, b: Layout, leaves: list[Leaf], k: int) -> bool:
    """Evaluate the carry witness at digit ``k`` (:mod:`~layoutalg.core.leaf_digits`): True when it shows CuTe's
    summed answer wrong there; raises CompositionError when it shows ``A o B`` is not additive across B's
    top-level modes (then no layout of B's mode sizes exists).  False when the witness does not confirm."""
    picks = carry_witness(leaves, k)
    offsets = {j: leaves[j].stride * t for j, t in picks.items()}
    total = a(sum(offsets.values()))
    if total == sum(a(x) for x in offsets.values()):
        return False
    tops = sorted({leaves[j].top for j in picks})
    if len(tops) < 2:
        return True
    per_top = {p: a(sum(x for j, x in offsets.items() if leaves[j].top == p)) for p in tops}
    if total == sum(per_top.values()):
        return True
    coordinate = [0] * it.rank(b.shape)
    for j, t in picks.items():
        coordinate[leaves[j].top] += t * leaves[j].index_stride
    raise CompositionError(  # the wording of _synthesise's refusal: the same fact, found without enumerating
        f"A o B with A = {a}, B = {b}: the function is not a sum of per-mode functions over B's modes "
        f"{[it.product(m) for m in b.shape]}, so no layout of that shape has it (at coordinate {tuple(coordinate)} "  # type: ignore[union-attr]
        f"A(B(c)) = {total}, but the modes' values sum to {sum(per_top.values())})"
    )


def _blocks_disjoint(blocks: list[tuple[int, int]]) -> bool:
    """True when the sorted index blocks ``[r, r*s)`` nest as a divisor chain (no carry between leaves)."""
    blocks.sort()
    return all(r0 * s0 > 0 and r1 % (r0 * s0) == 0 for (r0, s0), (r1, _) in zip(blocks, blocks[1:]))


def _composed_values(a: Layout, b: Layout) -> Any:
    """``A(B(i))`` for every ``i < size(B)`` as a numpy array."""
    check_domain(b.size(), f"composition {a} o {b}")
    b_vals = b.to_numpy()
    if b_vals.size and int(b_vals.min()) < 0:
        raise CompositionError(f"B = {b} reaches a negative offset, where the non-linear A = {a} is undefined")
    return evaluate_modes(it.flatten(a.shape), it.flatten(a.stride), b_vals)


def _agrees(a: Layout, b: Layout, candidate: Layout) -> bool:
    import numpy as np

    return bool(np.array_equal(candidate.to_numpy(), _composed_values(a, b)))


def _synthesise(a: Layout, b: Layout) -> Layout:
    """The layout refining B's shape whose function is ``A(B(c))``, or CompositionError."""
    values = _composed_values(a, b)
    if not it.is_tuple(b.shape):
        pairs = synthesise_1d(values)
        if pairs is None:
            raise CompositionError(f"A o B is not a layout: A = {a}, B = {b}; {_why_not_1d(values)}")
        return from_pairs(pairs)
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
        inner, wraps = mode, 0
        while it.is_tuple(inner) and len(inner) == 1:  # type: ignore[arg-type]
            inner, wraps = inner[0], wraps + 1  # type: ignore[index]
        # A nested mode must be refined too (PyCuTe's postcondition compatible(B, A o B)): its value is then a sum
        # over its sub-modes, so where it is not, no layout of B's shape has the function (refused, not read 1-D).
        if it.is_tuple(inner):
            sub = _synth_tuple(inner, part, f"{what}, mode {k}", top=True)
            assert sub is not None  # top=True raises instead of returning None
        else:
            pairs = synthesise_1d(part)
            if pairs is None:
                raise CompositionError(f"{what}: mode {k} is not a layout ({_why_not_1d(part)})")
            res = from_pairs(pairs)
            sub = (res.shape, res.stride)
        for _ in range(wraps):  # a 1-tuple mode stays one
            sub = ((sub[0],), (sub[1],))
        out_s.append(sub[0])
        out_d.append(sub[1])
    return tuple(out_s), tuple(out_d)


def _first_non_additive(sizes: Sequence[int], values: Any) -> str:
    """The first coordinate (colexicographic) where ``values`` is not the sum of its per-mode parts, as text."""
    import numpy as np

    grid = values.reshape(tuple(reversed(sizes)))
    rank = len(sizes)
    total = np.zeros_like(grid)
    for axis in range(rank):
        index = tuple(slice(None) if ax == axis else 0 for ax in range(rank))
        shape = [1] * rank
        shape[axis] = grid.shape[axis]
        total = total + grid[index].reshape(shape)
    bad = np.flatnonzero((total != grid).ravel())
    if not bad.size:
        return "no witness found"
    crd = np.unravel_index(int(bad[0]), grid.shape)  # C order on the reversed sizes: the colexicographic index
    coord = tuple(int(c) for c in reversed(crd))
    return f"at coordinate {coord} A(B(c)) = {int(grid[crd])}, but the modes' values sum to {int(total[crd])}"


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
    pairs = coalesce_pairs(pairs)
    shapes = [s for s, _ in pairs] or [1]
    strides = [d for _, d in pairs] or [0]
    if not np.array_equal(offsets_of_modes(shapes, strides), vals):
        return None
    return pairs


def _why_not_1d(values: Any) -> str:
    head = ", ".join(str(int(v)) for v in values[:12])
    return f"its values {head}{', ...' if len(values) > 12 else ''} do not follow any shape:stride"
