"""``suggest_swizzle``: the cheapest swizzle (or, failing that, the smallest padding) removing bank conflicts.

The tile is ``rows x cols`` elements, stored row-major (``(rows, cols):(pitch, 1)``); each access is an
instruction string (the whole tile swept, :func:`~layoutalg.banks.access.tile_access`; ``(instruction, "column")``
sweeps ld/st by column) or an :class:`~layoutalg.banks.access.Access`.

Search, cheapest first, costing every access with the measured model:

1. no swizzle, no padding;
2. ``Swizzle<B,M,S>`` over the element offsets, ordered by ``B`` (XOR gates), then ``S``, then ``M``, with ``M``
   at least the vector width of the widest access (a swizzle must not split one lane's vector) and the
   swizzled offsets a permutation of ``[0, rows*cols)`` (checked: this is what makes non-power-of-two tiles
   safe);
3. padding: pitch ``cols + p`` for the smallest ``p`` (in whole vectors of the widest access) -- the answer for
   tiles no swizzle fixes.

The first candidate whose every access costs its ideal wins; if none does, the one with the fewest wavefronts.
The winner comes with :func:`~layoutalg.banks.proof.conflict_free` run on every access (enumeration of every
instance: a sound proof or a counterexample).

A ``cp.async`` fill also needs its global side (its cost depends on the sources): ``global_layout`` (tile
coordinate -> global element offset from a 128-byte-aligned base, like :func:`~layoutalg.banks.analyze.analyze`'s)
or ``global_ld`` (a row-major global matrix with that many elements per row: ``(rows, cols):(global_ld, 1)``).
Tile elements that share a global element (a leading dimension smaller than the row) are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutalg.banks.access import Access, element_bytes, tile_access
from layoutalg.banks.analyze import analyze
from layoutalg.banks.instruction import parse_instruction
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe, direction
from layoutalg.errors import InstructionError, LayoutError
from layoutalg.prove.result import ProofResult, combine


@dataclass(frozen=True)
class Suggestion:
    """The chosen layout (``layout``), its swizzle (or None) and padding, its cost, and the attached proof."""

    layout: Any
    swizzle: Any
    padding: int
    wavefronts: int
    ideal: int
    baseline_wavefronts: int
    per_access: tuple[tuple[str, int, int], ...]
    proof: ProofResult
    candidates_tried: int

    @property
    def conflict_free(self) -> bool:
        return self.wavefronts == self.ideal

    def __str__(self) -> str:
        what = (f"Swizzle<{self.swizzle.bits},{self.swizzle.base},{self.swizzle.shift}>" if self.swizzle is not None
                else (f"padding of {self.padding} elements per row" if self.padding else "the plain row-major layout"))
        lines = [f"suggestion: {what}: {self.layout}",
                 f"  {self.wavefronts} wavefronts (ideal {self.ideal}; row-major without it: {self.baseline_wavefronts})"
                 + ("  conflict-free" if self.conflict_free else "  (no candidate is conflict-free; fewest wavefronts)"),
                 f"  {self.candidates_tried} candidates tried"]
        lines += [f"  {ins}: {wf} wavefronts (ideal {idl})" for ins, wf, idl in self.per_access]
        lines.append("  proof: " + self.proof.render().replace("\n", "\n  "))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        sw = self.swizzle
        return {"layout": str(self.layout),
                "swizzle": None if sw is None else {"bits": sw.bits, "base": sw.base, "shift": sw.shift},
                "padding": self.padding, "wavefronts": self.wavefronts, "ideal": self.ideal,
                "baseline_wavefronts": self.baseline_wavefronts, "conflict_free": self.conflict_free,
                "per_access": [{"instruction": i, "wavefronts": w, "ideal": d} for i, w, d in self.per_access],
                "proof": self.proof.to_dict(), "candidates_tried": self.candidates_tried}


def _accesses(shape: tuple[int, int], dtype: Any, accesses: Any, arch: Any = None) -> list[Access]:
    if isinstance(accesses, (str, Access)) or (isinstance(accesses, tuple) and len(accesses) == 2
                                              and direction(accesses[1]) is not None):
        accesses = [accesses]
    if not isinstance(accesses, (list, tuple)):
        raise InstructionError(f"accesses must be an instruction name, an Access, or a list of them, got "
                               f"{describe(accesses)}")
    out = []
    for a in accesses:
        if isinstance(a, Access):
            out.append(a)
        elif isinstance(a, str):
            out.append(tile_access(a, shape, dtype, arch=arch))
        elif isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], str):
            out.append(tile_access(a[0], shape, dtype, by=a[1], arch=arch))
        else:
            raise LayoutError(f"each access must be an instruction string, (instruction, 'row'|'column') or an "
                              f"Access, got {describe(a)}")
    if not out:
        raise LayoutError("suggest_swizzle needs at least one access")
    return out


def _global_side(shape: tuple[int, int], accesses: list[Access], global_layout: Any, global_ld: Any,
                 element_bytes: int = 1) -> Any:
    """The validated global layout of the cp.async accesses (None when there are none).

    ``global_ld`` must be at least the tile's row, and (with more than one row) ``global_ld * element_bytes`` a
    multiple of the widest copy, or row 1 would start at a source address cp.async cannot take.
    """
    import numpy as np

    rows, cols = shape
    copies = [a for a in accesses if parse_instruction(a.instruction).kind == "cp.async"]
    if global_ld is not None:
        if global_layout is not None:
            raise LayoutError("give global_layout or global_ld, not both")
        if isinstance(global_ld, bool) or not isinstance(global_ld, int) or global_ld <= 0:
            raise LayoutError(f"global_ld must be a positive int (elements per global row), got {describe(global_ld)}")
        if global_ld < cols:
            raise LayoutError(f"global_ld = {global_ld} is smaller than the tile's row of {cols} elements: global rows "
                              f"would overlap; the leading dimension must be at least {cols}")
        width = max((parse_instruction(a.instruction).access_bytes for a in copies), default=1)
        if rows > 1 and global_ld * element_bytes % width:
            raise LayoutError(f"global_ld = {global_ld}: global rows of {global_ld * element_bytes} bytes start "
                              f"misaligned for a {width}-byte cp.async; the leading dimension must be a multiple of "
                              f"{max(1, width // element_bytes)} elements")
        global_layout = Layout((rows, cols), (global_ld, 1))
    if not copies:
        if global_layout is not None:
            raise LayoutError("global_layout / global_ld is for cp.async accesses only")
        return None
    if global_layout is None:
        raise LayoutError(f"{copies[0].instruction}: its cost depends on where each lane's data comes from; pass "
                          "global_ld= (row-major global rows of that many elements) or global_layout=")
    if not hasattr(global_layout, "to_numpy"):
        raise LayoutError(f"global_layout must be a Layout or ComposedLayout, got {type(global_layout).__name__}")
    offsets = np.asarray(global_layout.to_numpy())
    if offsets.size != rows * cols:
        raise LayoutError(f"global_layout {global_layout} has {offsets.size} elements; the tile has {rows * cols}")
    if len(np.unique(offsets)) != offsets.size:
        raise LayoutError(f"global_layout {global_layout} sends two tile elements to one global element (overlapping "
                          "rows: a leading dimension smaller than the tile's row?)")
    return global_layout


def _cost(layout: Any, accesses: list[Access], dtype: Any, global_layout: Any = None,
          arch: Any = None, bound: int | None = None) -> tuple[int, int, list[tuple[str, int, int]]]:
    """Total wavefronts, total ideal and per-access ``(instruction, wavefronts, ideal)`` of ``layout``.

    With ``bound`` (the best total so far, above its ideal), costing stops once the running total reaches it: such
    a candidate can be neither cheaper nor conflict-free, because every candidate has the same ideal (each phase of
    an ld/st/ldmatrix/stmatrix has ideal 1, a cp.async's ideal counts its distinct destinations, and candidates are
    one-to-one), so only the search's speed changes.
    """
    per = []
    for acc in accesses:
        copy = parse_instruction(acc.instruction).kind == "cp.async"
        res = analyze(layout, acc, dtype=dtype, global_layout=global_layout if copy else None, arch=arch)
        per.append((res.instruction, res.total, res.total_ideal))
        if bound is not None and sum(p[1] for p in per) >= bound:
            break
    return sum(p[1] for p in per), sum(p[2] for p in per), per


def _swizzle_candidates(min_base: int, top_bits: int, max_bits: int) -> list[tuple[int, int, int]]:
    cands = []
    for b in range(1, max_bits + 1):
        for s in range(b, top_bits + 1):
            for m in range(min_base, top_bits + 1):
                if m + s + b <= top_bits:
                    cands.append((b, m, s))
    cands.sort(key=lambda t: (t[0], t[2], t[1]))
    return cands


def suggest_swizzle(smem_shape: Any, dtype: Any, accesses: Any, *, pitch: int | None = None,
                    max_swizzle_bits: int = 5, max_padding_bytes: int = 128, global_layout: Any = None,
                    global_ld: int | None = None, arch: Any = None) -> Suggestion:
    """The cheapest ``Swizzle<B,M,S>`` (or smallest padding) making every access conflict-free (see module doc).

    ``pitch`` (elements, default ``cols``) starts from an already padded row-major layout; swizzles are then
    tried over it (kept only when they permute its offsets) and extra padding is added to it.
    ``max_swizzle_bits`` bounds ``B`` (0: padding only).  ``global_layout`` / ``global_ld``: the global side of
    the ``cp.async`` accesses (module doc).  ``arch`` (``"sm_80"`` ... ``"sm_120"``, default
    sm_90) sets the shared-memory capacity (a tile, padded or not, must fit; checked before anything is built)
    and which instructions exist.
    """
    import numpy as np

    from layoutalg.atoms.layout_text import extents_of
    from layoutalg.banks.limits import arch_of, capacity_text, check_sweep_size
    from layoutalg.banks.proof import conflict_free
    from layoutalg.swizzle.composed import ComposedLayout
    from layoutalg.swizzle.swizzle import Swizzle

    smem_shape = extents_of(smem_shape, "smem_shape")  # (rows, cols), or "64x64" as --shape takes it
    rows, cols = int(smem_shape[0]), int(smem_shape[1])
    pitch = cols if pitch is None else pitch
    if isinstance(pitch, bool) or not isinstance(pitch, int) or pitch < cols:
        raise LayoutError(f"pitch must be an int >= cols ({cols}), got {describe(pitch)}")
    if isinstance(max_swizzle_bits, bool) or not isinstance(max_swizzle_bits, int) or not 0 <= max_swizzle_bits <= 8:
        raise LayoutError(f"max_swizzle_bits must be an int in [0, 8], got {describe(max_swizzle_bits)}")
    if isinstance(max_padding_bytes, bool) or not isinstance(max_padding_bytes, int) or max_padding_bytes < 0:
        raise LayoutError(f"max_padding_bytes must be an int >= 0 (0: no padding), got {describe(max_padding_bytes)}")
    e = element_bytes(dtype)
    target = arch_of(arch)
    check_sweep_size(rows * cols, e, target, f"a {rows}x{cols} tile")
    span = ((rows - 1) * pitch + cols) * e
    if span > target.smem_per_block_bytes:
        raise LayoutError(f"a {rows}x{cols} tile with a pitch of {pitch} elements spans {span} bytes, more than the "
                          f"{capacity_text(target)}")
    accs = _accesses((rows, cols), dtype, accesses, target)
    global_layout = _global_side((rows, cols), accs, global_layout, global_ld, e)
    widest = max(parse_instruction(a.instruction).access_bytes for a in accs)
    if rows > 1 and pitch * e % widest:
        raise LayoutError(f"pitch = {pitch}: rows of {pitch * e} bytes start misaligned for the {widest}-byte access; "
                          f"the pitch must be a multiple of {max(1, widest // e)} elements")
    vec = max(1, widest // e)
    min_base = max(0, vec.bit_length() - 1)
    plain = Layout((rows, cols), (pitch, 1))
    base_wf, base_ideal, base_per = _cost(plain, accs, dtype, global_layout, target)
    tried = 1
    best: tuple[int, Any, Any, int, int, list[tuple[str, int, int]]] = (base_wf, plain, None, 0, base_ideal, base_per)
    if base_wf != base_ideal:
        size = rows * pitch
        top_bits = max(1, (size - 1).bit_length())
        offsets = plain.to_numpy()
        allowed = np.zeros(size, dtype=bool)
        allowed[offsets] = True
        for b, m, s in _swizzle_candidates(min_base, top_bits, max_swizzle_bits):
            sw = Swizzle(b, m, s)
            image = sw(offsets)
            if int(image.max()) >= size or not allowed[image].all() or len(np.unique(image)) != len(offsets):
                continue  # not a permutation of the tile's offsets
            swizzled = ComposedLayout(sw, 0, plain)
            wf, ideal, per = _cost(swizzled, accs, dtype, global_layout, target, bound=best[0])
            tried += 1
            if wf < best[0]:
                best = (wf, swizzled, sw, 0, ideal, per)
            if wf == ideal:
                break
        if best[0] != best[4]:
            step = vec
            for pad in range(step, max_padding_bytes // e + 1, step):  # at most max_padding_bytes, 0: none
                if (rows - 1) * (pitch + pad) + cols > target.smem_per_block_bytes // e:
                    break  # this padding (and every larger one) no longer fits in shared memory
                cand = Layout((rows, cols), (pitch + pad, 1))
                wf, ideal, per = _cost(cand, accs, dtype, global_layout, target, bound=best[0])
                tried += 1
                if wf < best[0]:
                    best = (wf, cand, None, pad, ideal, per)
                if wf == ideal:
                    break
    wf, layout, chosen, pad, ideal, per = best
    proof = combine([conflict_free(layout, acc, dtype, global_layout=global_layout
                                   if parse_instruction(acc.instruction).kind == "cp.async" else None) for acc in accs])
    return Suggestion(layout, chosen, pad, wf, ideal, base_wf, tuple(per), proof, tried)
