"""Which tile coordinates each lane of each warp-wide instruction addresses.

An :class:`Access` is one instruction plus, for every instruction instance, the
tile coordinate of the first element each lane's bytes start at (for
``ldmatrix``/``stmatrix``: the coordinate of the row the lane supplies).  Two
ways to build one:

* ``Access.from_fn(instruction, fn, warp=4, k=4, i=4)``: ``fn(lane, warp, k, i)``
  returns the coordinate tuple; it is called once with numpy arrays broadcast
  over every lane and parameter value (so it must use arithmetic only:
  ``+ - * // % & ^ | >> <<``), and the same function can be called with
  symbolic terms by :func:`layoutalg.banks.proof.conflict_free`;
* ``Access(instruction, coords, axes)`` with an int array ``coords`` of shape
  ``(*batch, 32, rank)``.

:func:`tile_access` gives the usual sweep of a whole 2-D tile by one instruction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from layoutalg.banks.instruction import expand_short_form, parse_instruction
from layoutalg.core.array_records import ArrayRecord
from layoutalg.core.dtypes import dtype_bits
from layoutalg.core.validate import describe, direction
from layoutalg.errors import LayoutError

MAX_ENUMERATED_LANES = 1 << 26
"""The most lanes (instances x 32) :meth:`Access.from_fn` evaluates (64 Mi: 1 GiB of rank-2 int64 coordinates)."""


def element_bytes(dtype: Any) -> int:
    """Bytes of one element: any dtype name or object of :mod:`layoutalg.core.dtypes` (``"f16"``, ``"bf16"``,
    ``torch.float16``, ``cutlass.Float32``, a numpy dtype), or a bit width (16)."""
    if dtype is None:
        raise LayoutError("dtype is required: the element type of the shared-memory layout (f16, f32, s8, ...)")
    if not isinstance(dtype, (str, int)):
        itemsize = getattr(dtype, "itemsize", None)
        if isinstance(itemsize, int) and not isinstance(itemsize, bool) and itemsize > 0:
            return itemsize
    bits = dtype_bits(dtype)
    if bits % 8:
        raise LayoutError(f"dtype {dtype}: {bits}-bit elements are not addressable per lane (a bit width must be a "
                          "positive multiple of 8)")
    return bits // 8


@dataclass(frozen=True, eq=False)
class Access(ArrayRecord):
    """``instruction`` and, per instance, each lane's tile coordinate (``coords``: ``(*batch, 32, rank)`` ints).

    ``axes`` names the batch axes (e.g. ``("warp", "k", "i")``); ``fn``/``ranges`` are kept when built by
    :meth:`from_fn` so a proof can restate the access symbolically; ``symbolic`` marks an access whose function
    holds :func:`layoutalg.prove.expr.param` parameters (no concrete coordinates: it can only be proved, see
    :func:`layoutalg.banks.proof.symbolic_access`).  ``run_mode`` (set by :func:`tile_access`) is the mode along
    which each lane's elements (its vector, or its ldmatrix row) lie in the tile: the analysis then checks that the
    layout keeps them contiguous in memory, as the instruction moves consecutive bytes (None: the coordinate is
    only where the lane's bytes start).
    """

    instruction: str
    coords: Any
    axes: tuple[str, ...] = ()
    fn: Callable[..., Any] | None = field(default=None, compare=False)
    ranges: tuple[tuple[str, int], ...] = ()
    symbolic: bool = False
    run_mode: int | None = None

    def __post_init__(self) -> None:
        import numpy as np

        parse_instruction(self.instruction)
        try:
            c = np.asarray(self.coords)
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            raise LayoutError(f"Access coords are not an array: {type(exc).__name__}") from None
        if c.dtype.kind not in "iu":
            raise LayoutError(f"Access coords must be integers, got dtype {c.dtype}")
        if c.ndim < 2 or c.shape[-2] != 32:
            raise LayoutError(f"Access coords must have shape (*batch, 32, rank), got {c.shape}")
        if len(self.axes) not in (0, c.ndim - 2):
            raise LayoutError(f"Access axes {self.axes} do not match the {c.ndim - 2} batch axes of coords")
        if self.run_mode is not None and (isinstance(self.run_mode, bool) or not isinstance(self.run_mode, int)
                                          or not 0 <= self.run_mode < c.shape[-1]):
            raise LayoutError(f"Access run_mode must be None or a mode of the coordinates (0 to {c.shape[-1] - 1}), "
                              f"got {describe(self.run_mode)}")
        object.__setattr__(self, "coords", c.astype(np.int64))
        if not self.axes:
            object.__setattr__(self, "axes", tuple(f"i{k}" for k in range(c.ndim - 2)))

    @classmethod
    def from_fn(cls, instruction: str, fn: Callable[..., Any], **ranges: int) -> Access:
        """Evaluate ``fn(lane, **params)`` over ``lane in [0, 32)`` and every ``params[name] in [0, ranges[name])``."""
        import numpy as np

        for name, extent in ranges.items():
            if isinstance(extent, bool) or not isinstance(extent, int) or extent <= 0:
                raise LayoutError(f"Access range {name}={describe(extent)} must be a positive int")
        names = list(ranges)
        shape = [ranges[n] for n in names] + [32]
        lanes = 1
        for extent in shape:
            lanes *= extent
        if lanes > MAX_ENUMERATED_LANES:
            raise LayoutError(f"Access.from_fn over {ranges} enumerates {lanes} lanes, more than the "
                              f"{MAX_ENUMERATED_LANES} it builds; prove a larger range with symbolic_access")
        # one broadcastable axis per argument (an open grid): fn's arithmetic broadcasts to the full grid
        axes = [np.arange(s, dtype=np.int64).reshape([s if j == k else 1 for j in range(len(shape))])
                for k, s in enumerate(shape)]
        lane = axes[-1]
        params = {n: g for n, g in zip(names, axes[:-1])}
        out = fn(lane, **params)
        if not isinstance(out, (tuple, list)):
            out = (out,)
        modes = []
        for k, o in enumerate(out):
            value = np.asarray(o)
            if value.dtype.kind not in "iub":  # int64 casting would truncate 2.5 to 2 without a word
                raise LayoutError(f"the access function returned {value.dtype} values for coordinate {k}; "
                                  "coordinates must be integers (use // rather than /)")
            try:
                modes.append(np.broadcast_to(value.astype(np.int64), tuple(shape)))
            except ValueError:
                raise LayoutError(f"the access function returned coordinate {k} of shape {value.shape}, which does "
                                  f"not broadcast to (*ranges, 32) = {tuple(shape)}") from None
        coords = np.stack(modes, axis=-1)
        return cls(instruction, coords, tuple(names), fn, tuple(ranges.items()))

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.coords.shape[:-2])

    @property
    def rank(self) -> int:
        return int(self.coords.shape[-1])

    @property
    def count(self) -> int:
        """Number of instruction instances."""
        n = 1
        for s in self.batch_shape:
            n *= s
        return n


def tile_access(instruction: str, shape: tuple[int, int], dtype: Any, by: str = "row", *, arch: Any = None) -> Access:
    """One sweep of a row-major-indexed ``rows x cols`` tile by ``instruction``.

    * ``ldmatrix``/``stmatrix .xN``: blocks of ``8*min(N,2)`` rows by ``(2 if N == 4 else 1)`` 16-byte columns;
      lane ``l`` supplies row ``l % 16`` (x4; ``l`` for x1/x2), column ``(l // 16) * E`` of its block, ``E``
      the elements in 16 bytes (CUTLASS's A-operand order for x4);
    * ``ld``/``st`` (and ``cp.async``, whose lanes are placed alike) of ``w`` bytes = ``v`` elements: ``by="row"``: lane ``l`` of instance ``i`` starts at
      element ``32*v*i + v*l`` in row-major order; ``by="column"``: lane ``l`` takes row ``32*r + l`` at
      column ``v*c`` (instances over row blocks ``r`` and column groups ``c``).

    ``arch`` (default sm_90) bounds the tile: a sweep of more bytes than a block's shared memory is refused
    before any coordinate is built (:mod:`layoutalg.banks.limits`).
    """
    import numpy as np

    from layoutalg.banks.limits import arch_of, check_sweep_size

    e = element_bytes(dtype)
    instruction = expand_short_form(instruction, e)
    ins = parse_instruction(instruction)
    by = {"row": "row", "col": "column"}.get(direction(by) or "", by)  # col / column / Column: one vocabulary
    if not (isinstance(shape, tuple) and len(shape) == 2
            and all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in shape)):
        raise LayoutError(f"tile shape must be (rows, cols) of positive ints, got {describe(shape)}")
    rows, cols = shape
    check_sweep_size(rows * cols, e, arch_of(arch), f"a {rows}x{cols} tile")
    lane = np.arange(32, dtype=np.int64)
    if ins.matrices:
        if 16 % e:
            raise LayoutError(f"{ins.canonical} moves 16-byte rows; {e}-byte elements do not fit")
        per_row = 16 // e
        n = ins.matrices
        br, bc = 8 * min(n, 2), per_row * (2 if n == 4 else 1)
        if rows % br or cols % bc:
            raise LayoutError(f"a {rows}x{cols} tile is not a whole number of {br}x{bc} {ins.kind}.x{n} blocks")
        r0 = np.arange(0, rows, br, dtype=np.int64)[:, None, None]
        c0 = np.arange(0, cols, bc, dtype=np.int64)[None, :, None]
        if n == 4:
            r, c = r0 + lane % 16, c0 + (lane // 16) * per_row
        else:
            r, c = r0 + lane % (8 * n), c0 + 0 * lane
        r, c = np.broadcast_arrays(r, c)
        coords = np.stack([r, c], axis=-1)
        return Access(instruction, coords, ("row_block", "col_block"), run_mode=1)
    if ins.access_bytes % e:
        raise LayoutError(f"{ins.canonical} moves {ins.access_bytes} bytes, not whole {e}-byte elements")
    v = ins.access_bytes // e
    if cols % v:
        raise LayoutError(f"{cols} columns do not split into {v}-element vectors")
    if by == "row":
        total = rows * cols
        if total % (32 * v):
            raise LayoutError(f"{total} elements are not a whole number of warp accesses of {32 * v} elements")
        flat = 32 * v * np.arange(total // (32 * v), dtype=np.int64)[:, None] + v * lane
        coords = np.stack([flat // cols, flat % cols], axis=-1)
        return Access(instruction, coords, ("instance",), run_mode=1)
    if by == "column":
        if rows % 32:
            raise LayoutError(f"a column sweep needs rows in multiples of 32 (one per lane), got {rows}")
        rb = np.arange(rows // 32, dtype=np.int64)[:, None, None]
        cg = np.arange(cols // v, dtype=np.int64)[None, :, None]
        r, c = np.broadcast_arrays(32 * rb + lane, v * cg + 0 * lane)
        return Access(instruction, np.stack([r, c], axis=-1), ("row_block", "col_group"), run_mode=1)
    raise LayoutError(f"by must be 'row' or 'column', got {describe(by)}")
