"""The CUTLASS sm80 fp16 GEMM shared-memory layout and its cp.async producer, for every thread and k-tile.

Kernel pattern (CUTLASS ``DefaultGemmConfigurationSm80`` / CuTe ``sgemm_sm80``
style): a K-major 128 x 64 half tile per stage,

    SmemLayoutAtom = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})
    SmemLayoutA    = tile_to_shape(SmemLayoutAtom{}, Shape<_128,_64>{})       (x STAGES = 3 buffers)
    GmemTiledCopyA = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, half_t>{},
                                     Layout<Shape<_16,_8>, Stride<_8,_1>>{},   // 128 threads, row-major
                                     Layout<Shape< _1,_8>>{})                  // 8 halfs = 16 bytes each

so thread ``t`` in copy iteration ``i`` (of 8) writes the 8 halfs of row
``16*i + t/8``, columns ``8*(t%8) .. +7``, into stage ``k_tile % 3``.
``tile_to_shape`` (``layoutalg.atoms.smem``, CuTe's default column-major tile order)
gives ``Sw<3,3,3> o (128,64):(64,1)``; the first theorem also checks it against
the explicit ``blocked_product(atom, (16,1))`` form.
"""

from __future__ import annotations

from layoutalg.atoms.smem import sm80_atom, tile_to_shape
from layoutalg.core.divide_product import blocked_product
from layoutalg.core.layout import Layout
from layoutalg.prove import aligned, bijective_onto, contiguous, disjoint, equivalent, in_bounds, param, sym, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

ATOM = sm80_atom(3)  # Sw<3,3,3> o (8,64):(64,1), halfs
TILE = tile_to_shape(ATOM, (128, 64))
BLOCKED = ComposedLayout(Swizzle(3, 3, 3), 0, blocked_product(Layout((8, 64), (64, 1)), Layout((16, 1))))
TILE_ELEMS = 128 * 64
STAGES = 3
COPY = {"thread": 128, "iter": 8, "v": 8}


def row_col(thread: object, it: object, v: object) -> tuple[object, object]:
    """The (row, col) of the tile that thread ``thread`` copies in iteration ``it``, element ``v``."""
    return 16 * it + thread // 8, 8 * (thread % 8) + v


def smem_write(k_tile: object) -> object:
    S = sym(TILE)

    def offset(thread: object, it: object, v: object) -> object:
        row, col = row_col(thread, it, v)
        return (k_tile % STAGES) * TILE_ELEMS + S(row, col)

    return offset


@theorem
def sm80_smem_tile_is_a_bijection_onto_its_buffer():
    """Sw<3,3,3> o (8,64):(64,1) tiled to 128 x 64 maps its 8192 (row, col) positions one-to-one onto
    the 8192 halfs of one stage buffer (no element lost or written twice); tile_to_shape's result is the
    same function as the explicit blocked product."""
    return [bijective_onto(TILE, TILE_ELEMS), equivalent(TILE, BLOCKED, {"row": 128, "col": 64}, names=("tile_to_shape", "blocked_product"))]


@theorem
def sm80_cp_async_covers_the_tile_exactly_once():
    """The 128-thread x 8-iteration x 8-element cp.async tiled copy writes every element of the stage
    buffer exactly once."""
    S = sym(TILE)
    return bijective_onto(lambda thread, it, v: S(*row_col(thread, it, v)), TILE_ELEMS, COPY)


@theorem
def sm80_cp_async_16b_writes_aligned_contiguous_in_bounds_every_k_tile():
    """For every thread, iteration and k-tile (symbolic, 3-stage ring buffer): each cp.async 16-byte
    destination is 16-byte aligned, its 8 halfs are contiguous in shared memory (one vector write),
    and every write lands inside the 3 x 8192-half buffer."""
    k_tile = param("k_tile", 1 << 16)
    write = smem_write(k_tile)
    return [
        aligned(lambda thread, it: write(thread, it, 0), 16, {"thread": 128, "iter": 8}, element_bytes=2, name="smem_offset"),
        contiguous(write, 8, COPY, along="v", name="smem_offset"),
        in_bounds(write, STAGES * TILE_ELEMS, COPY, name="smem_offset"),
    ]


@theorem
def sm80_pipeline_producer_never_overwrites_the_stage_being_read():
    """Multistage mainloop: while the warps read stage ``k_tile % 3`` (ldmatrix), cp.async fills the
    tile ``k_tile + 2`` into stage ``(k_tile + 2) % 3``; the two sets of offsets never overlap."""
    k_tile = param("k_tile", 1 << 16)
    return disjoint(
        smem_write(k_tile + 2),
        smem_write(k_tile),
        COPY,
        names=("cp_async_writes", "ldmatrix_reads"),
    )


@theorem(expect="refuted")
def two_stage_prefetch_distance_overwrites_the_stage_being_read():
    """With 3 stages, prefetching 3 tiles ahead (``k_tile + 3``) lands in the stage being read: refuted."""
    k_tile = param("k_tile", 1 << 16)
    return disjoint(smem_write(k_tile + 3), smem_write(k_tile), COPY, names=("cp_async_writes", "ldmatrix_reads"))


@theorem
def sm80_swizzle_atom_keeps_16_byte_chunks():
    """Every aligned run of 8 halfs (16 bytes) of the Sw<3,3,3> atom is contiguous: the swizzle only
    permutes whole 16-byte chunks, which is what both cp.async.16 and ldmatrix rows need."""
    return contiguous(ATOM, 8, {"row": 8, "col": 64}, along="col")


@theorem(expect="refuted")
def swizzle_3_2_3_atom_splits_16_byte_chunks():
    """The same atom with Swizzle<3,2,3> (4-half units) breaks 16-byte runs: a 16-byte vector access
    would read two separate 8-byte pieces."""
    atom = ComposedLayout(Swizzle(3, 2, 3), 0, Layout((8, 64), (64, 1)))
    return contiguous(atom, 8, {"row": 8, "col": 64}, along="col")
