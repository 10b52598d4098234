"""The GF(2) view: layouts and swizzles that are linear maps on address bits.

A function ``f`` on ``[0, 2**n)`` is *linear over GF(2)* when
``f(a ^ b) == f(a) ^ f(b)`` for all ``a, b``; it is then the bit matrix whose
column ``j`` is ``f(2**j)``, and ``f(x)`` is the XOR of the columns of the set
bits of ``x``.

Which values are linear:
  * a ``Layout`` with power-of-two size and non-negative strides is linear iff
    its bit columns ``L(2**j)`` are pairwise bit-disjoint.  Proof: with
    power-of-two extents every index digit splits into bits, so
    ``L(x) = sum_j x_j * L(2**j)`` as integers, and an integer sum equals the
    XOR of its terms iff no two terms share a bit (two columns sharing a bit
    give ``L(2**a + 2**b) != L(2**a) ^ L(2**b)``);
  * a ``Swizzle`` is always linear (it is ``x ^ ((x & Y) >> S)``), over the
    ``n`` bits that hold its masks;
  * ``Sw o 0 o L`` with ``L`` linear is the product of their matrices; a
    non-zero offset makes the function affine, not linear (``f(0) != 0``),
    unless the swizzle maps it to zero, which only 0 does;
  * anything else (a ``Layout`` outer) is decided by evaluating the function on
    its whole domain against the candidate matrix.

:func:`to_f2` raises :class:`~layoutalg.errors.NotLinearError` for everything
else, and never returns a matrix whose function differs from the integer one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout
from layoutalg.core.validate import as_int, count_text, describe, is_bool, plain_int
from layoutalg.errors import LayoutError, NotLinearError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

# Largest domain decided by enumeration (functions without a structural proof).
_MAX_ENUMERATE = 1 << 24
#: The most input or output bits a BitMatrix may have.
MAX_BITS = 4096


@dataclass(frozen=True)
class BitMatrix:
    """An ``n_out x n_in`` matrix over GF(2), stored as its columns (column ``j`` = image of bit ``j``)."""

    n_in: int
    n_out: int
    columns: tuple[int, ...]

    def __post_init__(self) -> None:
        n_in, n_out = as_int(self.n_in, "BitMatrix n_in"), as_int(self.n_out, "BitMatrix n_out")
        if not (0 <= n_in <= MAX_BITS and 0 <= n_out <= MAX_BITS):
            raise LayoutError(f"BitMatrix dimensions must be in [0, {MAX_BITS}], got {n_out}x{n_in}")
        if not isinstance(self.columns, (tuple, list)):
            raise LayoutError(f"BitMatrix columns must be a tuple of ints, got {describe(self.columns)}")
        if len(self.columns) != n_in:
            raise LayoutError(f"BitMatrix has {len(self.columns)} columns but n_in={n_in}")
        columns = tuple(as_int(col, f"BitMatrix column {j}") for j, col in enumerate(self.columns))
        for j, col in enumerate(columns):
            if col < 0 or col >> n_out:
                raise LayoutError(f"BitMatrix column {j} = {describe(col)} does not fit in n_out={n_out} bits")
        object.__setattr__(self, "n_in", n_in)
        object.__setattr__(self, "n_out", n_out)
        object.__setattr__(self, "columns", columns)

    # -- construction ------------------------------------------------------
    @classmethod
    def from_columns(cls, columns: Sequence[int], n_out: int | None = None) -> "BitMatrix":
        if not isinstance(columns, (tuple, list)):
            raise LayoutError(f"BitMatrix columns must be a sequence of ints, got {describe(columns)}")
        cols = tuple(as_int(c, f"BitMatrix column {j}") for j, c in enumerate(columns))
        width = max((c.bit_length() for c in cols), default=0) if n_out is None else n_out
        return cls(len(cols), width, cols)

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[int]]) -> "BitMatrix":
        """From a list of rows of 0/1 entries, row ``i`` being output bit ``i``."""
        if not isinstance(rows, (tuple, list)):
            raise LayoutError(f"BitMatrix.from_rows takes a list of rows (lists of 0/1 entries), got {describe(rows)}")
        if len(rows) > MAX_BITS:
            raise LayoutError(f"BitMatrix.from_rows: {len(rows)} rows, more than MAX_BITS ({MAX_BITS})")
        for i, row in enumerate(rows):
            if not isinstance(row, (tuple, list)):
                raise LayoutError(f"BitMatrix.from_rows: row {i} must be a list of 0/1 entries, got {describe(row)}")
        n_out = len(rows)
        n_in = len(rows[0]) if rows else 0
        if n_in > MAX_BITS:
            raise LayoutError(f"BitMatrix.from_rows: rows of {n_in} entries, more than MAX_BITS ({MAX_BITS})")
        cols = []
        for j in range(n_in):
            col = 0
            for i in range(n_out):
                if len(rows[i]) != n_in:
                    raise LayoutError(f"row {i} has {len(rows[i])} entries, expected {n_in}")
                entry = rows[i][j]
                value = int(entry) if is_bool(entry) else plain_int(entry, f"entry ({i},{j})")
                if type(value) is not int or value not in (0, 1):
                    raise LayoutError(f"entry ({i},{j}) = {describe(entry)} is not 0 or 1")
                col |= value << i
            cols.append(col)
        return cls(n_in, n_out, tuple(cols))

    @classmethod
    def identity(cls, n: int) -> "BitMatrix":
        n = as_int(n, "BitMatrix.identity n")
        if not 0 <= n <= MAX_BITS:
            raise LayoutError(f"BitMatrix.identity n must be in [0, {MAX_BITS}] (MAX_BITS), got {count_text(n)}")
        return cls(n, n, tuple(1 << j for j in range(n)))

    def rows(self) -> list[list[int]]:
        return [[(col >> i) & 1 for col in self.columns] for i in range(self.n_out)]

    # -- the linear map ----------------------------------------------------
    def __call__(self, x: int) -> int:
        x = plain_int(x, "BitMatrix input")
        if isinstance(x, bool) or not isinstance(x, int) or x < 0 or x >> self.n_in:
            raise LayoutError(f"BitMatrix input {describe(x)} is not an integer in [0, 2**{self.n_in})")
        out = 0
        j = 0
        while x:
            if x & 1:
                out ^= self.columns[j]
            x >>= 1
            j += 1
        return out

    def apply_numpy(self, x: Any) -> Any:
        """Apply to every entry of a numpy int array (entries in ``[0, 2**n_in)``)."""
        import numpy as np

        if any(col >> 63 for col in self.columns):
            raise LayoutError(f"apply_numpy computes in int64: a matrix of {self.n_out} output bits does not fit "
                              "(apply it with m(x) on Python ints)")
        try:
            arr = np.asarray(x)
        except Exception as exc:  # noqa: BLE001 - numpy runs a foreign object's own conversions
            raise LayoutError(f"apply_numpy takes an array of ints, got {describe(x)} ({describe(exc)})") from None
        if arr.size == 0:
            return np.zeros(arr.shape, dtype=np.int64)
        if arr.dtype.kind not in "iu":
            raise LayoutError(f"apply_numpy takes an array of ints, got {describe(x)} (dtype {arr.dtype})")
        top = 1 << min(self.n_in, 63)
        if int(arr.min()) < 0 or int(arr.max()) >= top:
            raise LayoutError(f"apply_numpy inputs must be in [0, 2**{min(self.n_in, 63)}), got values in "
                              f"[{int(arr.min())}, {int(arr.max())}]")
        x = arr.astype(np.int64)
        out = np.zeros_like(x)
        for j, col in enumerate(self.columns[:63]):  # an int64 input in range has no bit 63 or above
            if col:
                out ^= ((x >> j) & 1) * np.int64(col)
        return out

    def compose(self, inner: "BitMatrix") -> "BitMatrix":
        """``self o inner`` (the matrix product ``self @ inner``)."""
        if not isinstance(inner, BitMatrix):
            raise LayoutError(f"BitMatrix.compose takes a BitMatrix, got {describe(inner)}")
        if inner.n_out > self.n_in:
            extra = [c >> self.n_in for c in inner.columns]
            if any(extra):
                raise LayoutError(
                    f"cannot compose: inner produces {inner.n_out} bits, outer takes only {self.n_in}"
                )
        return BitMatrix(inner.n_in, self.n_out, tuple(self(c) for c in inner.columns))

    def __matmul__(self, other: "BitMatrix") -> "BitMatrix":
        return self.compose(other)

    def _eliminate(self) -> tuple[list[tuple[int, int]], list[int]]:
        """Gaussian elimination over the columns, in one pass.

        Returns the echelon basis of the column space as pairs (reduced vector,
        input combination) with distinct pivots, and the input combinations that
        reduce to zero (a basis of the kernel).
        """
        basis: list[tuple[int, int]] = []
        null: list[int] = []
        for j, col in enumerate(self.columns):
            vec, combo = col, 1 << j
            for bvec, bcombo in basis:
                if vec & (1 << (bvec.bit_length() - 1)):
                    vec ^= bvec
                    combo ^= bcombo
            if vec:
                basis.append((vec, combo))
                basis.sort(key=lambda p: -p[0].bit_length())
            else:
                null.append(combo)
        return basis, null

    def rank(self) -> int:
        return len(self._eliminate()[0])

    def image(self) -> tuple[int, ...]:
        """A basis of the column space (each vector an int of output bits)."""
        return tuple(vec for vec, _ in self._eliminate()[0])

    def kernel(self) -> tuple[int, ...]:
        """A basis of ``{x : M x = 0}`` (each vector an int of input bits)."""
        return tuple(self._eliminate()[1])

    def is_invertible(self) -> bool:
        return self.n_in == self.n_out and self.rank() == self.n_in

    def inverse(self) -> "BitMatrix":
        """The inverse of a square full-rank matrix (NotLinearError-free; LayoutError if singular)."""
        if self.n_in != self.n_out:
            raise LayoutError(f"a {self.n_out}x{self.n_in} bit matrix has no two-sided inverse")
        basis = self._eliminate()[0]
        if len(basis) != self.n_in:
            raise LayoutError(f"bit matrix of rank {len(basis)} < {self.n_in} is not invertible")
        cols = []
        for i in range(self.n_out):
            vec, combo = 1 << i, 0
            for bvec, bcombo in basis:
                if vec & (1 << (bvec.bit_length() - 1)):
                    vec ^= bvec
                    combo ^= bcombo
            cols.append(combo)
        return BitMatrix(self.n_out, self.n_in, tuple(cols))

    def __str__(self) -> str:
        return "\n".join("".join(str(b) for b in row) for row in self.rows())


# ---------------------------------------------------------------------------
# to_f2


def _log2_exact(n: int, what: str) -> int:
    if n <= 0 or n & (n - 1):
        raise NotLinearError(f"{what} = {n} is not a power of two, so the domain is not a GF(2) vector space")
    return n.bit_length() - 1


def _layout_columns(layout: Layout) -> list[int]:
    """``L(2**j)`` for every input bit ``j`` of a power-of-two-extent layout (raises if an extent is not)."""
    cols: list[int] = []
    for k, (extent, step) in enumerate(zip(it.flatten(layout.shape), it.flatten(layout.stride))):
        bits = _log2_exact(extent, f"extent of flat mode {k} of {layout}")
        if step < 0 and extent > 1:
            raise NotLinearError(f"flat mode {k} of {layout} has negative stride {step}: not linear over GF(2)")
        cols.extend(step << b for b in range(bits))
    return cols


def _layout_to_f2(layout: Layout) -> BitMatrix:
    cols = _layout_columns(layout)
    seen = 0
    for j, col in enumerate(cols):
        if col & seen:
            raise NotLinearError(
                f"{layout} is not linear over GF(2): bit column {j} (value {col}) overlaps an earlier column, "
                f"so adding the two index bits carries"
            )
        seen |= col
    return BitMatrix.from_columns(cols)


def _swizzle_to_f2(swizzle: Swizzle, n_bits: int | None = None) -> BitMatrix:
    n = swizzle.swizzle_code.bit_length() if swizzle.bits else 0
    if n_bits is not None:
        n = max(n, n_bits)
    return BitMatrix(n, n, tuple(swizzle(1 << j) for j in range(n)))


def _check_by_enumeration(values: Any, matrix: BitMatrix, what: str) -> None:
    import numpy as np

    index = np.arange(len(values), dtype=np.int64)
    if not np.array_equal(values, matrix.apply_numpy(index)):
        bad = int(np.nonzero(values != matrix.apply_numpy(index))[0][0])
        raise NotLinearError(
            f"{what} is not linear over GF(2): at index {bad} it gives {int(values[bad])}, "
            f"the XOR of its bit columns gives {matrix(bad)}"
        )


def to_f2(x: Any, n_bits: int | None = None) -> BitMatrix:
    """The bit matrix of a Layout, Swizzle or ComposedLayout; NotLinearError if it is not linear over GF(2).

    ``n_bits`` (swizzles only) widens a bare swizzle's square matrix to ``n_bits`` bits.
    The matrix's inputs are the bits of the 1-D index (colexicographic), its
    outputs the bits of the offset; ``n_out`` is the width of the largest column.
    """
    if n_bits is not None:
        n_bits = as_int(n_bits, "to_f2 n_bits")
        if not 0 <= n_bits <= MAX_BITS:
            raise LayoutError(f"to_f2 n_bits must be in [0, {MAX_BITS}], got {n_bits}")
    if isinstance(x, Swizzle):
        return _swizzle_to_f2(x, n_bits)
    if isinstance(x, Layout):
        return _layout_to_f2(x)
    if isinstance(x, ComposedLayout):
        n_in = _log2_exact(x.size(), f"size of {x}")
        if isinstance(x.outer, Swizzle):
            inner = _layout_to_f2(x.inner)
            if x.offset != 0:
                raise NotLinearError(f"{x} has offset {x.offset}: it maps 0 to {x(0)}, so it is affine, not linear")
            outer = _swizzle_to_f2(x.outer, inner.n_out)
            product = outer.compose(inner)
            return BitMatrix.from_columns(product.columns)
        if x(0) != 0:
            raise NotLinearError(f"{x} maps 0 to {x(0)}, so it is not linear")
        if x.size() > _MAX_ENUMERATE:
            raise NotLinearError(f"{x}: linearity of a layout-outer composition is only decided up to 2**24 elements")
        cols = [int(x(1 << j)) for j in range(n_in)]
        if any(c < 0 for c in cols):
            raise NotLinearError(f"{x} has a negative value, not linear over GF(2)")
        matrix = BitMatrix.from_columns(cols)
        _check_by_enumeration(x.to_numpy(), matrix, str(x))
        return matrix
    raise LayoutError(f"to_f2 takes a Layout, Swizzle or ComposedLayout, got {describe(x)}")


def is_f2_linear(x: Any) -> bool:
    """Whether :func:`to_f2` succeeds."""
    try:
        to_f2(x)
    except NotLinearError:
        return False
    return True


# ---------------------------------------------------------------------------
# from_f2


def _disjoint(cols: Sequence[int]) -> bool:
    seen = 0
    for col in cols:
        if col & seen:
            return False
        seen |= col
    return True


def _greedy_modes(cols: Sequence[int]) -> tuple[list[int], list[int]]:
    """Group consecutive index bits into modes: a bit joins the previous mode when its column is twice the last."""
    extents: list[int] = []
    strides: list[int] = []
    for col in cols:
        if extents and (strides[-1] * extents[-1] == col if col else strides[-1] == 0):
            extents[-1] *= 2
        else:
            extents.append(2)
            strides.append(col)
    return extents, strides


def _layout_from_columns(cols: Sequence[int], shape: Any, mode_bits: Sequence[int] | None = None) -> Layout:
    """The layout whose bit columns are ``cols``: over ``shape`` (power-of-two leaves), or grouped per mode.

    ``mode_bits`` gives the number of index bits of each top-level mode; each
    mode is then the greedy grouping of its own bits (a nested mode when needed).
    """
    if mode_bits is not None:
        if sum(mode_bits) != len(cols):
            raise LayoutError(f"modes of {list(mode_bits)} bits do not cover the {len(cols)} index bits")
        shapes: list[Any] = []
        strides_out: list[Any] = []
        j = 0
        for bits in mode_bits:
            extents, strides = _greedy_modes(cols[j : j + bits])
            j += bits
            if not extents:
                shapes.append(1)
                strides_out.append(0)
            elif len(extents) == 1:
                shapes.append(extents[0])
                strides_out.append(strides[0])
            else:
                shapes.append(tuple(extents))
                strides_out.append(tuple(strides))
        if len(shapes) == 1:
            return Layout(shapes[0], strides_out[0])
        return Layout(tuple(shapes), tuple(strides_out))
    if shape is None:
        extents, strides = _greedy_modes(cols)
        if not extents:
            return Layout(1, 0)
        if len(extents) == 1:
            return Layout(extents[0], strides[0])
        return Layout(tuple(extents), tuple(strides))
    shape_t = Layout(shape).shape  # ShapeError naming a non-positive extent, before the bits are read
    leaves = it.flatten(shape_t)
    leaf_strides = []
    j = 0
    for k, extent in enumerate(leaves):
        bits = _log2_exact(extent, f"extent of flat mode {k} of shape {shape_t}")
        own = list(cols[j : j + bits])
        stride = own[0] if own else 0
        if own != [stride << b for b in range(bits)]:
            raise NotLinearError(f"bit columns {own} of flat mode {k} are not one stride times 1, 2, 4, ...")
        leaf_strides.append(stride)
        j += bits
    if j != len(cols):
        raise LayoutError(f"shape {shape_t} has {j} index bits, the matrix has {len(cols)}")
    return Layout(shape_t, it.unflatten(leaf_strides, shape_t))


#: The widest output (in bits) searched for a swizzle in :func:`from_f2` (no GPU offset is wider than 64 bits).
MAX_SWIZZLE_SEARCH_BITS = 64


def _swizzle_candidates(n: int) -> list[Swizzle]:
    found = []
    for bits in range(n, 0, -1):
        for base in range(0, n):
            for shift in range(-n, n + 1):
                if abs(shift) < bits:
                    continue
                top = base + abs(shift) + bits
                if top > n:
                    continue
                found.append(Swizzle(bits, base, shift))
    return found


def from_f2(matrix: BitMatrix, shape: Any = None, mode_bits: Sequence[int] | None = None) -> Layout | ComposedLayout:
    """A Layout (or ``Swizzle o _0 o Layout``) whose function is ``matrix``, over ``shape`` if given.

    ``mode_bits`` (instead of ``shape``) fixes only the number of index bits of
    each top-level mode and groups each mode's bits into sub-modes as needed.

    A matrix with pairwise bit-disjoint columns is a plain layout (column ``j``
    is the stride of index bit ``j``).  Otherwise a swizzle ``Sw`` is sought
    such that ``Sw @ matrix`` is such a layout matrix (``Sw`` is an involution,
    so ``matrix == Sw @ (Sw @ matrix)``); LayoutError if none exists.
    Without ``shape`` the index bits are grouped into modes greedily.
    """
    if not isinstance(matrix, BitMatrix):
        raise LayoutError(f"from_f2 takes a BitMatrix, got {describe(matrix)}")
    if mode_bits is not None:
        if not isinstance(mode_bits, (tuple, list)):
            raise LayoutError(f"from_f2 mode_bits must be a list of bit counts (ints), got {describe(mode_bits)}")
        mode_bits = [as_int(b, f"from_f2 mode_bits[{k}]") for k, b in enumerate(mode_bits)]
        if any(b < 0 for b in mode_bits):
            raise LayoutError(f"from_f2 mode_bits must be non-negative bit counts, got {describe(mode_bits)}")
    cols = list(matrix.columns)
    if _disjoint(cols):
        try:
            return _layout_from_columns(cols, shape, mode_bits)
        except NotLinearError:
            pass  # disjoint, but not one stride per mode of ``shape``: a swizzle may still fit
    n = max([matrix.n_out] + [c.bit_length() for c in cols])
    if n > MAX_SWIZZLE_SEARCH_BITS:  # the search tries O(n^3) swizzles: refused before the work, not after
        raise LayoutError(f"no plain layout has these columns, and a swizzle is sought over at most "
                          f"{MAX_SWIZZLE_SEARCH_BITS} output bits; the matrix has {n}")
    for swizzle in _swizzle_candidates(n):
        plain = [swizzle(c) for c in cols]
        if _disjoint(plain):
            try:
                inner = _layout_from_columns(plain, shape, mode_bits)
            except NotLinearError:
                continue
            return ComposedLayout(swizzle, 0, inner)
    raise LayoutError("bit matrix is neither a layout nor a swizzle composed with a layout")


__all__ = ["BitMatrix", "to_f2", "is_f2_linear", "from_f2"]
