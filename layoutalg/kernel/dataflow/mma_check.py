"""The mma check's consumer: every mma / A x B fma product and every store to C, checked as it happens.

For each executed ``mma`` (per warp) the A and B elements in every lane, register and half are read
off their tags and mapped to matrix coordinates through the user's layouts; the tile origin
``(m0, k0)`` / ``(k0', n0)`` is the most common ``coordinate - fragment position`` among them, and
every element must equal the fragment table's element of that tile (PTX ISA fragment layouts,
:mod:`.fragments`); ``k0 == k0'``.  Unless ``exact_fragments``, a warp whose A fragment fails that but
holds its k in another order -- each k position one k of A in every row, the k distinct -- passes when B's
fragment holds the same k in the same positions (:mod:`.k_order`: every product still belongs to its C element,
each k once; its products are counted one by one).  That answers whether C is right, not whether the fragments
are the PTX ones: ``exact_fragments=True`` (``check_mma_fragments``, and
:func:`layoutalg.prove.fragment_delivers`) keep the PTX positions.  The C input must be, element by element, a known zero or the
unmodified accumulator of exactly the C element the fragment names.  D then carries the accumulator
of each ``(m, n)`` with its depth (k-products so far, counting only k inside the problem).  A scalar
``fma`` whose factors are an A and a B element is the 1 x 1 x 1 case.  Every (m, n, k) product is
counted; a second one is refuted.  Each unit stored to C's buffer is remembered (the last store
wins); at the end every C element must hold its own accumulator after all K products.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.errors import LayoutError
from layoutalg.kernel.dataflow import k_order
from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.arith import classify
from layoutalg.kernel.dataflow.c_stores import CStores
from layoutalg.kernel.dataflow.checker_base import Finding
from layoutalg.kernel.dataflow.fma_check import FmaProducts
from layoutalg.kernel.dataflow.fragments import MmaForm, gather, mma_form, value_groups
from layoutalg.kernel.dataflow.paged import PagedArray
from layoutalg.kernel.dataflow.specs import MatrixSpec, check_shapes, resolve

__all__ = ["MmaChecker", "Finding"]


class MmaChecker(FmaProducts, CStores):
    """The consumer :func:`~layoutalg.kernel.dataflow.flow.flow` feeds (see the module doc)."""

    def __init__(self, a: MatrixSpec, b: MatrixSpec, c: MatrixSpec, exact_fragments: bool = False) -> None:
        super().__init__(a, b, c)
        self.exact_fragments = exact_fragments
        self.k_permuted = 0  # mma warp-executions whose A and B hold the k in one order other than the PTX one
        # (line, first line) of the global races the first interpretation met, once flow() ran the launch again
        # (:meth:`restart`): those are real, others may come only from barriers taken as ordering nothing
        self.sure_global_races: set[tuple[Any, Any]] | None = None

    def restart(self) -> None:
        """Forget every finding and count: :func:`~layoutalg.kernel.dataflow.flow.flow` interprets the launch
        again (a counted barrier turned out unforced)."""
        sure = self.sure_global_races
        if sure is None:
            sure = {(f.fields.get("line"), f.fields.get("first_line")) for f in self.findings if f.kind == "global race"}
        MmaChecker.__init__(self, self.a, self.b, self.c, self.exact_fragments)
        self.sure_global_races = sure

    # ------------------------------------------------------------------ driver hooks
    def begin(self, fn: Any, params: Any, launch: Any) -> None:
        self.fn = fn
        self.buffer_names = list(params.buffers)
        for s in (self.a, self.b, self.c):
            resolve(s, fn, self.buffer_names)
        # the module's .global / .const variables are the launch's next buffers, in order (interp build_image)
        self.buffer_names += [v.name for v in launch.module.variables if v.space in ("global", "const")]
        self.M, self.N, self.K = check_shapes(self.a, self.b, self.c)
        if max(self.M, self.N) >= tg.MAX_DIM or self.K > tg.MAX_DEPTH:
            raise LayoutError(f"problem {self.M} x {self.N} x {self.K}: the check tags M, N < {tg.MAX_DIM} and "
                              f"K <= {tg.MAX_DEPTH}")
        assert self.c.offsets is not None
        top = int(self.c.offsets.max()) + 1 if self.c.offsets.size else 1
        self.c_units = 2 * top  # enough for 4-byte elements
        # paged: memory follows the units stored, not C's extent (:mod:`.paged`)
        self.c_tag = PagedArray(tg.NONE)
        self.c_op = PagedArray(-1)
        self.c_who = PagedArray(-1, width=5)  # cta x, y, z, warp, lane
        self.c_item = PagedArray(-1)  # which source register of the store
        self.c_last = PagedArray(-1, width=8)  # per byte: tag, op, warp clock, who
        self.c_outside = 0

    def batch(self, state: Any, first: int) -> None:
        self.state = state
        self.cta_offset = first

    def end(self) -> None:
        self.state = None

    def operand_buffers(self) -> set[int]:
        return {self.a.buffer, self.b.buffer}

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
        pending: dict[int, list[tuple[Any, ...]]] = {}  # per warp, its PTX-order findings (while a k order may fit)
        ma, ka, bad_a, empty_a = self._tile(op, "A", self.a, ga, zeros("A"), form, threads, (self.M, self.K),
                                            hold=None if self.exact_fragments else pending)
        orders = self._k_orders(form, ga, zeros, bad_a, pending) if pending else {}
        for w, (m0, _kappa) in orders.items():
            ma[w], bad_a[w] = m0, False
        permuted = np.zeros(W, dtype=bool)
        permuted[list(orders)] = True
        # B's k origin is A's (one tile per mma): B is judged against the k tile the A fragment holds (against
        # A's k order where A holds the k in another order: below)
        kb, nb, bad_b, empty_b = self._tile(op, "B", self.b, gb, zeros("B"), form, threads, (self.K, self.N),
                                            force_row=(ka, ~bad_a & ~empty_a & ~permuted),
                                            quiet=permuted)
        for w, (_m0, kappa) in orders.items():
            nb[w], bad_b[w] = self._b_in_order(op, form, gb, zeros("B"), threads, w, kappa, bool(empty_b[w]))
        bad |= bad_a | bad_b
        # an A or B fragment of known zeros only (a zero-filled tile past the matrix's edge) adds no product:
        # D is C, unit for unit, whatever C holds (the other operand is still checked above)
        skip = empty_a | empty_b
        clash = ~bad & ~skip & ~permuted & (ka != kb)
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
        none, acc, glob, ident = classify(gc.reshape(-1, form.ue["C"]))
        shape = gc.shape[:-1]
        none, acc, glob, ident = none.reshape(shape), acc.reshape(shape), glob.reshape(shape), ident.reshape(shape)
        am, an, ad, _p, _wide, ader = tg.acc_fields(ident)
        good_acc = acc & (am == crow) & (an == ccol) & (ader == 0)
        good_zero = none & zeros("C")() if none.any() else none
        good_seed = self._old_c(glob, ident, crow, ccol, form.ue["C"])
        c_ok = good_acc | good_zero | good_seed
        depth_in = np.where(good_acc, ad, 0)
        c_bad = ~(bad | skip)[:, None, None] & ~c_ok
        if c_bad.any():
            w, lane, e = (int(x[0]) for x in np.nonzero(c_bad))
            t = int(threads[w * 32 + lane])
            reg = form.regs["C"][e * form.ue["C"] // 2]
            verdict = "unknown" if tg.kind(int(gc[w, lane, e, 0])) == tg.K_OPAQUE else "refuted"
            held = self.describe_group(gc[w, lane, e], form.ue["C"])
            if held.startswith("an untagged value"):
                held = _untagged_value(read(reg), t, e, form.ue["C"])
            want = f"the accumulator of C({int(crow[w, lane, e])}, {int(ccol[w, lane, e])}), its old value or 0"
            self._find(verdict, "accumulator", op.index,
                       f"PTX line {ins.line}: the C input of element c{e} in lane {lane} is {held}, not {want}",
                       line=ins.line, opcode=ins.opcode, **self._where(t), operand="C", register=reg, element=e,
                       held=held, expected=want)
            bad |= c_bad.any(axis=(1, 2))
        kin = np.clip(np.minimum(ka + kt, self.K) - np.maximum(ka, 0), 0, None)
        for w, (_m0, kappa) in orders.items():
            kin[w] = int(np.count_nonzero(kappa != k_order.NO_K))  # A's k are elements of A: inside the problem
        depth = depth_in + kin[:, None, None]
        ue_c = form.ue["C"]
        dtags = tg.acc(crow, ccol, np.minimum(depth, tg.MAX_DEPTH), 0, ue_c == 2)  # (W, 32, elements)
        units = np.repeat(dtags[..., None], ue_c, axis=-1) | (np.arange(ue_c)[None, None, None, :] << 56) \
            if ue_c == 2 else dtags[..., None]
        units = np.where(skip[:, None, None, None], gc, units)
        units = np.where(bad[:, None, None, None], tg.opaque(op.index, tg.W_MMA), units)
        flat = units.reshape(W * 32, -1)
        for j, name in enumerate(form.regs["D"]):
            plane = np.full((m.n, 2), tg.NONE, dtype=np.int64)
            plane[threads] = flat[:, 2 * j: 2 * j + 2]
            f.regs.put(name, plane, mask)
        good = ~bad & ~skip
        if (good & ~permuted).any():
            self._count_tiles(op, ma[good & ~permuted], nb[good & ~permuted], ka[good & ~permuted], (mt, nt, kt))
        for wp in (int(x) for x in np.flatnonzero(good & permuted)):
            self.k_permuted += 1
            ks = orders[wp][1]
            ks = ks[ks != k_order.NO_K]
            mm, nn, kk = np.meshgrid(ma[wp] + np.arange(mt), nb[wp] + np.arange(nt), ks, indexing="ij")
            self._count_elements(op, mm.reshape(-1), nn.reshape(-1), kk.reshape(-1))

    def _old_c(self, glob: np.ndarray, ident: np.ndarray, crow: np.ndarray, ccol: np.ndarray, ue: int) -> np.ndarray:
        """C inputs that are the old value of the same C element, loaded from C's buffer (``D = A B + C``; maybe
        scaled, as ``beta * C``): a chain may start there as from zero (``c_seeded`` counts them)."""
        if not glob.any():
            return np.zeros(glob.shape, dtype=bool)
        off = tg.glob_off(ident)
        sel = glob & (tg.glob_buf(ident) == self.c.buffer) & (off % (2 * ue) == 0)
        r, c, ok = self.c.coordinate(np.where(sel, off // (2 * ue), -1))
        seed: np.ndarray = np.asarray(sel & ok & (r == crow) & (c == ccol))
        self.c_seeded += int(np.count_nonzero(seed))
        return seed

    def _tile(self, op: Any, role: str, spec: MatrixSpec, groups: np.ndarray, zeros: Any, form: MmaForm,
              threads: np.ndarray, bounds: tuple[int, int],
              force_row: tuple[np.ndarray, np.ndarray] | None = None,
              hold: dict[int, list[tuple[Any, ...]]] | None = None,
              quiet: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """Per warp the tile origin (row0, col0) of operand ``role``, whether it failed (recorded), and whether the
        fragment is known zeros only (no element of ``role``: no tile, not a failure); ``zeros()`` gives which
        elements are known zeros (computed only when some element is not ``role``'s).  ``force_row``: (origin
        row, valid) per warp, a row origin the tile must have (B's k, taken from the A fragment); the column
        origin is then the most common one among the elements.  ``hold``: each warp's findings go there
        instead of being reported (the caller reports them or finds a k order that fits); ``quiet``: warps
        whose findings are dropped (judged another way)."""
        W = groups.shape[0]
        ue = groups.shape[-1]
        r, c, ok = self._operand(spec, groups, ue)
        fr, fc = form.row[role][None], form.col[role][None]
        key = pack_origin(r - fr, c - fc)
        first = np.argmax(ok.reshape(W, -1), axis=1)
        has = ok.reshape(W, -1).any(axis=1)
        ref = key.reshape(W, -1)[np.arange(W), first]
        same = ~ok | (key == ref[:, None, None])
        forced = np.zeros(W, dtype=bool)
        if force_row is not None:
            forced = has & force_row[1] & (unpack_origin(ref)[0] != force_row[0])
        bad = np.zeros(W, dtype=bool)
        zero = zeros() if not ok.all() else np.ones(ok.shape, dtype=bool)
        empty: np.ndarray = np.asarray(~has & zero.reshape(W, -1).all(axis=1))
        bad |= ~has & ~empty
        for w in np.flatnonzero(~has & ~empty):
            t = int(threads[w * 32])
            opaque = (tg.kind(groups[w]) == tg.K_OPAQUE).any()
            verdict = "unknown" if opaque else "refuted"
            held = self.describe_group(groups[w, 0, 0], ue)
            self._report(w, hold, quiet, verdict, "operand", op.index,
                       f"PTX line {op.ins.line}: no {role} element in any lane of this mma, so its tile cannot be "
                       f"derived (lane 0 register {form.regs[role][0]} ({role.lower()}0) holds {held})",
                       line=op.ins.line, opcode=op.ins.opcode, **self._where(t), operand=role,
                       register=form.regs[role][0], element=0, half=(0 if ue == 1 else None), held=held,
                       expected=f"an element of {role} (at fragment position ({int(form.row[role][0, 0])}, "
                                f"{int(form.col[role][0, 0])}) of the tile)")
        todo = has & ~same.reshape(W, -1).all(axis=1) | has & (~ok).reshape(W, -1).any(axis=1) | forced
        for w in np.flatnonzero(todo):
            mode = _mode_origin(key[w][ok[w]], ref[w], form.row[role], form.col[role], bounds)
            own_row = int(unpack_origin(mode)[0])
            if force_row is not None and force_row[1][w]:
                mode = pack_origin(force_row[0][w], unpack_origin(mode)[1])
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
            need = f"{role}({int(exp_r[lane, e])}, {int(exp_c[lane, e])})"
            if not inside[lane, e]:  # the tile reaches past the matrix here: only a zero is right
                need = f"0 (its position {need} lies outside the {bounds[0]} x {bounds[1]} matrix)"
            if force_row is not None and force_row[1][w] and own_row != int(force_row[0][w]):
                need += f" (the A fragment is the tile at k = {int(force_row[0][w])}; most B elements here are " \
                        f"from the tile at k = {own_row})"
            self._report(w, hold, quiet, "unknown" if opaque else "refuted", "operand", op.index,
                       f"PTX line {op.ins.line}: lane {lane} register {form.regs[role][reg_i]} "
                       f"({role.lower()}{e}) holds {held}; the fragment needs {need}", line=op.ins.line,
                       opcode=op.ins.opcode, **self._where(t), operand=role, register=form.regs[role][reg_i],
                       element=e, half=(e % 2 if ue == 1 else None), held=held, expected=need)
        o0, o1 = unpack_origin(ref)
        return o0, o1, bad, empty

    def _report(self, w: Any, hold: dict[int, list[tuple[Any, ...]]] | None, quiet: np.ndarray | None,
                *args: Any, **fields: Any) -> None:
        """``_find(*args, **fields)`` for warp ``w``, or held / dropped (:meth:`_tile`)."""
        if quiet is not None and quiet[w]:
            return
        if hold is not None:
            hold.setdefault(int(w), []).append((args, fields))
            return
        self._find(*args, **fields)

    def _k_orders(self, form: MmaForm, ga: np.ndarray, zeros: Any, bad_a: np.ndarray,
                  held: dict[int, list[tuple[Any, ...]]]) -> dict[int, tuple[int, np.ndarray]]:
        """Warps whose A fragment failed the PTX order but holds its k in another order (:mod:`.k_order`):
        warp -> (m0, kappa).  The held findings of the others are reported, a k order's mismatch added to the
        message where A's rows fit (so that the PTX order is not the only one the message rules out)."""
        out: dict[int, tuple[int, np.ndarray]] = {}
        za = None
        for w in sorted(held):
            got: Any = None
            if bad_a[w]:
                za = zeros("A")() if za is None else za
                r, c, ok = self._operand(self.a, ga[w], form.ue["A"])
                got = k_order.a_order(r, c, ok, za[w], form.row["A"], form.col["A"], form.shape[2], self.M)
            if isinstance(got, tuple):
                out[w] = got
                continue
            for args, fields in held[w]:
                if isinstance(got, k_order.Mismatch) and args[0] == "refuted":
                    reg = form.regs["A"][got.element * form.ue["A"] // 2]
                    what = self.describe_group(ga[w, got.lane, got.element], form.ue["A"])
                    args = (*args[:3], f"{args[3]}; nor does another order of k fit: lane {got.lane} register {reg} "
                            f"(a{got.element}) holds {what}, but {got.why}")
                self._find(*args, **fields)
        return out

    def _b_in_order(self, op: Any, form: MmaForm, gb: np.ndarray, zeros: Any, threads: np.ndarray, w: int,
                    kappa: np.ndarray, empty: bool) -> tuple[int, bool]:
        """(n0, failed) of warp ``w``'s B fragment judged against A's k order ``kappa`` (:mod:`.k_order`); a
        failure is reported naming the lane, register and the element A's order needs there."""
        if empty:
            return 0, False
        ue = form.ue["B"]
        r, c, ok = self._operand(self.b, gb[w], ue)
        n0, miss = k_order.b_against(r, c, ok, zeros()[w], form.row["B"], form.col["B"], kappa, self.N)
        if miss is None:
            return n0, False
        lane, e = miss.lane, miss.element
        t = int(threads[w * 32 + lane])
        held = self.describe_group(gb[w, lane, e], ue)
        if not ok[lane, e] and zeros()[w, lane, e]:
            held = "zero (not loaded; the element is inside the matrix)"
        reg = form.regs["B"][e * ue // 2]
        opaque = tg.kind(int(gb[w, lane, e, 0])) == tg.K_OPAQUE
        self._find("unknown" if opaque else "refuted", "operand", op.index,
                   f"PTX line {op.ins.line}: lane {lane} register {reg} (b{e}) holds {held}; the fragment needs "
                   f"{miss.need}, since {miss.why}", line=op.ins.line, opcode=op.ins.opcode, **self._where(t),
                   operand="B", register=reg, element=e, half=(e % 2 if ue == 1 else None), held=held,
                   expected=f"{miss.need} ({miss.why})")
        return n0, True

    # ------------------------------------------------------------------ fma
_BIAS = np.int64(1 << 30)


def pack_origin(o0: Any, o1: Any) -> Any:
    """One int64 key per (row origin, column origin) pair (each within +-2**30)."""
    return ((np.asarray(o0, dtype=np.int64) + _BIAS) << 32) | (np.asarray(o1, dtype=np.int64) + _BIAS)


def _mode_origin(keys: np.ndarray, ref: Any, rows: np.ndarray, cols: np.ndarray, bounds: tuple[int, int]) -> Any:
    """The most common origin key; a tie goes to an origin whose whole fragment tile lies inside the matrix,
    then to ``ref`` (the origin of the first element held: lane 0's), then to the smallest key.  Without the
    tie-break a fragment whose elements all disagree (a misread pitch) was judged against the smallest key's
    tile, which could lie outside the matrix ("needs 0 (its position A(-2, 24) ...)" for a right element)."""
    vals, counts = np.unique(keys, return_counts=True)
    best = vals[counts == counts.max()]
    if len(best) == 1:
        return best[0]
    o0, o1 = unpack_origin(best)
    inside = (o0 + int(rows.min()) >= 0) & (o0 + int(rows.max()) < bounds[0]) \
        & (o1 + int(cols.min()) >= 0) & (o1 + int(cols.max()) < bounds[1])
    score = 2 * inside.astype(np.int64) + (best == ref)
    return best[int(np.argmax(score))]


def unpack_origin(key: Any) -> tuple[Any, Any]:
    key = np.asarray(key, dtype=np.int64)
    return (key >> 32) - _BIAS, (key & np.int64(0xFFFF_FFFF)) - _BIAS


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
