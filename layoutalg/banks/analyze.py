"""Bank analysis of every instruction of a copy or k-loop over a shared-memory layout.

``analyze(smem_layout, access, dtype="f16")``: the layout maps a tile
coordinate to an element offset (a ``Layout`` or a swizzled ``ComposedLayout``,
in elements, as CuTe's smem layouts are); lane ``l`` of instance ``i`` accesses
byte ``base + dtype_bytes * smem_layout(access.coords[i, l])``.  Every instance
is costed with the measured model (:mod:`layoutalg.banks.model`), vectorised
(:mod:`layoutalg.banks.vector`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutalg.banks.access import Access, element_bytes, tile_access
from layoutalg.banks.instruction import parse_instruction
from layoutalg.banks.model import BankReport, report
from layoutalg.banks.vector import wavefronts_many
from layoutalg.core.array_records import ArrayRecord
from layoutalg.core.validate import as_int, describe
from layoutalg.errors import CoordinateError, InstructionError, LayoutError


def _mode_sizes(smem_layout: Any) -> list[int]:
    shape = smem_layout.shape
    modes = shape if isinstance(shape, tuple) else (shape,)
    sizes = []
    for m in modes:
        n = 1
        stack = [m]
        while stack:
            x = stack.pop()
            if isinstance(x, tuple):
                stack.extend(x)
            else:
                n *= int(x)
        sizes.append(n)
    return sizes


def byte_addresses(smem_layout: Any, access: Access, dtype: Any, base: int = 0, what: str = "smem_layout") -> Any:
    """``(*batch, 32)`` byte addresses of ``access`` over ``smem_layout`` (lanes the instruction ignores: 0).

    ``what`` names the layout argument in errors (``global_layout`` for a cp.async's sources).
    """
    import numpy as np

    if not hasattr(smem_layout, "to_numpy") or not hasattr(smem_layout, "shape"):
        raise LayoutError(f"{what} must be a Layout or ComposedLayout, got {type(smem_layout).__name__}")
    if access.symbolic:
        raise LayoutError(f"the {access.instruction} access is symbolic (built by symbolic_access): it has no "
                          "concrete coordinates to analyse; prove it with conflict_free(...) instead")
    e = element_bytes(dtype)
    sizes = _mode_sizes(smem_layout)
    if access.rank != len(sizes):
        raise CoordinateError(f"access coordinates have rank {access.rank} but {what} {smem_layout} has "
                              f"{len(sizes)} modes")
    ins = parse_instruction(access.instruction)
    active = len(ins.active_lanes)
    coords = access.coords
    if active < 32:
        coords = coords.copy()
        coords[..., active:, :] = 0
    flat = np.zeros(coords.shape[:-1], dtype=np.int64)
    running = 1
    for k, size in enumerate(sizes):
        ck = coords[..., k]
        if ck.size:
            low, high = int(ck.min()), int(ck.max())
            if low < 0 or high >= size:
                bad = low if low < 0 else high
                raise CoordinateError(f"access coordinate {bad} in mode {k} is outside {what}'s extent {size}")
        flat += ck * running
        running *= size
    values = _evaluate(smem_layout, flat)
    if access.run_mode is not None:
        _check_runs(smem_layout, access, coords, sizes, values, ins.access_bytes // e, what)
    addrs = _to_bytes(values, e, as_int(base, "base" if what == "smem_layout" else "global_base"),
                      what, smem_layout, ins.canonical)
    addrs[..., active:] = 0
    return addrs


def _check_runs(layout: Any, access: Access, coords: Any, sizes: list[int], values: Any, run: int, what: str) -> None:
    """A tile sweep's lanes each move ``run`` consecutive elements along ``access.run_mode`` (one vector, or one
    ldmatrix row): refuse a layout that does not keep them consecutive in memory, ``L(c + j) = L(c) + j`` (a
    16-byte load at a lane's first element would move other elements than the sweep's; CuTe's partition refuses
    such a copy as not vectorizing, :mod:`layoutalg.banks.tiled`)."""
    import numpy as np

    mode = access.run_mode
    if run <= 1 or mode is None or not coords.size:
        return
    stride = 1
    for size in sizes[:mode]:
        stride *= size
    for j in range(1, run):
        if int(coords[..., mode].max()) + j >= sizes[mode]:
            raise LayoutError(f"{access.instruction}: a lane's {run} elements run past {what}'s extent {sizes[mode]} "
                              f"in mode {mode}")
        shifted = _evaluate(layout, _flat(coords, sizes) + j * stride)
        bad = np.argwhere(shifted != values + j)
        name = "the layout" if what == "smem_layout" else what
        if bad.size:
            where = tuple(int(i) for i in bad[0])
            crd = tuple(int(x) for x in coords[where])
            raise LayoutError(
                f"{access.instruction} moves {run} consecutive elements per lane, but {name} {layout} does not keep "
                f"them together: the lane at {crd} (offset {int(values[where])}) has its element {j} at offset "
                f"{int(shifted[where])}, not {int(values[where]) + j}; no such vector or row access exists")


def _flat(coords: Any, sizes: list[int]) -> Any:
    """Column-major 1-D index of ``coords`` (``(..., rank)``) in a layout of mode sizes ``sizes``."""
    import numpy as np

    flat = np.zeros(coords.shape[:-1], dtype=np.int64)
    running = 1
    for k, size in enumerate(sizes):
        flat += coords[..., k] * running
        running *= size
    return flat


INT64_MAX = (1 << 63) - 1


def _to_bytes(values: Any, e: int, base: int, what: str, layout: Any, instruction: str) -> Any:
    """``values * e + base`` (element offsets to byte addresses) as int64, refusing a byte address past 64 bits.

    The layout's values are exact (Python ints in an object array where they pass 2**62); numpy's int64 would wrap
    them silently, so the extremes are checked first.  A shared-memory address that large is past any shared memory
    (InstructionError, as every address past the capacity); a global one is refused naming ``global_layout``.
    """
    import numpy as np

    if values.size:
        low, high = int(values.min()) * e, int(values.max()) * e
        bad = next((x for x in (high + base, high, low + base, low) if not -INT64_MAX - 1 <= x <= INT64_MAX), None)
        if bad is not None:
            if what == "smem_layout":
                raise InstructionError(f"{instruction}: {what} {layout} puts a lane at byte address {bad}, outside any "
                                       "GPU's shared memory")
            at = f" from global_base {base}" if base else ""
            raise LayoutError(f"{what} {layout} puts a lane at byte offset {bad}{at}, which does not fit in 64 bits")
    return values.astype(np.int64) * e + base


def _evaluate(smem_layout: Any, flat: Any) -> Any:
    """The layout at the 1-D indices ``flat`` (only the points needed, not the whole table), exact: int64, or
    Python ints (an object array) where the values pass 2**62."""
    import numpy as np

    from layoutalg.core.layout import Layout
    from layoutalg.swizzle.composed import ComposedLayout
    from layoutalg.swizzle.swizzle import Swizzle

    if isinstance(smem_layout, Layout):
        return np.asarray(smem_layout.evaluate_indices(flat))
    if isinstance(smem_layout, ComposedLayout) and isinstance(smem_layout.outer, (Swizzle, Layout)):
        inner = np.asarray(smem_layout.inner.evaluate_indices(flat)) + smem_layout.offset
        outer = smem_layout.outer
        return np.asarray(outer.evaluate_indices(inner) if isinstance(outer, Layout) else outer(inner))
    return np.asarray(smem_layout.to_numpy())[flat]


def _count(n: Any, what: str) -> int:
    """``n`` as a count of instances: an int >= 0 (a negative one would slice from the end)."""
    value = as_int(n, what)
    if value < 0:
        raise LayoutError(f"{what} must be >= 0, got {value}")
    return value


@dataclass(frozen=True, eq=False)
class Analysis(ArrayRecord):
    """Per-instance ``wavefronts`` and ``ideal`` (arrays over the access's batch axes) and summaries."""

    instruction: str
    axes: tuple[str, ...]
    wavefronts: Any
    ideal: Any
    addresses: Any
    global_addresses: Any = None  # cp.async only: each lane's source byte offset

    @property
    def total(self) -> int:
        return int(self.wavefronts.sum())

    @property
    def total_ideal(self) -> int:
        return int(self.ideal.sum())

    @property
    def excess(self) -> int:
        return self.total - self.total_ideal

    @property
    def conflict_free(self) -> bool:
        return self.excess == 0

    @property
    def count(self) -> int:
        return int(self.wavefronts.size)

    def _index(self, flat: int) -> dict[str, int]:
        import numpy as np

        idx = np.unravel_index(flat, self.wavefronts.shape) if self.wavefronts.ndim else ()
        return {a: int(i) for a, i in zip(self.axes, idx)}

    def worst(self, n: int = 5) -> list[tuple[dict[str, int], int, int]]:
        """The ``n`` instances with the most excess wavefronts: (index by axis, wavefronts, ideal)."""
        import numpy as np

        n = _count(n, "n")
        ex = (self.wavefronts - self.ideal).ravel()
        order = np.argsort(-ex, kind="stable")[:n]
        wf, idl = self.wavefronts.ravel(), self.ideal.ravel()
        return [(self._index(int(k)), int(wf[k]), int(idl[k])) for k in order]

    def report(self, **index: int) -> BankReport:
        """The per-phase, per-bank report of one instance, named by its axes (``analysis.report(warp=1, k=0)``)."""
        import numpy as np

        unknown = [a for a in index if a not in self.axes]
        if unknown:
            raise CoordinateError(f"report() got {unknown[0]}=..., which is not an axis; axes are {self.axes}")
        key = []
        for a, extent in zip(self.axes, self.wavefronts.shape):
            if a not in index:
                raise CoordinateError(f"report() needs {a}=...; axes are {self.axes}")
            value = as_int(index[a], f"report() {a}", CoordinateError)
            if not 0 <= value < extent:
                raise CoordinateError(f"report() {a}={value} is outside the access's {extent} instances on that axis")
            key.append(value)
        return self._report_flat(int(np.ravel_multi_index(tuple(key), self.wavefronts.shape)) if key else 0)

    def _report_flat(self, flat: int) -> BankReport:
        """The report of the instance at flat index ``flat`` (its global sources too, for a cp.async)."""
        addrs = [int(x) for x in self.addresses.reshape(-1, 32)[flat]]
        sources = None if self.global_addresses is None else [int(x) for x in self.global_addresses.reshape(-1, 32)[flat]]
        return report(self.instruction, addrs, sources)

    def conflict_bits(self, limit: int = 256) -> dict[int, int]:
        """Byte-address bits in which colliding words differ, with how many colliding word pairs differ there.

        Colliding words agree in bits 2-6 (the bank), so these bits (all >= 7) are what a swizzle must XOR into
        bits 2-6, or padding must perturb.  Looks at up to ``limit`` conflicted instances.
        """
        import numpy as np

        counts: dict[int, int] = {}
        flat = np.flatnonzero((self.wavefronts - self.ideal).ravel() > 0)[:_count(limit, "limit")]
        for k in flat:
            rep = self._report_flat(int(k))
            for ph in rep.phases:
                for use in ph.conflicts:
                    first = use.words[0] * 4
                    for w in use.words[1:]:
                        diff = first ^ (w * 4)
                        for b in range(diff.bit_length()):
                            if diff >> b & 1:
                                counts[b] = counts.get(b, 0) + 1
        return dict(sorted(counts.items()))

    def summary(self) -> str:
        head = (f"{self.instruction}: {self.count} instructions, {self.total} wavefronts, ideal {self.total_ideal}, "
                f"excess {self.excess}" + ("  (conflict-free)" if self.conflict_free else ""))
        lines = [head]
        if not self.conflict_free:
            for idx, wf, idl in self.worst(3):
                where = ", ".join(f"{k}={v}" for k, v in idx.items())
                lines.append(f"  worst: {where}: {wf} wavefronts (ideal {idl})")
            if self.global_addresses is not None:  # a cp.async: why its worst instance costs what it does
                worst = self.worst(1)[0][0]
                lines += [f"  {note}" for note in self.report(**worst).notes[:4]]
            bits = self.conflict_bits()
            if bits:
                lines.append(f"  colliding words differ in byte-address bits {sorted(bits)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def to_json(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "axes": list(self.axes), "wavefronts": self.wavefronts.tolist(),
                "ideal": self.ideal.tolist(), "total": self.total, "total_ideal": self.total_ideal,
                "excess": self.excess, "conflict_free": self.conflict_free,
                "conflict_bits": self.conflict_bits()}


def analyze(smem_layout: Any, access: Any, dtype: Any = None, *, base: int = 0, by: str = "row",
            global_layout: Any = None, global_base: int = 0, arch: Any = None, global_ld: Any = None,
            tile_to: Any = None) -> Analysis:
    """Wavefronts of every instance of ``access`` over ``smem_layout`` of ``dtype`` elements.

    ``access`` is an :class:`~layoutalg.banks.access.Access`, a ``TiledCopy`` (every warp and atom call of its
    shared-memory side, :func:`~layoutalg.banks.tiled.access_from_tiled_copy`), or an instruction string (then
    the whole tile is swept as :func:`~layoutalg.banks.access.tile_access` describes, ``by`` choosing row or
    column order for ld/st).  ``base`` is the byte offset of the layout's offset 0 in shared memory.

    A ``cp.async`` access also needs ``global_layout``: where each element of the tile comes from, in
    elements from a 128-byte-aligned ``global_base`` (e.g. ``Layout((M, K), (ld, 1))`` for a row-major global
    matrix with leading dimension ``ld``), since its cost depends on the sources (:mod:`.cp_async`).

    ``arch`` (``"sm_80"`` ... ``"sm_120"``, default sm_90) sets the shared-memory capacity, checked before
    anything is built (a tile sweep larger than it is refused with its size), and which instructions exist.

    As on the command line, ``smem_layout`` may be layout text (``"Sw<3,3,3> o 0 o (64,64):(64,1)"``,
    ``"Layout_K_SW128_Atom"`` with ``dtype``) ``global_ld=N`` stands for ``--global-ld N`` and
    ``tile_to=(M, N)`` for ``--tile-to MxN``
    (:mod:`layoutalg.banks.inputs`).
    """
    from layoutalg.banks.inputs import global_layout_of, smem_layout_of
    from layoutalg.banks.limits import arch_of

    arch = arch_of(arch)
    smem_layout = smem_layout_of(smem_layout, dtype, tile_to)
    if hasattr(access, "layout_tv") and hasattr(access, "atom"):  # a TiledCopy (layoutalg.atoms.tiled)
        from layoutalg.banks.tiled import access_from_tiled_copy

        access = access_from_tiled_copy(access, smem_layout)
    if not callable(smem_layout) or not hasattr(smem_layout, "shape"):
        raise LayoutError(f"smem_layout must be a Layout or a ComposedLayout, got {describe(smem_layout)}")
    if isinstance(access, str):
        sizes = _mode_sizes(smem_layout)
        if len(sizes) != 2:
            raise LayoutError(f"an instruction string needs a rank-2 layout to sweep; {smem_layout} has "
                              f"{len(sizes)} modes (pass an Access)")
        access = tile_access(access, (sizes[0], sizes[1]), dtype, by=by, arch=arch)
    if not isinstance(access, Access):
        raise LayoutError(f"access must be an Access or an instruction string, got {type(access).__name__}")
    global_layout = global_layout_of(global_layout, global_ld, _mode_sizes(smem_layout))
    addrs = byte_addresses(smem_layout, access, dtype, base)
    ins = parse_instruction(access.instruction)
    if ins.kind == "cp.async":
        return _analyze_cp_async(ins.canonical, access, addrs, dtype, global_layout, global_base, arch)
    if global_layout is not None:  # as wavefronts_many and suggest_swizzle: a source only a cp.async has
        raise LayoutError(f"global_layout is for cp.async accesses only, not {ins.canonical} (it would be ignored)")
    wf, ideal = wavefronts_many(access.instruction, addrs, arch=arch)
    return Analysis(ins.canonical, access.axes, wf, ideal, addrs)


def _analyze_cp_async(canonical: str, access: Access, addrs: Any, dtype: Any, global_layout: Any,
                      global_base: int, arch: Any = None) -> Analysis:
    """Every cp.async instance at once (:mod:`.cp_async_vector`, through :func:`.vector.wavefronts_many`)."""
    if global_layout is None:
        raise LayoutError(f"{access.instruction}: its cost depends on where each lane's data comes from; "
                          "pass global_layout= (e.g. Layout((M, K), (ld, 1)) for a row-major global matrix) or "
                          "global_ld=ld, as --global-ld on the command line")
    sources = byte_addresses(global_layout, access, dtype, global_base, what="global_layout")
    wf, ideal = wavefronts_many(access.instruction, addrs, global_addresses=sources, arch=arch)
    return Analysis(canonical, access.axes, wf, ideal, addrs, sources)
