"""Stride scalars other than ``int``: CuTe's basis vectors (``ArithTuple``, ``E<i>``) and GF(2) elements (``F2``).

**ArithTuple** (CuTe ``ArithmeticTuple``; PyCuTe ``ArithTuple``): a hierarchical tuple of
ints under element-wise ``+``/``-`` and scaling by an int, with *implicit trailing zeros*:
``(1,) == (1, 0)`` and an all-zero tuple equals ``0`` (the one additive identity of every
stride kind).  ``E(i, j, ...)`` (CuTe ``E<i,j,...>``) is the unit at that path, so
``3*E(0) + 5*E(1) == ArithTuple(3, 5)`` and ``E(1, 0) == ArithTuple(0, (1,))``; an int and a
tuple at one position are different (``E(0) != E(0, 0)``).  ``ScaledBasis(v, path)`` is
``v * E(*path)`` (``v`` itself for the empty path).  Order is colexicographic, the order
of coordinates: the last position is the most significant (``(1, 0) < (0, 1)``).  A layout
with these strides maps a coordinate to a coordinate: ``(4,3):(E(1),E(0))`` sends ``(i, j)``
to ``(j, i)`` (CuTe's identity / coordinate layouts).

**F2** (PyCuTe ``F2``): an element of GF(2)[x] held as the int of its coefficient bits.
``+`` (and ``-``) is XOR; ``*`` with an int or an ``F2`` is the *carry-less* product (an
int acts through its bits): ``F2(0b11) * 3 == F2(0b101)``.  A layout with F2 strides XORs
its modes' contributions, the Triton / linear-layout view of a swizzle:
``(4,8):(F2(1),F2(8))`` sends ``(c0, c1)`` to ``c0 ^ 8*c1``.  ``int(F2(v)) == v``, and an F2
equals the int of the same bits (``F2(5) == 5``), as in PyCuTe; only ``+`` and ``*`` differ.

Mixing kinds: ``0`` adds to anything (``F2(0)`` does not: it is an F2, and PyCuTe's tests expect
``F2(0) + 8`` to raise); an ``ArithTuple`` leaf may be an ``F2`` (one axis swizzled, another plain), and
scaling keeps its implicit zeros plain (``F2(9) * E(1) + E(0) == (1, F9)``, as PyCuTe's ``ScaledBasis``
holds no zero entries).  Anything else (``E(0) + 7``, ``F2(1) + 1``) raises
:class:`ShapeError`, as does a product of two basis vectors.  A layout may hold strides that do not add
(PyCuTe's ``right_inverse((8,8):(F1@0,E1))`` is ``(8,8):(F1,8)``): it raises only at a value that adds them.
"""

from __future__ import annotations

from typing import Any, Iterator

from layoutalg.core.validate import check_depth, describe, plain_int
from layoutalg.errors import ShapeError


def clmul(a: int, b: int) -> int:
    """Carry-less product of two non-negative ints (GF(2)[x] multiplication)."""
    if a < 0 or b < 0:
        raise ShapeError(f"carry-less product of negative {min(a, b)}: F2 scalars have no sign")
    out = 0
    while b:
        if b & 1:
            out ^= a
        a <<= 1
        b >>= 1
    return out


class F2:
    """A GF(2)[x] element (bits of an int): ``+`` is XOR, ``*`` is carry-less (see the module docstring)."""

    __slots__ = ("value",)
    value: int

    def __init__(self, value: int) -> None:
        if isinstance(value, F2):
            value = value.value
        value = plain_int(value, "F2 value")  # numpy integers are integers
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ShapeError(f"F2 takes a non-negative int, got {describe(value)}")
        object.__setattr__(self, "value", value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("F2 is immutable")

    def __int__(self) -> int:
        return self.value  # type: ignore[no-any-return]

    __index__ = __int__

    def __add__(self, other: Any) -> Any:
        if isinstance(other, F2):
            return F2(self.value ^ other.value)
        if other == 0 and not isinstance(other, ArithTuple):
            return self
        if isinstance(other, ArithTuple):
            return other.__radd__(self)
        raise ShapeError(f"cannot add {describe(other)} to {describe(self)}: F2 adds only F2 (or 0)")

    __radd__ = __add__
    __sub__ = __add__  # XOR is its own inverse
    __rsub__ = __add__

    def __neg__(self) -> F2:
        return self

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, F2):
            return F2(clmul(self.value, other.value))
        if isinstance(other, int) and not isinstance(other, bool):
            return F2(clmul(self.value, other))
        if isinstance(other, ArithTuple):
            return other.__rmul__(self)
        raise ShapeError(f"cannot multiply {describe(self)} by {describe(other)}")

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, F2):
            return self.value == other.value  # type: ignore[no-any-return]
        if isinstance(other, int) and not isinstance(other, bool):
            return self.value == other  # type: ignore[no-any-return]  # the same bits (PyCuTe compares so)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __lt__(self, other: Any) -> bool:
        return self.value < _f2_value(other)  # type: ignore[no-any-return]

    def __le__(self, other: Any) -> bool:
        return self.value <= _f2_value(other)  # type: ignore[no-any-return]

    def __gt__(self, other: Any) -> bool:
        return self.value > _f2_value(other)  # type: ignore[no-any-return]

    def __ge__(self, other: Any) -> bool:
        return self.value >= _f2_value(other)  # type: ignore[no-any-return]

    def __divmod__(self, other: Any) -> tuple[F2, F2]:
        """Carry-less (GF(2)[x]) division, PyCuTe's: ``divmod(F2(0b1011), 3) == (F2(0b110), F2(0b1))``; by a power
        of two it is the bit split, ``divmod(F2(0b10110), 4) == (F2(0b101), F2(0b10))``."""
        if isinstance(other, bool) or not isinstance(other, (int, F2)):
            return NotImplemented
        divisor = int(other)
        if divisor <= 0:
            raise ShapeError(f"divmod({self}, {describe(other)}): the divisor must be a positive int or a non-zero F2")
        quotient, rest, top = 0, int(self.value), divisor.bit_length()
        while rest.bit_length() >= top:
            shift = rest.bit_length() - top
            quotient |= 1 << shift
            rest ^= divisor << shift
        return F2(quotient), F2(rest)

    def __lshift__(self, k: Any) -> F2:
        """Multiplication by ``x**k`` (the carry-less product by ``2**k`` is a shift)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ShapeError(f"an F2 shifts by a non-negative int, got {describe(k)}")
        return F2(int(self.value) << k)

    def __rshift__(self, k: Any) -> F2:
        """The quotient by ``x**k`` (the bits below ``k`` dropped)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ShapeError(f"an F2 shifts by a non-negative int, got {describe(k)}")
        return F2(int(self.value) >> k)

    def __floordiv__(self, other: Any) -> Any:
        result = self.__divmod__(other)
        return result if result is NotImplemented else result[0]

    def __mod__(self, other: Any) -> Any:
        result = self.__divmod__(other)
        return result if result is NotImplemented else result[1]

    def __repr__(self) -> str:
        return f"F2({self.value})"

    def __str__(self) -> str:
        return f"F{self.value}"


def _f2_value(x: Any) -> int:
    if isinstance(x, F2):
        return x.value  # type: ignore[no-any-return]
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    raise ShapeError(f"cannot order F2 against {describe(x)}")


def _lift(x: Any) -> Any:
    """A child of an ArithTuple: an int, an F2, or an ArithTuple (tuples and lists become ArithTuples)."""
    if isinstance(x, (ArithTuple, F2)):
        return x
    if isinstance(x, (tuple, list)):
        return ArithTuple(tuple(x))
    x = plain_int(x, "an ArithTuple entry")  # numpy integers are integers
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    raise ShapeError(f"an ArithTuple holds ints, F2 values and tuples, got {describe(x)}")


def _is_zero(x: Any) -> bool:
    if isinstance(x, ArithTuple):
        return all(_is_zero(e) for e in x.data)
    return x == 0  # type: ignore[no-any-return]


class ArithTuple:
    """CuTe's arithmetic tuple (see the module docstring).  ``ArithTuple(1, 2)`` or ``ArithTuple((1, 2))``."""

    __slots__ = ("data",)
    data: tuple[Any, ...]

    def __new__(cls, *items: Any) -> Any:
        """``ArithTuple(1, 2)``, ``ArithTuple((1, 2))``; one scalar passes through (``ArithTuple(F2(5)) is F2(5)``)."""
        check_depth(items, "ArithTuple entries")  # before _lift recurses into nested tuples
        if len(items) == 1 and isinstance(items[0], (tuple, list)):
            items = tuple(items[0])
        elif len(items) == 1 and not isinstance(items[0], ArithTuple):
            return _lift(items[0])
        out = object.__new__(cls)
        object.__setattr__(out, "data", tuple(_lift(x) for x in items))
        return out

    @classmethod
    def _of(cls, data: tuple[Any, ...]) -> ArithTuple:
        out = object.__new__(cls)
        object.__setattr__(out, "data", data)
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ArithTuple is immutable")

    # -- arithmetic ------------------------------------------------------
    def _zip(self, other: Any, op: str) -> ArithTuple:
        if isinstance(other, (tuple, list)):
            other = ArithTuple(tuple(other))
        if not isinstance(other, ArithTuple):
            if isinstance(other, (int, F2)) and not isinstance(other, bool) and _is_zero(other):
                return self
            raise ShapeError(f"cannot {op} {describe(other)} and {describe(self)}: a tuple adds only tuples (or 0)")
        n = max(len(self.data), len(other.data))
        a = self.data + (0,) * (n - len(self.data))
        b = other.data + (0,) * (n - len(other.data))
        return ArithTuple._of(tuple(_add(x, y) if op == "add" else _add(x, _neg(y)) for x, y in zip(a, b)))

    def __add__(self, other: Any) -> Any:
        if type(other) is ArithTuple:  # two flat int vectors of one length (the usual case), at C speed
            a, b = self.data, other.data
            if _flat_ints(a) and _flat_ints(b):
                if len(a) < len(b):
                    a, b = b, a
                return ArithTuple._of(tuple(map(int.__add__, a, b)) + a[len(b):])
        return self._zip(other, "add")

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return self._zip(other, "subtract")

    def __rsub__(self, other: Any) -> Any:
        return (-self) + other

    def __neg__(self) -> ArithTuple:
        return ArithTuple._of(tuple(_neg(x) for x in self.data))

    def __mul__(self, k: Any) -> Any:
        if type(k) is int and _flat_ints(self.data):  # the usual case first
            return ArithTuple._of(tuple([x * k for x in self.data]))
        if isinstance(k, ArithTuple) or isinstance(k, bool) or not isinstance(k, (int, F2)):
            raise ShapeError(f"an ArithTuple scales only by an int (or an F2 leaf), got {describe(k)}")
        return ArithTuple._of(tuple(_scale(x, k) for x in self.data))

    __rmul__ = __mul__

    def __matmul__(self, index: Any) -> ArithTuple:
        """``x @ i``: ``x`` wrapped at outer index ``i`` (``i`` zeros, then ``x``): ``E(0) @ 1 == E(1, 0)``
        (PyCuTe)."""
        return _at_index(self, index)

    # -- comparison ------------------------------------------------------
    def terms(self) -> list[tuple[Any, tuple[int, ...]]]:
        """CuTe's basis decomposition (PyCuTe ``basis_repr``): ``[(value, path), ...]`` of the non-zero leaves."""
        out: list[tuple[Any, tuple[int, ...]]] = []
        for i, x in enumerate(self.data):
            if isinstance(x, ArithTuple):
                out.extend((v, (i,) + p) for v, p in x.terms())
            elif not _is_zero(x):
                out.append((x, (i,)))
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, list)):
            other = ArithTuple(tuple(other))
        if isinstance(other, ArithTuple):
            a, b = self.data, other.data
            if a == b:  # equal leaf by leaf (the usual case): equal; else compare by terms
                return True
            if _flat_ints(a) and _flat_ints(b):  # flat int vectors: equal up to trailing zeros
                n = max(len(a), len(b))
                return a + (0,) * (n - len(a)) == b + (0,) * (n - len(b))
            return _shape_free(self) == _shape_free(other)
        if isinstance(other, (int, F2)) and not isinstance(other, bool):
            return _is_zero(other) and _is_zero(self)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal values have different stored lengths

    def _key(self, other: Any) -> tuple[list[Any], list[Any]]:
        if isinstance(other, (tuple, list)):
            other = ArithTuple(tuple(other))
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            other = ArithTuple()
        if not isinstance(other, ArithTuple):
            raise ShapeError(f"cannot order an ArithTuple against {describe(other)}")
        a, b = dict(_shape_free(self)), dict(_shape_free(other))
        paths = sorted(set(a) | set(b), reverse=True)  # the last position is the most significant
        return [_num(a.get(p, 0)) for p in paths], [_num(b.get(p, 0)) for p in paths]

    def __lt__(self, other: Any) -> bool:
        x, y = self._key(other)
        return x < y

    def __le__(self, other: Any) -> bool:
        x, y = self._key(other)
        return x <= y

    def __gt__(self, other: Any) -> bool:
        x, y = self._key(other)
        return x > y

    def __ge__(self, other: Any) -> bool:
        x, y = self._key(other)
        return x >= y

    # -- views -----------------------------------------------------------
    def __iter__(self) -> Iterator[Any]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, i: int) -> Any:
        return self.data[i] if i < len(self.data) else 0

    def as_tuple(self) -> tuple[Any, ...]:
        """The plain nested tuple (PyCuTe ``as_tuple``)."""
        return tuple(x.as_tuple() if isinstance(x, ArithTuple) else x for x in self.data)

    def __repr__(self) -> str:
        return f"ArithTuple({self.as_tuple()!r})"

    def __str__(self) -> str:
        terms = self.terms()
        if len(terms) == 1:  # CuTe prints a scaled basis vector as value@path (innermost first)
            v, path = terms[0]
            return f"{v}" + "".join(f"@{i}" for i in reversed(path))
        return "(" + ",".join(str(x) for x in self.data) + ")"


def _flat_ints(data: tuple[Any, ...]) -> bool:
    """Every leaf a plain int (no nested ArithTuple, no F2)."""
    for x in data:
        if type(x) is not int:
            return False
    return True


def _shape_free(x: ArithTuple) -> list[tuple[tuple[int, ...], Any]]:
    """The non-zero leaves by path, with a tag that keeps an int apart from a tuple at one position."""
    return sorted(((p, v) for v, p in x.terms()), key=lambda pv: pv[0])


def _num(x: Any) -> int:
    return int(x) if isinstance(x, F2) else x  # type: ignore[no-any-return]


def _add(x: Any, y: Any) -> Any:
    if isinstance(x, ArithTuple) or isinstance(y, ArithTuple):
        if not isinstance(x, ArithTuple):
            x, y = y, x
        return x + y if not _is_zero(y) or isinstance(y, ArithTuple) else x  # ArithTuple.__add__ (its fast path)
    return x + y


def _neg(x: Any) -> Any:
    return -x


def _scale(x: Any, k: Any) -> Any:
    """One entry of an ArithTuple scaled by ``k``; an int 0 (an implicit zero) stays the int 0, so
    ``F2(9) * E(1)`` is ``(0, F9)`` and still adds ``1@0``."""
    if type(x) is int and x == 0:
        return 0
    return x * k


#: The largest mode index a basis path may name, plus one (the basis vector is a tuple that long).
MAX_BASIS_INDEX = 1 << 12


def ScaledBasis(value: Any, path: Any = ()) -> Any:
    """``value`` at ``path`` (CuTe ``ScaledBasis``; an int path ``i`` is ``(i,)``, CuTe's ``E<i>``); the empty
    path gives ``value`` itself."""
    from layoutalg.core.validate import as_int

    if not isinstance(path, (tuple, list)):
        path = (path,)  # one mode index (an int, numpy's included)
    path = tuple(as_int(i, "a basis path entry", ShapeError) for i in path)
    if not isinstance(value, (ArithTuple, F2)):
        value = as_int(value, "ScaledBasis value", ShapeError)
    if not path:
        return value
    for i in path:
        if not 0 <= i < MAX_BASIS_INDEX:
            raise ShapeError(f"a basis path holds mode indices in [0, {MAX_BASIS_INDEX}), got {describe(path)}")
    out: Any = value
    for i in reversed(path):
        out = ArithTuple._of((0,) * i + (out,))
    return out


def _at_index(value: Any, index: Any) -> ArithTuple:
    from layoutalg.core.validate import as_int

    i = as_int(index, "a basis index after @", ShapeError)  # refuses bools, floats and non-numbers
    if not 0 <= i < MAX_BASIS_INDEX:
        raise ShapeError(f"a basis index lies in [0, {MAX_BASIS_INDEX}), got {i}")
    return ArithTuple._of((0,) * i + (value,))


class V:
    """PyCuTe's basis-scalar shortcut: ``V(value) @ i`` is ``ScaledBasis(value, (i,))`` (``V(42) @ 1 == 42 * E(1)``,
    ``V(F2(1)) @ 0 == ScaledBasis(F2(1), (0,))``); chain ``@`` for deeper paths (``V(1) @ 0 @ 1 == E(1, 0)``)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value if isinstance(value, (ArithTuple, F2)) else ScaledBasis(value, ())

    def __matmul__(self, index: Any) -> ArithTuple:
        return _at_index(self.value, index)

    def __repr__(self) -> str:
        return f"V({self.value!r})"


def E(*path: int) -> Any:
    """The unit basis vector at ``path`` (CuTe ``E<path...>``): ``E(1) == ArithTuple(0, 1)``; ``E() == 1``."""
    return ScaledBasis(1, path)


def basis_repr(x: Any) -> list[tuple[Any, tuple[int, ...]]]:
    """``x`` as ``[(value, path), ...]`` with ``x == sum(v * E(*path))``; ``[(0, ())]`` for zero, ``[(n, ())]`` for
    an int (PyCuTe ``basis_repr``)."""
    if isinstance(x, ArithTuple):
        return x.terms() or [(0, ())]
    return [(x, ())]


def is_basis(x: Any) -> bool:
    """One scaled basis vector (every int and F2 is one, at the empty path)."""
    return len(basis_repr(x)) == 1


def _path_of(profile: Any) -> tuple[Any, tuple[int, ...]]:
    terms = basis_repr(profile)
    if len(terms) != 1:
        raise ShapeError(f"{profile} is a sum of {len(terms)} basis vectors, not one")
    return terms[0]


def proj(x: Any, profile: Any) -> Any:
    """The component of ``x`` (an ``ArithTuple`` or a tuple) at the path of the basis vector ``profile`` (all of
    ``x`` for an int profile): PyCuTe's ``proj((7, 9), 2 * E(1)) == 9``; 0 past an ArithTuple's end (its implicit
    zeros).  A tuple has no implicit entries: a path beyond it is refused."""
    for i in _path_of(profile)[1]:
        if isinstance(x, tuple):
            if i >= len(x):
                raise ShapeError(f"proj: position {i} is past the end of {x}")
            x = x[i]
        else:
            x = x[i] if isinstance(x, ArithTuple) else 0
    return x


def unit(profile: Any) -> Any:
    """The unit of ``profile``'s kind at its path: ``unit(5*E(1, 2)) == E(1, 2)``, ``unit(7) == 1``, F2(1) for F2."""
    value, path = _path_of(profile)
    return ScaledBasis(F2(1) if isinstance(value, F2) else 1, path)


def make_basis_like(profile: Any, path: tuple[int, ...] = ()) -> Any:
    """The unit basis vectors laid out like ``profile``: ``(10, (20, 30)) -> (E(0), (E(1,0), E(1,1)))``."""
    if isinstance(profile, (tuple, list)):
        return tuple(make_basis_like(p, path + (i,)) for i, p in enumerate(profile))
    return E(*path)


def value_as_coordinate(v: Any, shape: Any, error: type[Exception]) -> Any:
    """A layout's value ``v`` (an ``ArithTuple``, an ``F2``, an int) as a coordinate of ``shape``: what a left
    inverse of a coordinate layout takes, so that ``R(A(i))`` reads.  Implicit zeros are filled in, trailing zero
    positions past the shape's rank are no axis; an F2's bits are an index.  ``error`` (a LayoutError class)
    where ``v`` has a position the shape lacks."""
    if isinstance(v, F2):
        v = int(v)  # a swizzled (F2) axis: its bits are the coordinate
    if isinstance(v, ArithTuple) and v == 0:
        v = 0
    if isinstance(v, int):
        return v  # an int coordinate of a tuple mode unfolds inside that mode
    if isinstance(shape, tuple):
        if not isinstance(v, ArithTuple) or any(p[0] >= len(shape) for _, p in v.terms()):
            raise error(f"{v} is not a coordinate of shape {shape}")
        return tuple(value_as_coordinate(v[i], s, error) for i, s in enumerate(shape))
    if isinstance(v, ArithTuple):
        if all(p[0] == 0 for _, p in v.terms()):  # a rank-1 coordinate of a single-mode layout
            return value_as_coordinate(v[0], shape, error)
        raise error(f"{v} goes deeper than shape {shape}")
    return v


def is_stride_scalar(x: Any) -> bool:
    """An int, an ArithTuple or an F2 (what a stride leaf may be)."""
    return isinstance(x, (ArithTuple, F2)) or (isinstance(x, int) and not isinstance(x, bool))


__all__ = ["ArithTuple", "F2", "E", "V", "ScaledBasis", "clmul", "is_stride_scalar", "basis_repr", "is_basis", "proj",
           "unit", "make_basis_like"]
