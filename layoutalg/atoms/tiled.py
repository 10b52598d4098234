"""Tiled MMAs and tiled copies with CuTe's semantics (cute/atom/mma_atom.hpp, copy_atom.hpp).

Everything here is defined **pointwise**, exactly as CuTe's layout expressions
evaluate, and the TV layouts are then synthesised as :class:`Layout` values and
checked against the pointwise definition at every point.

TiledMMA (``make_tiled_mma(atom, atom_layout, permutations)``)
    ``thr_layout_vmnk = tiled_product(ThrID, atom_layout)``: (v, m, n, k) -> thread index
    (``v + V*(m + AM*(n + AN*k))`` for a compact ``atom_layout``).  ``get_slice(t)`` takes
    CuTe's ``get_flat_coord(t)`` (leaf ``j`` of a mode gets ``(t // d_j) % s_j``), and the
    TV layouts ``get_layoutX_TV`` compose with ``right_inverse(thr_layout_vmnk)``, as CuTe
    does.  Partitioning an ``(M, K)`` tensor for A (CuTe ``thrfrg_A``)::

        (v, tm, tk), (fv, fm, fk)  ->  m' = am + AtomM*(tm + ThrM*fm),  k' = ak + AtomK*(tk + ThrK*fk)
        where am + AtomM*ak = ALayout(v, fv)      (the atom's TV layout)
        m = P_M(m')  with P_M = (perm_M, complement(perm_M, M)) (identity without a permutation)
        value = tensor(m, k)   (m, k: 1-D indices into the tensor's two modes)

    and likewise B over (N, K) and C over (M, N).  ``partition_A`` returns the
    values in CuTe's order ``(MMA, MMA_M, MMA_K) = (fv, fm, fk)``.

TiledCopy (``make_tiled_copy``, ``make_tiled_copy_A/B/C``)
    A TV layout ``(tid, vid) -> tile index`` and a tiler ``(M, N)``; partitioning
    (CuTe ``tidfrg_S`` / ``tile2thrfrg``), for thread ``thr`` and value
    ``val = tv + NumValSrc*rv`` of an ``(M*RM, N*RN)`` tensor::

        j = right_inverse(AtomRef)(AtomSrc(thr % AtomNumThr, tv))
        tid = j % AtomNumThr + AtomNumThr*(thr // AtomNumThr),   vid = j // AtomNumThr + AtomNumVal*rv
        (tm, tn) = idx2crd(layout_tv(tid, vid), (M, N))
        value (val, rm, rn) = tensor(tm + M*rm, tn + N*rn)

The result of a partition is a :class:`Partition`: for one thread, the shape
``(V, Rest...)`` and, for every value, the coordinate in the tensor and the
offset the tensor's layout (plain or swizzled :class:`ComposedLayout`) gives it.

Static checks become :class:`~layoutalg.errors.LayoutError` with what to change:
too few threads or values for the copy atom, a memory side that does not
vectorise (each atom call must touch ``NumVal`` contiguous, aligned elements),
element widths that differ between the atom and the data, tensors that do not
divide into the tile.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Sequence, Union

from layoutalg.atoms.copy import CopyAtom, TypedCopyAtom
from layoutalg.atoms.gmma import GmmaAtom
from layoutalg.atoms.mma import MmaAtom
from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ShapeError

AnyMma = Union[MmaAtom, GmmaAtom]


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _as_layout(x: Any, what: str) -> Layout:
    if isinstance(x, Layout):
        return x
    if it.is_int(x) or isinstance(x, (tuple, list)):
        return Layout(x)
    raise ShapeError(f"{what} must be a Layout or a shape, got {x!r}")


def _synth(fn: Callable[[int, int], int], nthr: int, nval: int, what: str) -> Layout:
    """The Layout ``(thr, val) -> fn(thr, val)`` on ``nthr x nval``, checked at every point."""
    import numpy as np

    from layoutalg.core.algebra import synthesise_1d

    table = np.array([[fn(t, v) for v in range(nval)] for t in range(nthr)], dtype=np.int64)
    if table[0, 0] != 0:
        raise LayoutError(f"{what}: (0, 0) maps to {table[0, 0]}, not 0")
    modes = []
    for vals, n in ((table[:, 0], nthr), (table[0, :], nval)):
        pairs = synthesise_1d(vals) if n > 1 else [(1, 0)]
        if pairs is None:
            raise LayoutError(f"{what} is not a layout: values {list(vals[:16])}... follow no shape:stride")
        if len(pairs) == 1:
            modes.append(pairs[0])
        else:
            modes.append((tuple(s for s, _ in pairs), tuple(d for _, d in pairs)))  # type: ignore[arg-type]
    layout = Layout((modes[0][0], modes[1][0]), (modes[0][1], modes[1][1]))
    if not np.array_equal(layout.to_numpy().reshape(nval, nthr).T, table):
        raise LayoutError(f"{what}: the (thread, value) map is not additive across threads and values")
    return layout


def _permutation_layout(perm: Any, extent: int, what: str) -> Layout:
    """``(perm, complement(perm, extent))``: 1-D index into CuTe's ``logical_divide(mode, perm)`` -> index."""
    from layoutalg.core.algebra import complement

    p = _as_layout(perm, what)
    if extent % p.size():
        raise LayoutError(f"{what} has size {p.size()}, which does not divide the tensor extent {extent}")
    rest = complement(p, extent)
    return Layout((p.shape, rest.shape), (p.stride, rest.stride))


@dataclass(frozen=True)
class Partition:
    """One thread's share of a tensor: ``shape = (V, Rest...)``; per value its coordinate and offset.

    Values are numbered colexicographically over ``shape`` (as CuTe's flat index
    into the partitioned tensor); ``coords[i]`` holds one 1-D index per mode of
    the tensor, ``offsets[i] = tensor(coords[i])``.
    """

    thread: int
    shape: tuple[int, ...]
    coords: tuple[tuple[int, ...], ...]
    offsets: tuple[int, ...]

    def size(self) -> int:
        return len(self.offsets)

    def _index(self, idx: Sequence[int]) -> int:
        if len(idx) == 1:
            i = int(idx[0])
            if not 0 <= i < self.size():
                raise LayoutError(f"index {i} out of range for a partition of size {self.size()}")
            return i
        if len(idx) != len(self.shape):
            raise LayoutError(f"a coordinate for shape {self.shape} has {len(self.shape)} entries, got {tuple(idx)}")
        flat = 0
        for c, s, stride in zip(idx, self.shape, it.flatten(it.prefix_product(self.shape))):  # type: ignore[arg-type]
            if not 0 <= c < s:
                raise LayoutError(f"coordinate {tuple(idx)} out of range for shape {self.shape}")
            flat += c * stride
        return flat

    def __call__(self, *idx: int) -> int:
        return self.offsets[self._index(idx)]

    def coord(self, *idx: int) -> tuple[int, ...]:
        return self.coords[self._index(idx)]

    def affine(self) -> tuple[Layout, int] | None:
        """``(L, base)`` with ``offset == base + L(v, rest...)`` for every value, as CuTe's partitioned
        tensor (pointer advanced by ``base``, layout ``L``); None when no plain layout fits (swizzled)."""
        import numpy as np

        from layoutalg.swizzle.composed import fit_affine

        return fit_affine(np.array(self.offsets, dtype=np.int64), self.shape)

    def __str__(self) -> str:
        return f"Partition(thread {self.thread}, shape {self.shape}, offsets {list(self.offsets)})"


def _tensor_values(tensor: Any, what: str) -> tuple[Any, tuple[int, ...]]:
    """(all offsets in colex index order, top-level mode sizes) of a Layout/ComposedLayout/shape."""
    import numpy as np

    if it.is_int(tensor) or isinstance(tensor, (tuple, list)):
        tensor = Layout(tensor)
    if not hasattr(tensor, "to_numpy") or not hasattr(tensor, "shape"):
        raise ShapeError(f"{what} must be a Layout, a ComposedLayout or a shape, got {tensor!r}")
    shape = tensor.shape
    modes = tuple(it.product(s) for s in shape) if it.is_tuple(shape) else (it.product(shape),)
    return np.asarray(tensor.to_numpy(), dtype=np.int64), modes


def _make_partition(thread: int, shape: tuple[int, ...], coords: Sequence[tuple[int, ...]], flat_values: Any,
                    modes: tuple[int, ...]) -> Partition:
    strides = it.flatten(it.prefix_product(modes))
    offsets = tuple(int(flat_values[sum(c * s for c, s in zip(crd, strides))]) for crd in coords)
    return Partition(thread, shape, tuple(coords), offsets)


# ---------------------------------------------------------------------------
# TiledMMA
# ---------------------------------------------------------------------------
_OPERAND_MODES = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}


@dataclass(frozen=True)
class TiledMMA:
    """CuTe ``TiledMMA<Atom, AtomLayoutMNK, PermutationMNK>``."""

    atom: AnyMma
    atom_layout: Layout
    permutations: tuple[Layout | None, Layout | None, Layout | None]

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
        if isinstance(thr_idx, bool) or not isinstance(thr_idx, int) or not 0 <= thr_idx < self.size():
            raise LayoutError(f"thread index {thr_idx!r} out of range for a TiledMMA of {self.size()} threads")
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
            raise LayoutError(f"operand must be A, B or C, got {operand!r}")
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


def make_tiled_mma(atom: AnyMma, atom_layout: Any = (1, 1, 1), permutations: Any = (None, None, None)) -> TiledMMA:
    """CuTe ``make_tiled_mma(atom, atom_layout, permutations)``.

    ``atom_layout``: a Layout or shape over (M, N[, K]) atoms (missing modes are ``1:0``);
    ``permutations``: per mode None (CuTe ``_``), an int ``n`` (``n:1``) or a Layout.
    """
    if not isinstance(atom, (MmaAtom, GmmaAtom)):
        raise LayoutError(f"make_tiled_mma needs an MMA atom, got {atom!r}")
    lay = _as_layout(atom_layout, "atom_layout")
    modes = list(lay) if it.is_tuple(lay.shape) else [lay]
    if len(modes) > 3:
        raise LayoutError(f"atom_layout has {len(modes)} modes; a TiledMMA tiles at most M, N, K")
    while len(modes) < 3:
        modes.append(Layout(1, 0))
    lay = Layout(tuple(m.shape for m in modes), tuple(m.stride for m in modes))
    if not isinstance(permutations, (tuple, list)) or len(permutations) > 3:
        raise LayoutError(f"permutations must be a tuple of up to 3 entries (None, an int or a Layout), got {permutations!r}")
    perms: list[Layout | None] = []
    for i, p in enumerate(list(permutations) + [None] * (3 - len(permutations))):
        if p is None:
            perms.append(None)
        else:
            perms.append(_as_layout(p, f"permutation {'MNK'[i]}"))
    return TiledMMA(atom, lay, (perms[0], perms[1], perms[2]))


# ---------------------------------------------------------------------------
# TiledCopy
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class TiledCopy:
    """CuTe ``TiledCopy<Copy_Atom, LayoutCopy_TV, ShapeTiler_MN>``."""

    atom: TypedCopyAtom
    layout_tv: Layout
    tiler: tuple[int, ...]

    def __post_init__(self) -> None:
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
        if isinstance(thr_idx, bool) or not isinstance(thr_idx, int) or not 0 <= thr_idx < self.num_threads:
            raise LayoutError(f"thread index {thr_idx!r} out of range for a TiledCopy of {self.num_threads} threads")
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
        n = self.tiled_copy.num_threads
        if isinstance(self.thr_idx, bool) or not isinstance(self.thr_idx, int) or not 0 <= self.thr_idx < n:
            raise LayoutError(f"thread index {self.thr_idx!r} out of range for a TiledCopy of {n} threads")

    def partition_S(self, tensor: Any, bits: int | None = None) -> Partition:
        """(CPY, CPY_M, CPY_N) of a source tensor; ``bits`` (optional) is its element width, checked."""
        return self.tiled_copy.partition("S", tensor, self.thr_idx, bits)

    def partition_D(self, tensor: Any, bits: int | None = None) -> Partition:
        return self.tiled_copy.partition("D", tensor, self.thr_idx, bits)

    def retile_S(self, layout: Any) -> Layout:
        return self.tiled_copy.retile(layout)

    def retile_D(self, layout: Any) -> Layout:
        return self.tiled_copy.retile(layout)


def _int_coords(crd: Any) -> tuple[int, ...]:
    return tuple(int(c) for c in crd) if isinstance(crd, tuple) else (int(crd),)


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
    raise LayoutError(f"{what} needs a copy atom, got {atom!r}")


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
        raise LayoutError(f"make_tiled_copy_{operand} needs a TiledMMA, got {tiled_mma!r}")
    op_bits = tiled_mma.atom.operand_bits(operand) if isinstance(tiled_mma.atom, MmaAtom) else \
        {"f16": 16, "bf16": 16, "f32": 32}[getattr(tiled_mma.atom, f"{operand.lower()}_type")]
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


__all__ = [
    "TiledMMA", "ThrMMA", "TiledCopy", "ThrCopy", "Partition",
    "make_tiled_mma", "make_tiled_copy", "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C",
]
