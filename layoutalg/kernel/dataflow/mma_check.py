"""The mma check's consumer: every mma / A x B fma product and every store to C, checked as it happens.

For each executed ``mma`` (per warp) the A and B elements in every lane, register and half are read
off their tags and mapped to matrix coordinates through the user's layouts; the tile origin
``(m0, k0)`` / ``(k0', n0)`` is the most common ``coordinate - fragment position`` among them, and
every element must equal the fragment table's element of that tile (PTX ISA fragment layouts,
:mod:`.fragments`); ``k0 == k0'``.  The C input must be, element by element, a known zero or the
unmodified accumulator of exactly the C element the fragment names.  D then carries the accumulator
of each ``(m, n)`` with its depth (k-products so far, counting only k inside the problem).  A scalar
``fma`` whose factors are an A and a B element is the 1 x 1 x 1 case.  Every (m, n, k) product is
counted; a second one is refuted.  Each unit stored to C's buffer is remembered (the last store
wins); at the end every C element must hold its own accumulator after all K products.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutalg.errors import LayoutError
from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.arith import classify
from layoutalg.kernel.dataflow.fragments import MmaForm, gather, mma_form, value_groups
from layoutalg.kernel.dataflow.specs import MatrixSpec, check_shapes, resolve

MAX_COUNTERS = 1 << 27
_M40 = np.int64((1 << 40) - 1)


@dataclass
class Finding:
    """One refutation or reason for "unknown", with its counterexample fields."""

    verdict: str  # "refuted" or "unknown"
    kind: str
    message: str
    fields: dict[str, Any] = field(default_factory=dict)


class MmaChecker:
    """The consumer :func:`~layoutalg.kernel.dataflow.flow.flow` feeds (see the module doc)."""

    def __init__(self, a: MatrixSpec, b: MatrixSpec, c: MatrixSpec) -> None:
        self.a, self.b, self.c = a, b, c
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, int]] = set()
        self.forms: dict[int, MmaForm | str] = {}
        self.products = 0
        self.mma_executions = 0
        self.fma_lanes = 0
        self.esize: dict[str, int] = {}
        self.tile_counts: np.ndarray | None = None
        self.tile_shape: tuple[int, int, int] | None = None
        self.elem_counts: np.ndarray | None = None
        self.elem_keys: list[np.ndarray] = []
        self.state: Any = None
        self.cta_offset = 0
        self._decode_cache: dict[tuple[int, int, int], tuple[Any, Any]] = {}

    # ------------------------------------------------------------------ driver hooks
    def begin(self, fn: Any, params: Any, launch: Any) -> None:
        self.fn = fn
        self.buffer_names = list(params.buffers)
        for s in (self.a, self.b, self.c):
            resolve(s, fn, self.buffer_names)
        self.M, self.N, self.K = check_shapes(self.a, self.b, self.c)
        if max(self.M, self.N) >= tg.MAX_DIM or self.K > tg.MAX_DEPTH:
            raise LayoutError(f"problem {self.M} x {self.N} x {self.K}: the check tags M, N < {tg.MAX_DIM} and "
                              f"K <= {tg.MAX_DEPTH}")
        assert self.c.offsets is not None
        top = int(self.c.offsets.max()) + 1 if self.c.offsets.size else 1
        self.c_units = 2 * top  # enough for 4-byte elements
        self.c_tag = np.full(self.c_units, tg.NONE, dtype=np.int64)
        self.c_op = np.full(self.c_units, -1, dtype=np.int64)
        self.c_who = np.full((self.c_units, 5), -1, dtype=np.int64)  # cta x, y, z, warp, lane
        self.c_clock = np.zeros(self.c_units, dtype=np.int64)  # the storing warp's clock (see .ordering)
        self.c_item = np.full(self.c_units, -1, dtype=np.int64)  # which source register of the store
        self.c_outside = 0

    def batch(self, state: Any, first: int) -> None:
        self.state = state
        self.cta_offset = first

    def end(self) -> None:
        self.state = None

    def operand_buffers(self) -> set[int]:
        return {self.a.buffer, self.b.buffer}

    # ------------------------------------------------------------------ reporting helpers
    def _where(self, thread: int) -> dict[str, Any]:
        g = self.state.geom
        cta = g.ctas[int(g.cta_index[thread])]
        return {"cta": list(cta), "warp": int(g.warpid[thread]), "lane": int(g.laneid[thread])}

    def _find(self, verdict: str, kind: str, key: int, message: str, **fields: Any) -> None:
        if (kind, key) in self._seen:
            return
        self._seen.add((kind, key))
        self.findings.append(Finding(verdict, kind, message, fields))

    def describe_group(self, group: np.ndarray, ue: int) -> str:
        """An element's units in words (``A(3, 5)``, an accumulator, an untagged value...)."""
        g = np.asarray(group, dtype=np.int64).reshape(1, ue)
        none, acc, glob, ident = classify(g)
        t = int(g[0, 0])
        if none[0]:
            return "an untagged value (not loaded from A or B)"
        if acc[0]:
            m, n, d, _p, _w, der = (int(x) for x in tg.acc_fields(ident[0]))
            return (f"the accumulator of C({m}, {n}) after {d} k-products" +
                    (" (after element-wise arithmetic)" if der else ""))
        if glob[0]:
            buf, off = int(tg.glob_buf(t)), int(tg.glob_off(t))
            tail = " (loaded, after element-wise arithmetic)" if tg.glob_derived(t) else ""
            for s in (self.a, self.b, self.c):
                if buf == s.buffer and off % (2 * ue) == 0:
                    r, c, ok = s.coordinate(np.array([off // (2 * ue)]))
                    if ok[0]:
                        return f"{s.role}({int(r[0])}, {int(c[0])}){tail}"
                    return f"element {off // (2 * ue)} of {s.role}'s buffer (outside its layout){tail}"
            name = self.buffer_names[buf] if 0 <= buf < len(self.buffer_names) else f"buffer {buf}"
            return f"bytes {off}..{off + 2 * ue - 1} of buffer {name}{tail}"
        if tg.kind(t) == tg.K_OPAQUE:
            op, why = (int(x) for x in tg.opaque_fields(t))
            ins = self.fn.body[op]
            return f"a value derived at PTX line {ins.line} ({ins.opcode}) through {tg.WHY.get(why, 'unmodelled')}"
        return "parts of several values"

    # ------------------------------------------------------------------ operand decoding
    def _operand(self, spec: MatrixSpec, groups: np.ndarray, ue: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, col, valid) of element groups (..., ue) that are elements of ``spec``'s matrix."""
        shape = groups.shape[:-1]
        flat = groups.reshape(-1, ue)
        _none, _acc, glob, first = classify(flat)
        ok = glob & (tg.glob_buf(first) == spec.buffer) & (tg.glob_off(first) % (2 * ue) == 0) & \
            (tg.glob_derived(first) == 0)
        r, c, inside = spec.coordinate(np.where(ok, tg.glob_off(first) // (2 * ue), -1))
        ok &= inside
        return r.reshape(shape), c.reshape(shape), ok.reshape(shape)

    def _element_size(self, role: str, size: int, op: Any) -> bool:
        old = self.esize.setdefault(role, size)
        if old != size:
            self._find("unknown", "types", op.index, f"{role} is read as {old}-byte and as {size}-byte elements "
                       f"(PTX line {op.ins.line})", line=op.ins.line)
            return False
        return True

    # ------------------------------------------------------------------ mma
    def mma(self, m: Any, op: Any, ins: Any, ctx: Any, mask: Any) -> None:
        f = m.flow
        form = self.forms.get(op.index)
        if form is None:
            try:
                form = mma_form(ins)
            except LayoutError as exc:
                form = str(exc)
            self.forms[op.index] = form
        lanes = f.lanes(m, mask)
        if isinstance(form, str):
            self._find("unknown", "unsupported", op.index, f"PTX line {ins.line}: {form}", line=ins.line)
            f.regs.set_opaque(list(op.dests), tg.opaque(op.index, tg.W_UNMODELLED), lanes)
            return
        rows = np.flatnonzero(lanes.reshape(-1, 32).any(axis=1))
        if not lanes.reshape(-1, 32)[rows].all():
            self._find("unknown", "partial warp", op.index, f"PTX line {ins.line}: mma executed by a partial warp",
                       line=ins.line)
            f.regs.set_opaque(list(op.dests), tg.opaque(op.index, tg.W_MMA), lanes)
            return
        if not (self._element_size("A", form.element_bytes("A"), op)
                and self._element_size("B", form.element_bytes("B"), op)):
            f.regs.set_opaque(list(op.dests), tg.opaque(op.index, tg.W_MMA), lanes)
            return
        self.mma_executions += rows.size
        threads = (rows[:, None] * 32 + np.arange(32)[None, :]).reshape(-1)
        W = rows.size
        planes = {x: [f.regs.get(r) for r in form.regs[x]] for x in "ABC"}
        ga = gather(planes["A"], threads, form.ue["A"]).reshape(W, 32, -1, form.ue["A"])
        gb = gather(planes["B"], threads, form.ue["B"]).reshape(W, 32, -1, form.ue["B"])
        gc = gather(planes["C"], threads, form.ue["C"]).reshape(W, 32, -1, form.ue["C"])
        read = lambda name: m.regs.get(name) or _undefined()  # noqa: E731
        groups = {"A": ga, "B": gb, "C": gc}

        def zeros(x: str) -> Any:
            """Elements known to be zero: by value, or ZERO-tagged units."""
            def get() -> np.ndarray:
                by_value = value_groups([read(r) for r in form.regs[x]], threads, m.n, form.ue[x])[0]
                return by_value.reshape(W, 32, -1) | (groups[x] == tg.ZERO).all(axis=-1)
            return get

        bad = np.zeros(W, dtype=bool)
        ma, ka, bad_a = self._tile(op, "A", self.a, ga, zeros("A"), form, threads, (self.M, self.K))
        kb, nb, bad_b = self._tile(op, "B", self.b, gb, zeros("B"), form, threads, (self.K, self.N))
        bad |= bad_a | bad_b
        clash = ~bad & (ka != kb)
        for w in np.flatnonzero(clash)[:1]:
            t = int(threads[w * 32])
            self._find("refuted", "operand", op.index,
                       f"PTX line {ins.line}: the A fragment is the tile at k = {int(ka[w])} but the B fragment the "
                       f"tile at k = {int(kb[w])}", line=ins.line, opcode=ins.opcode, **self._where(t),
                       operand="B", held=f"B rows from k = {int(kb[w])}", expected=f"B rows from k = {int(ka[w])}")
        bad |= clash
        mt, nt, kt = form.shape
        # C input: each element a known zero or the accumulator of its own (m, n)
        crow = ma[:, None, None] + form.row["C"][None]
        ccol = nb[:, None, None] + form.col["C"][None]
        none, acc, _glob, ident = classify(gc.reshape(-1, form.ue["C"]))
        shape = gc.shape[:-1]
        none, acc, ident = none.reshape(shape), acc.reshape(shape), ident.reshape(shape)
        am, an, ad, _p, _wide, ader = tg.acc_fields(ident)
        good_acc = acc & (am == crow) & (an == ccol) & (ader == 0)
        good_zero = none & zeros("C")() if none.any() else none
        c_ok = good_acc | good_zero
        depth_in = np.where(good_acc, ad, 0)
        c_bad = ~bad[:, None, None] & ~c_ok
        if c_bad.any():
            w, lane, e = (int(x[0]) for x in np.nonzero(c_bad))
            t = int(threads[w * 32 + lane])
            reg = form.regs["C"][e * form.ue["C"] // 2]
            verdict = "unknown" if tg.kind(int(gc[w, lane, e, 0])) == tg.K_OPAQUE else "refuted"
            held = self.describe_group(gc[w, lane, e], form.ue["C"])
            if held.startswith("an untagged value"):
                held = _untagged_value(read(reg), t, e, form.ue["C"])
            self._find(verdict, "accumulator", op.index,
                       f"PTX line {ins.line}: the C input of element c{e} in lane {lane} is {held}, not the "
                       f"accumulator of C({int(crow[w, lane, e])}, {int(ccol[w, lane, e])}) or zero", line=ins.line,
                       opcode=ins.opcode, **self._where(t), operand="C", register=reg, element=e, held=held,
                       expected=f"the accumulator of C({int(crow[w, lane, e])}, {int(ccol[w, lane, e])}) or 0")
            bad |= c_bad.any(axis=(1, 2))
        kin = np.clip(np.minimum(ka + kt, self.K) - np.maximum(ka, 0), 0, None)
        depth = depth_in + kin[:, None, None]
        ue_c = form.ue["C"]
        dtags = tg.acc(crow, ccol, np.minimum(depth, tg.MAX_DEPTH), 0, ue_c == 2)  # (W, 32, elements)
        units = np.repeat(dtags[..., None], ue_c, axis=-1) | (np.arange(ue_c)[None, None, None, :] << 56) \
            if ue_c == 2 else dtags[..., None]
        units = np.where(bad[:, None, None, None], tg.opaque(op.index, tg.W_MMA), units)
        flat = units.reshape(W * 32, -1)
        for j, name in enumerate(form.regs["D"]):
            plane = np.full((m.n, 2), tg.NONE, dtype=np.int64)
            plane[threads] = flat[:, 2 * j: 2 * j + 2]
            f.regs.put(name, plane, mask)
        good = ~bad
        if good.any():
            self._count_tiles(op, ma[good], nb[good], ka[good], (mt, nt, kt))

    def _tile(self, op: Any, role: str, spec: MatrixSpec, groups: np.ndarray, zeros: Any, form: MmaForm,
              threads: np.ndarray, bounds: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per warp the tile origin (row0, col0) of operand ``role`` and whether it failed (recorded);
        ``zeros()`` gives which elements are known zeros (computed only when some element is not ``role``'s)."""
        W = groups.shape[0]
        ue = groups.shape[-1]
        r, c, ok = self._operand(spec, groups, ue)
        fr, fc = form.row[role][None], form.col[role][None]
        key = pack_origin(r - fr, c - fc)
        first = np.argmax(ok.reshape(W, -1), axis=1)
        has = ok.reshape(W, -1).any(axis=1)
        ref = key.reshape(W, -1)[np.arange(W), first]
        same = ~ok | (key == ref[:, None, None])
        bad = np.zeros(W, dtype=bool)
        bad |= ~has
        zero = zeros() if not ok.all() else np.ones(ok.shape, dtype=bool)
        for w in np.flatnonzero(~has):
            t = int(threads[w * 32])
            opaque = (tg.kind(groups[w]) == tg.K_OPAQUE).any()
            verdict = "unknown" if opaque or zero[w].all() else "refuted"
            self._find(verdict, "operand", op.index,
                       f"PTX line {op.ins.line}: no {role} element in any lane of this mma, so its tile cannot be "
                       f"derived (lane 0 holds {self.describe_group(groups[w, 0, 0], ue)})",
                       line=op.ins.line, opcode=op.ins.opcode, **self._where(t), operand=role,
                       held=self.describe_group(groups[w, 0, 0], ue), expected=f"an element of {role}")
        for w in np.flatnonzero(has & ~same.reshape(W, -1).all(axis=1) | has & (~ok).reshape(W, -1).any(axis=1)):
            vals, counts = np.unique(key[w][ok[w]], return_counts=True)
            mode = vals[np.argmax(counts)]
            ref[w] = mode
            m0, k0 = (int(x) for x in unpack_origin(mode))
            exp_r, exp_c = m0 + form.row[role], k0 + form.col[role]
            inside = (exp_r >= 0) & (exp_r < bounds[0]) & (exp_c >= 0) & (exp_c < bounds[1])
            wrong = (ok[w] & (key[w] != mode)) | (~ok[w] & ~(zero[w] & ~inside))
            if not wrong.any():
                continue
            bad[w] = True
            lane, e = (int(x[0]) for x in np.nonzero(wrong))
            t = int(threads[w * 32 + lane])
            held = self.describe_group(groups[w, lane, e], ue)
            if not ok[w, lane, e] and zero[w, lane, e]:
                held = "zero (not loaded; the element is inside the matrix)"
            opaque = tg.kind(int(groups[w, lane, e, 0])) == tg.K_OPAQUE
            reg_i = e * ue // 2
            self._find("unknown" if opaque else "refuted", "operand", op.index,
                       f"PTX line {op.ins.line}: lane {lane} register {form.regs[role][reg_i]} "
                       f"({role.lower()}{e}) holds {held}; the fragment needs {role}({int(exp_r[lane, e])}, "
                       f"{int(exp_c[lane, e])})", line=op.ins.line, opcode=op.ins.opcode, **self._where(t),
                       operand=role, register=form.regs[role][reg_i], element=e,
                       half=(e % 2 if ue == 1 else None), held=held,
                       expected=f"{role}({int(exp_r[lane, e])}, {int(exp_c[lane, e])})")
        o0, o1 = unpack_origin(ref)
        return o0, o1, bad

    # ------------------------------------------------------------------ fma
    def _decoded(self, plane: np.ndarray | None, e: int, ue: int) -> tuple[np.ndarray, ...] | None:
        """(in A, row, col, in B, row, col) of element ``e`` of a register plane, cached per plane object (a
        loaded factor feeds many fma)."""
        if plane is None:
            return None
        key = (id(plane), e, ue)
        hit = self._decode_cache.get(key)
        if hit is not None and hit[0] is plane:
            return hit[1]  # type: ignore[no-any-return]
        group = plane[:, e * ue:(e + 1) * ue]
        if group.shape[1] < ue:
            return None
        out = []
        for spec in (self.a, self.b):
            r, c, ok = self._operand(spec, group, ue)
            out += [ok, r, c]
        if len(self._decode_cache) > 512:
            self._decode_cache.clear()
        self._decode_cache[key] = (plane, tuple(out))
        return tuple(out)

    def fma(self, m: Any, op: Any, lanes: np.ndarray, groups: list[np.ndarray], c_reader: Any, e: int,
            ue: int, planes: list[Any] | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """Element ``e`` of an fma/mad: lanes whose factors are an A and a B element are k-products;
        returns (result units, which lanes were products) or None when no lane is one."""
        gc = groups[2]
        if planes is not None:
            da, db = self._decoded(planes[0], e, ue), self._decoded(planes[1], e, ue)
        else:
            da, db = self._decoded(groups[0], 0, ue), self._decoded(groups[1], 0, ue)
        if da is None or db is None:
            return None
        a_in_a, ra, ca, a_in_b, rb2, cb2 = da
        b_in_a, ra2, ca2, b_in_b, rb, cb = db
        straight = lanes & a_in_a & b_in_b
        swapped = lanes & b_in_a & a_in_b & ~straight
        prod = straight | swapped
        if not prod.any():
            return None
        if not (self._element_size("A", 2 * ue, op) and self._element_size("B", 2 * ue, op)):
            return np.full((m.n, ue), tg.opaque(op.index, tg.W_MMA), dtype=np.int64), prod
        mm, k1 = np.where(straight, ra, ra2), np.where(straight, ca, ca2)
        k2, nn = np.where(straight, rb, rb2), np.where(straight, cb, cb2)
        ok_a = ok_b = prod
        cv = c_reader(m)
        bits = np.broadcast_to(np.asarray(cv.bits, dtype=np.uint64), (m.n,))
        unit = (bits >> np.uint64(16 * e * ue)) & np.uint64((1 << (16 * ue)) - 1)
        zero = (unit & np.uint64((1 << (16 * ue - 1)) - 1)) == 0
        if cv.known is not True:
            zero &= np.broadcast_to(np.asarray(cv.known, dtype=bool), (m.n,))
        zero |= (gc == tg.ZERO).all(axis=1)
        c_none, c_acc, _g, c_first = classify(gc)
        mn = mm | (nn << 20)
        c_ok = (c_none & zero) | (c_acc & ((c_first & (_M40 | np.int64(1 << 58))) == mn))  # same (m, n), not derived
        depth = np.where(c_acc, (c_first >> 40) & 0xFFFF, 0) + 1
        bad = prod & ((k1 != k2) | ~c_ok)
        if bad.any():
            self._fma_finding(m, op, int(np.flatnonzero(bad)[0]), mm, nn, k1, k2, gc, ok_a, ok_b, ue)
            good = prod & ~bad
        else:
            good = prod
        self.fma_lanes += int(np.count_nonzero(good))
        head = np.int64((tg.K_ACC << tg.KIND_SHIFT) | ((1 << 57) if ue == 2 else 0))
        tags = head | (np.minimum(depth, tg.MAX_DEPTH) << 40) | mn
        units = np.stack([tags, tags | np.int64(1 << 56)], axis=1) if ue == 2 else tags[:, None]
        out = np.where(bad[:, None], tg.opaque(op.index, tg.W_MMA), units) if bad.any() else units
        if good.any():
            self._count_elements(op, mm[good], nn[good], k1[good], inside=True)
        return out, prod

    def _fma_finding(self, m: Any, op: Any, th: int, mm: Any, nn: Any, k1: Any, k2: Any, gc: Any, ok_a: Any,
                     ok_b: Any, ue: int) -> None:
        if not (ok_a[th] and ok_b[th]):
            msg, held, expected, verdict = "multiplies an element outside A's or B's layout", "", "", "refuted"
        elif k1[th] != k2[th]:
            msg = f"multiplies A({int(mm[th])}, {int(k1[th])}) by B({int(k2[th])}, {int(nn[th])})"
            held, expected = f"B({int(k2[th])}, {int(nn[th])})", f"B({int(k1[th])}, {int(nn[th])})"
            verdict = "refuted"
        else:
            held = self.describe_group(gc[th], ue)
            msg = f"accumulates into {held}, not the accumulator of C({int(mm[th])}, {int(nn[th])}) or zero"
            expected = f"the accumulator of C({int(mm[th])}, {int(nn[th])}) or 0"
            verdict = "unknown" if tg.kind(int(gc[th, 0])) == tg.K_OPAQUE else "refuted"
        self._find(verdict, "fma", op.index, f"PTX line {op.ins.line}: lane {int(m.flow.geom.laneid[th])} " + msg,
                   line=op.ins.line, opcode=op.ins.opcode, **self._where(th), held=held, expected=expected)

    # ------------------------------------------------------------------ products counted once
    def _count_tiles(self, op: Any, m0: np.ndarray, n0: np.ndarray, k0: np.ndarray, shape: tuple[int, int, int]) -> None:
        mt, nt, kt = shape
        self.products += int(m0.size)
        aligned = ((m0 % mt == 0) & (n0 % nt == 0) & (k0 % kt == 0) & (m0 >= 0) & (n0 >= 0) & (k0 >= 0)).all()
        if aligned and self.tile_shape in (None, shape) and self.elem_counts is None:
            if self.tile_counts is None:
                self.tile_shape = shape
                dims = (-(-self.M // mt), -(-self.N // nt), -(-self.K // kt))
                self.tile_counts = np.zeros(dims, dtype=np.uint16)
            inside = (m0 < self.M) & (n0 < self.N) & (k0 < self.K)
            idx = (m0[inside] // mt, n0[inside] // nt, k0[inside] // kt)
            np.add.at(self.tile_counts, idx, 1)
            dup = self.tile_counts[idx] > 1
            if dup.any():
                j = int(np.flatnonzero(dup)[0])
                self._duplicate(op, int(idx[0][j]) * mt, int(idx[1][j]) * nt, int(idx[2][j]) * kt)
            return
        mm, nn, kk = np.meshgrid(np.arange(mt), np.arange(nt), np.arange(kt), indexing="ij")
        self._count_elements(op, (m0[:, None] + mm.reshape(-1)[None]).reshape(-1),
                             (n0[:, None] + nn.reshape(-1)[None]).reshape(-1),
                             (k0[:, None] + kk.reshape(-1)[None]).reshape(-1), counted=True)

    def _count_elements(self, op: Any, mm: np.ndarray, nn: np.ndarray, kk: np.ndarray, counted: bool = False,
                        inside: bool = False) -> None:
        """Count (m, n, k) products; ``inside``: the caller knows every coordinate lies in the problem."""
        if not counted:
            self.products += int(mm.size)
        keys = (mm * self.N + nn) * self.K + kk
        if not inside:
            keys = keys[(mm >= 0) & (mm < self.M) & (nn >= 0) & (nn < self.N) & (kk >= 0) & (kk < self.K)]
        if self.tile_counts is not None and self.elem_counts is None:
            self._tiles_to_elements()
        total = self.M * self.N * self.K
        if total <= MAX_COUNTERS:
            if self.elem_counts is None:
                self.elem_counts = np.zeros(total, dtype=np.uint8)
            counts = self.elem_counts
            ordered = np.sort(keys)
            if (ordered[1:] == ordered[:-1]).any():
                np.add.at(counts, keys, 1)  # a key twice in one step: count each
            else:
                counts[keys] += 1
            dup = counts[keys] > 1
        else:
            self.elem_keys.append(keys)
            dup = np.zeros(keys.size, dtype=bool)
        if dup.any():
            key = int(keys[np.flatnonzero(dup)[0]])
            self._duplicate(op, key // (self.N * self.K), (key // self.K) % self.N, key % self.K)

    def _tiles_to_elements(self) -> None:
        assert self.tile_counts is not None and self.tile_shape is not None
        mt, nt, kt = self.tile_shape
        full = np.repeat(np.repeat(np.repeat(self.tile_counts, mt, 0), nt, 1), kt, 2)[:self.M, :self.N, :self.K]
        self.elem_counts = np.ascontiguousarray(full).astype(np.uint8).reshape(-1)
        self.tile_counts = None

    def _duplicate(self, op: Any, mm: int, nn: int, kk: int) -> None:
        self._find("refuted", "duplicate", op.index, f"PTX line {op.ins.line}: the product A({mm}, {kk}) * "
                   f"B({kk}, {nn}) is accumulated a second time (into C({mm}, {nn}))", line=op.ins.line,
                   opcode=op.ins.opcode, element=[mm, nn, kk])

    # ------------------------------------------------------------------ stores to C
    def global_store(self, m: Any, op: Any, threads: np.ndarray, buf: np.ndarray, offs: np.ndarray,
                     vals: np.ndarray, ew: int) -> None:
        to_c = buf == self.c.buffer
        if not to_c.any():
            return
        th = threads[to_c]
        o = offs[to_c]
        v = vals[to_c]
        unit = o >> 1
        inside = (unit >= 0) & (unit < self.c_units) & (o % 2 == 0)
        self.c_outside += int((~inside).sum())
        g = self.state.geom
        ctas = np.array(g.ctas, dtype=np.int64)[g.cta_index[th]]
        who = np.concatenate([ctas, g.warpid[th][:, None], g.laneid[th][:, None]], axis=1)
        k, u = o.shape
        u_flat, v_flat = unit.reshape(-1), v.reshape(-1)
        sel = inside.reshape(-1)
        units, vals, whos = u_flat[sel], v_flat[sel], np.repeat(who, u, axis=0)[sel]
        cta_i, warp_i = np.repeat(g.cta_index[th], u)[sel], np.repeat(g.warpid[th], u)[sel]
        self._unordered_stores(op, units, vals, whos, cta_i, warp_i)
        self.c_tag[units] = vals
        self.c_op[units] = op.index
        self.c_who[units] = whos
        self.c_clock[units] = self.state.clocks.vc[cta_i, warp_i, warp_i]
        self.c_item[units] = np.tile(np.arange(u) // max(1, ew // 2), k)[sel]

    def _unordered_stores(self, op: Any, units: np.ndarray, vals: np.ndarray, whos: np.ndarray, cta_i: np.ndarray,
                          warp_i: np.ndarray) -> None:
        """Two stores of different values to one unit of C with nothing ordering them (other CTAs, or warps
        of one CTA with no barrier between): the final value is whichever lands last."""
        prev = self.c_op[units] >= 0
        differ = prev & (self.c_tag[units] != vals)
        if not differ.any():
            return
        old = self.c_who[units]
        other_cta = (old[:, :3] != whos[:, :3]).any(axis=1)
        same_cta_other_warp = ~other_cta & (old[:, 3] != whos[:, 3])
        knows = self.state.clocks.knows(cta_i, warp_i, np.where(same_cta_other_warp, old[:, 3], -1))
        unordered = differ & (other_cta | (same_cta_other_warp & ~(knows > self.c_clock[units])))
        if unordered.any():
            j = int(np.flatnonzero(unordered)[0])
            first = self.fn.body[int(self.c_op[units[j]])]
            self._find("refuted", "global race", op.index,
                       f"bytes {2 * int(units[j])}..{2 * int(units[j]) + 1} of C are stored by PTX line {first.line} "
                       f"(CTA {tuple(int(x) for x in old[j, :3])} warp {int(old[j, 3])} lane {int(old[j, 4])}) and by "
                       f"PTX line {op.ins.line} (CTA {tuple(int(x) for x in whos[j, :3])} warp {int(whos[j, 3])} lane "
                       f"{int(whos[j, 4])}) with different values and nothing ordering the two stores",
                       line=op.ins.line, opcode=op.ins.opcode, first_line=first.line)

    # ------------------------------------------------------------------ the end
    def verdict_findings(self, whole_grid: bool) -> list[Finding]:
        """Findings of the final check of C and of the product counts (appended to ``findings``)."""
        out: list[Finding] = []
        if self.products == 0:
            out.append(Finding("unknown", "no products", "no mma and no A x B fma was executed (nothing to check)"))
            return out
        if self.elem_keys:
            keys = np.concatenate(self.elem_keys)
            uniq, counts = np.unique(keys, return_counts=True)
            if (counts > 1).any():
                key = int(uniq[counts > 1][0])
                mm, nn, kk = key // (self.N * self.K), (key // self.K) % self.N, key % self.K
                out.append(Finding("refuted", "duplicate", f"the product A({mm}, {kk}) * B({kk}, {nn}) is "
                                   f"accumulated more than once", {"element": [mm, nn, kk]}))
        assert self.c.offsets is not None
        acc_units = tg.kind(self.c_tag) == tg.K_ACC
        _m, _n, _d, _part, wide, _der = tg.acc_fields(self.c_tag)
        widths = set(np.unique(wide[acc_units]).tolist())
        if not acc_units.any():
            opaque = tg.kind(self.c_tag) == tg.K_OPAQUE
            if opaque.any():
                t = int(self.c_tag[np.flatnonzero(opaque)[0]])
                out.append(Finding("unknown", "store", f"C receives {self.describe_group(np.array([t]), 1)} and no "
                                   "accumulator the data flow followed"))
                return out
            verdict = "refuted" if whole_grid else "unknown"
            out.append(Finding(verdict, "store", "no accumulator value is stored to C's buffer"))
            return out
        if len(widths) > 1:
            out.append(Finding("refuted", "store", "C receives both 16-bit and 32-bit accumulator values"))
            return out
        ue = 2 if 1 in widths else 1
        elem_units = (self.c.offsets * ue)[:, None] + np.arange(ue)[None, :]  # (M*N, ue)
        if elem_units.max() >= self.c_units:
            out.append(Finding("unknown", "store", "C's layout reaches past the units the check keeps"))
            return out
        tags = self.c_tag[elem_units]
        written: np.ndarray = np.asarray((self.c_op[elem_units] >= 0).any(axis=1))
        idx = np.arange(self.M * self.N)
        rr, cc = idx % self.M, idx // self.M
        none, acc, _g, ident = classify(tags)
        am, an, ad, _p, _w, _der = tg.acc_fields(ident)
        good = acc & (am == rr) & (an == cc) & (ad == self.K)
        check = written if not whole_grid else np.ones_like(written)
        wrong = check & ~good
        self.c_checked = int(check.sum())
        if wrong.any():
            e = int(np.flatnonzero(wrong)[0])
            r, c = int(rr[e]), int(cc[e])
            fields: dict[str, Any] = {"element": [r, c], "expected": f"the accumulator of C({r}, {c}) after {self.K} "
                                      "k-products"}
            if not written[e]:
                msg = f"C({r}, {c}) is never written"
                fields["held"] = "nothing (never written)"
            else:
                u0 = int(elem_units[e, 0])
                ins = self.fn.body[int(self.c_op[u0])]
                cx, cy, cz, w, lane = (int(x) for x in self.c_who[u0])
                held = self.describe_group(tags[e], ue)
                msg = (f"C({r}, {c}) receives {held} (stored at PTX line {ins.line} by CTA ({cx}, {cy}, {cz}) warp "
                       f"{w} lane {lane}), not the accumulator of C({r}, {c}) after {self.K} k-products")
                fields.update(line=ins.line, opcode=ins.opcode, cta=[cx, cy, cz], warp=w, lane=lane, held=held)
                reg = _store_register(ins, int(self.c_item[u0]))
                if reg:
                    fields["register"] = reg
                if tg.kind(int(tags[e, 0])) == tg.K_OPAQUE:
                    out.append(Finding("unknown", "store", msg, fields))
                    return out
            out.append(Finding("refuted", "store", msg, fields))
        if not whole_grid and not written.any():
            out.append(Finding("unknown", "store", "the traced CTAs store no element of C"))
        return out


_BIAS = np.int64(1 << 30)


def pack_origin(o0: Any, o1: Any) -> Any:
    """One int64 key per (row origin, column origin) pair (each within +-2**30)."""
    return ((np.asarray(o0, dtype=np.int64) + _BIAS) << 32) | (np.asarray(o1, dtype=np.int64) + _BIAS)


def unpack_origin(key: Any) -> tuple[Any, Any]:
    key = np.asarray(key, dtype=np.int64)
    return (key >> 32) - _BIAS, (key & np.int64(0xFFFF_FFFF)) - _BIAS


def _store_register(ins: Any, item: int) -> str | None:
    """The name of source register ``item`` of a store instruction (None when it is not a register)."""
    from layoutalg.kernel.ptx.nodes import Reg, Vec

    if item < 0 or len(ins.operands) < 2:
        return None
    src = ins.operands[1]
    items = list(src.items) if isinstance(src, Vec) else [src]
    if item >= len(items):
        return None
    reg = items[item]
    return reg.name if isinstance(reg, Reg) else None


def _untagged_value(value: Any, thread: int, element: int, ue: int) -> str:
    """An untagged register element in words: its value when the trace knows it."""
    bits = np.asarray(value.bits, dtype=np.uint64)
    known = np.asarray(value.known, dtype=bool)
    b = int(bits if bits.ndim == 0 else bits[thread])
    k = bool(known if known.ndim == 0 else known[thread])
    if not k:
        return "an untagged value unknown at trace time (uninitialised, or computed from such a value)"
    if ue == 2:
        f = float(np.array([b & 0xFFFF_FFFF], dtype=np.uint32).view(np.float32)[0])
        return f"the constant {f!r} (bits {b & 0xFFFF_FFFF:#010x}), not loaded from A or B"
    h = (b >> (16 * (element % 2))) & 0xFFFF
    return f"the constant {float(np.array([h], dtype=np.uint16).view(np.float16)[0])!r} (bits {h:#06x})"


def _undefined() -> Any:
    from layoutalg.kernel.interp.decode import UNDEFINED

    return UNDEFINED
