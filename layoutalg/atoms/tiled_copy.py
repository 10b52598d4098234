"""CuTe ``TiledCopy``: a copy atom tiled over threads and values, and its partitioning.

See :mod:`layoutalg.atoms.tiled` for the pointwise definition and the static checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from layoutalg.atoms.copy import CopyAtom, TypedCopyAtom
from layoutalg.atoms.mma import MmaAtom
from layoutalg.atoms.partition import Partition, _as_layout, _int_coords, _make_partition, _synth, _tensor_values
from layoutalg.atoms.tiled_mma import _OPERAND_MODES, TiledMMA
from layoutalg.core import int_tuple as it
from layoutalg.core.display import attach_display
from layoutalg.core.dtypes import dtype_bits
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe, plain_int
from layoutalg.errors import LayoutError


@dataclass(frozen=True)
class TiledCopy:
    """CuTe ``TiledCopy<Copy_Atom, LayoutCopy_TV, ShapeTiler_MN>``."""

    atom: TypedCopyAtom
    layout_tv: Layout
    tiler: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.atom, TypedCopyAtom):
            raise LayoutError(f"TiledCopy atom must be a TypedCopyAtom (atom.bind(bits)), got {describe(self.atom)}")
        if not isinstance(self.layout_tv, Layout) or self.layout_tv.rank() < 2:
            raise LayoutError(f"TiledCopy layout_tv must be a (thread, value) Layout, got {describe(self.layout_tv)}")
        atom_thr = self.atom.val_layout_ref[0].size()
        atom_val = self.atom.val_layout_ref[1].size()
        nthr, nval = self.layout_tv[0].size(), self.layout_tv[1].size()
        if nthr % atom_thr:
            raise LayoutError(f"TiledCopy uses too few thrs for selected CopyAtom: the tiled layout has {nthr} threads, "
                              f"not a multiple of {self.atom.name}'s {atom_thr}; use more threads or a smaller atom")
        if nval % atom_val:
            raise LayoutError(
                f"TiledCopy uses too few vals for selected CopyAtom: each thread holds {nval} values of the tile but "
                f"{self.atom.name} with {self.atom.bits}-bit values moves {atom_val} per thread. Use a smaller atom "
                f"({'e.g. the .x' + str(max(1, self.atom.atom.num_matrices // 2)) + ' form' if self.atom.atom.is_matrix else 'a narrower vector'}), enlarge the tile "
                f"(more values per thread: permutations in make_tiled_mma, or a larger val_layout), or check the "
                f"element width ({self.atom.bits} bits here)")

    @property
    def num_threads(self) -> int:
        return self.layout_tv[0].size()

    def size(self) -> int:
        return self.num_threads

    @cached_property
    def _ref_inverse(self) -> dict[int, int]:
        ref = self.atom.val_layout_ref
        table: dict[int, int] = {}
        for i, off in enumerate(ref.values()):
            table.setdefault(off, i)
        if len(table) != ref.size():
            raise LayoutError(f"{self.atom.name}: reference layout {ref} is not injective")
        return table

    def _ref_index(self, side: str, t: int, v: int) -> int:
        lay = self.atom.val_layout_src if side == "S" else self.atom.val_layout_dst
        off = lay(t, v)
        if off not in self._ref_inverse:
            raise LayoutError(f"{self.atom.name}: {side} value ({t}, {v}) at {off} is outside the reference layout")
        return self._ref_inverse[off]

    def _tile_index(self, side: str, thr: int, val: int) -> int:
        """tile2thrfrg: (thread, value) of the src/dst side -> index into the tile."""
        atom_thr = self.atom.val_layout_ref[0].size()
        atom_val = self.atom.val_layout_ref[1].size()
        side_val = (self.atom.val_layout_src if side == "S" else self.atom.val_layout_dst)[1].size()
        j = self._ref_index(side, thr % atom_thr, val % side_val)
        tid = j % atom_thr + atom_thr * (thr // atom_thr)
        vid = j // atom_thr + atom_val * (val // side_val)
        return int(self.layout_tv(tid, vid))

    def num_vals(self, side: str) -> int:
        side_val = (self.atom.val_layout_src if side == "S" else self.atom.val_layout_dst)[1].size()
        atom_val = self.atom.val_layout_ref[1].size()
        return side_val * (self.layout_tv[1].size() // atom_val)

    def get_layoutS_TV(self) -> Layout:
        return self._side_tv("S")

    def get_layoutD_TV(self) -> Layout:
        return self._side_tv("D")

    def _side_tv(self, side: str) -> Layout:
        return _synth(lambda t, v: self._tile_index(side, t, v), self.num_threads, self.num_vals(side),
                      f"TiledCopy {side} TV layout")

    def get_slice(self, thr_idx: int) -> "ThrCopy":
        return ThrCopy(self, thr_idx)

    get_thread_slice = get_slice

    def partition(self, side: str, tensor: Any, thr_idx: int, bits: int | None = None) -> Partition:
        thr_idx = plain_int(thr_idx, "thread index")
        if isinstance(thr_idx, bool) or not isinstance(thr_idx, int) or not 0 <= thr_idx < self.num_threads:
            raise LayoutError(f"thread index {describe(thr_idx)} out of range for a TiledCopy of {self.num_threads} threads")
        if bits is not None and bits != self.atom.bits:
            raise LayoutError(f"partition_{side}: the tensor holds {bits}-bit values but the copy atom {self.atom.name} "
                              f"was built for {self.atom.bits}-bit values; build it with bits={bits}")
        values, modes = _tensor_values(tensor, f"partition_{side} tensor")
        if len(modes) < len(self.tiler):
            raise LayoutError(f"partition_{side}: the tensor has rank {len(modes)}, less than the tiler's {len(self.tiler)}")
        if len(modes) > len(self.tiler):
            tiler = tuple(self.tiler) + (1,) * (len(modes) - len(self.tiler))
        else:
            tiler = tuple(self.tiler)
        rests = []
        for i, (ext, t) in enumerate(zip(modes, tiler)):
            if ext % t:
                raise LayoutError(f"partition_{side}: tensor mode {i} has extent {ext}, not a multiple of the "
                                  f"copy tile's {t}; the tile is {self.tiler}")
            rests.append(ext // t)
        nval = self.num_vals(side)
        tile_idx = [self._tile_index(side, thr_idx, v) for v in range(nval)]
        coords: list[tuple[int, ...]] = []
        for rest_flat in range(it.product(tuple(rests))):
            rest = it.idx2crd(rest_flat, tuple(rests))
            for v in range(nval):
                tcrd = it.idx2crd(tile_idx[v], tiler)
                coords.append(tuple(int(tc) + int(t) * int(r) for tc, t, r in zip(tcrd, tiler, rest)))  # type: ignore[arg-type]
        part = _make_partition(thr_idx, (nval, *rests), coords, values, modes)
        if self._memory_side(side):
            self._check_vectorised(side, part)
        return part

    def _memory_side(self, side: str) -> bool:
        kind = self.atom.atom.kind
        return {"ldmatrix": side == "S", "stmatrix": side == "D", "ld.shared": side == "S",
                "st.shared": side == "D", "cp.async": True}.get(kind, False)

    def _check_vectorised(self, side: str, part: Partition) -> None:
        """Each atom call must read NumVal contiguous, aligned elements per thread (CuTe's copy_unpack check)."""
        side_val = (self.atom.val_layout_src if side == "S" else self.atom.val_layout_dst)[1].size()
        if side_val <= 1:
            return
        for start in range(0, part.size(), side_val):
            chunk = part.offsets[start:start + side_val]
            contiguous = all(b - a == 1 for a, b in zip(chunk, chunk[1:]))
            if not contiguous or chunk[0] % side_val:
                raise LayoutError(
                    f"In CopyAtom, {'src' if side == 'S' else 'dst'} layout doesn't vectorize: {self.atom.name} moves "
                    f"{side_val} x {self.atom.bits}-bit values per thread as one {side_val * self.atom.bits}-bit access, "
                    f"but thread {part.thread}'s values {start}..{start + side_val - 1} sit at offsets {list(chunk)} "
                    f"({'not contiguous' if not contiguous else f'not aligned to {side_val} elements'}). Use a "
                    f"narrower atom or make the layout contiguous along the copied mode")

    def retile(self, layout: Any) -> Layout:
        """CuTe ``retile_S``/``retile_D``: a thread's register fragment ``(V, Rest...)`` in copy order.

        CuTe's definition (copy_atom.hpp ``TiledCopy::retile``), with ``NT`` threads and the
        fragment's first mode of ``V`` values::

            frg_layout_mn = upcast<NT*V>(right_inverse(layout_tv) with shape tiler)  # (m,n) -> V-block
            frg_layout_v  = zipped_divide(logical_product(V:1, right_inverse(frg_layout_mn)), AtomNumVal:1)
            t_tensor      = zipped_divide(fragment, (V, product_each(shape(frg_layout_mn))...))
            result        = (t_tensor o (frg_layout_v, _))(_, (0, _, ...))  # ((atom_vals, rest_vals), Rest'...)

        The result is checked to be a permutation of the fragment's offsets.
        """
        from layoutalg.core.algebra import composition, right_inverse
        from layoutalg.core.divide_product import logical_product, zipped_divide
        from layoutalg.core.layout import slice_layout
        from layoutalg.core.recast import upcast

        lay = _as_layout(layout, "retile tensor")
        modes = list(lay) if it.is_tuple(lay.shape) else [lay]
        rank = len(modes)
        v = modes[0].size()
        nthr = self.num_threads
        atom_val = self.atom.val_layout_ref[1].size()
        try:
            tv_inverse = composition(right_inverse(self.layout_tv), Layout(self.tiler))
            frg_layout_mn = upcast(tv_inverse, nthr * v)
            frg_layout_v = zipped_divide(logical_product(Layout(v), right_inverse(frg_layout_mn)), Layout(atom_val))
            tile = (v, *(m.size() for m in frg_layout_mn)) if it.is_tuple(frg_layout_mn.shape) else (v, frg_layout_mn.size())
            tile = tile[:rank]
            t_tensor = zipped_divide(lay, tile)
            v_tensor = composition(t_tensor, (frg_layout_v, None))
            result = slice_layout(v_tensor, (None, (0, *([None] * (rank - 1)))))
        except LayoutError as err:
            raise LayoutError(f"retile: a fragment of {v} values per thread does not fit this tiled copy "
                              f"({nthr} threads x {self.layout_tv[1].size()} values, atom of {atom_val}): {err}") from None
        if sorted(result.values()) != sorted(lay.values()):
            raise LayoutError(f"retile: the result {result} does not reorder the fragment {lay}")
        return result

    def __str__(self) -> str:
        return f"TiledCopy\n  Tiler_MN: {self.tiler}\n  TiledLayout_TV: {self.layout_tv}\n  {self.atom}"


@dataclass(frozen=True)
class ThrCopy:
    """CuTe ``ThrCopy``: one thread's view of a TiledCopy."""

    tiled_copy: TiledCopy
    thr_idx: int

    def __post_init__(self) -> None:
        if not isinstance(self.tiled_copy, TiledCopy):
            raise LayoutError(f"ThrCopy needs a TiledCopy, got {describe(self.tiled_copy)}")
        n = self.tiled_copy.num_threads
        object.__setattr__(self, "thr_idx", plain_int(self.thr_idx, "thread index"))
        if isinstance(self.thr_idx, bool) or not isinstance(self.thr_idx, int) or not 0 <= self.thr_idx < n:
            raise LayoutError(f"thread index {describe(self.thr_idx)} out of range for a TiledCopy of {n} threads")

    def partition_S(self, tensor: Any, bits: int | None = None) -> Partition:
        """(CPY, CPY_M, CPY_N) of a source tensor; ``bits`` (optional) is its element width, checked."""
        return self.tiled_copy.partition("S", tensor, self.thr_idx, bits)

    def partition_D(self, tensor: Any, bits: int | None = None) -> Partition:
        return self.tiled_copy.partition("D", tensor, self.thr_idx, bits)

    def retile_S(self, layout: Any) -> Layout:
        return self.tiled_copy.retile(layout)

    def retile_D(self, layout: Any) -> Layout:
        return self.tiled_copy.retile(layout)


def _typed(atom: Any, bits: int | None, what: str) -> TypedCopyAtom:
    if isinstance(atom, TypedCopyAtom):
        if bits is not None and bits != atom.bits:
            raise LayoutError(f"{what}: the copy atom is bound to {atom.bits}-bit values but {bits}-bit data was given; "
                              f"bind it with .bind({bits})")
        return atom
    if isinstance(atom, CopyAtom):
        if bits is None:
            raise LayoutError(f"{what}: {atom.name} is in bits; give the element width (atom.bind(16) or bits=16)")
        return atom.bind(bits)
    raise LayoutError(f"{what} needs a copy atom, got {describe(atom)}")


def make_tiled_copy(atom: Any, thr_layout: Any, val_layout: Any = 1, bits: int | None = None) -> TiledCopy:
    """CuTe ``make_tiled_copy(copy_atom, thr_layout, val_layout)``.

    ``layout_mn = raked_product(thr_layout, val_layout)``: along each mode the values
    of one thread are innermost; ``layout_tv = right_inverse(layout_mn)`` with shape
    ``(size(thr), size(val))``; ``tiler = product_each(shape(layout_mn))``.
    Both layouts must be bijections onto ``[0, size)`` (compact).
    """
    typed = _typed(atom, bits, "make_tiled_copy")
    thr = _as_layout(thr_layout, "thr_layout")
    val = _as_layout(val_layout, "val_layout")
    thr_modes = list(thr) if it.is_tuple(thr.shape) else [thr]
    val_modes = list(val) if it.is_tuple(val.shape) else [val]
    r = max(len(thr_modes), len(val_modes))
    thr_modes += [Layout(1, 0)] * (r - len(thr_modes))
    val_modes += [Layout(1, 0)] * (r - len(val_modes))
    for name, lay in (("thr_layout", thr), ("val_layout", val)):
        if sorted(lay.values()) != list(range(lay.size())):
            raise LayoutError(f"{name} {lay} must map its coordinates one-to-one onto [0, {lay.size()}) "
                              f"(a compact layout such as Layout(shape) or Layout.right(shape))")
    nthr, nval = thr.size(), val.size()
    tiler = tuple(t.size() * v.size() for t, v in zip(thr_modes, val_modes))
    # layout_mn(m, n) = thr(tm, tn) + nthr * val(vm, vn),  m = vm + VM*tm per mode
    inverse: dict[int, int] = {}
    tile_strides = it.flatten(it.prefix_product(tiler))
    for flat in range(it.product(tiler)):
        crd = _int_coords(it.idx2crd(flat, tiler))
        tcrd, vcrd = [], []
        for c, vm in zip(crd, val_modes):
            vcrd.append(c % vm.size())
            tcrd.append(c // vm.size())
        off = sum(m(tc) for m, tc in zip(thr_modes, tcrd)) + nthr * sum(m(vc) for m, vc in zip(val_modes, vcrd))
        inverse[off] = sum(c * s for c, s in zip(crd, tile_strides))
    layout_tv = _synth(lambda t, v: inverse[t + nthr * v], nthr, nval, "make_tiled_copy TV layout")
    return TiledCopy(typed, layout_tv, tiler)


def _from_mma(atom: Any, tiled_mma: TiledMMA, operand: str, bits: int | None) -> TiledCopy:
    if not isinstance(tiled_mma, TiledMMA):
        raise LayoutError(f"make_tiled_copy_{operand} needs a TiledMMA, got {describe(tiled_mma)}")
    op_bits = tiled_mma.atom.operand_bits(operand) if isinstance(tiled_mma.atom, MmaAtom) else \
        dtype_bits(getattr(tiled_mma.atom, f"{operand.lower()}_type"))
    typed = _typed(atom, bits if bits is not None else (None if isinstance(atom, TypedCopyAtom) else op_bits),
                   f"make_tiled_copy_{operand}")
    tv = {"A": tiled_mma.get_layoutA_TV, "B": tiled_mma.get_layoutB_TV, "C": tiled_mma.get_layoutC_TV}[operand]()
    i0, i1 = _OPERAND_MODES[operand]
    try:
        return TiledCopy(typed, tv, (tiled_mma.tile_size_mnk(i0), tiled_mma.tile_size_mnk(i1)))
    except LayoutError as err:
        if typed.bits != op_bits:
            raise LayoutError(f"{err}. Note: the copy atom moves {typed.bits}-bit values while the MMA's {operand} "
                              f"operand is {op_bits}-bit ({tiled_mma.atom.name})") from None
        raise


def make_tiled_copy_A(atom: Any, tiled_mma: TiledMMA, bits: int | None = None) -> TiledCopy:
    """CuTe ``make_tiled_copy_A``: the copy whose TV layout is the MMA's A TV layout over (TileM, TileK)."""
    return _from_mma(atom, tiled_mma, "A", bits)


def make_tiled_copy_B(atom: Any, tiled_mma: TiledMMA, bits: int | None = None) -> TiledCopy:
    """CuTe ``make_tiled_copy_B``: over (TileN, TileK)."""
    return _from_mma(atom, tiled_mma, "B", bits)


def make_tiled_copy_C(atom: Any, tiled_mma: TiledMMA, bits: int | None = None) -> TiledCopy:
    """CuTe ``make_tiled_copy_C``: over (TileM, TileN)."""
    return _from_mma(atom, tiled_mma, "C", bits)



__all__ = ["TiledCopy", "ThrCopy", "make_tiled_copy", "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C"]

attach_display(TiledCopy, html="tiled_html")  # print_latex of the copy's TV layout in notebooks
