"""Fragment check: run the real instruction on a user's shared-memory layout and compare with the model.

Shared memory is filled *through the user's layout*: the 16-bit element at
offset ``layout(i)`` holds ``i + 1`` for every index ``i`` of the layout's
domain (0 marks an offset the layout never reaches), so every value read back
names the logical coordinate it came from.  The instruction runs on the GPU;
the model (the atom's PTX semantics) predicts the same thing on the CPU; each
disagreement is reported by lane, register, half and coordinate.  An optional
``expected(lane, reg, half) -> index`` states what the kernel author wants
the registers to hold (e.g. an mma fragment), and is checked as well.

    from layoutalg.gpu.fragment_check import check_ldmatrix
    report = check_ldmatrix(smem, lane_rows, num=4)     # smem: Layout or ComposedLayout of 16-bit elements
    assert report.ok, report.text()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, cast

from layoutalg.atoms.copy import CopyAtom
from layoutalg.errors import CoordinateError, InstructionError, LayoutError
from layoutalg.gpu.record import Recorder, check_row_addresses
from layoutalg.gpu.suite import HALVES

Coord = Any


@dataclass(frozen=True)
class Mismatch:
    """One register element (or smem element) where two sources disagree."""

    lane: int
    reg: int
    half: int
    hardware: Coord
    model: Coord
    expected: Coord = None

    def __str__(self) -> str:
        s = f"lane {self.lane} reg {self.reg} half {self.half}: hardware {self.hardware}, model {self.model}"
        return s + (f", expected {self.expected}" if self.expected is not None else "")


@dataclass(frozen=True)
class FragmentReport:
    """Outcome of a fragment check: ``ok`` when hardware, model (and expectation) agree everywhere."""

    instruction: str
    checked: int
    model_mismatches: tuple[Mismatch, ...] = field(default=())
    expected_mismatches: tuple[Mismatch, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.model_mismatches and not self.expected_mismatches

    def text(self) -> str:
        lines = [f"{self.instruction}: {self.checked} elements checked, "
                 f"{len(self.model_mismatches)} hardware/model mismatches, "
                 f"{len(self.expected_mismatches)} hardware/expectation mismatches"]
        lines += [f"  model: {m}" for m in self.model_mismatches[:32]]
        lines += [f"  expected: {m}" for m in self.expected_mismatches[:32]]
        return "\n".join(lines)


def _index_image(layout: Any) -> tuple[Any, dict[int, int]]:
    """Image with ``image[layout(i)] = i + 1`` and the inverse map offset -> i."""
    import numpy as np

    n = layout.size()
    if n >= 0xFFFF:
        raise LayoutError(f"layout has {n} elements; the fragment check encodes indices in 16 bits (< 65535)")
    image = np.zeros(HALVES, dtype=np.uint16)
    inverse: dict[int, int] = {}
    for i in range(n):
        off = layout(i)
        if not 0 <= off < HALVES:
            raise LayoutError(f"layout({i}) = {off} lies outside the {HALVES} 16-bit elements of the test buffer")
        if off in inverse:
            raise LayoutError(f"layout is not injective: indices {inverse[off]} and {i} both map to offset {off}")
        inverse[off] = i
        image[off] = i + 1
    return image, inverse


def _lane_offsets(layout: Any, lane_coords: Sequence[Any]) -> list[int]:
    if len(lane_coords) != 32:
        raise CoordinateError(f"lane_coords needs one coordinate per lane (32), got {len(lane_coords)}")
    return [int(layout(c)) for c in lane_coords]


def _name(layout: Any, index: int | None) -> Coord:
    """Index -> the layout's natural coordinate (a tuple for multi-mode shapes)."""
    if index is None:
        return None
    from layoutalg.core import int_tuple as it

    try:
        return it.idx2crd(index, layout.shape)
    except Exception:
        return index


def check_ldmatrix(layout: Any, lane_coords: Sequence[Any], num: int = 4, trans: bool = False,
                   expected: Callable[[int, int, int], Any] | None = None,
                   recorder: Recorder | None = None) -> FragmentReport:
    """``ldmatrix.x{num}[.trans]`` with lane ``l`` pointing at ``layout(lane_coords[l])``.

    ``layout`` maps coordinates to 16-bit element offsets (a ``Layout`` or a
    swizzled ``ComposedLayout``).  ``expected(lane, reg, half)`` may return a
    coordinate or index of ``layout`` that the author wants there.
    """
    from layoutalg.atoms.catalog import ldmatrix

    atom = cast(CopyAtom, ldmatrix(num, trans))
    image, inverse = _index_image(layout)
    offsets = _lane_offsets(layout, lane_coords)
    addrs = [2 * o for o in offsets]
    check_row_addresses(addrs)
    rec = recorder or Recorder()
    regs = rec.ldmatrix(num, trans, [("user", addrs)], image=image)[0]["regs"]
    model_mm, exp_mm, checked = [], [], 0
    for lane in range(32):
        for reg in range(num):
            for half in (0, 1):
                checked += 1
                value = (regs[lane][reg] >> (16 * half)) & 0xFFFF
                hw = value - 1 if value else None
                mat, row, col = atom.fragment_coord(lane, reg, half)
                model = inverse.get(offsets[atom.row_address_lane(mat, row)] + col)
                if hw != model:
                    model_mm.append(Mismatch(lane, reg, half, _name(layout, hw), _name(layout, model)))
                if expected is not None:
                    want = expected(lane, reg, half)
                    want_i = want if isinstance(want, int) else _index_of(layout, want)
                    if hw != want_i:
                        exp_mm.append(Mismatch(lane, reg, half, _name(layout, hw), _name(layout, model),
                                               _name(layout, want_i)))
    return FragmentReport(atom.ptx, checked, tuple(model_mm), tuple(exp_mm))


def _index_of(layout: Any, coord: Any) -> int:
    from layoutalg.core import int_tuple as it

    return int(it.crd2idx(coord, layout.shape, it.prefix_product(layout.shape)))


def check_stmatrix(layout: Any, lane_coords: Sequence[Any], num: int = 4, trans: bool = False,
                   recorder: Recorder | None = None) -> FragmentReport:
    """``stmatrix.x{num}[.trans]``: where each (lane, reg, half) lands, hardware against model, as coordinates."""
    from layoutalg.atoms.catalog import stmatrix

    atom = cast(CopyAtom, stmatrix(num, trans))
    _, inverse = _index_image(layout)
    offsets = _lane_offsets(layout, lane_coords)
    addrs = [2 * o for o in offsets]
    check_row_addresses(addrs)
    rec = recorder or Recorder()
    writes = rec.stmatrix(num, trans, [("user", addrs)])[0]["smem_writes"]
    landed = {code: unit for unit, code in writes}
    model_mm, checked = [], 0
    for lane in range(32):
        for reg in range(num):
            for half in (0, 1):
                checked += 1
                code = lane * 8 + 2 * reg + half + 1
                hw_unit = landed.get(code)
                mat, row, col = atom.fragment_coord(lane, reg, half)
                model_unit = offsets[atom.row_address_lane(mat, row)] + col
                if hw_unit != model_unit:
                    hw = "nothing written" if hw_unit is None else _name(layout, inverse.get(hw_unit, hw_unit))
                    model_mm.append(Mismatch(lane, reg, half, hw,
                                             _name(layout, inverse.get(model_unit, model_unit))))
    return FragmentReport(atom.ptx, checked, tuple(model_mm))


def check_cp_async(layout: Any, lane_coords: Sequence[Any], nbytes: int = 16, cache: str = "cg",
                   recorder: Recorder | None = None) -> FragmentReport:
    """``cp.async.{cache}`` of ``nbytes`` per lane into ``layout(lane_coords[l])``; lane l reads global bytes
    ``[l*nbytes, (l+1)*nbytes)``.  Hardware against the atom's model (each thread moves its ``nbytes``
    contiguous bytes, CuTe ``(1, bits):(1, 1)``): reg/half name the 16-bit value within the lane's copy."""
    from layoutalg.atoms.catalog import cp_async

    atom = cp_async(nbytes, cache).bind(16)
    _, inverse = _index_image(layout)
    offsets = _lane_offsets(layout, lane_coords)
    src = [lane * nbytes for lane in range(32)]
    rec = recorder or Recorder()
    writes = rec.cp_async(nbytes, cache, [("user", src, [2 * o for o in offsets])])[0]["smem_writes"]
    landed = {value: unit for unit, value in writes}  # global unit -> smem unit
    mismatches, checked = [], 0
    for lane in range(32):
        for v in range(atom.num_val_src):
            checked += 1
            g = src[lane] // 2 + atom.val_layout_src(0, v)
            model_unit = offsets[lane] + atom.val_layout_dst(0, v)
            hw_unit = landed.get(g)
            if hw_unit != model_unit:
                hw = "nothing written" if hw_unit is None else _name(layout, inverse.get(hw_unit, hw_unit))
                mismatches.append(Mismatch(lane, v // 2, v % 2, hw, _name(layout, inverse.get(model_unit, model_unit))))
    return FragmentReport(atom.atom.ptx, checked, tuple(mismatches))


def check_mma(atom: Any, recorder: Recorder | None = None) -> FragmentReport:
    """One-hot runs of ``atom``'s mma.sync on the GPU against its PTX formulas and CuTe TV layouts.

    Runs every ``mma.sync`` atom whose element types the one-hot encoding holds (f16, bf16, tf32,
    f64, fp8, s8/u8, s4/u4; ``.satfinite`` included); refuses the b1 ``popc`` atoms (one-bit operands
    carry no digit), the complex and Gauss-complex atoms (several real MMAs), dp4a/dp2a and UniversalFMA.
    """
    from layoutalg.gpu.replay import check_mma as replay_check
    from layoutalg.gpu.suite import TYPE_BITS, MmaVariant

    parts = str(atom.ptx).split(".")
    if parts[:3] != ["mma", "sync", "aligned"] or " " in atom.ptx or any(
            t not in TYPE_BITS for t in (atom.a_type, atom.b_type, atom.c_type, atom.d_type)):
        raise InstructionError(f"{atom.name} ({atom.ptx}) is not a single mma.sync the one-hot suite can run")
    v = MmaVariant(parts[3], atom.a_type, atom.b_type, atom.c_type, atom.d_type, parts[4], parts[5],
                   satfinite=".satfinite." in atom.ptx)
    rec = recorder or Recorder()
    case = rec.mma(v)
    mismatches = []
    for model, errs in replay_check(case, atom):
        mismatches += [Mismatch(-1, -1, -1, e, model) for e in errs]
    from layoutalg.gpu.record import unpack_triples

    return FragmentReport(atom.ptx, len(unpack_triples(case["triples"])), tuple(mismatches))


def check_wgmma(atom: Any, b_swizzle: str = "INTERLEAVE") -> FragmentReport:
    """One-hot runs of a wgmma atom (any element type, ``SS`` or ``RS``) on an sm_90 GPU against its
    PTX fragment formulas, CuTe TV layouts and the shared-memory descriptor model; A (``SS``) and B
    K-major, B in the swizzle mode ``b_swizzle`` (INTERLEAVE, B32, B64, B128)."""
    from layoutalg.gpu.replay import check_wgmma as replay_check
    from layoutalg.gpu.runner import compile_kernels
    from layoutalg.gpu.wgmma import WgmmaVariant, canonical_operand, kernel_source, record_wgmma

    n = atom.shape_mnk[1]
    a_op = canonical_operand(64, "K", "INTERLEAVE") if atom.a_source == "smem" else None
    v = WgmmaVariant(n, atom.a_type, atom.d_type, atom.a_source, a_op, canonical_operand(n, "K", b_swizzle),
                     atom.b_type, atom.saturate)
    name, src = kernel_source(v)
    case = record_wgmma(v, compile_kernels([(name, src)])[name])
    mismatches = [Mismatch(-1, -1, -1, e, model) for model, errs in replay_check(case, atom) for e in errs]
    return FragmentReport(atom.ptx, case["triples"], tuple(mismatches))


__all__ = ["Mismatch", "FragmentReport", "check_ldmatrix", "check_stmatrix", "check_cp_async", "check_mma",
           "check_wgmma"]
