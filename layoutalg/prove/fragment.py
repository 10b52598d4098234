"""The flagship theorem in one call: a warp-level copy delivers exactly an mma fragment.

    fragment_delivers(copy="ldmatrix.x4.trans", smem="Sw<3,3,3> o _0 o (64,64):(64,1)",
                      mma="mma.m16n8k16.f16", operand="B")

states, from the PTX ISA alone (the atoms' ``fragment_coord`` / ``row_address_lane``
for ldmatrix / stmatrix / movmatrix, and the mma fragment tables), that for
every copy tile of ``smem`` (its indices are quantified parameters named after the
operand's dimensions: ``m_tile``/``k_tile`` for A, ``k_tile``/``n_tile`` for B,
``m_tile``/``n_tile`` for C), every lane, register and 16-bit half (and byte of an
8-bit type), the shared-memory element the instruction reads (ldmatrix) or
writes (stmatrix) is the element the mma fragment holds there.  ``smem`` maps
``(row, col)`` of the operand's PTX matrix (A: M x K, B: K x N, C/D: M x N) to the
element offset, counted from the tile's base (taken to be 16-byte aligned, as
shared-memory allocations are).  The theorem also requires what makes "the
element" meaningful: every row address 16-byte aligned and inside the tile, and
``smem`` injective.  ``timeout`` is one deadline for the whole call (all three claims
and the search for the first wrong element share it).

``addresses=`` gives the kernel's own row addresses (``lambda lane: (lane % 16,
8 * (lane // 16))``, relative to the copy tile; or ``lambda lane, part: ...``);
by default lane ``8 m + r`` points at the first element the fragment needs in
row ``r`` of matrix ``m``, the one choice that can work, and the result says
which (``result.addresses``, and a note).  See :mod:`.fragment_setup` for how
the copy's registers map onto fragments (``along=``) and what is refused, and
:mod:`.fragment_movmatrix` for movmatrix.

The result is a :class:`FragmentResult` (a ``ProofResult``): "proved" by the
usual engines (GF(2), enumeration of the whole domain, z3), "refuted" with the
first wrong element in the author's terms, "unknown" on timeout.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from layoutalg.prove import budget, claims
from layoutalg.prove import expr as ex
from layoutalg.prove.fragment_report import (
    delivery_counterexample,
    describe_addresses,
    first_failure,
    row_address_counterexample,
    with_params,
)
from layoutalg.prove.fragment_setup import FragmentSetup, resolve
from layoutalg.prove.fragment_terms import Sides, derived_address, domain, part_param, tile_params, user_address
from layoutalg.prove.result import ProofResult


@dataclass(frozen=True)
class FragmentResult(ProofResult):
    """A :class:`ProofResult` with the row address each lane supplies: ``addresses[part][lane] = (row, col)``
    of the copy tile (lanes ``0 .. 8 num - 1``; one entry per ``part``), for the first copy tile."""

    addresses: tuple[tuple[tuple[int, int], ...], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["addresses"] = [[list(rc) for rc in lanes] for lanes in self.addresses]
        out["notes"] = list(self.notes)
        return out


def fragment_delivers(
    copy: Any,
    smem: Any = None,
    mma: Any = None,
    operand: Any = None,
    *,
    dtype: str | None = None,
    along: str = "col",
    origin: Any = None,
    addresses: Any = None,
    read_smem: Any = None,
    source: Any = "C",
    source_mma: Any = None,
    transpose: bool = False,
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
    tile_to: Any = None,
) -> FragmentResult:
    """Prove that ``copy`` moves exactly ``mma``'s ``operand`` fragment between ``smem`` and registers.

    ``copy``: an ldmatrix / stmatrix / movmatrix atom, its CuTe name, its PTX
    name or short form (``"ldmatrix.x4.trans"``).  ``mma``: an mma atom, CuTe
    name, PTX name or ``"mma.m16n8k16.f16"``.  ``operand``: ``"A"``, ``"B"``,
    ``"C"`` or ``"D"``.  ``dtype``: the element type as held, when it differs
    from the mma's (accumulators converted to f16 before stmatrix).
    ``along``: where the fragments of one copy sit side by side when it carries
    several (``"col"`` or ``"row"``).  ``origin``: (row, col) of one copy tile
    (ints or terms) instead of every tile.  ``addresses``: see the module
    docstring; ``read_smem``: the layout the kernel computes row addresses
    with, when it differs from ``smem`` (a swizzle mismatch between writer and reader).  movmatrix takes ``source`` (the operand whose fragment it reads,
    of ``source_mma``, default ``mma``) and ``transpose`` instead of ``smem``.
    As on the command line, ``smem`` may be layout text (a smem atom name takes the operand's element type, or
    ``dtype``) and ``tile_to=(M, N)`` (``--tile-to MxN``) repeats it to that shape first.
    """
    if mma is None or operand is None:
        from layoutalg.errors import LayoutError

        raise LayoutError("fragment_delivers needs mma= (e.g. 'mma.m16n8k16.f16') and operand= ('A', 'B', 'C' or 'D')")
    setup = resolve(copy, smem, mma, operand, dtype, along, tile_to)
    if read_smem is not None and setup.smem is not None:
        from layoutalg.atoms.layout_text import layout_of

        read_smem = layout_of(read_smem, setup.dtype, tile_to)
    if timeout is not None:
        with budget.limit(timeout):  # one deadline: the sub-claims' own limits nest inside it
            return _delivers(setup, read_smem, origin, addresses, source, source_mma, transpose, dtype, along,
                             {"method": method, "timeout": timeout, "cross_check": cross_check})
    return _delivers(setup, read_smem, origin, addresses, source, source_mma, transpose, dtype, along,
                     {"method": method, "timeout": timeout, "cross_check": cross_check})


def _delivers(setup: FragmentSetup, read_smem: Any, origin: Any, addresses: Any, source: Any, source_mma: Any,
              transpose: bool, dtype: Any, along: Any, kw: dict[str, Any]) -> FragmentResult:
    if setup.copy.kind == "movmatrix":
        from layoutalg.prove.fragment_movmatrix import movmatrix_delivers

        return movmatrix_delivers(setup, source, source_mma, transpose, kw, dtype)
    read = None
    if read_smem is not None:
        read = resolve(setup.copy, read_smem, setup.mma, setup.operand, dtype, along).smem
        if (read.shape if hasattr(read, "shape") else None) != setup.smem.shape:
            from layoutalg.errors import ShapeError

            raise ShapeError(f"read_smem {read} must have the shape of smem {setup.smem}")
    return _matrix_copy(setup, origin, addresses, read, kw)


def _matrix_copy(setup: FragmentSetup, origin: Any, addresses: Any, read: Any, kw: dict[str, Any]) -> FragmentResult:
    start = time.perf_counter()
    tile_origin, params = tile_params(setup, origin)
    part = part_param(setup)
    address = derived_address(setup, part) if addresses is None else user_address(setup, addresses, part)
    sides = Sides(setup, domain(setup), tile_origin, part, address, read)
    variables = sides.variables
    lhs, rhs = sides.delivered(*_padded(variables)), sides.required(*_padded(variables))
    row_lane = ex.var("lane", 8 * setup.num)
    own = params + ((part,) if isinstance(part, ex.Var) else ())
    found = {**ex.free_vars(lhs, rhs), **ex.free_vars(_row_ok(sides, row_lane, addresses is not None))}
    own_names = {p.name for p in own}
    user = tuple(sorted((v for v in found.values() if v.kind == "param" and v.name not in own_names), key=lambda v: v.name))
    all_params = own + user  # every quantified parameter, the kernel's own (from origin= / addresses=) too
    claim = _claim_text(setup, all_params)

    def at(fn: Any) -> Any:
        return lambda lane, reg, half, sub=0: fn(lane, reg, half, sub)

    delivery = claims.equivalent(at(sides.delivered), at(sides.required), variables, names=("copy_moves", "mma_holds"), **kw)
    row_check = claims.forall(lambda lane: _row_ok(sides, lane, addresses is not None), [row_lane], name="row_address_ok", **kw)
    unique = claims.injective(setup.smem, {setup.dims[0]: setup.rows, setup.dims[1]: setup.cols}, name="smem", **kw)
    parts = [delivery, row_check, unique]
    inside = None
    if origin is not None:  # the kernel's own copy tile: every element the fragment needs must lie in the smem tile
        inside = claims.forall(at(lambda *v: _need_in_tile(sides, *v)), variables, name="fragment_in_tile", **kw)
        parts.append(inside)
    methods = "+".join(dict.fromkeys(r.method for r in parts))
    coords = _address_table(setup, sides, all_params)
    notes = [describe_addresses(setup, {p: list(lanes) for p, lanes in enumerate(coords)})]
    if any(r.status == "unknown" for r in parts):  # which engines were tried, and why they gave up
        notes.extend(n for r in parts for n in r.notes)
    if addresses is None and (delivery.refuted or row_check.refuted):
        notes.append("these are the only row addresses that put the right element in column 0 of every row, so no "
                     "other addresses can make this copy deliver the fragment")
    if delivery.refuted and delivery.counterexample is not None:
        env = first_failure(lhs, rhs, all_params + variables, delivery.counterexample)
        cex, why = delivery_counterexample(sides, env, all_params)
        return FragmentResult("refuted", cex, _since(start), delivery.method, claim, why, tuple(notes), coords)
    if row_check.refuted and row_check.counterexample is not None:
        env = first_failure(_row_ok(sides, row_lane, addresses is not None), ex.BoolConst(True),
                            tuple(all_params) + (row_lane,), row_check.counterexample)
        cex, why = row_address_counterexample(sides, env, all_params)
        return FragmentResult("refuted", cex, _since(start), row_check.method, claim, why, tuple(notes), coords)
    if inside is not None and inside.refuted and inside.counterexample is not None:
        cex, why = _outside_counterexample(sides, inside.counterexample, all_params, variables)
        return FragmentResult("refuted", cex, _since(start), inside.method, claim, why, tuple(notes), coords)
    if unique.refuted:
        why = f"smem is not injective, so an address does not name one element: {unique.explanation}"
        return FragmentResult("refuted", unique.counterexample, _since(start), unique.method, claim, why, tuple(notes),
                              coords)
    if any(r.status == "unknown" for r in parts):
        undecided = next(r for r in parts if r.status == "unknown")
        return FragmentResult("unknown", None, _since(start), methods, claim, f"undecided: {undecided.claim}",
                              tuple(notes), coords)
    return FragmentResult("proved", None, _since(start), methods, claim, "", tuple(notes), coords)


def _since(start: float) -> float:
    return time.perf_counter() - start


def _padded(variables: tuple[ex.Var, ...]) -> tuple[Any, ...]:
    return tuple(variables) + ((0,) if len(variables) == 3 else ())


def _row_ok(sides: Sides, lane: Any, check_tile: bool) -> Any:
    """Row address of ``lane`` starts on 16 bytes (and, for the kernel's own addresses, lies in the tile)."""
    s = sides.setup
    matrix, row = lane >> 3, lane & 7
    aligned = (sides.row_address(matrix, row) * s.unit_bits) % 128 == 0
    if not check_tile:
        return aligned
    r, c = sides.address(matrix, row)
    r, c = sides.origin[0] + r, sides.origin[1] + c
    return ex.all_of(r >= 0, r < s.rows, c >= 0, c < s.cols, aligned)


def _need_in_tile(sides: Sides, lane: Any, reg: Any, half: Any, sub: Any) -> Any:
    """The element the mma fragment holds at (lane, reg, half, sub) lies inside the ``rows x cols`` smem tile."""
    s, n = sides.setup, sides.need(lane, reg, half, sub)
    r, c = sides.origin[0] + n.row, sides.origin[1] + n.col
    return ex.all_of(r >= 0, r < s.rows, c >= 0, c < s.cols)


def _outside_counterexample(sides: Sides, witness: dict[str, int], params: tuple[ex.Var, ...],
                            variables: tuple[ex.Var, ...]) -> tuple[dict[str, int], str]:
    """(counterexample, sentence) for a fragment element that ``origin=`` puts outside the smem tile."""
    s = sides.setup
    env = {v.name: witness[v.name] for v in params + variables if v.name in witness}
    point = [env.get(v.name, 0) for v in variables]
    n = sides.need(*point, *((0,) if len(point) == 3 else ()))
    row = int(ex.evaluate(ex.lower(ex.as_expr(sides.origin[0] + n.row)), env))
    col = int(ex.evaluate(ex.lower(ex.as_expr(sides.origin[1] + n.col)), env))
    own = [v for v in variables if v.name in env]
    cex = with_params({**{v.name: env[v.name] for v in own}, "row": row, "col": col}, env,
                      tuple(p for p in params if p.name in env))
    d0, d1 = s.dims
    where = ", ".join(f"{p.name}={env[p.name]}" for p in params if p.name in env)
    slot = ", ".join(f"{v.name} {env[v.name]}" for v in variables)
    return cex, ((f"at {where}: " if where else "") + f"{slot} holds {s.operand}({d0}={row}, {d1}={col}), outside the "
                 f"{s.rows} x {s.cols} smem tile (origin= puts the copy tile past its edge)")


def _address_table(setup: FragmentSetup, sides: Sides, params: tuple[ex.Var, ...]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Where each lane points, relative to the copy tile, for every part (evaluated on all lanes at once)."""
    import numpy as np

    lane = ex.var("lane", 8 * setup.num)
    r, c = sides.address(lane >> 3, lane & 7)
    low_r, low_c = ex.lower(ex.as_expr(r)), ex.lower(ex.as_expr(c))
    env: dict[str, Any] = {p.name: 0 for p in params}
    env["lane"] = np.arange(8 * setup.num).astype(object)  # Python ints: the kernel's addresses may pass int64
    table = []
    for part in range(setup.parts):
        env["part"] = part
        rows = np.broadcast_to(np.asarray(ex.evaluate(low_r, env)), (8 * setup.num,))
        cols = np.broadcast_to(np.asarray(ex.evaluate(low_c, env)), (8 * setup.num,))
        table.append(tuple((int(a), int(b)) for a, b in zip(rows, cols)))
    return tuple(table)


def _claim_text(setup: FragmentSetup, params: tuple[ex.Var, ...]) -> str:
    s = setup
    verb = "stores" if s.copy.kind == "stmatrix" else "delivers"
    tile_r, tile_c = s.tile
    frag = f"the {s.mma.ptx} {s.operand} fragment ({s.element_names}"
    if s.mma.arch == 90:
        frag += f" of one warp, rows 16 * m_tile.. of the warpgroup's {s.mma.shape_mnk[0]}"
    if s.fragments > 1:
        frag += f", {s.fragments} fragments along {s.dims[1] if s.along == 'col' else s.dims[0]}; {tile_r} x {tile_c}"
    elif s.parts > 1:
        frag += f", {tile_r} x {tile_c}; registers {s.num} * part .. of its {s.regs}"
    else:
        frag += f"; {tile_r} x {tile_c}"
    frag += " per instruction)"
    what = f"{s.copy.ptx} over {s.smem} {verb} {frag}"
    if s.dtype != {"A": s.mma.a_type, "B": s.mma.b_type, "C": s.mma.c_type}[s.operand]:
        what += f" as {s.dtype}"
    sub = f", {s.sub_name}" if s.sub_name else ""
    over = ", ".join(p.describe() for p in params)
    return (f"{what} for every lane, register, half{sub}" + (f" and {over}" if over else "")
            + " (rows 16-byte aligned, smem injective)")


__all__ = ["fragment_delivers", "FragmentResult"]
