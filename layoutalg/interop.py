"""Read and write layouts in the notations of the other CuTe-family tools.

* **pycute** (``import pycute``, shipped in ``nvidia-cutlass``): :func:`from_pycute` /
  :func:`to_pycute` for ``pycute.Layout``, ``pycute.Swizzle`` and
  ``pycute.ComposedLayout(layoutB, offset, layoutA)`` (which evaluates
  ``layoutB(offset + layoutA(c))``, the same order as ours: outer, offset, inner).
* **CuTe DSL** (``cutlass.cute``): :func:`from_cute_dsl` / :func:`to_cute_dsl` for
  ``cute.Layout``, ``cute.Swizzle`` and ``cute.ComposedLayout`` objects; CuTe DSL
  objects exist only while a ``@cute.jit`` function is traced, so call these inside
  one.  Its printed strings (``S<3,3,3> o 0 o (8,64):(64,1)``) go through
  :func:`from_string`.
* **CuTe C++**: printed values (``Sw<3,4,3> o _0 o (_8,_64):(_64,_1)``) and type
  strings (``Layout<Shape<_8,_64>,Stride<_64,_1>>``, ``ComposedLayout<Swizzle<3,3,3>,
  smem_ptr_flag_bits<16>, Layout<...>>``, as compilers print them, ``cute::``
  prefixes and all): :func:`from_string`, :func:`from_cpp`, :func:`to_cpp`.
* **Triton** linear layouts: :func:`from_triton` / :func:`to_triton` delegate to
  :mod:`layoutalg.swizzle.triton`.

An offset of ``smem_ptr_flag_bits<B>`` (``smem_ptr_flag`` is ``smem_ptr_flag_bits<1>``,
printed ``smem_ptr[Bb](unset)``) is CuTe's placeholder for a shared-memory
pointer not yet bound (cute/pointer_flagged.hpp): it is ``Int<0>``, the inner
layout counts ``B``-bit elements, and ``make_tensor`` moves the swizzle onto the
pointer (``smem_ptr_swizzle``), where it acts on the **byte** address.  As a
function of the element index, ``Swizzle<b,m,s>`` on bytes is
``Swizzle<b, m + 3 - log2(B), s>`` on elements (for 16-bit data the GMMA
``Sw<3,4,3>`` is the sm80 ``Sw<3,3,3>``), which is what we return, with offset
0; a swizzle that would split an element (``m + 3 < log2(B)``) is refused.  A dynamic value
(``int`` in a type string, ``?`` in a DSL print) has no static value to read and
is refused with a message naming where it occurred.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, ParseError, ShapeError

# --------------------------------------------------------------------------- helpers


def _swizzle_types() -> tuple[Any, Any]:
    """``(Swizzle, ComposedLayout)`` from the swizzle layer, imported on demand."""
    try:
        from layoutalg.swizzle.composed import ComposedLayout
        from layoutalg.swizzle.swizzle import Swizzle
    except ImportError as exc:  # pragma: no cover - only while the swizzle layer is being written
        raise LayoutError("swizzled layouts need layoutalg.swizzle, which is not available") from exc
    return Swizzle, ComposedLayout


def _is_composed(x: Any) -> bool:
    return hasattr(x, "inner") and hasattr(x, "outer") and hasattr(x, "offset")


def _is_swizzle(x: Any) -> bool:
    return hasattr(x, "bits") and hasattr(x, "base") and hasattr(x, "shift") and not isinstance(x, Layout)


def _tuple_to_text(t: IntTuple, static: bool) -> str:
    if isinstance(t, tuple):
        return "(" + ",".join(_tuple_to_text(e, static) for e in t) + ")"
    return f"_{t}" if static else str(t)


# --------------------------------------------------------------------------- printed notation


_PYCUTE_SWIZZLE = re.compile(r"SW_(-?\d+)_(-?\d+)_(-?\d+)")
_DSL_SWIZZLE = re.compile(r"(?<![A-Za-z_])S<")


def normalise_notation(text: str) -> str:
    """Rewrite the CuTe DSL and pycute spellings of a printed value into CuTe C++'s.

    ``S<3,3,3>`` (CuTe DSL) and ``SW_3_3_3`` (pycute) become ``Sw<3,3,3>``; the
    layout part is already the same in all three (``_8`` or ``8``, spaces anywhere).
    """
    if "?" in text:
        column = text.index("?") + 1
        raise ParseError("a dynamic value '?' has no static value to read; substitute the number", text, column)
    text = _PYCUTE_SWIZZLE.sub(r"Sw<\1,\2,\3>", text)
    text = _DSL_SWIZZLE.sub("Sw<", text)
    return _SMEM_PTR_PRINT.sub(_element_swizzle_text, text)


_SMEM_PTR_PRINT = re.compile(r"Sw<\s*(\d+)\s*,\s*(\d+)\s*,\s*(-?\d+)\s*>\s*o\s*smem_ptr\[(\d+)b\]\(unset\)")


def _element_swizzle_text(match: re.Match[str]) -> str:
    if any(len(g.lstrip("-")) > MAX_DIGITS for g in match.groups()):
        raise ParseError(f"an integer of more than {MAX_DIGITS} digits", match.string, match.start() + 1)
    bits, base, shift, element_bits = (int(g) for g in match.groups())
    return f"Sw<{bits},{element_swizzle_base(base, element_bits)},{shift}> o 0"


def element_swizzle_base(byte_base: int, element_bits: int) -> int:
    """The base ``M`` in element units of a swizzle whose base is ``byte_base`` on byte addresses.

    ``B``-bit elements: byte address ``i * B / 8`` so bit ``k`` of the byte address is
    bit ``k - log2(B/8)`` of the element index: ``M_elem = M_byte + 3 - log2(B)``.
    """
    if element_bits < 1 or element_bits & (element_bits - 1):
        raise LayoutError(f"smem_ptr_flag_bits<{element_bits}>: element bits must be a power of two")
    base = byte_base + 3 - (element_bits.bit_length() - 1)
    if base < 0:
        raise LayoutError(
            f"a byte-address swizzle with base {byte_base} splits {element_bits}-bit elements; "
            "it has no element-index form")
    return base


def _parse_printed(text: str) -> Any:
    """Parse CuTe print notation with the fullest parser available (swizzle layer, else core)."""
    import importlib

    try:
        parse = importlib.import_module("layoutalg.swizzle.notation").parse
    except (ImportError, AttributeError):
        parse = importlib.import_module("layoutalg.core.notation").parse_layout
    return parse(text)


def from_string(text: str) -> Any:
    """Any textual layout: a CuTe C++ type string, CuTe C++ / CuTe DSL / pycute print notation,
    or a Triton linear layout (``#ttg.linear<{...}>`` or ``LinearLayout::toString`` text)."""
    if not isinstance(text, str):
        raise LayoutError(f"expected a string, got {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        raise ParseError("empty layout text", text, 1)
    if re.match(r"^(cute::)?(Layout|ComposedLayout)\s*<", stripped):
        return from_cpp(stripped)
    if stripped.startswith("#ttg.linear") or "where out dims are" in stripped:
        return from_triton(_triton().parse_triton(stripped))
    return _parse_printed(normalise_notation(stripped))


# --------------------------------------------------------------------------- C++ type strings

_TOKEN = re.compile(r"(?:(?P<num>-?\d+)|(?P<name>[A-Za-z_][A-Za-z_0-9]*(?:::[A-Za-z_][A-Za-z_0-9]*)*)|(?P<punct>[<>,{}()]))")
MAX_NESTING = 64
"""Deepest nesting of template arguments read (CuTe's own notation parser has the same bound)."""
MAX_DIGITS = 1000
"""Longest integer literal read (well past any 64-bit value; Python refuses to convert above 4300 digits)."""
_TUPLE_NAMES = {"Shape", "Stride", "tuple", "Coord", "Step", "Tile", "IntTuple"}
_CONSTANT_NAMES = {"C", "Int", "constant", "integral_constant"}
_DYNAMIC_NAMES = {"int", "int32_t", "int64_t", "uint32_t", "uint64_t", "long", "unsigned", "size_t"}


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    column: int


class _CppParser:
    """Recursive descent over CuTe's template types; columns in errors are 1-based."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[_Tok] = []
        pos = 0
        while pos < len(text):
            if text[pos].isspace():
                pos += 1
                continue
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                raise ParseError(f"unexpected character {describe(text[pos])}", text, pos + 1)
            kind = match.lastgroup or ""
            value = match.group(kind)
            self.tokens.append(_Tok(kind, value, match.start(kind) + 1))
            pos = match.end()
        self.i = 0
        self.depth = 0

    def number(self, digits: str, column: int) -> int:
        """An integer literal (at most :data:`MAX_DIGITS` digits, else a ParseError at its column)."""
        if len(digits.lstrip("-")) > MAX_DIGITS:
            raise ParseError(f"an integer of {len(digits.lstrip('-'))} digits (at most {MAX_DIGITS} are read)",
                             self.text, column)
        return int(digits)

    def nest(self, column: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ParseError(f"nesting deeper than {MAX_NESTING}", self.text, column)

    # -- token access
    def peek(self) -> _Tok | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> _Tok:
        tok = self.peek()
        if tok is None:
            raise ParseError("unexpected end of text", self.text, len(self.text) + 1)
        self.i += 1
        return tok

    def expect(self, text: str) -> _Tok:
        tok = self.take()
        if tok.text != text:
            raise ParseError(f"expected {describe(text)}, found {describe(tok.text)}", self.text, tok.column)
        return tok

    def name(self) -> _Tok:
        tok = self.take()
        if tok.kind != "name":
            raise ParseError(f"expected a type name, found {describe(tok.text)}", self.text, tok.column)
        return tok

    @staticmethod
    def base(name: str) -> str:
        return name.split("::")[-1]

    def skip_braces(self) -> None:
        tok = self.peek()
        if tok is not None and tok.text == "{":
            self.take()
            self.expect("}")

    # -- grammar
    def value(self) -> Any:
        tok = self.name()
        kind = self.base(tok.text)
        self.nest(tok.column)
        if kind == "Layout":
            result = self.layout_body(tok)
        elif kind == "ComposedLayout":
            result = self.composed_body()
        else:
            raise ParseError(f"expected Layout<...> or ComposedLayout<...>, found {describe(tok.text)}", self.text, tok.column)
        self.skip_braces()
        self.depth -= 1
        return result

    def layout_body(self, tok: _Tok) -> Layout:
        self.expect("<")
        shape = self.int_tuple("Shape")
        stride: IntTuple | None = None
        if self.peek() is not None and self.peek().text == ",":  # type: ignore[union-attr]
            self.take()
            stride = self.int_tuple("Stride")
        self.expect(">")
        try:
            return Layout(shape, stride)
        except LayoutError as exc:
            raise ParseError(f"{exc}", self.text, tok.column) from exc

    def composed_body(self) -> Any:
        Swizzle, ComposedLayout = _swizzle_types()
        self.expect("<")
        head = self.name()
        if self.base(head.text) == "Swizzle":
            self.expect("<")
            bits = self.integer()
            self.expect(",")
            base = self.integer()
            self.expect(",")
            shift = self.integer()
            self.expect(">")
            self.skip_braces()
            swizzle_args = (bits, base, shift)
            outer: Any = None
        elif self.base(head.text) == "Layout":
            outer = self.layout_body(head)
            self.skip_braces()
        else:
            raise ParseError(f"expected Swizzle<B,M,S> or Layout<...> as the outer function, found {describe(head.text)}",
                             self.text, head.column)
        self.expect(",")
        offset_tok = self.peek()
        offset, element_bits = self.offset()
        self.expect(",")
        inner = self.value()
        self.expect(">")
        if outer is None:
            bits, base, shift = swizzle_args
            if element_bits is not None:
                try:
                    base = element_swizzle_base(base, element_bits)
                except LayoutError as exc:
                    raise ParseError(str(exc), self.text, offset_tok.column if offset_tok else 1) from exc
            outer = Swizzle(bits, base, shift)
        return ComposedLayout(outer, offset, inner)

    def offset(self) -> tuple[int, int | None]:
        """The offset and, for ``smem_ptr_flag_bits<B>``, the element bits ``B`` (else ``None``)."""
        tok = self.peek()
        if tok is not None and tok.kind == "name" and self.base(tok.text) in ("smem_ptr_flag_bits", "smem_ptr_flag"):
            self.take()
            element_bits = 1
            if self.base(tok.text) == "smem_ptr_flag_bits":
                self.expect("<")
                element_bits = self.integer()
                self.expect(">")
            self.skip_braces()
            return 0, element_bits
        value = self.int_tuple("offset")
        if isinstance(value, tuple):
            raise ParseError("a ComposedLayout offset must be a single integer here", self.text, tok.column if tok else 1)
        return value, None

    def integer(self) -> int:
        tok = self.take()
        if tok.kind == "num":
            return self.number(tok.text, tok.column)
        if tok.kind == "name":
            kind = self.base(tok.text)
            match = re.fullmatch(r"_(\d+)", kind)
            if match:
                self.skip_braces()
                return self.number(match.group(1), tok.column)
        raise ParseError(f"expected an integer, found {describe(tok.text)}", self.text, tok.column)

    def int_tuple(self, what: str) -> IntTuple:
        tok = self.take()
        if tok.kind == "num":
            return self.number(tok.text, tok.column)
        if tok.kind != "name":
            raise ParseError(f"expected a {what} (a static integer or a tuple), found {describe(tok.text)}", self.text, tok.column)
        kind = self.base(tok.text)
        static = re.fullmatch(r"_(\d+)", kind)
        if static:
            self.skip_braces()
            return self.number(static.group(1), tok.column)
        if kind in _DYNAMIC_NAMES:
            raise ParseError(
                f"dynamic '{tok.text}' in the {what} has no static value; write the number as _N (e.g. _64)",
                self.text, tok.column)
        if kind in _TUPLE_NAMES:
            self.nest(tok.column)
            self.expect("<")
            elements: list[IntTuple] = []
            if self.peek() is not None and self.peek().text != ">":  # type: ignore[union-attr]
                elements.append(self.int_tuple(what))
                while self.peek() is not None and self.peek().text == ",":  # type: ignore[union-attr]
                    self.take()
                    elements.append(self.int_tuple(what))
            self.expect(">")
            self.skip_braces()
            self.depth -= 1
            return tuple(elements)
        if kind in _CONSTANT_NAMES:
            self.expect("<")
            if kind in ("constant", "integral_constant"):
                self.name()  # the value type, e.g. int
                self.expect(",")
            value = self.integer()
            self.expect(">")
            self.skip_braces()
            return value
        raise ParseError(f"unknown type {describe(tok.text)} in the {what}; expected _N, C<N>, Int<N> or Shape<...>",
                         self.text, tok.column)

    def parse(self) -> Any:
        result = self.value()
        tok = self.peek()
        if tok is not None:
            raise ParseError(f"unexpected {describe(tok.text)} after the layout", self.text, tok.column)
        return result


def from_cpp(text: str) -> Any:
    """A CuTe C++ type string as a ``Layout`` or ``ComposedLayout``.

    ``Layout<Shape<_8,_64>,Stride<_64,_1>>`` is ``(8,64):(64,1)``; ``Layout<Shape>``
    without a stride is compact column-major (CuTe's default ``LayoutLeft``).
    ``cute::``/``std::`` prefixes, ``C<N>``, ``Int<N>``, ``integral_constant<int,N>``,
    ``cute::tuple<...>`` and trailing ``{}`` are accepted.
    """
    if not isinstance(text, str):
        raise LayoutError(f"expected a string, got {type(text).__name__}")
    return _CppParser(text).parse()


def _cpp_int(value: int) -> str:
    return f"_{value}" if value >= 0 else f"C<{value}>"


def _cpp_tuple(t: IntTuple, head: str) -> str:
    if isinstance(t, tuple):
        return f"{head}<" + ",".join(_cpp_tuple(e, head) for e in t) + ">"
    return _cpp_int(t)


def to_cpp(x: Any) -> str:
    """The CuTe C++ type of a ``Layout`` (``Layout<Shape<_8,_64>,Stride<_64,_1>>``) or ``ComposedLayout``.

    A rank-1 layout is written with a bare static extent (``Layout<_8,_1>``), as
    CuTe's ``Layout<_8,_1>`` spells ``8:1``.  Negative values are ``C<-n>``.
    """
    if isinstance(x, Layout):
        return f"Layout<{_cpp_tuple(x.shape, 'Shape')},{_cpp_tuple(x.stride, 'Stride')}>"
    if _is_composed(x):
        outer = x.outer
        if _is_swizzle(outer):
            outer_text = f"Swizzle<{outer.bits},{outer.base},{outer.shift}>"
        else:
            outer_text = to_cpp(outer)
        offset = x.offset
        if not isinstance(offset, int):
            raise LayoutError(f"to_cpp: offset {describe(offset)} must be an integer")
        return f"ComposedLayout<{outer_text},{_cpp_int(offset)},{to_cpp(x.inner)}>"
    if _is_swizzle(x):
        return f"Swizzle<{x.bits},{x.base},{x.shift}>"
    raise LayoutError(f"to_cpp takes a Layout, Swizzle or ComposedLayout, got {type(x).__name__}")


# --------------------------------------------------------------------------- pycute


def _plain_tuple(t: Any, what: str) -> IntTuple:
    if isinstance(t, (tuple, list)):
        return tuple(_plain_tuple(e, f"{what}[{i}]") for i, e in enumerate(t))
    try:
        return int(t)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"{what} holds {describe(t)}, which is not a static integer") from exc


def from_pycute(obj: Any) -> Any:
    """A ``pycute.Layout``, ``pycute.Swizzle`` or ``pycute.ComposedLayout`` as ours."""
    module = type(obj).__module__ or ""
    if not module.startswith("pycute"):
        raise LayoutError(f"from_pycute expects a pycute object, got {type(obj).__name__} from {describe(module)}")
    kind = type(obj).__name__
    if kind == "Layout":
        return Layout(_plain_tuple(obj.shape, "shape"), _plain_tuple(obj.stride, "stride"))
    if kind == "Swizzle":
        Swizzle, _ = _swizzle_types()
        return Swizzle(obj.bits, obj.base, obj.shift)
    if kind == "ComposedLayout":
        _, ComposedLayout = _swizzle_types()
        return ComposedLayout(from_pycute(obj.layoutB), int(obj.offset), from_pycute(obj.layoutA))
    raise LayoutError(f"from_pycute: unsupported pycute type {kind}")


def to_pycute(x: Any) -> Any:
    """Ours as a pycute object (``Layout``, ``Swizzle`` or ``ComposedLayout(outer, offset, inner)``)."""
    import pycute

    if isinstance(x, Layout):
        return pycute.Layout(x.shape, x.stride)
    if _is_composed(x):
        return pycute.ComposedLayout(to_pycute(x.outer), x.offset, to_pycute(x.inner))
    if _is_swizzle(x):
        if x.shift == 0 and x.bits > 0:  # pragma: no cover - our Swizzle refuses |S| < B anyway
            raise LayoutError("pycute's Swizzle recurses forever with shift 0")
        return pycute.Swizzle(x.bits, x.base, x.shift)
    raise LayoutError(f"to_pycute takes a Layout, Swizzle or ComposedLayout, got {type(x).__name__}")


# --------------------------------------------------------------------------- CuTe DSL


def _dsl_int(value: Any, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ShapeError(
        f"{what} is a dynamic CuTe DSL value ({describe(value)}); only static layouts can be read: "
        "build it from Python ints or cutlass.Constexpr")


def _dsl_tuple(t: Any, what: str) -> IntTuple:
    if isinstance(t, (tuple, list)):
        return tuple(_dsl_tuple(e, f"{what}[{i}]") for i, e in enumerate(t))
    return _dsl_int(t, what)


def from_cute_dsl(obj: Any) -> Any:
    """A CuTe DSL ``Layout`` / ``Swizzle`` / ``ComposedLayout`` (inside a ``@cute.jit`` trace) as ours.

    Static layouts only (their shapes and strides are Python ints at trace time).
    """
    kind = type(obj).__name__
    if kind in ("_Layout", "Layout") and hasattr(obj, "stride"):
        return Layout(_dsl_tuple(obj.shape, "shape"), _dsl_tuple(obj.stride, "stride"))
    if kind in ("_ComposedLayout", "ComposedLayout"):
        _, ComposedLayout = _swizzle_types()
        # CuTe DSL names the parts the other way round: ``make_composed_layout(inner, offset, outer)`` evaluates
        # ``inner(offset + outer(c))``, so its ``.inner`` is our outer function (the swizzle) and vice versa.
        return ComposedLayout(from_cute_dsl(obj.inner), _dsl_int(obj.offset, "offset"), from_cute_dsl(obj.outer))
    if kind == "Swizzle" and hasattr(obj, "num_bits"):
        Swizzle, _ = _swizzle_types()
        return Swizzle(_dsl_int(obj.num_bits, "bits"), _dsl_int(obj.num_base, "base"), _dsl_int(obj.num_shift, "shift"))
    text = str(obj)
    try:
        return from_string(text)
    except LayoutError as exc:
        raise LayoutError(f"from_cute_dsl: cannot read a {kind} ({describe(text)})") from exc


def to_cute_dsl(x: Any) -> Any:
    """Ours as a CuTe DSL value; call inside a ``@cute.jit`` function (CuTe DSL needs a trace)."""
    import cutlass.cute as cute

    if isinstance(x, Layout):
        return cute.make_layout(x.shape, stride=x.stride)
    if _is_composed(x):
        return cute.make_composed_layout(to_cute_dsl(x.outer), x.offset, to_cute_dsl(x.inner))
    if _is_swizzle(x):
        return cute.make_swizzle(x.bits, x.base, x.shift)
    raise LayoutError(f"to_cute_dsl takes a Layout, Swizzle or ComposedLayout, got {type(x).__name__}")


def to_dsl_string(x: Any) -> str:
    """How CuTe DSL prints ``x``: ``(8,64):(64,1)``, ``S<3,3,3> o 0 o (8,64):(64,1)``."""
    if isinstance(x, Layout):
        return f"{_tuple_to_text(x.shape, False)}:{_tuple_to_text(x.stride, False)}"
    if _is_composed(x):
        return f"{to_dsl_string(x.outer)} o {x.offset} o {to_dsl_string(x.inner)}"
    if _is_swizzle(x):
        return f"S<{x.bits},{x.base},{x.shift}>"
    raise LayoutError(f"to_dsl_string takes a Layout, Swizzle or ComposedLayout, got {type(x).__name__}")


# --------------------------------------------------------------------------- Triton


def _triton() -> Any:
    import importlib

    return importlib.import_module("layoutalg.swizzle.triton")


def to_triton(x: Any, **kwargs: Any) -> Any:
    """A Triton linear layout (see :mod:`layoutalg.swizzle.triton`)."""
    return _triton().to_triton(x, **kwargs)


def from_triton(spec: Any, **kwargs: Any) -> Any:
    """A Triton linear layout as ours (see :mod:`layoutalg.swizzle.triton`)."""
    return _triton().from_triton(spec, **kwargs)


__all__ = [
    "from_string",
    "normalise_notation",
    "element_swizzle_base",
    "from_cpp",
    "to_cpp",
    "from_pycute",
    "to_pycute",
    "from_cute_dsl",
    "to_cute_dsl",
    "to_dsl_string",
    "from_triton",
    "to_triton",
]
