"""CuTe ``TiledMMA``: an MMA atom tiled over threads (and permuted), and its partitioning.

See :mod:`layoutalg.atoms.tiled` for the pointwise definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Union

from layoutalg.atoms.gmma import GmmaAtom
from layoutalg.atoms.mma import MmaAtom
from layoutalg.atoms.partition import (
    Partition,
    _as_layout,
    _int_coords,
    _make_partition,
    _permutation_layout,
    _synth,
    _tensor_values,
)
from layoutalg.core import int_tuple as it
from layoutalg.core.display import attach_display
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe, plain_int
from layoutalg.errors import LayoutError

AnyMma = Union[MmaAtom, GmmaAtom]


_OPERAND_MODES = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}


@dataclass(frozen=True)
class TiledMMA:
    """CuTe ``TiledMMA<Atom, AtomLayoutMNK, PermutationMNK>``."""

    atom: AnyMma
    atom_layout: Layout
    permutations: tuple[Layout | None, Layout | None, Layout | None]

    def __post_init__(self) -> None:
        """The fields :func:`make_tiled_mma` builds (use it; this only refuses what no method could work with)."""
        if not isinstance(self.atom, (MmaAtom, GmmaAtom)):
            raise LayoutError(f"TiledMMA needs an MMA atom, got {describe(self.atom)}")
        if not isinstance(self.atom_layout, Layout) or self.atom_layout.rank() != 3:
            raise LayoutError(f"TiledMMA atom_layout must be a rank-3 (M, N, K) Layout, got {describe(self.atom_layout)}")
        perms = self.permutations
        if not isinstance(perms, tuple) or len(perms) != 3 or not all(p is None or isinstance(p, Layout) for p in perms):
            raise LayoutError(f"TiledMMA permutations must be 3 entries, each None or a Layout, got {describe(perms)}")

    @cached_property
    def thr_layout_vmnk(self) -> Layout:
        """``tiled_product(ThrID, atom_layout)``: (v, m, n, k) -> thread index."""
        from layoutalg.core.algebra import complement, composition

        thr = self.atom.thr_id
        cotarget = thr.size() * self.atom_layout.cosize()
        rest = composition(complement(thr, cotarget), self.atom_layout)
        modes = [rest[i] for i in range(3)]
        return Layout((thr.shape, *(m.shape for m in modes)), (thr.stride, *(m.stride for m in modes)))

    def size(self) -> int:
        """Number of threads (CuTe ``size(tiled_mma)``)."""
        return self.thr_layout_vmnk.size()

    def thr_extent(self, i: int) -> int:
        """Atoms along M (0), N (1) or K (2)."""
        return self.atom_layout[i].size()

    def tile_size_mnk(self, i: int) -> int:
        perm = self.permutations[i]
        if perm is not None:
            return perm.size()
        return self.atom.shape_mnk[i] * self.thr_extent(i)

    @property
    def tile_shape_mnk(self) -> tuple[int, int, int]:
        return (self.tile_size_mnk(0), self.tile_size_mnk(1), self.tile_size_mnk(2))

    def thr_vmnk(self, thr_idx: int) -> tuple[int, int, int, int]:
        """CuTe ``thr_layout_vmnk.get_flat_coord(thr_idx)``: the (v, m, n, k) coordinate of ``thr_idx``.

        ``get_flat_coord`` is ``idx2crd(idx, shape, stride)``: leaf ``j`` of a mode gets
        ``(idx // d_j) % s_j`` (the layout's inverse for a compact thread layout), and each
        mode's leaves are then folded into one colexicographic index within the mode.
        """
        thr_idx = plain_int(thr_idx, "thread index")
        if isinstance(thr_idx, bool) or not isinstance(thr_idx, int) or not 0 <= thr_idx < self.size():
            raise LayoutError(f"thread index {describe(thr_idx)} out of range for a TiledMMA of {self.size()} threads")
        lay = self.thr_layout_vmnk
        out = []
        for mode in lay:
            index, running = 0, 1
            for s, d in zip(it.flatten(mode.shape), it.flatten(mode.stride)):
                if s > 1:
                    if d <= 0:
                        raise LayoutError(f"thr_layout_vmnk {lay} has a broadcast thread mode; give atom_layout "
                                          f"positive strides")
                    index += ((thr_idx // d) % s) * running
                running *= s
            out.append(index)
        return out[0], out[1], out[2], out[3]

    # -- the pointwise thrfrg ---------------------------------------------
    def _frag_coords(self, operand: str, extents: tuple[int, int], thr: tuple[int, int, int, int]) -> tuple[
            tuple[int, int, int], list[tuple[int, int]]]:
        """CuTe thrfrg_X for one thread: ((FrgV, FrgX, FrgY), coords as 1-D indices into the two tensor modes)."""
        op = operand
        i0, i1 = _OPERAND_MODES[op]
        atom_tv = self.atom.layout(op)
        atom_x, atom_y = self.atom.shape_mnk[i0], self.atom.shape_mnk[i1]
        thr_x, thr_y = self.thr_extent(i0), self.thr_extent(i1)
        ext_x, ext_y = extents
        for name, ext, atom_e, thr_e, idx in ((("MNK")[i0], ext_x, atom_x, thr_x, i0), (("MNK")[i1], ext_y, atom_y, thr_y, i1)):
            if ext % (atom_e * thr_e):
                raise LayoutError(f"partition_{op}: the tensor's {name} extent {ext} is not a multiple of the "
                                  f"MMA's {atom_e} x {thr_e} atoms = {atom_e * thr_e}; pad the tile or change atom_layout")
            if self.permutations[idx] is not None and ext % self.permutations[idx].size():  # type: ignore[union-attr]
                raise LayoutError(f"partition_{op}: the tensor's {name} extent {ext} is not a multiple of the "
                                  f"permutation's size {self.permutations[idx].size()}")  # type: ignore[union-attr]
        px = _permutation_layout(self.permutations[i0], ext_x, f"permutation {'MNK'[i0]}") if self.permutations[i0] is not None else None
        py = _permutation_layout(self.permutations[i1], ext_y, f"permutation {'MNK'[i1]}") if self.permutations[i1] is not None else None
        v, tm, tn, tk = thr
        tx = (tm, tn, tk)[i0]
        ty = (tm, tn, tk)[i1]
        frg_v = atom_tv[1].size()
        frg_x = ext_x // (atom_x * thr_x)
        frg_y = ext_y // (atom_y * thr_y)
        coords = []
        for fy in range(frg_y):
            for fx in range(frg_x):
                for fv in range(frg_v):
                    idx = atom_tv(v, fv)
                    ax, ay = idx % atom_x, idx // atom_x
                    x = ax + atom_x * (tx + thr_x * fx)
                    y = ay + atom_y * (ty + thr_y * fy)
                    cx, cy = (px(x) if px is not None else x), (py(y) if py is not None else y)
                    if not (0 <= cx < ext_x and 0 <= cy < ext_y):
                        raise LayoutError(f"partition_{op}: the permutations send ({x}, {y}) to ({cx}, {cy}), outside "
                                          f"the {ext_x} x {ext_y} tensor; a permutation must map [0, size) into itself")
                    coords.append((cx, cy))
        return (frg_v, frg_x, frg_y), coords

    def _tv(self, operand: str) -> Layout:
        """get_layoutX_TV: (thr_idx, val) -> index in the (X, Y) tile, column-major."""
        i0, i1 = _OPERAND_MODES[operand]
        ext = (self.tile_size_mnk(i0), self.tile_size_mnk(i1))
        per_thread = [self._frag_coords(operand, ext, self.thr_vmnk_physical(t))[1] for t in range(self.size())]
        nval = len(per_thread[0])
        return _synth(lambda t, v: per_thread[t][v][0] + ext[0] * per_thread[t][v][1], self.size(), nval,
                      f"TiledMMA {operand} TV layout")

    def thr_vmnk_physical(self, thr_idx: int) -> tuple[int, int, int, int]:
        """``right_inverse(thr_layout_vmnk)(thr_idx)`` as (v, m, n, k): used by get_layoutX_TV."""
        from layoutalg.core.algebra import right_inverse

        inv = right_inverse(self.thr_layout_vmnk)
        if inv.size() < self.size():
            raise LayoutError(f"thr_layout_vmnk {self.thr_layout_vmnk} is not invertible: give atom_layout compact strides")
        flat = inv(thr_idx)
        shape = (self.atom.thr_id.size(), self.thr_extent(0), self.thr_extent(1), self.thr_extent(2))
        crd = it.idx2crd(flat, shape)
        return crd  # type: ignore[return-value]

    @cached_property
    def _tv_layouts(self) -> dict[str, Layout]:
        return {}

    def get_layoutA_TV(self) -> Layout:
        return self._cached_tv("A")

    def get_layoutB_TV(self) -> Layout:
        return self._cached_tv("B")

    def get_layoutC_TV(self) -> Layout:
        return self._cached_tv("C")

    def _cached_tv(self, op: str) -> Layout:
        cache = self._tv_layouts
        if op not in cache:
            cache[op] = self._tv(op)
        return cache[op]

    def get_slice(self, thr_idx: int) -> "ThrMMA":
        return ThrMMA(self, thr_idx)

    get_thread_slice = get_slice

    def partition(self, operand: str, tensor: Any, thr_idx: int) -> Partition:
        op = str(operand).upper()
        op = "C" if op == "D" else op
        if op not in _OPERAND_MODES:
            raise LayoutError(f"operand must be A, B or C, got {describe(operand)}")
        values, modes = _tensor_values(tensor, f"partition_{op} tensor")
        if len(modes) < 2:
            raise LayoutError(f"partition_{op} takes a tensor of rank >= 2, got one with {len(modes)} mode")
        shape, coords2 = self._frag_coords(op, (modes[0], modes[1]), self.thr_vmnk(thr_idx))
        coords: list[tuple[int, ...]] = list(coords2)
        extra = tuple(modes[2:])  # CuTe keeps further modes (e.g. a pipeline stage) as trailing rest modes
        if extra:
            coords = [(*c, *_int_coords(it.idx2crd(e, extra))) for e in range(it.product(extra)) for c in coords]
        return _make_partition(thr_idx, (*shape, *extra), coords, values, modes)

    def __str__(self) -> str:
        return (f"TiledMMA\n  ThrLayoutVMNK: {self.thr_layout_vmnk}\n  PermutationMNK: {self.permutations}\n"
                f"  Tile: {self.tile_shape_mnk}\n  Atom: {self.atom}")


@dataclass(frozen=True)
class ThrMMA:
    """CuTe ``ThrMMA``: one thread's view of a TiledMMA."""

    tiled_mma: TiledMMA
    thr_idx: int

    def __post_init__(self) -> None:
        if not isinstance(self.tiled_mma, TiledMMA):
            raise LayoutError(f"ThrMMA needs a TiledMMA, got {describe(self.tiled_mma)}")
        self.tiled_mma.thr_vmnk(self.thr_idx)

    def partition_A(self, tensor: Any) -> Partition:
        """(MMA, MMA_M, MMA_K) of an (M, K) tensor."""
        return self.tiled_mma.partition("A", tensor, self.thr_idx)

    def partition_B(self, tensor: Any) -> Partition:
        """(MMA, MMA_N, MMA_K) of an (N, K) tensor."""
        return self.tiled_mma.partition("B", tensor, self.thr_idx)

    def partition_C(self, tensor: Any) -> Partition:
        """(MMA, MMA_M, MMA_N) of an (M, N) tensor."""
        return self.tiled_mma.partition("C", tensor, self.thr_idx)

    def partition_fragment_A(self, tensor: Any, dtype: Any = None) -> Any:
        """CuTe ``partition_fragment_A``: register storage for this thread's A values,
        ``make_fragment_like(partition_A(tensor))`` (:func:`fragment_of`)."""
        return fragment_of(self.partition_A(tensor), dtype)

    def partition_fragment_B(self, tensor: Any, dtype: Any = None) -> Any:
        """CuTe ``partition_fragment_B``: ``make_fragment_like(partition_B(tensor))``."""
        return fragment_of(self.partition_B(tensor), dtype)

    def partition_fragment_C(self, tensor: Any, dtype: Any = None) -> Any:
        """CuTe ``partition_fragment_C``: the accumulators, compact column-major over ``(MMA, MMA_M, MMA_N)``
        whatever C's strides (CuTe's ``make_fragment_C`` is ``make_tensor(shape(partition_C(tensor)))``)."""
        from layoutalg.core.tensor import make_tensor

        return make_tensor(Layout(tuple(self.partition_C(tensor).shape)), dtype)


def fragment_of(part: Partition, dtype: Any = None) -> Any:
    """CuTe ``make_fragment_like`` of a partitioned tensor ``(V, Rest...)``: fresh storage, ``V`` compact first,
    the rest modes ordered by their signed strides in the partitioned tensor (each the offset step of that mode, as
    :func:`layoutalg.core.tensor.fragment_layout` orders them)."""
    from layoutalg.core.tensor import make_fragment_like

    shape = tuple(part.shape)
    if not shape:  # a rank-1 partition keeps its one mode, as CuTe's make_layout(shape) does: (4):(1)
        return make_fragment_like(Layout(1), dtype)
    base = part(*([0] * len(shape)))
    steps = []
    for j in range(1, len(shape)):
        unit = [0] * len(shape)
        unit[j] = 1  # read only when shape[j] > 1 (next line)
        steps.append(part(*unit) - base if shape[j] > 1 else 0)
    return make_fragment_like(Layout(shape, (1, *steps)), dtype)


def make_tiled_mma(atom: AnyMma, atom_layout: Any = (1, 1, 1), permutations: Any = (None, None, None)) -> TiledMMA:
    """CuTe ``make_tiled_mma(atom, atom_layout, permutations)``.

    ``atom_layout``: a Layout or shape over (M, N[, K]) atoms (missing modes are ``1:0``);
    ``permutations``: per mode None (CuTe ``_``), an int ``n`` (``n:1``) or a Layout.
    """
    if not isinstance(atom, (MmaAtom, GmmaAtom)):
        raise LayoutError(f"make_tiled_mma needs an MMA atom, got {describe(atom)}")
    lay = _as_layout(atom_layout, "atom_layout")
    modes = list(lay) if it.is_tuple(lay.shape) else [lay]
    if len(modes) > 3:
        raise LayoutError(f"atom_layout has {len(modes)} modes; a TiledMMA tiles at most M, N, K")
    while len(modes) < 3:
        modes.append(Layout(1, 0))
    lay = Layout(tuple(m.shape for m in modes), tuple(m.stride for m in modes))
    if not isinstance(permutations, (tuple, list)) or len(permutations) > 3:
        raise LayoutError(f"permutations must be a tuple of up to 3 entries (None, an int or a Layout), got {describe(permutations)}")
    perms: list[Layout | None] = []
    for i, p in enumerate(list(permutations) + [None] * (3 - len(permutations))):
        if p is None:
            perms.append(None)
        else:
            perms.append(_as_layout(p, f"permutation {'MNK'[i]}"))
    return TiledMMA(atom, lay, (perms[0], perms[1], perms[2]))



__all__ = ["TiledMMA", "ThrMMA", "make_tiled_mma"]

attach_display(TiledMMA, html="tiled_html")  # print_latex of A, B and C in notebooks
