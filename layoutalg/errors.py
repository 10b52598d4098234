"""The one exception family every public function raises on bad input.

Every error is a :class:`LayoutError` (itself a ``ValueError``), so callers can
catch one type.  Subclasses say which kind of input was wrong; the message names
the mode, argument or column at fault.
"""

from __future__ import annotations


class LayoutError(ValueError):
    """Invalid input to layoutalg: the message names the offending mode or argument."""


class ShapeError(LayoutError):
    """A shape, stride or int tuple that is malformed or incongruent."""


class CoordinateError(LayoutError):
    """A coordinate or index of the wrong rank, type or range."""


class CompositionError(LayoutError):
    """An algebra result that no layout can represent (e.g. ``A o B`` is not a layout)."""


class NotInjectiveError(LayoutError):
    """An operation that needs an injective layout (complement, left inverse) got another."""


class NotLinearError(LayoutError):
    """A function that is not linear over GF(2) was asked for its bit matrix."""


class ParseError(LayoutError):
    """Text that is not CuTe layout notation; ``column`` is the 1-based column where parsing failed."""

    def __init__(self, message: str, text: str = "", column: int = 0) -> None:
        text = text if isinstance(text, str) else repr(text)  # any value is shown, never a TypeError here
        column = column if isinstance(column, int) else 0
        self.text = text
        self.column = column
        if text or column:
            message = f"{message} at column {column}: {text!r}\n{' ' * (column + len(repr(text)) - len(text) - 2)}^"
        super().__init__(message)


class InstructionError(LayoutError):
    """An unknown PTX instruction or an access an instruction cannot perform."""


class ProofError(LayoutError):
    """A claim that cannot be stated (wrong domain, mismatched sizes, unsupported term)."""


class KernelError(LayoutError):
    """PTX that cannot be parsed or traced; ``line`` and ``opcode`` name the PTX statement at fault (0 / "" if none)."""

    def __init__(self, message: str, line: int = 0, opcode: str = "") -> None:
        self.line = line
        self.opcode = opcode
        where = []
        if line:
            where.append(f"PTX line {line}")
        if opcode:
            where.append(opcode)
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


__all__ = [
    "LayoutError",
    "ShapeError",
    "CoordinateError",
    "CompositionError",
    "NotInjectiveError",
    "NotLinearError",
    "ParseError",
    "InstructionError",
    "ProofError",
    "KernelError",
]
