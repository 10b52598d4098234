"""CuTe C++ type strings, as source code writes them and as compilers print them.

``Layout<Shape<_8,_64>,Stride<_64,_1>>`` is ``(8,64):(64,1)``; compilers print
``cute::Layout<cute::tuple<cute::C<8>, cute::C<64> >, cute::tuple<cute::C<64>, cute::C<1> > >``.
``ComposedLayout<Swizzle<3,3,3>, _0, Layout<...>>`` and ``Swizzle<3,3,3>`` are read too, and the
shared-memory layout atoms by their CUTLASS names with the element type as template argument
(``GMMA::Layout_K_SW128_Atom<cutlass::half_t>``, ``Layout_MN_SW64_Atom<bf16>``,
``Layout_K_SW128_Atom_Bits``; the type in any spelling of :mod:`layoutalg.core.dtypes`).

An offset of ``smem_ptr_flag_bits<B>`` (``smem_ptr_flag`` is ``smem_ptr_flag_bits<1>``,
printed ``smem_ptr[Bb](unset)``) is CuTe's placeholder for a shared-memory
pointer not yet bound (cute/pointer_flagged.hpp): it is ``Int<0>``, the inner
layout counts ``B``-bit elements, and ``make_tensor`` moves the swizzle onto the
pointer (``smem_ptr_swizzle``), where it acts on the **byte** address.  As a
function of the element index, ``Swizzle<b,m,s>`` on bytes is
``Swizzle<b, m + 3 - log2(B), s>`` on elements (for 16-bit data the GMMA
``Sw<3,4,3>`` is the sm80 ``Sw<3,3,3>``), which is what we return, with offset
0; a swizzle that would split an element (``m + 3 < log2(B)``) is refused.  A dynamic value
(``int`` in a type string) has no static value to read and is refused with a
message naming where it occurred.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from layoutalg.core import int_tuple as it
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.core.notation import CUTE_ALIASES
from layoutalg.core.validate import as_int, describe
from layoutalg.errors import LayoutError, ParseError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def element_swizzle_base(byte_base: int, element_bits: int) -> int:
    """The base ``M`` in element units of a swizzle whose base is ``byte_base`` on byte addresses.

    ``B``-bit elements: byte address ``i * B / 8`` so bit ``k`` of the byte address is
    bit ``k - log2(B/8)`` of the element index: ``M_elem = M_byte + 3 - log2(B)``.
    """
    byte_base = as_int(byte_base, "byte_base")
    element_bits = as_int(element_bits, "element_bits")
    if element_bits < 1 or element_bits & (element_bits - 1):
        raise LayoutError(f"smem_ptr_flag_bits<{element_bits}>: element bits must be a power of two")
    base = byte_base + 3 - (element_bits.bit_length() - 1)
    if base < 0:
        raise LayoutError(
            f"a byte-address swizzle with base {byte_base} splits {element_bits}-bit elements; "
            "it has no element-index form")
    return base


#: What a shared-memory layout atom's name looks like (``Layout_K_SW128_Atom``, ``..._Atom_Bits``, ``Sm80_SW3_Atom``).
ATOM_NAME = re.compile(r"^\w+_Atom(?:_Bits)?$")

#: ``(name, element type text or None) -> layout``: how a smem atom name is turned into a layout.
AtomReader = Callable[[str, "str | None"], Any]

_TOKEN = re.compile(r"(?:(?P<num>-?\d+)|(?P<name>[A-Za-z_][A-Za-z_0-9]*(?:(?:::|\.)[A-Za-z_][A-Za-z_0-9]*)*)|(?P<punct>[<>,{}()]))")
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

    def __init__(self, text: str, atom_reader: AtomReader | None = None) -> None:
        self.text = text
        self.atom_reader = atom_reader
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
    def value(self, top: bool = False) -> Any:
        tok = self.name()
        kind = self.base(tok.text)
        self.nest(tok.column)
        result: Any
        if kind == "Layout":
            result = self.layout_body(tok)
        elif kind == "ComposedLayout":
            result = self.composed_body()
        elif kind == "Swizzle" and top:
            result = Swizzle(*self.swizzle_args())
        elif ATOM_NAME.match(kind) and self.atom_reader is not None:
            result = self.atom(tok, kind)
        else:
            raise ParseError(f"expected Layout<...> or ComposedLayout<...>, found {describe(tok.text)}", self.text, tok.column)
        self.skip_braces()
        self.depth -= 1
        return result

    def atom(self, tok: _Tok, name: str) -> Any:
        """``Layout_K_SW128_Atom<cutlass::half_t>``: the element type is the template argument (any tokens)."""
        element: str | None = None
        nxt = self.peek()
        if nxt is not None and nxt.text == "<":
            self.take()
            words: list[str] = []
            while self.peek() is not None and self.peek().text != ">":  # type: ignore[union-attr]
                words.append(self.take().text)
            self.expect(">")
            element = " ".join(words)
        assert self.atom_reader is not None
        return self.atom_reader(name, element)

    def swizzle_args(self) -> tuple[int, int, int]:
        self.expect("<")
        bits = self.integer()
        self.expect(",")
        base = self.integer()
        self.expect(",")
        shift = self.integer()
        self.expect(">")
        return bits, base, shift

    def layout_body(self, tok: _Tok) -> Layout:
        self.expect("<")
        shape = self.int_tuple("Shape")
        stride: IntTuple | None = None
        if self.peek() is not None and self.peek().text == ",":  # type: ignore[union-attr]
            self.take()
            stride = self.int_tuple("Stride")
        self.expect(">")
        try:
            if stride is not None and any(type(d) is not int for d in it.flatten(stride)):
                from layoutalg.core.stride_layout import stride_layout

                return stride_layout(shape, stride)  # type: ignore[no-any-return]  # basis strides
            return Layout(shape, stride)
        except LayoutError as exc:
            raise ParseError(f"{exc}", self.text, tok.column) from exc

    def composed_body(self) -> Any:
        self.expect("<")
        head = self.name()
        if self.base(head.text) == "Swizzle":
            swizzle_args = self.swizzle_args()
            self.skip_braces()
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

    def static_negative(self, tok: _Tok) -> int | None:
        """``_-5`` (how CuTe prints ``C<-5>``, pasted into a type): the name ``_`` then ``-5``; else None."""
        nxt = self.peek()
        if tok.text == "_" and nxt is not None and nxt.kind == "num" and nxt.text.startswith("-") \
                and nxt.column == tok.column + 1:
            self.take()
            self.skip_braces()
            return self.number(nxt.text, nxt.column)
        return None

    def integer(self) -> int:
        tok = self.take()
        if tok.kind == "num":
            return self.number(tok.text, tok.column)
        negative = self.static_negative(tok) if tok.kind == "name" else None
        if negative is not None:
            return negative
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
        negative = self.static_negative(tok)
        if negative is not None:
            return negative
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
        if what == "Stride" and kind in ("E", "ScaledBasis", "ArithmeticTuple"):
            return self.basis_stride(tok, kind)
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

    def basis_stride(self, tok: _Tok, kind: str) -> Any:
        """A coordinate stride: ``E<1,0>`` (``ScaledBasis<_1,1,0>``, the unit on path ``(1, 0)``),
        ``ScaledBasis<T, N...>`` (T scaled onto that path; T itself may be a ``ScaledBasis``, as older CuTe nests
        ``E<1,0>`` as ``ScaledBasis<ScaledBasis<_1,0>,1>``), ``ArithmeticTuple<...>`` (a tuple value)."""
        from layoutalg.core.stride_scalars import ArithTuple, ScaledBasis

        self.nest(tok.column)
        self.expect("<")
        result: Any
        if kind == "ArithmeticTuple":
            elements = [self.int_tuple("Stride")]
            while self.peek() is not None and self.peek().text == ",":  # type: ignore[union-attr]
                self.take()
                elements.append(self.int_tuple("Stride"))
            result = ArithTuple(tuple(elements))
        else:
            value: Any = 1 if kind == "E" else self.int_tuple("Stride")
            path: list[int] = []
            if kind == "E":
                path.append(self.index())
            while self.peek() is not None and self.peek().text == ",":  # type: ignore[union-attr]
                self.take()
                path.append(self.index())
            if not path:
                raise ParseError(f"{kind} needs at least one basis index", self.text, tok.column)
            result = ScaledBasis(value, tuple(path))  # a ScaledBasis value nests: its path goes below this one
        self.expect(">")
        self.skip_braces()
        self.depth -= 1
        return result

    def index(self) -> int:
        tok = self.peek()
        value = self.integer()
        if value < 0:
            raise ParseError(f"a basis index must be non-negative, found {value}", self.text, tok.column if tok else 1)
        return value

    def parse(self) -> Any:
        result = self.value(top=True)
        tok = self.peek()
        if tok is not None:
            raise ParseError(f"unexpected {describe(tok.text)} after the layout", self.text, tok.column)
        return result


def from_cpp(text: str, atom_reader: AtomReader | None = None) -> Any:
    """A CuTe C++ type string as a ``Layout``, ``ComposedLayout`` or ``Swizzle``.

    ``Layout<Shape<_8,_64>,Stride<_64,_1>>`` is ``(8,64):(64,1)``; ``Layout<Shape>``
    without a stride is compact column-major (CuTe's default ``LayoutLeft``).
    ``cute::``/``std::`` prefixes, ``C<N>``, ``Int<N>``, ``integral_constant<int,N>``, ``_-5`` (CuTe's print of
    ``C<-5>``),
    ``cute::tuple<...>`` and trailing ``{}`` are accepted, and coordinate strides (``E<0>``,
    ``ScaledBasis<C<1>,0>``, ``ArithmeticTuple<...>``) give a coordinate layout (``StrideLayout``).  Smem atom names
    (``GMMA::Layout_K_SW128_Atom<half_t>``) are read when ``atom_reader`` is given
    (:func:`layoutalg.interop.text.parse` passes one).
    """
    if not isinstance(text, str):
        raise LayoutError(f"expected a string, got {type(text).__name__}")
    return _CppParser(text, atom_reader).parse()


def _cpp_int(value: int) -> str:
    """``_N`` only where CuTe defines that alias (``_11`` or ``_48`` would not compile everywhere), else ``C<N>``."""
    return f"_{value}" if value in CUTE_ALIASES else f"C<{value}>"


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
    if isinstance(x, ComposedLayout):
        outer = x.outer
        if isinstance(outer, Swizzle):
            outer_text = f"Swizzle<{outer.bits},{outer.base},{outer.shift}>"
        else:
            outer_text = to_cpp(outer)
        offset = x.offset
        if not isinstance(offset, int):
            raise LayoutError(f"to_cpp: offset {describe(offset)} must be an integer")
        return f"ComposedLayout<{outer_text},{_cpp_int(offset)},{to_cpp(x.inner)}>"
    if isinstance(x, Swizzle):
        return f"Swizzle<{x.bits},{x.base},{x.shift}>"
    raise LayoutError(f"to_cpp takes a Layout, Swizzle or ComposedLayout, got {type(x).__name__}")




__all__ = ["ATOM_NAME", "MAX_DIGITS", "MAX_NESTING", "element_swizzle_base", "from_cpp", "to_cpp"]
