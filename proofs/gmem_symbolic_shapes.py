"""Global-memory side of the sm80 cp.async mainloop, for every problem size (symbolic shapes).

Kernel pattern: A is a row-major ``M x K`` fp16 matrix with leading dimension
``lda``; CTA ``m_blk`` copies its ``128 x 64`` tile for k-tile ``k_tile`` with the
128-thread ``(16,8):(8,1)`` cp.async tiled copy (thread ``t``, iteration ``i``:
row ``16*i + t/8``, 8 halfs from column ``8*(t%8)``), so the source element
offset is::

    (m_blk*128 + 16*i + t/8) * lda + k_tile*64 + 8*(t%8)

The theorems are quantified over the leading dimension and the tile counts,
which are z3 variables with constraints (ranges, ``lda % 8 == 0``).
"""

from __future__ import annotations

from layoutalg.prove import aligned, in_bounds, param, theorem

THREADS = {"thread": 128, "iter": 8}


def source(m_blk: object, k_tile: object, lda: object) -> object:
    def offset(thread: object, it: object) -> object:
        return (m_blk * 128 + 16 * it + thread // 8) * lda + k_tile * 64 + 8 * (thread % 8)

    return offset


@theorem
def cp_async_sources_16b_aligned_when_lda_is_a_multiple_of_8():
    """Every cp.async.cg 16-byte source address is 16-byte aligned for every CTA, k-tile, thread and
    iteration, for every leading dimension that is a multiple of 8 halfs (and a 16-byte-aligned base)."""
    lda = param("lda", lo=64, hi=1 << 16, multiple_of=8)
    m_blk, k_tile = param("m_blk", 1 << 10), param("k_tile", 1 << 10)
    return aligned(source(m_blk, k_tile, lda), 16, THREADS, element_bytes=2, name="gmem_offset")


@theorem(expect="refuted")
def cp_async_sources_misaligned_for_general_lda():
    """Without ``lda % 8 == 0`` (e.g. K = 100 halfs, unpadded) some 16-byte source is misaligned: refuted,
    with the leading dimension, CTA and thread where it happens."""
    lda = param("lda", lo=64, hi=1 << 16)
    m_blk, k_tile = param("m_blk", 1 << 10), param("k_tile", 1 << 10)
    return aligned(source(m_blk, k_tile, lda), 16, THREADS, element_bytes=2, name="gmem_offset")


@theorem
def cp_async_sources_in_bounds_for_every_tile_count():
    """For every tile count ``m_tiles x k_tiles`` (M = 128 m_tiles, K = 64 k_tiles, lda = K) and every
    CTA ``m_blk < m_tiles`` and k-tile ``k_tile < k_tiles``, every element read lies in ``[0, M*K)``."""
    m_tiles, k_tiles = param("m_tiles", lo=1, hi=1 << 12), param("k_tiles", lo=1, hi=1 << 12)
    m_blk, k_tile = param("m_blk", 1 << 12), param("k_tile", 1 << 12)
    lda = k_tiles * 64
    read = source(m_blk, k_tile, lda)
    return in_bounds(
        lambda thread, it, v: read(thread, it) + v,
        m_tiles * 128 * lda,
        {"thread": 128, "iter": 8, "v": 8},
        name="gmem_offset",
        where=lambda thread, it, v: (m_blk < m_tiles) & (k_tile < k_tiles),
    )


def _residue_read(m_blk: object, k_tile: object, lda: object) -> object:
    read = source(m_blk, k_tile, lda)
    return lambda thread, it, v: read(thread, it) + v


@theorem
def predicated_cp_async_stays_in_bounds_for_any_m():
    """M-residue handling: with ``M`` arbitrary (not a multiple of 128), the last CTA's cp.async rows are
    predicated on ``row < M`` (CUTLASS's predicated tile iterator / ``cp.async`` zfill); every load that
    is issued stays inside the ``M x K`` matrix, for every M, K (multiple of 64) and CTA."""
    m, k_tiles = param("M", lo=1, hi=1 << 16), param("k_tiles", lo=1, hi=1 << 10)
    m_blk, k_tile = param("m_blk", 1 << 9), param("k_tile", 1 << 10)
    lda = k_tiles * 64
    return in_bounds(
        _residue_read(m_blk, k_tile, lda),
        m * lda,
        {"thread": 128, "iter": 8, "v": 8},
        name="gmem_offset",
        where=lambda thread, it, v: (m_blk * 128 + 16 * it + thread // 8 < m) & (k_tile < k_tiles),
    )


@theorem(expect="refuted")
def unpredicated_cp_async_reads_past_the_end_when_m_is_not_a_tile_multiple():
    """The same loads without the ``row < M`` predicate (only ``m_blk < ceil(M / 128)``) read past the end
    of A when M is not a multiple of 128: refuted, with M, the CTA and the thread that overruns."""
    m, k_tiles = param("M", lo=1, hi=1 << 16), param("k_tiles", lo=1, hi=1 << 10)
    m_blk, k_tile = param("m_blk", 1 << 9), param("k_tile", 1 << 10)
    lda = k_tiles * 64
    return in_bounds(
        _residue_read(m_blk, k_tile, lda),
        m * lda,
        {"thread": 128, "iter": 8, "v": 8},
        name="gmem_offset",
        where=lambda thread, it, v: (m_blk * 128 < m) & (k_tile < k_tiles),
    )
