"""What layout recovery reports per instruction (:class:`RecoveredLayout`) and CuTe's name of its copy atom."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from layoutalg.errors import LayoutError
from layoutalg.swizzle.composed import ComposedLayout


@dataclass
class RecoveredLayout:
    """The layout one instruction applies (see the module doc); ``as_layout()`` hands it to ``prove``."""

    line: int
    opcode: str
    direction: str  # "read" or "write"
    atom: str
    matrix: str | None
    element_bytes: int
    tile: tuple[int, ...]
    layout: Any = None
    offset: int = 0
    own: bool = False  # fitted from this instruction's accesses alone
    note: str = ""
    samples: int = 0
    lines: list[int] = field(default_factory=list)  # instructions sharing the pooled layout

    def as_layout(self) -> Any:
        """The recovered Layout / ComposedLayout (LayoutError when none fits)."""
        if self.layout is None:
            raise LayoutError(f"PTX line {self.line}: no layout recovered ({self.note})")
        if self.offset and isinstance(self.layout, ComposedLayout):
            return ComposedLayout(self.layout.outer, self.offset, self.layout.inner)
        return self.layout

    def text(self) -> str:
        if self.layout is None:
            return "no layout of the form Layout or Swizzle o Layout fits"
        if isinstance(self.layout, ComposedLayout):
            return str(self.as_layout())
        return str(self.layout) + (f" at element offset {self.offset}" if self.offset else "")

    def describe(self) -> str:
        if self.matrix is None:
            return (f"PTX line {self.line} {self.opcode} moves no element of A, B or C the data flow followed "
                    f"(through {self.atom}); nothing to recover")
        what = f"{self.matrix} tile {'x'.join(map(str, self.tile))}" if self.matrix else "untagged data"
        verb = "reads" if self.direction == "read" else "writes"
        tail = f" ({self.note})" if self.note else ""
        return (f"PTX line {self.line} {self.opcode} {verb} {what} ({8 * self.element_bytes}-bit) at "
                f"{self.text()} through {self.atom}{tail}")

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "opcode": self.opcode, "direction": self.direction, "atom": self.atom,
                "matrix": self.matrix, "element_bits": 8 * self.element_bytes, "tile": list(self.tile),
                "layout": None if self.layout is None else str(self.as_layout()), "offset": self.offset,
                "own_fit": self.own, "note": self.note, "samples": self.samples}


def atom_name(ins: Any) -> str:
    """CuTe's copy atom for a shared-memory instruction."""
    from layoutalg.atoms import catalog

    parts = set(ins.parts)
    if ins.root in ("ldmatrix", "stmatrix"):
        count = next((int(p[1]) for p in ins.parts if p in ("x1", "x2", "x4")), 1)
        fn = catalog.ldmatrix if ins.root == "ldmatrix" else catalog.stmatrix
        return str(fn(count, "trans" in parts).name)
    if ins.root == "cp":
        size = getattr(ins.operands[2], "value", 16) if len(ins.operands) > 2 else 16
        kind = "CACHEGLOBAL" if "cg" in parts else "CACHEALWAYS"
        return f"SM80_CP_ASYNC_{kind}<uint{8 * size}_t>"
    from layoutalg.kernel.interp.memops import element_type, vector_count
    from layoutalg.kernel.ptx.nodes import TYPE_BYTES

    bits = 8 * TYPE_BYTES[element_type(ins)] * vector_count(ins)
    return f"UniversalCopy<uint{bits}_t>"
