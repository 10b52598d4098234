"""Layout recovery: which shared-memory layout each ldmatrix / stmatrix / ld.shared / st.shared /
cp.async applies, in CuTe's notation, read off the data-flow tags of CTA 0's accesses.

Every unit an instruction moves carries its tag, so each access says "matrix element (x, y) sits at
shared offset o".  Coordinates are tile-local and in CuTe's operand order: A as (M, K), B as (N, K),
C as (M, N); offsets are in elements from the first shared byte holding any element of that matrix.
Mode 0 (and C's mode 1) is local to CTA 0's tile (its extent rounded up to a power of two); the K
mode is local to each access's k-tile, whose width is the widest aligned power-of-two k block one
warp execution touches.  Per matrix and direction (reads, writes) all instructions' samples are
fitted together (:mod:`.fitting`: a layout, else ``Swizzle o Layout`` over GF(2)), with one base
per (k-tile, barrier epoch, copy of the element); bases that step evenly become a mode: the steps
one epoch covers continue K (a tile wider than one access), the rest are pipeline stages.  Each
instruction then reports that layout when its own accesses agree with it, else its own fit, else
that none fits.
The layout is what the instruction moves, as the tags show: for a read, where the element it
fetched sits (a read that fetches the wrong element shows up in the mma check, not here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.fitting import Fit, fit_gf2, fit_integer
from layoutalg.kernel.dataflow.recovered import RecoveredLayout, atom_name
from layoutalg.kernel.interp.spaces import SMEM_BASE
from layoutalg.swizzle.composed import ComposedLayout

WRITES = ("st", "stmatrix", "cp")


@dataclass
class _Decoded:
    op: int
    role: str | None
    esize: int
    x: np.ndarray
    y: np.ndarray
    byte: np.ndarray
    instance: np.ndarray
    total: int
    warp: np.ndarray | None = None


def _decode(op: int, samples: Any, checker: Any) -> _Decoded:
    _warp, inst, unit, tag = samples.arrays()
    warp = _warp
    k = tg.kind(tag)
    byte = unit * 2 + SMEM_BASE
    instance = inst  # the barrier epoch; the k-tile is added once the tile width is known
    out = {}
    for role, spec in (("A", checker.a), ("B", checker.b)):
        es = checker.esize.get(role, 2)
        off = tg.glob_off(tag)
        sel = (k == tg.K_GLOBAL) & (tg.glob_buf(tag) == spec.buffer) & (off % es == 0)
        r, c, ok = spec.coordinate(np.where(sel, off // es, -1))
        sel &= ok
        x, y = (r, c) if role == "A" else (c, r)  # CuTe order: A (M, K), B (N, K)
        out[role] = (sel, x, y, es)
    m, n, _d, part, wide, _der = tg.acc_fields(tag)
    acc = k == tg.K_ACC
    wide_c = bool((wide[acc] == 1).any()) if acc.any() else False
    sel_c = acc & (part == 0) & (wide == (1 if wide_c else 0))
    out["C"] = (sel_c, m, n, 4 if wide_c else 2)
    counts = {r: int(v[0].sum()) for r, v in out.items()}
    role = max(counts, key=lambda r: counts[r])
    if counts[role] == 0:
        e = np.zeros(0, dtype=np.int64)
        return _Decoded(op, None, 2, e, e, e, e, int(tag.size))
    sel, x, y, es = out[role]
    return _Decoded(op, role, es, x[sel], y[sel], byte[sel], instance[sel], int(tag.size), warp[sel])


def _pow2(n: int) -> int:
    return 1 << max(0, int(n - 1).bit_length())


def recover(fr: Any, checker: Any) -> list[RecoveredLayout]:
    """One :class:`RecoveredLayout` per traced shared-memory instruction of CTA 0 (see the module doc)."""
    decoded = {op: _decode(op, s, checker) for op, s in sorted(fr.samples.items())}
    by_role: dict[str, list[_Decoded]] = {}
    for d in decoded.values():
        if d.role is not None:
            by_role.setdefault(d.role, []).append(d)
    geometry: dict[str, tuple[int, int, int, int, int]] = {}
    for role, ds in by_role.items():
        base = min(int(d.byte.min()) for d in ds)
        x = np.concatenate([d.x for d in ds])
        t0 = _pow2(int(x.max() - x.min() + 1))
        o0 = (int(x.min()) // t0) * t0
        o1 = -1
        if role == "C":
            y = np.concatenate([d.y for d in ds])
            t1 = _pow2(int(y.max() - y.min() + 1))
            o1 = (int(y.min()) // t1) * t1
        else:
            t1 = 1
            for d in ds:
                warp = d.warp if d.warp is not None else np.zeros_like(d.instance)
                for lo, hi in _instance_ranges(d.instance + (warp << 32), d.y):
                    t1 = max(t1, _block(lo, hi))
        geometry[role] = (base, o0, t0, o1, t1)
    pooled: dict[tuple[str, str], tuple[Fit | None, str]] = {}
    for role, ds in by_role.items():
        for direction in ("read", "write"):
            group = [d for d in ds if _direction(fr, d.op) == direction]
            if group:
                pooled[(role, direction)] = _fit(group, geometry[role], role)
    out: list[RecoveredLayout] = []
    for op, d in decoded.items():
        ins = fr.fn.body[op]
        direction = _direction(fr, op)
        rec = RecoveredLayout(ins.line, ins.opcode, direction, atom_name(ins), d.role, d.esize, (), samples=d.total)
        if d.role is None:
            rec.note = "its accesses carry no element of A, B or C"
            out.append(rec)
            continue
        _base, _o0, t0, _o1, t1 = geometry[d.role]
        rec.tile = (t0, t1)
        fit, note = pooled[(d.role, direction)]
        lines = [fr.fn.body[x.op].line for x in by_role[d.role] if _direction(fr, x.op) == direction]
        group = [x for x in by_role[d.role] if _direction(fr, x.op) == direction]
        width = _epoch_width(group, geometry[d.role][4]) if d.role != "C" else 0
        if fit is not None and _agrees(fit, d, geometry[d.role], d.role):
            _fill(rec, fit, d, geometry[d.role], d.role, width)
            rec.lines = lines
        else:
            own, own_note = _fit([d], geometry[d.role], d.role)
            if own is not None:
                _fill(rec, own, d, geometry[d.role], d.role, _epoch_width([d], geometry[d.role][4]))
                rec.own = True
                rec.note = "differs from the other " + ("reads" if direction == "read" else "writes") + \
                    f" of {d.role}" if fit is not None else ""
            else:
                rec.note = own_note or note
        out.append(rec)
    return out


def _direction(fr: Any, op: int) -> str:
    ins = fr.fn.body[op]
    return "write" if ins.root in WRITES else "read"


def _instance_ranges(instance: np.ndarray, y: np.ndarray) -> list[tuple[int, int]]:
    order = np.argsort(instance, kind="stable")
    inst, yy = instance[order], y[order]
    cuts = np.flatnonzero(np.diff(inst)) + 1
    starts = np.concatenate([[0], cuts])
    ends = np.concatenate([cuts, [inst.size]])
    lo = np.minimum.reduceat(yy, starts) if yy.size else yy
    hi = np.maximum.reduceat(yy, starts) if yy.size else yy
    _ = ends
    return list(zip(lo.tolist(), hi.tolist()))


def _block(lo: int, hi: int) -> int:
    """The smallest power-of-two block size T with lo and hi in one aligned block."""
    t = 1
    while lo // t != hi // t:
        t *= 2
    return t


def _local(ds: list[_Decoded], geom: tuple[int, ...], role: str) -> tuple[Any, ...]:
    """(x, y) tile-local coordinates, instance ids, bytes from the matrix's first byte, element size."""
    base, o0, t0, o1, t1 = geom
    x = np.concatenate([d.x for d in ds]) - o0
    y = np.concatenate([d.y for d in ds])
    epoch = np.concatenate([d.instance for d in ds])
    group = epoch if role == "C" else epoch + (y // t1 << 32)  # one base per (k-tile, barrier epoch, copy)
    y = y - o1 if role == "C" else y % t1
    inst = np.unique(np.c_[group, _occurrence(group, x + t0 * y)], axis=0, return_inverse=True)[1].ravel()
    byte = np.concatenate([d.byte for d in ds]) - base
    es = ds[0].esize
    return x, y, inst, byte, es


def _occurrence(group: np.ndarray, index: np.ndarray) -> np.ndarray:
    """How many earlier samples of the same group hold the same coordinate (a tile copied twice in one
    epoch, an element read by two warps: each copy is a layer with its own base)."""
    if group.size == 0:
        return group
    order = np.lexsort((index, group))  # by (group, index), a stable sort: equal pairs keep the sample order
    g, i = group[order], index[order]
    k = np.arange(order.size)
    start = np.r_[True, (g[1:] != g[:-1]) | (i[1:] != i[:-1])]
    run_start = np.maximum.accumulate(np.where(start, k, 0))
    occ = np.empty_like(order)
    occ[order] = k - run_start
    return occ


def _fit(ds: list[_Decoded], geom: tuple[int, ...], role: str) -> tuple[Fit | None, str]:
    x, y, inst, byte, es = _local(ds, geom, role)
    _base, _o0, t0, _o1, t1 = geom
    if (byte % es).any():
        return None, "elements are not aligned to their size in shared memory"
    if (x < 0).any() or (x >= t0).any() or (y < 0).any() or (y >= t1).any():
        return None, "the accesses do not fit one tile"
    off = byte // es
    index = x + t0 * y
    bits = [t0.bit_length() - 1, t1.bit_length() - 1]
    fit = fit_integer(index, off, inst, bits) or fit_gf2(index, off, inst, bits)
    if fit is None:
        return None, ("no layout of the form Layout or Swizzle o Layout fits its accesses (or they do not "
                      "determine every coordinate bit)")
    return _with_stages(fit), ""


def _with_stages(fit: Fit) -> Fit:
    """Bases stepping evenly (0, d, 2d, ...) from the smallest become a trailing mode S:d."""
    bases = sorted(set(fit.bases.values()))
    if len(bases) < 2:
        return fit
    step = bases[1] - bases[0]
    if bases != [bases[0] + j * step for j in range(len(bases))]:
        fit.note = f"per-execution bases {bases}"
        return fit
    fit.note = f"stages {len(bases)} x {step}"
    fit.stage = (bases[0], step, len(bases))  # type: ignore[attr-defined]
    return fit


def _agrees(fit: Fit, d: _Decoded, geom: tuple[int, ...], role: str) -> bool:
    return _evaluates(fit, d, geom, role)


def _evaluates(fit: Fit, d: _Decoded, geom: tuple[int, ...], role: str) -> bool:
    """Every access of ``d`` is at ``f(c) + base`` (or ``^ base`` for GF(2)) for a base the fit knows."""
    x, y, inst, byte, es = _local([d], geom, role)
    if (byte % es).any():
        return False
    off = byte // es
    t0 = geom[2]
    f = fit.layout
    vals = np.asarray(f.to_numpy())[x + t0 * y]
    bases = set(fit.bases.values())
    diff = off - vals if fit.how == "layout" else off ^ vals
    ref = diff[_first_of(inst)]
    return bool((diff == ref).all()) and set(np.unique(ref).tolist()) <= bases


def _first_of(inst: np.ndarray) -> np.ndarray:
    _, first, invi = np.unique(inst, return_index=True, return_inverse=True)
    return first[invi]


def _fill(rec: RecoveredLayout, fit: Fit, d: _Decoded, geom: tuple[int, ...], role: str, width: int = 0) -> None:
    stage = getattr(fit, "stage", None)
    layout = fit.layout
    if stage is not None:
        b0, step, count = stage
        grown = _append_mode(layout, count, step)
        if _stages_hold(grown, b0, step, fit, d, geom, role):
            rec.layout, rec.offset, rec.tile = grown, b0, rec.tile + (count,)
            rec.note = rec.note or fit.note
            if role != "C":
                _merge_stages_into_k(rec, width // geom[4])
            return
        stage = None
    if stage is None:
        x, y, inst, byte, es = _local([d], geom, role)
        vals = np.asarray(fit.layout.to_numpy())[x + geom[2] * y]
        off = byte // es
        diff = off - vals if fit.how == "layout" else off ^ vals
        rec.offset = int(diff.min()) if diff.size else 0
        rec.layout = layout
    rec.note = rec.note or fit.note


def _merge_stages_into_k(rec: RecoveredLayout, factor: int) -> None:
    """The first ``factor`` stages continue the K mode when one barrier epoch touches ``factor`` times the
    k-tile width (``(16,2):(72,1152)`` is ``32:72``): fold them into K, keep the rest as pipeline stages.
    The layout stays the same function of the (row, k, stage) index."""
    from layoutalg.core import algebra
    from layoutalg.core.layout import Layout

    composed = isinstance(rec.layout, ComposedLayout)
    inner = rec.layout.inner if composed else rec.layout
    k, stage = inner[1], inner[2]
    count, step = int(stage.shape), int(stage.stride)
    if factor <= 1 or count % factor:
        return
    merged = algebra.coalesce(Layout((k.shape, factor), (k.stride, step)))
    if count == factor:
        new = Layout((inner[0].shape, merged.shape), (inner[0].stride, merged.stride))
        rec.tile = (rec.tile[0], rec.tile[1] * factor)
    else:
        new = Layout((inner[0].shape, merged.shape, count // factor), (inner[0].stride, merged.stride, step * factor))
        rec.tile = (rec.tile[0], rec.tile[1] * factor, count // factor)
    rec.layout = ComposedLayout(rec.layout.outer, 0, new) if composed else new
    rec.note = "" if count == factor else f"stages {count // factor} x {step * factor}"


def _epoch_width(ds: list[_Decoded], t1: int) -> int:
    """The most common k-width (aligned power-of-two block) the accesses of one barrier epoch touch."""
    widths: dict[int, int] = {}
    for lo, hi in _instance_ranges(np.concatenate([d.instance for d in ds]), np.concatenate([d.y for d in ds])):
        w = max(t1, _block(lo, hi))
        widths[w] = widths.get(w, 0) + 1
    return max(widths, key=lambda w: (widths[w], -w)) if widths else t1


def _stages_hold(grown: Any, b0: int, step: int, fit: Fit, d: _Decoded, geom: tuple[int, ...], role: str) -> bool:
    """The layout with its stage mode reproduces every access of ``d`` (each execution in its stage)."""
    x, y, inst, byte, es = _local([d], geom, role)
    first = _first_of(inst)
    vals = np.asarray(fit.layout.to_numpy())[x + geom[2] * y]
    off = byte // es
    base = (off - vals if fit.how == "layout" else off ^ vals)[first]
    stage = (base - b0) // step
    if ((base - b0) % step).any() or (stage < 0).any():
        return False
    size = geom[2] * geom[4]
    full = np.asarray(_with_offset(grown, b0).to_numpy())
    got = full[x + geom[2] * y + size * stage] if fit.how == "gf2" else full[x + geom[2] * y + size * stage] + b0
    return bool(np.array_equal(got, off))


def _with_offset(layout: Any, b0: int) -> Any:
    return ComposedLayout(layout.outer, b0, layout.inner) if isinstance(layout, ComposedLayout) else layout


def _append_mode(layout: Any, count: int, step: int) -> Any:
    from layoutalg.core.layout import Layout

    inner = layout.inner if isinstance(layout, ComposedLayout) else layout
    shape = inner.shape if isinstance(inner.shape, tuple) else (inner.shape,)
    stride = inner.stride if isinstance(inner.stride, tuple) else (inner.stride,)
    grown = Layout(tuple(shape) + (count,), tuple(stride) + (step,))
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(layout.outer, 0, grown)
    return grown
