"""Stores to C: the last store of each unit wins (two unordered stores of different values race), and at
the end every C element must hold its own accumulator after all K products.

The race check is per byte of C (``c_last``: the last store of each byte): a data race needs two stores of
the same byte (PTX ISA 8.x, 8.2.1 "Overlap", 8.7.1 "Conflict and Data-races"), so two warps storing the two
bytes of one 16-bit unit (``st.global.u8``) do not race, while two unordered stores of different values to one
byte do, byte stores included."""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.arith import classify
from layoutalg.kernel.dataflow.checker_base import CheckerBase, Finding


class CStores(CheckerBase):
    def global_store(self, m: Any, op: Any, threads: np.ndarray, buf: np.ndarray, offs: np.ndarray,
                     vals: np.ndarray, ew: int) -> None:
        to_c = buf == self.c.buffer
        if not to_c.any():
            return
        self.c_store_types.update(p for p in op.ins.parts if p in ("f16", "bf16", "f32"))
        if not any(p in ("f16", "bf16", "f32") for p in op.ins.parts):
            self.c_store_types.add("other")
        th = threads[to_c]
        o = offs[to_c]
        v = vals[to_c]
        unit = o >> 1  # a byte store to an odd address writes the high byte of unit o >> 1 (its unit's tag goes)
        inside = (unit >= 0) & (unit < self.c_units)
        self.c_outside += int((~inside).sum())
        g = self.state.geom
        ctas = np.array(g.ctas, dtype=np.int64)[g.cta_index[th]]
        who = np.concatenate([ctas, g.warpid[th][:, None], g.laneid[th][:, None]], axis=1)
        k, u = o.shape
        u_flat, v_flat = unit.reshape(-1), v.reshape(-1)
        sel = inside.reshape(-1)
        units, vals, whos = u_flat[sel], v_flat[sel], np.repeat(who, u, axis=0)[sel]
        cta_i, warp_i = np.repeat(g.cta_index[th], u)[sel], np.repeat(g.warpid[th], u)[sel]
        byte, entry = _bytes_of(units, o.reshape(-1)[sel], ew)  # the bytes of C the stored units cover
        self._unordered_stores(op, byte, entry, vals, whos, cta_i, warp_i, ew)
        self.c_tag[units] = vals
        self.c_op[units] = op.index
        self.c_who[units] = whos
        self.c_item[units] = np.tile(np.arange(u) // max(1, ew // 2), k)[sel]

    def _unordered_stores(self, op: Any, byte: np.ndarray, entry: np.ndarray, vals: np.ndarray, whos: np.ndarray,
                          cta_i: np.ndarray, warp_i: np.ndarray, ew: int) -> None:
        """Two stores of different values to one byte of C with nothing ordering them (other CTAs, or warps
        of one CTA with no barrier between): the final value is whichever lands last.  ``byte``: the bytes of
        C the stored units cover, ``entry``: the stored unit each belongs to; ``c_last`` then holds them."""
        vals, whos, cta_i, warp_i = vals[entry], whos[entry], cta_i[entry], warp_i[entry]
        last = self.c_last[byte]
        differ = (last[:, 1] >= 0) & (last[:, 0] != vals)
        old = last[:, 3:]
        other_cta = (old[:, :3] != whos[:, :3]).any(axis=1)
        same_cta_other_warp = ~other_cta & (old[:, 3] != whos[:, 3])
        knows = self.state.clocks.knows(cta_i, warp_i, np.where(same_cta_other_warp, old[:, 3], -1))
        unordered = differ & (other_cta | (same_cta_other_warp & ~(knows > last[:, 2])))
        clock = self.state.clocks.vc[cta_i, warp_i, warp_i]  # the storing warp's clock (see .ordering)
        self.c_last[byte] = np.concatenate([vals[:, None], np.full((byte.size, 1), op.index), clock[:, None], whos],
                                           axis=1)
        if unordered.any():
            j = int(np.flatnonzero(unordered)[0])
            first = self.fn.body[int(last[j, 1])]
            lo = int(byte[j]) & ~1
            span = f"bytes {lo}..{lo + 1} of C are" if ew > 1 else f"byte {int(byte[j])} of C is"
            self._find("refuted", "global race", op.index,
                       f"{span} stored by PTX line {first.line} "
                       f"(CTA {tuple(int(x) for x in old[j, :3])} warp {int(old[j, 3])} lane {int(old[j, 4])}) and by "
                       f"PTX line {op.ins.line} (CTA {tuple(int(x) for x in whos[j, :3])} warp {int(whos[j, 3])} lane "
                       f"{int(whos[j, 4])}) with different values and nothing ordering the two stores",
                       line=op.ins.line, opcode=op.ins.opcode, first_line=first.line)

    # ------------------------------------------------------------------ the end
    def verdict_findings(self, whole_grid: bool) -> list[Finding]:
        """Findings of the final check of C and of the product counts (appended to ``findings``)."""
        out: list[Finding] = []
        if self.products == 0 and self.mma_executions == 0:
            out.append(Finding("unknown", "no products", "no mma and no A x B fma was executed (nothing to check)"))
            return out  # (mma that all had a zero A or B fragment go on: C must then still hold its products)
        if self.elem_keys:
            keys = np.concatenate(self.elem_keys)
            uniq, counts = np.unique(keys, return_counts=True)
            if (counts > 1).any():
                key = int(uniq[counts > 1][0])
                mm, nn, kk = key // (self.N * self.K), (key // self.K) % self.N, key % self.K
                out.append(Finding("refuted", "duplicate", f"the product A({mm}, {kk}) * B({kk}, {nn}) is "
                                   f"accumulated more than once", {"element": [mm, nn, kk]}))
        assert self.c.offsets is not None
        stored = self.c_tag.written_pages()  # every unit outside these pages is NONE
        acc_units = tg.kind(stored) == tg.K_ACC
        _m, _n, _d, _part, wide, _der = tg.acc_fields(stored[acc_units])
        widths = set(np.unique(wide).tolist())
        if not acc_units.any():
            opaque = tg.kind(stored) == tg.K_OPAQUE
            if opaque.any():
                sure = self._surely_wrong_among_opaque(whole_grid)
                if sure is not None:
                    out.append(sure)
                    return out
                t = int(stored[np.flatnonzero(opaque)[0]])
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
            # a definite wrong element first: an OPAQUE one (a value the model lost track of) only makes the
            # answer unknown when no other element is wrong
            definite = wrong & ~(tg.kind(tags[:, 0]) == tg.K_OPAQUE)
            e = int(np.flatnonzero(definite if definite.any() else wrong)[0])
            msg, fields = self._element_text(e, ue, tags, written, elem_units)
            if written[e] and tg.kind(int(tags[e, 0])) == tg.K_OPAQUE:
                out.append(Finding("unknown", "store", msg, fields))
                return out
            out.append(Finding("refuted", "store", msg, fields))
        if not whole_grid and not written.any():
            out.append(Finding("unknown", "store", "the traced CTAs store no element of C"))
        return out



    def _element_text(self, e: int, ue: int, tags: np.ndarray, written: np.ndarray,
                      elem_units: np.ndarray) -> tuple[str, dict[str, Any]]:
        """(message, counterexample fields) of C element ``e`` (index ``r + M c``) not holding its accumulator."""
        r, c = e % self.M, e // self.M
        fields: dict[str, Any] = {"element": [r, c], "expected": f"the accumulator of C({r}, {c}) after {self.K} "
                                  "k-products"}
        if not written[e]:
            fields["held"] = "nothing (never written)"
            return f"C({r}, {c}) is never written", fields
        u0 = int(elem_units[e, np.argmax(self.c_op[elem_units[e]] >= 0)])  # its first unit a store wrote
        ins = self.fn.body[int(self.c_op[u0])]
        cx, cy, cz, w, lane = (int(x) for x in self.c_who[u0])
        held = self.describe_group(tags[e], ue)
        msg = (f"C({r}, {c}) receives {held} (stored at PTX line {ins.line} by CTA ({cx}, {cy}, {cz}) warp "
               f"{w} lane {lane}), not the accumulator of C({r}, {c}) after {self.K} k-products")
        fields.update(line=ins.line, opcode=ins.opcode, cta=[cx, cy, cz], warp=w, lane=lane, held=held)
        reg = _store_register(ins, int(self.c_item[u0]))
        if reg:
            fields["register"] = reg
        return msg, fields

    def _surely_wrong_among_opaque(self, whole_grid: bool) -> Finding | None:
        """C holds no accumulator the data flow followed, only OPAQUE values and others: an element is still
        surely wrong where none of its units can depend on more than one element of A or B -- never written
        (when the whole grid is traced), or every unit ZERO or exactly the loaded bits of one element
        (``GLOBAL``, not derived).  ``C = A B`` depends on A(m, k) and B(k, n) for every k (K >= 1), so such a
        value differs from it on some input.  (Untagged units are left out: a ``selp`` of constants on a
        predicate computed from loaded data is untagged.)  C's element width is unknown here (no accumulator
        says it): an element must be surely wrong read as 16-bit and as 32-bit elements; the one named is read
        at the width the stores to C give as a type (f32: 32-bit), else 32-bit."""
        assert self.c.offsets is not None
        picks: dict[int, tuple[int, np.ndarray, np.ndarray, np.ndarray]] = {}
        for ue in (2, 1):
            elem_units = (self.c.offsets * ue)[:, None] + np.arange(ue)[None, :]
            if elem_units.max() >= self.c_units:
                return None
            tags = self.c_tag[elem_units]
            units_written = self.c_op[elem_units] >= 0
            written: np.ndarray = np.asarray(units_written.any(axis=1))
            kinds = tg.kind(tags)
            plain = (tags == tg.ZERO) | ((kinds == tg.K_GLOBAL) & (tg.glob_derived(tags) == 0))
            sure = (np.where(units_written, plain, whole_grid)).all(axis=1)
            if not whole_grid:
                sure &= written
            if not sure.any():
                return None
            picks[ue] = (int(np.flatnonzero(sure)[0]), tags, written, elem_units)
        ue = 1 if self.c_store_types and self.c_store_types <= {"f16", "bf16"} else 2
        e, tags, written, elem_units = picks[ue]
        msg, fields = self._element_text(e, ue, tags, written, elem_units)
        e2 = picks[3 - ue][0]
        msg += (f"; C holds no accumulator the data flow followed, but this value depends on no more than one "
                f"element of A or B (read as {16 * ue}-bit elements; as {16 * (3 - ue)}-bit ones, C({e2 % self.M}, "
                f"{e2 // self.M}) is so too)")
        return Finding("refuted", "store", msg, fields)


def _bytes_of(units: np.ndarray, offs: np.ndarray, ew: int) -> tuple[np.ndarray, np.ndarray]:
    """(bytes of C, index of the stored unit each belongs to): a byte store (``ew`` 1) writes the byte at its
    offset, a wider store both bytes of each unit."""
    if ew == 1:
        return offs, np.arange(offs.size)
    entry = np.repeat(np.arange(units.size), 2)
    return 2 * units[entry] + np.tile(np.arange(2), units.size), entry


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
