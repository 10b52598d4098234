"""Triton linear layouts (triton/Tools/LinearLayout.h) to and from layoutalg layouts.

A Triton ``LinearLayout`` maps named input dimensions (``register``, ``lane``,
``warp``, ``block`` for distributed layouts; ``offset`` and others for shared
ones) to named output dimensions (``dim0``, ``dim1``, ...).  Input dim ``d``
has ``k`` basis vectors; bit ``i`` of its value contributes basis ``i`` (one
entry per output dim), and the output is the XOR of the contributions of every
set bit of every input.  Each output dim has a power-of-two size.

Correspondence with a layoutalg layout ``L`` (linear over GF(2), see
:mod:`layoutalg.swizzle.f2`):

  * ``in_dims = [(name, size), ...]`` splits ``L``'s 1-D index into bit fields,
    the first listed taking the lowest bits (CuTe's colexicographic order, so
    a TV layout ``((32,4),8):...`` is ``[("lane",32),("warp",4),("register",8)]``);
  * ``out_shape = (s0, s1, ...)`` reads an offset as the colexicographic
    coordinate ``(o % s0, (o // s0) % s1, ...)``, i.e. ``dim0`` is the fastest
    (CuTe's column-major ``(M, N)`` tile coordinate).

The text forms are Triton's ``LinearLayout::toString`` (``" - register=1 -> (0, 1)"``
lines and ``where out dims are: [dim0 (size 16), ...]``) and the MLIR attribute
``#ttg.linear<{register = [[0, 1], ...], lane = [...], warp = [], block = []}>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from layoutalg.core.layout import Layout
from layoutalg.core.validate import as_int, describe, plain_int
from layoutalg.errors import LayoutError, ParseError
from layoutalg.swizzle.composed import AnyLayout, ComposedLayout
from layoutalg.swizzle.f2 import BitMatrix, from_f2, to_f2

Basis = tuple[int, ...]


def _log2(n: int, what: str) -> int:
    n = plain_int(n, what)
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0 or n & (n - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {describe(n)}")
    return n.bit_length() - 1


def _named_items(items: object, what: str, value: object) -> tuple:  # type: ignore[type-arg]
    """``items`` as a tuple of ``(str, value(v))`` pairs (a mapping is read in its order); else LayoutError."""
    pairs = list(items.items()) if isinstance(items, Mapping) else items
    if not isinstance(pairs, (tuple, list)):
        raise LayoutError(f"TritonLinearLayout {what} must be (name, value) pairs, got {describe(items)}")
    out = []
    for k, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not isinstance(pair[0], str):
            raise LayoutError(f"TritonLinearLayout {what}[{k}] must be a (name, value) pair, got {describe(pair)}")
        out.append((pair[0], value(pair[1], f"{what} {pair[0]!r}")))  # type: ignore[operator]
    return tuple(out)


def _out_size(size: object, what: str) -> int:
    return as_int(size, f"size of {what}")


def _basis_vectors(vectors: object, what: str) -> tuple[Basis, ...]:
    if not isinstance(vectors, (tuple, list)) or not all(isinstance(v, (tuple, list)) for v in vectors):
        raise LayoutError(f"{what} must be a list of basis vectors (lists of ints), got {describe(vectors)}")
    return tuple(tuple(as_int(x, f"{what} vector {i}") for x in v) for i, v in enumerate(vectors))


#: Most bases one input dimension may have (a size of 2**64; Triton's are at most a few dozen).
MAX_BASES = 64


@dataclass(frozen=True)
class TritonLinearLayout:
    """Triton's ``LinearLayout``: ``bases[in_dim][i]`` is the output of bit ``i`` of ``in_dim``."""

    bases: tuple[tuple[str, tuple[Basis, ...]], ...]
    out_dims: tuple[tuple[str, int], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "out_dims", _named_items(self.out_dims, "out_dims", _out_size))
        object.__setattr__(self, "bases", _named_items(self.bases, "bases", _basis_vectors))
        names = [name for name, _ in self.out_dims]
        if len(set(names)) != len(names):
            raise LayoutError(f"duplicate output dimension names {names}")
        for name, size in self.out_dims:
            _log2(size, f"size of output dimension {name!r}")
        in_names = [name for name, _ in self.bases]
        if len(set(in_names)) != len(in_names):
            raise LayoutError(f"duplicate input dimension names {in_names}")
        for in_name, vectors in self.bases:
            if len(vectors) > MAX_BASES:
                raise LayoutError(f"input dimension {describe(in_name)} has {len(vectors)} bases, more than the {MAX_BASES} "
                                  "(a size of 2**64) read here")
            for i, vec in enumerate(vectors):
                if len(vec) != len(self.out_dims):
                    raise LayoutError(
                        f"basis {in_name}={1 << i} has {len(vec)} entries, expected one per output dim {names}"
                    )
                for (out_name, size), v in zip(self.out_dims, vec):
                    if not 0 <= v < size:
                        raise LayoutError(f"basis {in_name}={1 << i} -> {v} is outside output dim {out_name} (size {size})")

    @classmethod
    def make(cls, bases: Mapping[str, Sequence[Sequence[int]]], out_dims: Mapping[str, int]) -> "TritonLinearLayout":
        """From ``{"register": [[0, 1], ...], ...}`` and ``{"dim0": 16, "dim1": 16}`` (insertion order kept)."""
        return cls(bases, out_dims)  # type: ignore[arg-type]  # __post_init__ reads mappings and checks every entry

    def in_dim_size(self, name: str) -> int:
        known = dict(self.bases)
        if name not in known:
            raise LayoutError(f"unknown input dimension {describe(name)}; this layout has {list(known)}")
        return 1 << len(known[name])

    def in_dims(self) -> list[tuple[str, int]]:
        return [(name, 1 << len(vecs)) for name, vecs in self.bases]

    def __call__(self, **inputs: int) -> tuple[int, ...]:
        """The output coordinate for the given input values (missing inputs are 0)."""
        known = dict(self.bases)
        for name in inputs:
            if name not in known:
                raise LayoutError(f"unknown input dimension {describe(name)}; this layout has {list(known)}")
        out = [0] * len(self.out_dims)
        for name, vectors in self.bases:
            value = plain_int(inputs.get(name, 0), f"input {name}")
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << len(vectors):
                raise LayoutError(f"input {name}={describe(value)} is outside [0, {1 << len(vectors)})")
            for i, vec in enumerate(vectors):
                if (value >> i) & 1:
                    out = [o ^ v for o, v in zip(out, vec)]
        return tuple(out)

    def to_string(self) -> str:
        """Triton's ``LinearLayout::toString`` text."""
        lines = [""]
        for name, vectors in self.bases:
            if not vectors:
                lines.append(f" - {name} is a size 1 dimension")
                continue
            for i, vec in enumerate(vectors):
                prefix = " - " if i == 0 else "   "
                lines.append(f"{prefix}{name}={1 << i} -> ({', '.join(str(v) for v in vec)})")
        dims = ", ".join(f"{name} (size {size})" for name, size in self.out_dims)
        lines.append(f"where out dims are: [{dims}]")
        return "\n".join(lines)

    def to_attribute(self) -> str:
        """The MLIR attribute ``#ttg.linear<{register = [[...]], ...}>`` (out dims are dim0, dim1, ... by position)."""
        parts = []
        for name, vectors in self.bases:
            parts.append(f"{name} = [" + ", ".join("[" + ", ".join(str(v) for v in vec) + "]" for vec in vectors) + "]")
        return "#ttg.linear<{" + ", ".join(parts) + "}>"

    def __str__(self) -> str:
        return self.to_string()


# ---------------------------------------------------------------------------
# parsing

_BASIS_LINE = re.compile(r"^\s*(?:-\s*)?(\w+)=(\d+)\s*->\s*\(([^)]*)\)\s*$")
_SIZE1_LINE = re.compile(r"^\s*-\s*(\w+) is a size 1 dimension\s*$")
_OUT_LINE = re.compile(r"^\s*where out dims are:\s*\[(.*)\]\s*$")
_OUT_DIM = re.compile(r"^\s*(\w+) \(size (\d+)\)\s*$")


def _int(token: str, what: str, text: str) -> int:
    """A decimal integer token, or ParseError (too long for Python to read, or not an integer)."""
    token = token.strip()
    if len(token) > 1240:
        raise ParseError(f"{what}: an integer of {len(token)} digits is too large", text, 1)
    try:
        return int(token)
    except ValueError:
        raise ParseError(f"{what}: {describe(token)} is not an integer", text, 1) from None


def parse_triton(text: str, shape: Sequence[int] | None = None) -> TritonLinearLayout:
    """Parse ``LinearLayout::toString`` output, or a ``#ttg.linear<{...}>`` attribute with the tensor ``shape``."""
    if not isinstance(text, str):
        raise ParseError(f"expected text, got {describe(text)}")
    stripped = text.strip()
    if stripped.startswith("#ttg.linear") or stripped.startswith("{"):
        return _parse_attribute(stripped, shape)
    bases: dict[str, list[Basis]] = {}
    out_dims: list[tuple[str, int]] | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if m := _BASIS_LINE.match(line):
            name, power, entries = m.group(1), _int(m.group(2), "basis index", line), m.group(3)
            vectors = bases.setdefault(name, [])
            if power != 1 << len(vectors):
                raise ParseError(f"basis {name}={power} out of order (expected {name}={1 << len(vectors)})", line, 1)
            vectors.append(tuple(_int(v, "basis entry", line) for v in entries.split(",") if v.strip()))
        elif m := _SIZE1_LINE.match(line):
            bases.setdefault(m.group(1), [])
        elif m := _OUT_LINE.match(line):
            out_dims = []
            for item in m.group(1).split(","):
                dm = _OUT_DIM.match(item)
                if not dm:
                    raise ParseError(f"output dim {describe(item.strip())} is not 'name (size N)'", line, line.find(item) + 1)
                out_dims.append((dm.group(1), _int(dm.group(2), "output dim size", line)))
        else:
            raise ParseError("not a Triton linear layout line", line, 1)
    if out_dims is None:
        raise ParseError("missing 'where out dims are: [...]' line", text, len(text))
    return TritonLinearLayout(tuple((n, tuple(v)) for n, v in bases.items()), tuple(out_dims))


_ATTR_ITEM = re.compile(r"(?<!\w)(\w+)\s*=\s*(\[(?:[^\[\]]|\[[^\[\]]*\])*\])")
"""``name = [[...], ...]``.  The name starts only where a word starts (``(?<!\\w)``): without that, a long run of
word characters is tried from every position inside it, quadratic in its length."""


def _parse_attribute(text: str, shape: Sequence[int] | None) -> TritonLinearLayout:
    body = text
    if body.startswith("#ttg.linear"):
        body = body[len("#ttg.linear") :].strip()
        if not (body.startswith("<") and body.endswith(">")):
            raise ParseError("expected #ttg.linear<{...}>", text, len("#ttg.linear") + 1)
        body = body[1:-1].strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise ParseError("expected {name = [[...]], ...}", text, 1)
    bases: dict[str, list[Basis]] = {}
    for m in _ATTR_ITEM.finditer(body):
        inner = m.group(2)[1:-1]
        vectors = re.findall(r"\[([^\[\]]*)\]", inner)
        bases[m.group(1)] = [tuple(_int(v, f"basis entry of {m.group(1)!r}", text) for v in vec.split(",") if v.strip()) for vec in vectors]
    if not bases:
        raise ParseError("no basis lists found", text, 1)
    width = max((len(v) for vecs in bases.values() for v in vecs), default=0)
    if shape is None:
        sizes = [1] * width
        for vecs in bases.values():
            for vec in vecs:
                for k, v in enumerate(vec):
                    sizes[k] = max(sizes[k], 1 << v.bit_length())
        shape = sizes
    shape = _int_list(shape, "tensor shape")
    if len(shape) != width:
        raise LayoutError(f"tensor shape {list(shape)} has {len(shape)} dims, the bases have {width} entries")
    return TritonLinearLayout(tuple((n, tuple(v)) for n, v in bases.items()), tuple((f"dim{k}", s) for k, s in enumerate(shape)))


def _names(values: object, what: str) -> list[str]:
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
        raise LayoutError(f"{what} must be a list of dimension names (str), got {describe(values)}")
    return list(values)


def _int_list(values: object, what: str) -> list[int]:
    if not isinstance(values, (list, tuple)):
        raise LayoutError(f"{what} must be a list of ints, got {describe(values)}")
    return [as_int(v, f"{what}[{k}]") for k, v in enumerate(values)]


# ---------------------------------------------------------------------------
# conversion


def to_triton(
    layout: AnyLayout,
    in_dims: Sequence[tuple[str, int]] | None = None,
    out_shape: Sequence[int] | None = None,
    out_names: Sequence[str] | None = None,
) -> TritonLinearLayout:
    """Export a GF(2)-linear Layout/ComposedLayout, or a layout with F2 strides (see the module note for ``in_dims``
    and ``out_shape``).

    Defaults: one input dim per top-level mode of ``layout`` named ``in0, in1, ...``
    (rank 1: ``offset``), and one output dim ``dim0`` of size ``2**n`` covering every offset.
    Raises NotLinearError for a function that is not linear over GF(2).
    """
    from layoutalg.core.stride_layout import StrideLayout

    if not isinstance(layout, (Layout, ComposedLayout, StrideLayout)):
        raise LayoutError(f"to_triton takes a Layout, ComposedLayout or a layout with F2 strides, got {describe(layout)}")
    if in_dims is not None:
        in_dims = _named_items(in_dims, "in_dims", _out_size)
    if out_shape is not None:
        out_shape = _int_list(out_shape, "out_shape")
    if out_names is not None:
        out_names = _names(out_names, "out_names")
    matrix = _f2_stride_matrix(layout) if isinstance(layout, StrideLayout) else to_f2(layout)
    if in_dims is None:
        from layoutalg.core import int_tuple as it

        modes = list(layout.shape) if isinstance(layout.shape, tuple) else [layout.shape]
        names = ["offset"] if len(modes) == 1 else [f"in{k}" for k in range(len(modes))]
        in_dims = [(name, it.product(mode)) for name, mode in zip(names, modes)]
    if out_shape is None:
        out_shape = [1 << max(matrix.n_out, 0)]
    if out_names is None:
        out_names = [f"dim{k}" for k in range(len(out_shape))]
    if len(out_names) != len(out_shape):
        raise LayoutError(f"out_names {list(out_names)} and out_shape {list(out_shape)} differ in length")
    out_bits = [_log2(s, f"out_shape[{k}]") for k, s in enumerate(out_shape)]
    if matrix.n_out > sum(out_bits):
        raise LayoutError(f"offsets need {matrix.n_out} bits but out_shape {list(out_shape)} holds only {sum(out_bits)}")
    in_bits = [_log2(size, f"size of input dim {name!r}") for name, size in in_dims]
    if sum(in_bits) != matrix.n_in:
        raise LayoutError(f"in_dims {list(in_dims)} cover {sum(in_bits)} index bits, the layout has {matrix.n_in}")

    def split(offset: int) -> Basis:
        coord = []
        for bits in out_bits:
            coord.append(offset & ((1 << bits) - 1))
            offset >>= bits
        return tuple(coord)

    bases = []
    j = 0
    for (name, _), bits in zip(in_dims, in_bits):
        bases.append((name, tuple(split(matrix.columns[j + i]) for i in range(bits))))
        j += bits
    return TritonLinearLayout(tuple(bases), tuple(zip(out_names, _int_list(out_shape, "out_shape"))))


def from_triton(tll: TritonLinearLayout, in_order: Sequence[str] | None = None,
                out_order: Sequence[str] | None = None) -> Any:
    """Import: a layout with one top-level mode per input dim whose offset is the colexicographic index of the output.

    Mode ``k`` has size ``size(in_order[k])``; it is nested when its bases are not
    one stride times 1, 2, 4, ... (e.g. ``register -> (0,1),(0,2),(1,0),(2,0)``).

    ``in_order`` picks the input dims (all, in listed order, by default);
    ``out_order`` the output dims from fastest to slowest (listed order by default).
    The result is a plain Layout, or ``Sw o _0 o Layout`` where the bases need a swizzle, else (a GF(2) map of
    no such form) the layout with one F2 stride per input bit.
    """
    if not isinstance(tll, TritonLinearLayout):
        raise LayoutError(f"from_triton takes a TritonLinearLayout, got {describe(tll)}")
    bases = dict(tll.bases)
    sizes = dict(tll.out_dims)
    in_order = _names(in_order, "in_order") if in_order is not None else [name for name, _ in tll.bases]
    out_order = _names(out_order, "out_order") if out_order is not None else [name for name, _ in tll.out_dims]
    for name in in_order:
        if name not in bases:
            raise LayoutError(f"unknown input dimension {describe(name)}; this layout has {list(bases)}")
    if sorted(out_order) != sorted(sizes):
        raise LayoutError(f"out_order {out_order} must list every output dim {list(sizes)} once")
    position = {name: k for k, (name, _) in enumerate(tll.out_dims)}
    columns = []
    for name in in_order:
        for vec in bases[name]:
            offset, scale = 0, 1
            for out_name in out_order:
                offset += vec[position[out_name]] * scale
                scale *= sizes[out_name]
            columns.append(offset)
    total_bits = sum(_log2(s, "output size") for s in sizes.values())
    matrix = BitMatrix(len(columns), total_bits, tuple(columns))
    mode_bits = [len(bases[name]) for name in in_order]
    try:
        return from_f2(matrix, mode_bits=mode_bits)
    except LayoutError:
        if total_bits > 64:  # refused for its size (from_f2's own limit), not for its form
            raise
        return _f2_bit_modes(mode_bits, columns)  # a GF(2) map of no (swizzled) layout form


def _f2_stride_matrix(layout: object) -> BitMatrix:
    """The GF(2) matrix of a layout with F2 (or int) strides over a power-of-two domain, read from its values;
    NotLinearError where they are not the XOR of the columns."""
    from layoutalg.core.stride_layout_ops import offset_values
    from layoutalg.errors import NotLinearError

    values = offset_values(layout, "to_triton")
    n_in = _log2(len(values), f"size of {layout}")
    columns = [values[1 << j] for j in range(n_in)]
    for index, value in enumerate(values):
        expect = 0
        for j, column in enumerate(columns):
            if index >> j & 1:
                expect ^= column
        if value != expect:
            raise NotLinearError(f"{layout} is not linear over GF(2): index {index} gives {value}, the XOR of its "
                                 f"bits' images is {expect}")
    return BitMatrix.from_columns(columns)


def _f2_bit_modes(mode_bits: Sequence[int], columns: Sequence[int]) -> Any:
    """The layout with one top-level mode per input dim (``mode_bits[k]`` bits) and one F2 stride per bit, column
    ``columns[j]`` for bit ``j``: equal to any GF(2) map, exactly."""
    from layoutalg.core.stride_layout import stride_layout
    from layoutalg.core.stride_scalars import F2

    shapes: list[Any] = []
    strides: list[Any] = []
    j = 0
    for bits in mode_bits:
        if bits == 0:
            shapes.append(1)
            strides.append(F2(0))
        elif bits == 1:
            shapes.append(2)
            strides.append(F2(columns[j]))
        else:
            shapes.append(tuple([2] * bits))
            strides.append(tuple(F2(c) for c in columns[j:j + bits]))
        j += bits
    if len(shapes) == 1:
        return stride_layout(shapes[0], strides[0])
    return stride_layout(tuple(shapes), tuple(strides))


__all__ = ["TritonLinearLayout", "parse_triton", "to_triton", "from_triton"]
