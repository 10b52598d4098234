"""movmatrix: a register-to-register transpose that turns one mma fragment into another.

``movmatrix.sync.aligned.m8n8.trans.b16 d, a`` (PTX ISA): the source register of
lane ``l`` holds ``(l / 4, 2 (l % 4) + h)`` of an 8 x 8 b16 matrix, and the
destination receives ``(2 (l % 4) + h, l / 4)`` of it (the atoms'
``movmatrix_coords``).  So destination half ``h`` of ``lane`` is source half
``C % 2`` of lane ``4 R + C / 2``, where ``(R, C)`` is what the destination holds.

The theorem: the source registers hold the ``source`` fragment (of
``source_mma``) of a matrix X; every movmatrix of one of them yields a whole
register of the target fragment of X (``transpose=False``: the target's
``(row, col)`` is X's ``(row, col)``) or of X transposed (``transpose=True``).
Both fragments tile a common region of X (the least common multiple of their
shapes); which target register a source register becomes is read off lane 0,
half 0, and the claim is then proved for every lane and half.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

from layoutalg.atoms.mma import TYPE_BITS
from layoutalg.atoms.short_names import mma_atom
from layoutalg.errors import InstructionError
from layoutalg.prove import claims
from layoutalg.prove import expr as ex
from layoutalg.prove.fragment import FragmentResult
from layoutalg.prove.fragment_report import first_failure
from layoutalg.prove.fragment_setup import OPERAND_DIMS, FragmentSetup, _operand, operand_shape, refuse_non_warp_mma
from layoutalg.prove.fragment_terms import Sides
from layoutalg.prove.result import ProofResult


def _source_setup(target: FragmentSetup, source: Any, source_mma: Any, dtype: str | None) -> FragmentSetup:
    """The source fragment: ``source_mma``'s operand ``source``, holding ``dtype`` (given for both fragments) or
    its own element type."""
    mm = target.mma if source_mma is None else mma_atom(source_mma)
    op = _operand(source)
    if mm.arch == 70:
        raise InstructionError(f"{mm.name}: sm70 quad-pair MMAs do not hold warp-wide fragments; name an sm75+ mma")
    refuse_non_warp_mma(mm, "movmatrix")
    natural = {"A": mm.a_type, "B": mm.b_type, "C": mm.c_type}[op]
    bits = target.bits if dtype is not None else TYPE_BITS[natural]
    if bits != target.bits:
        raise InstructionError(f"the source {op} fragment of {mm.name} holds {bits}-bit {natural} but the target holds "
                               f"{target.bits}-bit {target.dtype}; movmatrix does not convert (pass dtype= for both)")
    n = mm.num_elements(op)
    if (n * bits) % 32:
        raise InstructionError(f"the source {op} fragment of {mm.name} holds {n * bits} bits per lane ({n} x {bits}-bit), "
                               "not whole 32-bit registers, so movmatrix has no register of it to move")
    rows, cols = operand_shape(mm, op)
    return replace(target, mma=mm, operand=op, frag_rows=rows, frag_cols=cols, regs=n * bits // 32)


def _variables(s: FragmentSetup) -> tuple[ex.Var, ...]:
    out = [ex.var("lane", 32), ex.var("half", 2)]
    if s.sub_name:
        out.append(ex.var(s.sub_name, s.units_per_half))
    return tuple(out)


def movmatrix_delivers(target: FragmentSetup, source: Any, source_mma: Any, transpose: bool, kw: dict[str, Any],
                       dtype: str | None = None) -> FragmentResult:
    start = time.perf_counter()
    src = _source_setup(target, source, source_mma, dtype)
    t_shape = (target.frag_rows, target.frag_cols)
    t_in_x = (t_shape[1], t_shape[0]) if transpose else t_shape  # the target fragment's extent in X's coordinates
    region = (math.lcm(src.frag_rows, t_in_x[0]), math.lcm(src.frag_cols, t_in_x[1]))
    ue = target.units_per_element

    def to_target(r: Any, c: Any) -> tuple[Any, Any]:
        return (c, r) if transpose else (r, c)

    rows_t = region[1] if transpose else region[0]

    def unit_id(r: Any, c: Any, unit: Any) -> Any:  # a unit of the region, in target coordinates
        return (r + rows_t * c) * ue + unit

    def source_unit(frag: tuple[int, int], reg: int, lane: Any, half: Any, sub: Any) -> Any:
        (_, _), (big_r, big_c) = _mov(lane, half)
        lane_s, half_s = 4 * big_r + (big_c >> 1), big_c & 1
        n = Sides(src, (), (0, 0), reg, lambda m, r: (0, 0)).need(lane_s, 0, half_s, sub)
        r, c = to_target(n.row + frag[0] * src.frag_rows, n.col + frag[1] * src.frag_cols)
        return unit_id(r, c, n.unit)

    def target_unit(frag: tuple[int, int], reg: int, lane: Any, half: Any, sub: Any) -> Any:
        n = Sides(target, (), (0, 0), reg, lambda m, r: (0, 0)).need(lane, 0, half, sub)
        return unit_id(n.row + frag[0] * t_shape[0], n.col + frag[1] * t_shape[1], n.unit)

    results: list[ProofResult] = []
    mapping: list[str] = []
    variables = _variables(target)
    grid = [(a, b) for a in range(region[0] // src.frag_rows) for b in range(region[1] // src.frag_cols)]
    claim = (f"{target.copy.ptx} turns the {src.mma.ptx} {src.operand} fragment into the {target.mma.ptx} "
             f"{target.operand} fragment of the same matrix{' transposed' if transpose else ''}, for every source "
             f"register, lane and half")
    for frag in grid:
        for reg in range(src.regs):
            first = _at(source_unit(frag, reg, 0, 0, 0))
            hit = _find_target(target, t_shape, region, transpose, first, target_unit)
            label = f"source fragment {frag} register {reg}" if len(grid) > 1 else f"source register {reg}"
            if hit is None:
                cex = {"source_register": reg, "lane": 0, "half": 0}
                why = (f"{label}: lane 0, half 0 receives an element that lane 0, half 0 of no target register holds, "
                       "so this movmatrix yields no register of the target fragment")
                return FragmentResult("refuted", cex, time.perf_counter() - start, "enum", claim, why)
            tfrag, treg = hit
            mapping.append(f"{label} -> target register {treg}" + (f" of fragment {tfrag}" if t_shape != region else ""))

            def lhs(*v: Any, frag: tuple[int, int] = frag, reg: int = reg) -> Any:
                return source_unit(frag, reg, v[0], v[1], v[2] if len(v) > 2 else 0)

            def rhs(*v: Any, tfrag: tuple[int, int] = tfrag, treg: int = treg) -> Any:
                return target_unit(tfrag, treg, v[0], v[1], v[2] if len(v) > 2 else 0)

            result = claims.equivalent(lhs, rhs, variables, names=("movmatrix_gives", "fragment_holds"), **kw)
            if result.refuted and result.counterexample is not None:
                env = first_failure(lhs(*variables), rhs(*variables), variables, result.counterexample)
                point = [env[v.name] for v in variables]
                got, want = _decode(int(_at(lhs(*point))), rows_t, ue), _decode(int(_at(rhs(*point))), rows_t, ue)
                cex = {"source_register": reg, "target_register": treg, **{v.name: env[v.name] for v in variables},
                       "row": got[0], "col": got[1], "expected_row": want[0], "expected_col": want[1]}
                d0, d1 = OPERAND_DIMS[target.operand]
                slot = ", ".join(f"{v.name} {env[v.name]}" for v in variables)
                X = target.operand
                why = (f"{label} (-> target register {treg}): {slot} gets {_part(got, ue)}{X}({d0}={got[0]}, {d1}={got[1]}) "
                       f"but the {X} fragment holds {_part(want, ue)}{X}({d0}={want[0]}, {d1}={want[1]}) there")
                return FragmentResult("refuted", cex, time.perf_counter() - start, result.method, claim, why, tuple(mapping))
            results.append(result)
    status = "unknown" if any(r.status == "unknown" for r in results) else "proved"
    methods = "+".join(dict.fromkeys(r.method for r in results))
    return FragmentResult(status, None, time.perf_counter() - start, methods, claim, "", tuple(mapping))


def _at(term: Any) -> int:
    return int(ex.evaluate(ex.lower(ex.as_expr(term)), {}))


def _decode(unit: int, rows: int, ue: int) -> tuple[int, int, int]:
    """(row, col, unit in the element) of a unit id of the region."""
    element, part = divmod(unit, ue)
    return element % rows, element // rows, part


def _part(rc: tuple[int, int, int], ue: int) -> str:
    return ("the high 16 bits of " if rc[2] else "the low 16 bits of ") if ue == 2 else ""


def _mov(lane: Any, half: Any) -> Any:
    from layoutalg.atoms.copy import movmatrix_coords

    return movmatrix_coords(lane, half)


def _find_target(target: FragmentSetup, t_shape: tuple[int, int], region: tuple[int, int], transpose: bool,
                 unit: int, target_unit: Any) -> tuple[tuple[int, int], int] | None:
    """The (target fragment, register) whose lane 0, half 0, first unit is ``unit``."""
    rows_t = region[1] if transpose else region[0]
    cols_t = region[0] if transpose else region[1]
    for a in range(rows_t // t_shape[0]):
        for b in range(cols_t // t_shape[1]):
            for reg in range(target.regs):
                if int(ex.evaluate(ex.lower(ex.as_expr(target_unit((a, b), reg, 0, 0, 0))), {})) == unit:
                    return (a, b), reg
    return None


__all__ = ["movmatrix_delivers"]
