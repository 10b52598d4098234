"""The int-tuple helpers as ``layoutalg`` exports them: CuTe's functions, with every argument checked.

:mod:`layoutalg.core.int_tuple` holds the same functions unchecked (they are
the algebra's inner loops, fed only by validated layouts).  Here each argument
is first made an int tuple by :func:`~layoutalg.core.validate.as_int_tuple`
(numpy integers are ints; lists are tuples; limits there), and the
preconditions each function relies on are checked, so bad input is a
:class:`~layoutalg.errors.ShapeError` or :class:`~layoutalg.errors.CoordinateError`
naming the argument, never a ``TypeError`` or ``ZeroDivisionError``.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.core.tuple_ops import check_callable, repeat_like
from layoutalg.core.validate import (
    MAX_DEPTH,
    MAX_INT_BITS,
    MAX_NODES,
    any_leaf,
    as_htuple,
    as_int,
    as_int_tuple,
    describe,
)
from layoutalg.errors import CoordinateError, ShapeError


def _shape(x: Any, what: str) -> IntTuple:
    """An int tuple whose leaves are all positive (a shape)."""
    t = as_int_tuple(x, what)
    for k, leaf in enumerate(it.flatten(t)):
        if leaf <= 0:
            raise ShapeError(f"{what}: leaf {k} is {leaf}; a shape's extents must be positive")
    return t  # type: ignore[no-any-return]


def _congruent_pair(a: Any, b: Any, what_a: str, what_b: str) -> tuple[IntTuple, IntTuple]:
    ta, tb = as_int_tuple(a, what_a), as_int_tuple(b, what_b)
    if not it.congruent(ta, tb):
        raise ShapeError(f"{what_a} {describe(ta)} and {what_b} {describe(tb)} are not congruent (different trees)")
    return ta, tb


def flatten(t: Any, g: Any = None) -> Any:
    """CuTe ``flatten``: the leaves of a tuple, left to right (``((2,4),8) -> (2,4,8)``; leaves may be ints,
    symbolic extents or stride scalars); an int is one leaf, ``flatten(7) == (7,)`` as in PyCuTe and pycute (CuTe
    C++ returns the integer itself); for a layout (plain, coordinate, F2 or symbolic), the layout with its shape
    and stride flattened (an int-shaped layout is unchanged).  ``g`` (PyCuTe's): what builds the result from the
    leaves instead of ``tuple``, e.g. ``flatten((Layout(2), Layout(3)), make_layout) == Layout((2,3), (1,1))``
    (a tiler's layouts are its leaves)."""
    if g is not None:
        check_callable(g, 1, "flatten: g")
        return g(it.flatten(as_htuple(t, "flatten argument")) if isinstance(t, (tuple, list)) else (t,))
    if isinstance(t, Layout):
        return t if type(t.shape) is int else Layout._trusted(it.flatten(t.shape), it.flatten(t.stride))
    if _is_other_layout(t):  # a coordinate, F2 or symbolic layout: the same function, flat
        return t if type(t.shape) is not tuple else type(t)(it.flatten(t.shape), it.flatten(t.stride))
    return it.flatten(as_htuple(t, "flatten argument"))


def unflatten(flat: Any, profile: Any, g: Any = tuple) -> Any:
    """CuTe/PyCuTe ``unflatten``: leaves (of any kind) put back into ``profile``'s tree, so that
    ``unflatten(flatten(t), t) == t``.  ``flat`` is a sequence of exactly as many leaves as ``profile`` has, or
    (PyCuTe) an iterator, of which as many are taken as needed; ``g`` builds each tuple node
    (``unflatten(iter([2, 3]), (0, 0), list) == [2, 3]``)."""
    check_callable(g, 1, "unflatten: g")
    profile_t = as_htuple(profile, "unflatten profile")
    need = len(it.flatten(profile_t)) if isinstance(profile_t, tuple) else 1
    if isinstance(flat, (tuple, list)):
        if len(flat) != need:
            raise ShapeError(f"unflatten: {len(flat)} leaves for profile {describe(profile_t)}, which has {need}")
        items = list(flat)
    elif hasattr(flat, "__next__"):
        items = [x for _, x in zip(range(need), flat)]
        if len(items) < need:
            raise ShapeError(f"unflatten: the iterator ran out after {len(items)} leaves; {describe(profile_t)} "
                             f"has {need}")
    else:
        raise ShapeError(f"unflatten takes a sequence or an iterator of leaves, got {describe(flat)}")
    leaves = iter(items)

    def build(node: Any) -> Any:
        return g(build(e) for e in node) if isinstance(node, tuple) else next(leaves)

    return build(profile_t)


def _is_other_layout(t: Any) -> bool:
    """A ``StrideLayout`` (basis or F2 strides) or a ``SymbolicLayout``."""
    return type(t).__name__ in ("StrideLayout", "SymbolicLayout") and hasattr(t, "stride")


def rank(t: Any) -> int:
    """Number of top-level modes (1 for an int); leaves of any kind (:func:`flatten`)."""
    return it.rank(as_htuple(t, "rank argument"))


def depth(t: Any) -> int:
    """Nesting depth: 0 for an int, 1 for a flat tuple; leaves of any kind (:func:`flatten`)."""
    return it.depth(as_htuple(t, "depth argument"))


def product(t: Any) -> int:
    """Product of all leaves (1 for the empty tuple)."""
    return it.product(as_int_tuple(t, "product argument"))


def inner_product(a: Any, b: Any) -> int:
    """Sum of leafwise products of two congruent int tuples."""
    ta, tb = _congruent_pair(a, b, "inner_product a", "inner_product b")
    return it.inner_product(ta, tb)


def congruent(a: Any, b: Any) -> bool:
    """Same tree structure (leaves in the same places, whatever they hold: ints, symbols, basis or F2 values, as
    PyCuTe's ``congruent((4, 8), (E(0), E(1)))``)."""
    return it.congruent(as_htuple(a, "congruent a"), as_htuple(b, "congruent b"))


def weakly_congruent(a: Any, b: Any) -> bool:
    """``a`` is a coarsening of ``b``: a leaf of ``a`` (of any kind: ``weakly_congruent(E(0), 8)``) may stand for
    any subtree of ``b``."""
    return it.weakly_congruent(as_htuple(a, "weakly_congruent a"), as_htuple(b, "weakly_congruent b"))


def _init(init: Any, what: str) -> IntTuple:
    """An int, or a tuple of them weakly congruent to the shape (checked by the product itself)."""
    if isinstance(init, (tuple, list)):
        return as_int_tuple(init, what)
    return as_int(init, what, ShapeError)


class _NotPlainError(Exception):
    pass


_BOUND = 1 << MAX_INT_BITS
_NEG_BOUND = -_BOUND  # computed once: negating a 4096-bit int on every call costs more than the call


def _prefix_plain(shape: tuple[Any, ...], running: int, depth: int,
                  budget: int = MAX_NODES) -> tuple[IntTuple, int, int]:
    """``(prefix products of shape from running, running times its size, budget left)``; _NotPlainError at a leaf
    that is not a plain int within the limits, past the nesting limit, or past ``budget`` tuples (MAX_NODES, shared
    by the whole walk through the return value: a tuple made by pairing one object with itself is refused, not
    walked 2**60 times)."""
    if depth >= MAX_DEPTH or budget <= 0:
        raise _NotPlainError
    budget -= 1
    out: list[Any] = []
    for s in shape:
        if type(s) is int and _NEG_BOUND < s < _BOUND:
            out.append(running)
            running *= s
        elif type(s) is tuple:
            value, running, budget = _prefix_plain(s, running, depth + 1, budget)
            out.append(value)
        else:
            raise _NotPlainError
    return tuple(out), running, budget


def _prefix_init(shape: Any, init: Any, depth: int, budget: int = MAX_NODES) -> tuple[IntTuple, int]:
    """(:func:`prefix_product` of plain ints (a tuple ``init`` mode by mode), budget left); _NotPlainError for
    anything else, past the nesting limit or past ``budget`` tuples."""
    if type(init) is int and _NEG_BOUND < init < _BOUND:
        if type(shape) is int and _NEG_BOUND < shape < _BOUND:
            return init, budget
        if type(shape) is tuple:
            value, _, budget = _prefix_plain(shape, init, depth, budget)
            return value, budget
    elif (type(init) is tuple and type(shape) is tuple and len(init) == len(shape) and depth < MAX_DEPTH
          and budget > 0):
        budget -= 1
        modes: list[IntTuple] = []
        for s, i in zip(shape, init):
            value, budget = _prefix_init(s, i, depth + 1, budget)
            modes.append(value)
        return tuple(modes), budget
    raise _NotPlainError


_ONE = 1  # the default init, compared by identity: CPython's ints 1 are one object (any other 1 takes the next test)


def prefix_product(shape: Any, init: Any = _ONE) -> IntTuple:
    """Exclusive prefix products, colexicographic: the compact column-major strides (``((2,4),8) -> ((1,2),8)``).

    A tuple ``init`` (CuTe's and PyCuTe's, weakly congruent to ``shape``) starts each mode at its own value:
    ``prefix_product(((2,3),(4,5)), (1,100)) == ((1,2),(100,400))``."""
    # The common cases inline, validating as they go (each bound tested first against the literal 2**30 - 1, one
    # CPython digit: cheaper than against _BOUND, a 4096-bit global); anything else: _NotPlainError, then the
    # paths below.  The default init first (the cheapest tests: for an int shape the whole call is then ~2x
    # pycute's, where the interpreter's call itself is most of the time) or a small int init: an int shape, or a
    # tuple walked with no further test of the init; then an int shape and init below 2**30, both bounds in one
    # test.
    if init is _ONE or (type(init) is int and 0 <= init <= 1073741823):  # the default init first, then a small one
        if shape.__class__ is int:
            if shape <= 1073741823 and shape >= 0:  # 2**30 - 1: one digit, so the compares take the int fast path
                return init
        elif type(shape) is tuple:  # the try block's tuple loop below, without its tests of the init
            out: list[IntTuple] = []
            running = init
            budget = MAX_NODES
            for x in shape:
                if type(x) is int and 0 <= x <= 1073741823:
                    out.append(running)
                    running *= x
                elif type(x) is tuple:
                    try:
                        value, running, budget = _prefix_plain(x, running, 1, budget)
                    except _NotPlainError:  # the try block below would fail at the same call: validate at once
                        return _validated_prefix_product(shape, init)
                    out.append(value)
                else:
                    break  # any other leaf: the paths below decide (and name it)
            else:
                return tuple(out)
    if type(shape) is int and type(init) is int and 0 <= shape | init <= 1073741823:
        return init
    try:
        if type(init) is int and (0 <= init <= 1073741823 or _NEG_BOUND < init < _BOUND):
            if type(shape) is int:
                if 0 <= shape <= 1073741823 or _NEG_BOUND < shape < _BOUND:
                    return init
            elif type(shape) is tuple:  # _prefix_plain's loop, one call fewer
                out = []
                running = init
                budget = MAX_NODES
                for x in shape:
                    if type(x) is int and (0 <= x <= 1073741823 or _NEG_BOUND < x < _BOUND):
                        out.append(running)
                        running *= x
                    elif type(x) is tuple:
                        value, running, budget = _prefix_plain(x, running, 1, budget)
                        out.append(value)
                    else:
                        raise _NotPlainError
                return tuple(out)
        elif type(init) is tuple and type(shape) is tuple and len(init) == len(shape):  # a tuple init, by mode
            modes: list[IntTuple] = []
            budget = MAX_NODES
            for x, i in zip(shape, init):
                if type(i) is not int or not _NEG_BOUND < i < _BOUND:
                    value, budget = _prefix_init(x, i, 1, budget)
                    modes.append(value)
                elif type(x) is tuple:
                    inner: list[IntTuple] = []
                    running = i
                    for y in x:  # a flat mode inline (the usual one); a nested one goes to _prefix_plain
                        if type(y) is not int or not _NEG_BOUND < y < _BOUND:
                            value, _, budget = _prefix_plain(x, i, 1, budget)
                            modes.append(value)
                            break
                        inner.append(running)
                        running *= y
                    else:
                        modes.append(tuple(inner))
                elif type(x) is int and _NEG_BOUND < x < _BOUND:
                    modes.append(i)
                else:
                    raise _NotPlainError
            return tuple(modes)
        return _prefix_init(shape, init, 0)[0]
    except _NotPlainError:
        pass  # the validating path below names the bad leaf or the rank mismatch
    return _validated_prefix_product(shape, init)


def _validated_prefix_product(shape: Any, init: Any) -> IntTuple:
    """:func:`prefix_product`'s validating path: stride scalars or symbols with their own arithmetic, else every
    argument made an int tuple (errors name the bad leaf or the rank mismatch)."""
    if any_leaf(init, _is_scalar, "prefix_product init") or any_leaf(shape, _is_symbol, "prefix_product shape"):
        return _prefix_scalars(shape, init, "prefix_product init")
    return it.prefix_product(as_int_tuple(shape, "prefix_product shape"), _init(init, "prefix_product init"))


def _is_scalar(x: Any) -> bool:
    """A stride scalar other than an int (an ``ArithTuple``, an ``F2``) or a sympy expression: PyCuTe's ``init``
    may be any of them."""
    from layoutalg.core.stride_scalars import F2, ArithTuple

    return isinstance(x, (ArithTuple, F2)) or _is_symbol(x)


def _is_symbol(x: Any) -> bool:
    from layoutalg.core.symbolic import is_sym

    return is_sym(x)


def _has_symbol(x: Any) -> bool:
    """:func:`layoutalg.core.symbolic.has_sym`, lists included (PyCuTe passes shapes and inits as lists too);
    walked without recursion, a nesting past ``MAX_DEPTH`` refused."""
    return any_leaf(x, _is_symbol, "prefix_product argument")


def _prefix_scalars(shape: Any, init: Any, what: str) -> Any:
    """:func:`prefix_product` with the init's own arithmetic: each leaf is ``init`` times the leaves before it,
    multiplied one leaf at a time (an ``F2`` init multiplies carry-less, ``F2(1)*3*3 == F2(5)``; an ``ArithTuple``
    scales on its axis; a sympy leaf or init stays symbolic); a tuple init starts each mode at its own value."""
    from layoutalg.core import symbolic
    from layoutalg.core.stride_scalars import is_stride_scalar

    if isinstance(init, (tuple, list)):
        if not isinstance(shape, (tuple, list)) or len(shape) != len(init):
            raise ShapeError(f"prefix_product: tuple init {describe(init)} must have the rank of shape {describe(shape)}")
        return tuple(_prefix_scalars(s, i, f"{what}[{k}]") for k, (s, i) in enumerate(zip(shape, init)))
    if not (is_stride_scalar(init) or _has_symbol(init)):
        raise ShapeError(f"{what} must be a stride scalar (an int, an ArithTuple, an F2) or a symbol, got {describe(init)}")
    running = init

    def walk(s: Any, depth: int) -> Any:
        nonlocal running
        if isinstance(s, (tuple, list)) and depth < MAX_DEPTH:
            return tuple(walk(e, depth + 1) for e in s)
        extent = s if _has_symbol(s) else as_int(s, "prefix_product shape leaf", ShapeError)
        out = running
        running = symbolic.simplify(running * extent) if _has_symbol(running) or _has_symbol(extent) else running * extent
        return out

    return walk(shape, 0)


def suffix_product(shape: Any, init: Any = 1) -> IntTuple:
    """Exclusive products from the right: compact row-major (``LayoutRight``) strides (a tuple ``init`` as in
    :func:`prefix_product`)."""
    return it.suffix_product(as_int_tuple(shape, "suffix_product shape"), _init(init, "suffix_product init"))


def ceil_div(a: Any, b: Any) -> int:
    """``ceil(a / b)`` for ints, ``b`` positive."""
    num = as_int(a, "ceil_div a", ShapeError)
    den = as_int(b, "ceil_div b", ShapeError)
    if den <= 0:
        raise ShapeError(f"ceil_div b must be positive, got {den}")
    return it.ceil_div(num, den)


def shape_div(a: Any, b: Any) -> IntTuple:
    """CuTe ``shape_div`` of two shapes (positive extents); see :func:`layoutalg.core.int_tuple.shape_div`."""
    ta, tb = _shape(a, "shape_div a"), _shape(b, "shape_div b")
    if isinstance(ta, tuple) and isinstance(tb, tuple) and len(ta) != len(tb):
        raise ShapeError(f"shape_div of incongruent {describe(ta)} and {describe(tb)}")
    return it.shape_div(ta, tb)


def _compact_size(shape: tuple[Any, ...], depth: int, budget: int) -> tuple[int, int]:
    """(the size of a plain int tuple shape, budget left); _NotPlainError otherwise, or past ``budget`` tuples
    (MAX_NODES, each tuple counted every time it appears).  Int leaves are multiplied inline (no call, no tuple)."""
    if depth >= MAX_DEPTH or budget <= 0:
        raise _NotPlainError
    budget -= 1
    n = 1
    for s in shape:
        if type(s) is int and 0 < s < _BOUND:
            n *= s
        elif type(s) is tuple:
            size, budget = _compact_size(s, depth + 1, budget)
            n *= size
        else:
            raise _NotPlainError
    return n, budget


def _compact_offset(crd: Any, shape: Any, running: int, depth: int,
                    budget: int = MAX_NODES) -> tuple[int, int, int]:
    """``(offset of crd under shape's compact strides from running, running * size(shape), budget left)`` for plain
    ints; _NotPlainError for anything else (a bad leaf, a tree mismatch, past ``budget`` tuples)."""
    if type(crd) is int and _NEG_BOUND < crd < _BOUND:
        if type(shape) is int and 0 < shape < _BOUND:
            return crd * running, running * shape, budget
        if type(shape) is not tuple:
            raise _NotPlainError
        size, budget = _compact_size(shape, depth, budget)
        return crd * running, running * size, budget
    if (type(crd) is tuple and type(shape) is tuple and len(crd) == len(shape) and depth < MAX_DEPTH
            and budget > 0):
        budget -= 1
        total = 0
        for c, s in zip(crd, shape):
            if type(c) is int and type(s) is int and -1073741823 <= c <= 1073741823 and 0 < s <= 1073741823:
                total += c * running  # the int leaf's own call, inline (its bounds within the call's)
                running *= s
            else:
                off, running, budget = _compact_offset(c, s, running, depth + 1, budget)
                total += off
        return total, running, budget
    raise _NotPlainError


def crd2idx(crd: Any, shape: Any, stride: Any = None) -> int:
    """The offset of coordinate ``crd`` under ``shape:stride`` (compact column-major strides when omitted).

    ``crd`` is an int (a 1-D index, unfolded colexicographically, the last mode
    unbounded) or a tuple congruent to a prefix tree of ``shape``.
    """
    if stride is None:
        try:  # compact strides, plain ints: one pass (an int coordinate of a sub-tree is its index there)
            return _compact_offset(crd, shape, 1, 0)[0]
        except _NotPlainError:
            pass  # the validating path below names what is wrong
    shape_t = _shape(shape, "crd2idx shape")
    stride_t = it.prefix_product(shape_t) if stride is None else _strides(stride, "crd2idx stride")
    if not it.congruent(shape_t, stride_t):
        raise ShapeError(f"crd2idx stride {describe(stride_t)} is not congruent to shape {describe(shape_t)}")
    crd_t = as_int_tuple(_basis_value_as_coordinate(crd, shape_t), "crd2idx coordinate", CoordinateError)
    _check_coordinate_tree(crd_t, shape_t, "crd2idx coordinate")
    return it.crd2idx(crd_t, shape_t, stride_t)


def idx2crd(idx: Any, shape: Any) -> IntTuple:
    """Unfold a 1-D index (or a coordinate tree, mode by mode) into a coordinate of ``shape``; the last mode is
    unbounded (``idx2crd(42, (3,7,2)) == (0,0,2)``).  As in PyCuTe: a basis value (what a coordinate layout
    returns) names its coordinate, implicit zeros filled in (``idx2crd(E(0), (8,8)) == (1,0)``); ``None`` is the
    origin (``(0, (0, 0))``); an F2 index is split carry-less, leaf by leaf (:func:`_f2_split`)."""
    shape_t = _shape(shape, "idx2crd shape")
    if idx is None:  # PyCuTe: no index is the origin, zeros like the shape
        return repeat_like(0, shape_t)
    if type(idx).__name__ == "F2":
        return _f2_split(idx, shape_t)
    idx_t = as_int_tuple(_basis_value_as_coordinate(idx, shape_t), "idx2crd index", CoordinateError)
    _check_coordinate_tree(idx_t, shape_t, "idx2crd index")
    return it.idx2crd(idx_t, shape_t)


def _f2_split(index: Any, shape: Any) -> Any:
    """An F2 index as F2 coordinates: each leaf but the last takes the remainder of carry-less (GF(2)[x]) division
    by its extent, the last the quotient (unbounded, as for ints).  At power-of-two extents this is the bit split
    PyCuTe documents, ``idx2crd(F2(0b10110), (4, 8)) == (F2(0b10), F2(0b101))``; it inverts ``crd2idx`` under
    F2 strides, whose sum is XOR and product carry-less.  As in PyCuTe, a shape whose running prefix product
    carries (``(3, 3, 3)``: 3 x 3 is 5 carry-less) is refused, since the two decompositions then differ."""
    from layoutalg.core.stride_scalars import F2, clmul

    leaves = it.flatten(shape) if isinstance(shape, tuple) else [shape]
    rest, digits, running = F2(int(index)), [], 1
    for extent in leaves[:-1]:
        if clmul(running, extent) != running * extent:
            raise CoordinateError(
                f"idx2crd({describe(index)}, {shape}): extent {extent} carries into the prefix product {running} "
                f"({running} x {extent} is {clmul(running, extent)} carry-less, {running * extent} in Z), so the F2 "
                "and integer decompositions of the shape differ")
        running *= extent
        rest, remainder = divmod(rest, extent)  # F2's own division: carry-less
        digits.append(remainder)
    digits.append(rest)
    return it.unflatten(digits, shape) if isinstance(shape, tuple) else digits[0]


def _basis_value_as_coordinate(value: Any, shape: IntTuple) -> Any:
    """An ``ArithTuple`` (``E(0)``, ``ArithTuple(1, 0)``) as the coordinate of ``shape`` it names; anything else
    as given (checked by the caller)."""
    from layoutalg.core.stride_scalars import ArithTuple, value_as_coordinate

    if isinstance(value, ArithTuple):
        return value_as_coordinate(value, shape, CoordinateError)
    return value


def _strides(stride: Any, what: str) -> Any:
    """Int strides, or any stride scalars (basis vectors, F2): ``crd2idx`` then returns what a layout of them
    does (``crd2idx((1,2), (4,4), (E(1),E(0))) == ArithTuple((2,1))``)."""
    from layoutalg.core.stride_scalars import is_stride_scalar

    leaves = it.flatten(stride) if isinstance(stride, tuple) else [stride]
    if any(not isinstance(d, int) and is_stride_scalar(d) for d in leaves):
        return stride
    return as_int_tuple(stride, what)


def _check_coordinate_tree(crd: IntTuple, shape: IntTuple, what: str) -> None:
    """A tuple coordinate follows ``shape``'s tree down to its int leaves (an int may stand for a subtree)."""
    if isinstance(crd, tuple):
        if not isinstance(shape, tuple) or len(crd) != len(shape):
            raise CoordinateError(f"{what} {describe(crd)} does not match the rank of shape {describe(shape)}")
        for k, (c, s) in enumerate(zip(crd, shape)):
            _check_coordinate_tree(c, s, f"{what}[{k}]")


__all__ = [
    "flatten",
    "unflatten",
    "rank",
    "depth",
    "product",
    "inner_product",
    "congruent",
    "weakly_congruent",
    "prefix_product",
    "suffix_product",
    "ceil_div",
    "shape_div",
    "crd2idx",
    "idx2crd",
]
