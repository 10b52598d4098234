"""Scalar k-products: an ``fma``/``mad`` whose factors are an A and a B element (either order) is the
1 x 1 x 1 mma: the C input must be zero or the unmodified accumulator of the same (m, n)."""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.arith import classify
from layoutalg.kernel.dataflow.products import ProductCounts

_M40 = np.int64((1 << 40) - 1)


class FmaProducts(ProductCounts):
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
            ue: int, planes: list[Any]) -> tuple[np.ndarray, np.ndarray] | None:
        """Element ``e`` of an fma/mad: lanes whose factors are an A and a B element are k-products;
        returns (result units, which lanes were products) or None when no lane is one."""
        gc = groups[2]
        da, db = self._decoded(planes[0], e, ue), self._decoded(planes[1], e, ue)
        if da is None or db is None:
            return None
        a_in_a, ra, ca, a_in_b, rb2, cb2 = da
        b_in_a, ra2, ca2, b_in_b, rb, cb = db
        straight = lanes & a_in_a & b_in_b
        swapped = lanes & b_in_a & a_in_b & ~straight
        prod = straight | swapped
        if not prod.any():
            return None
        if not (self._element_size("A", 2 * ue, op) and self._element_size("B", 2 * ue, op)) or self._wide(op, ue):
            return np.full((m.n, ue), tg.opaque(op.index, tg.W_UNMODELLED if ue > 2 else tg.W_MMA)), prod
        mm, k1 = np.where(straight, ra, ra2), np.where(straight, ca, ca2)
        k2, nn = np.where(straight, rb, rb2), np.where(straight, cb, cb2)
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
            self._fma_finding(m, op, int(np.flatnonzero(bad)[0]), mm, nn, k1, k2, gc, ue)
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

    def _fma_finding(self, m: Any, op: Any, th: int, mm: Any, nn: Any, k1: Any, k2: Any, gc: Any, ue: int) -> None:
        """Lane ``th`` is a k-product (both factors inside A's and B's layouts) whose k differ or whose C
        input is not allowed."""
        if k1[th] != k2[th]:
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

    def _wide(self, op: Any, ue: int) -> bool:
        """An f64 product (4 units an element) is unknown: accumulator tags hold 16- and 32-bit values only
        (:func:`~layoutalg.kernel.dataflow.arith.classify` never reads 4 units as one accumulator)."""
        if ue > 2:
            self._find("unknown", "unsupported", op.index, f"PTX line {op.ins.line}: {op.ins.opcode} multiplies A "
                       "and B elements of 8 bytes; 64-bit accumulators are not modelled", line=op.ins.line)
        return ue > 2
