"""Fragment theorems in the kernel author's terms: the first wrong element, and where lanes point.

A refutation from an engine is one valid counterexample; :func:`first_failure`
re-evaluates both sides over the whole domain (when it has at most
``2**22`` points) and picks the first wrong element in the order tile
indices, part, lane, register, half (, byte), so the report is the same
whichever engine decided.  :func:`delivery_counterexample` then spells it out:
the lane, register and half, the element of the tile the copy moved there
(``row``, ``col``; absent when the address holds no element of the tile), the
smem element and byte address, and what it should have been.
"""

from __future__ import annotations

import math
from typing import Any

from layoutalg.prove import expr as ex
from layoutalg.prove.fragment_terms import Sides

FIRST_FAILURE_LIMIT = 1 << 22


def _grid(variables: tuple[ex.Var, ...], objects: bool = False) -> tuple[dict[str, Any], tuple[int, ...]]:
    """Every variable's values on its own axis: int64, or Python integers (``objects``) where values may pass int64."""
    import numpy as np

    env: dict[str, Any] = {}
    shape = tuple(v.count() for v in variables)
    for axis, v in enumerate(variables):
        values = np.array(list(v.values_iter()), dtype=object if objects else np.int64)
        env[v.name] = values.reshape([len(values) if k == axis else 1 for k in range(len(variables))])
    return env, shape


def first_failure(lhs: Any, rhs: Any, ordered: tuple[ex.Var, ...], witness: dict[str, int]) -> dict[str, int]:
    """The first point (in ``ordered``'s order) where ``lhs != rhs``; ``witness`` when the domain is too large."""
    import numpy as np

    if math.prod(v.count() for v in ordered) > FIRST_FAILURE_LIMIT:
        return witness
    from layoutalg.prove.engine_enum import needs_objects

    low_l, low_r = ex.lower(lhs), ex.lower(rhs)
    env, shape = _grid(ordered, needs_objects([low_l, low_r], ordered))  # enumeration's rule: exact at any width
    differ = np.broadcast_to(np.asarray(ex.evaluate(low_l, env) != ex.evaluate(low_r, env)), shape)
    if not differ.any():  # pragma: no cover - the engine's witness was re-checked, so a point exists
        return witness
    index = np.unravel_index(int(np.argmax(differ.reshape(-1))), shape)
    return {v.name: int(env[v.name].reshape(-1)[index[axis]]) for axis, v in enumerate(ordered)}


def _value(term: Any, env: dict[str, int]) -> int:
    return int(ex.evaluate(ex.lower(ex.as_expr(term)), env))


def tile_coordinate(smem: Any, rows: int, cols: int, element: int) -> tuple[int, int] | None:
    """(row, col) of the smem tile stored at ``element`` (the first one, in column-major order), or None
    (also when the tile has more than ``FIRST_FAILURE_LIMIT`` elements: it is not searched)."""
    import numpy as np

    if rows * cols > FIRST_FAILURE_LIMIT:
        return None

    from layoutalg.prove.engine_enum import needs_objects

    r, c = ex.var("row", rows), ex.var("col", cols)
    term = ex.lower(ex.sym(smem)(r, c))
    env, _ = _grid((r, c), needs_objects([term], (r, c)))  # offsets past int64 stay exact (no wrapped match)
    table = np.broadcast_to(np.asarray(ex.evaluate(term, env)), (rows, cols))
    hits = np.argwhere(table.T == element)
    if not len(hits):
        return None
    col, row = hits[0]
    return int(row), int(col)


def delivery_counterexample(sides: Sides, env: dict[str, int], params: tuple[ex.Var, ...]) -> tuple[dict[str, int], str]:
    """(counterexample, sentence) for a point where the copy and the fragment disagree."""
    s = sides.setup
    lane, reg, half = env["lane"], env["reg"], env["half"]
    sub = env.get(s.sub_name, 0) if s.sub_name else 0
    unit_bits, ue = s.unit_bits, s.units_per_element
    got_unit = _value(sides.delivered(lane, reg, half, sub), env)
    need = sides.need(lane, reg, half, sub)
    want_row = _value(sides.origin[0] + need.row, env)
    want_col = _value(sides.origin[1] + need.col, env)
    want_element = _value(sides.element_at(need.row, need.col), env)
    got_element = got_unit // ue
    got = tile_coordinate(s.smem, s.rows, s.cols, got_element)
    d0, d1 = s.dims
    cex: dict[str, int] = {"lane": lane, "reg": reg, "half": half}
    if s.sub_name:
        cex[s.sub_name] = sub
    if got is not None:
        cex.update(row=got[0], col=got[1])
    cex.update(element=got_element, byte_address=got_unit * unit_bits // 8,
               expected_row=want_row, expected_col=want_col, expected_element=want_element,
               expected_byte_address=(want_element * ue + _value(need.unit, env)) * unit_bits // 8)
    letter = "c" if s.operand == "C" else s.operand.lower()
    element = f"{letter}{_value(need.element, env)}"
    if ue == 2:
        element = ("the high 16 bits of " if _value(need.unit, env) else "the low 16 bits of ") + element
    if s.fragments > 1:
        element += f" of fragment {_value(need.fragment, env)}"
    where = ", ".join(f"{p.name}={env[p.name]}" for p in params)
    slot = f"lane {lane}, register {reg}, half {half}" + (f", {s.sub_name} {sub}" if s.sub_name else "")
    half_of = ("the high 16 bits of " if got_unit % 2 else "the low 16 bits of ") if ue == 2 else ""
    missing = "no element of the tile" if s.rows * s.cols <= FIRST_FAILURE_LIMIT else "an element of the tile not searched for"
    got_text = half_of + (f"{s.operand}({d0}={got[0]}, {d1}={got[1]})" if got is not None else missing)
    byte = got_unit * unit_bits // 8
    want = f"{element} = {s.operand}({d0}={want_row}, {d1}={want_col})"
    if s.copy.kind == "stmatrix":
        what = (f"{slot} holds {want}, but stmatrix writes it to smem element {got_element} (byte {byte}), the place "
                f"of {got_text}; it belongs at smem element {want_element}")
    else:
        what = (f"{slot} gets smem element {got_element} (byte {byte}), which is {got_text}; the mma fragment has "
                f"{want} there, at smem element {want_element}")
    return with_params(cex, env, params), (f"at {where}: " if where else "at ") + what


def with_params(fields: dict[str, int], env: dict[str, Any], params: tuple[ex.Var, ...]) -> dict[str, int]:
    """The parameters' values first, then ``fields``; a parameter named like a field (``row``, ``col``) keeps its
    value and the field is shown as ``row#2`` (they used to overwrite each other)."""
    from layoutalg.prove.render import named

    return named([(p.name, env[p.name]) for p in params] + list(fields.items()))


def row_address_counterexample(sides: Sides, env: dict[str, int], params: tuple[ex.Var, ...]) -> tuple[dict[str, int], str]:
    """(counterexample, sentence) for a lane whose row address is misaligned or outside the tile."""
    s = sides.setup
    lane = env["lane"]
    matrix, row = lane // 8, lane % 8
    r, c = sides.address(matrix, row)
    at_row, at_col = _value(sides.origin[0] + r, env), _value(sides.origin[1] + c, env)
    cex: dict[str, int] = {"lane": lane, "matrix": matrix, "matrix_row": row, "row": at_row, "col": at_col}
    d0, d1 = s.dims
    where = ", ".join(f"{p.name}={env[p.name]}" for p in params)
    head = (f"at {where}: " if where else "at ") + f"lane {lane} supplies row {row} of matrix {matrix}, {s.operand}({d0}={at_row}, {d1}={at_col})"
    if not (0 <= at_row < s.rows and 0 <= at_col < s.cols):
        return with_params(cex, env, params), f"{head}, outside the {s.rows} x {s.cols} smem tile"
    element = _value(sides.element_at(r, c), env)
    byte = element * s.units_per_element * s.unit_bits // 8
    cex.update(element=element, byte_address=byte)
    return with_params(cex, env, params), (f"{head} at smem element {element}, byte {byte}, which is not 16-byte aligned (each row of an "
                 f"8 x 8 b16 matrix is 16 contiguous bytes starting on a 16-byte boundary)")


def describe_addresses(setup: Any, coords: dict[int, list[tuple[int, int]]]) -> str:
    """Where each lane points, per matrix: ``lanes 0-7 -> (k, n) = (0..7, 0)`` (relative to the copy tile)."""
    d0, d1 = setup.dims
    chunks = []
    for part, lanes in coords.items():
        pieces = []
        for m in range(setup.num):
            rows = lanes[8 * m: 8 * m + 8]
            pieces.append(f"lanes {8 * m}-{8 * m + 7} -> {_run(rows)}")
        prefix = f"part {part}: " if len(coords) > 1 else ""
        chunks.append(prefix + "; ".join(pieces))
    return f"row addresses ({d0}, {d1}) in the copy tile: " + " | ".join(chunks)


def _run(points: list[tuple[int, int]]) -> str:
    (r0, c0), (r1, c1) = points[0], points[-1]
    step = (r1 - r0) / 7, (c1 - c0) / 7
    if all(p == (r0 + i * step[0], c0 + i * step[1]) for i, p in enumerate(points)):
        def axis(a: int, b: int) -> str:
            return str(a) if a == b else f"{a}..{b}"

        return f"({axis(r0, r1)}, {axis(c0, c1)})"
    return " ".join(f"({r}, {c})" for r, c in points)


__all__ = ["first_failure", "delivery_counterexample", "row_address_counterexample", "describe_addresses", "tile_coordinate"]
