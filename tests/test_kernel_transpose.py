"""The classic 32x32 transpose through shared memory, compiled by nvcc (PTX committed in tests/data).

Expected counts by hand: a CTA of 32x8 threads runs 4 loop iterations, 8 warps each; a warp's
row store (lane i -> word i) is one wavefront; the unpadded column read (lane i -> word 32 i,
all in bank 0) is 32 wavefronts, the padded one (word 33 i, banks i) one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutalg.kernel import trace
from layoutalg.kernel.counters import INST_LD, INST_ST, LD_CONFLICTS, LD_WAVEFRONTS, ST_WAVEFRONTS

PTX = Path(__file__).parent / "data" / "kernel_trace" / "transpose.ptx"
GRID = (2, 3)
WARPS = GRID[0] * GRID[1] * 8 * 4  # CTAs x warps per CTA x loop iterations


def test_unpadded_column_reads_cost_32_wavefronts_per_warp() -> None:
    t = trace(PTX, kernel="transpose_naive", grid=GRID, block=(32, 8), args={2: 64})
    c = t.counters
    assert c[ST_WAVEFRONTS] == WARPS
    assert c[LD_WAVEFRONTS] == 32 * WARPS
    assert c[LD_CONFLICTS] == 31 * WARPS
    assert c[INST_LD] == c[INST_ST] == WARPS
    assert t.complete


def test_padding_by_one_word_removes_every_conflict() -> None:
    t = trace(PTX, kernel="transpose_padded", grid=GRID, block=(32, 8), args={2: 64})
    assert t.counters[LD_WAVEFRONTS] == WARPS
    assert t.counters[LD_CONFLICTS] == 0
    assert all(s.excess == 0 for s in t.instructions)


def test_report_names_source_lines_and_worst_bank() -> None:
    t = trace(PTX, kernel="transpose_naive", grid=1, block=(32, 8), args={2: 32})
    load = next(s for s in t.instructions if s.kind == "ld")
    assert str(load.site).endswith("transpose.cu:14")
    example = load.as_dict()["example"]
    assert example["ways"] == 32 and example["bank"] == 0
    assert "transpose.cu:14" in t.report()


@pytest.mark.parametrize("ctas", [[(0, 0)], [(1, 2), (0, 1)]])
def test_tracing_chosen_ctas_counts_only_those(ctas: list[tuple[int, int]]) -> None:
    t = trace(PTX, kernel="transpose_naive", grid=GRID, block=(32, 8), args={2: 64}, ctas=ctas)
    assert t.counters[LD_WAVEFRONTS] == 32 * 8 * 4 * len(ctas)


def test_batches_of_ctas_give_the_same_counts_as_one_batch() -> None:
    whole = trace(PTX, kernel="transpose_naive", grid=GRID, block=(32, 8), args={2: 64})
    batched = trace(PTX, kernel="transpose_naive", grid=GRID, block=(32, 8), args={2: 64}, batch_threads=256)
    assert whole.counters == batched.counters
    assert sorted(int(w) for r in whole.accesses for w in r.warps) == \
        sorted(int(w) for r in batched.accesses for w in r.warps)


def test_the_suggested_swizzle_makes_every_recorded_column_read_conflict_free() -> None:
    import layoutalg.banks as banks
    from layoutalg.swizzle import Swizzle

    t = trace(PTX, kernel="transpose_naive", grid=1, block=(32, 8), args={2: 32})
    load = next(s for s in t.instructions if s.kind == "ld")
    assert load.suggested_swizzle == (5, 2, 5)  # XOR the word-in-row bits with the row bits: CuTe's Swizzle<5,0,5>
    sw = Swizzle(*load.suggested_swizzle)
    base = t.shared_layout[next(iter(t.shared_layout))]
    for rec in t.accesses:
        if rec.index == load.index:
            for row in rec.smem:
                moved = [base + sw(int(a) - base) for a in row]
                assert banks.wavefronts(load.model_text, moved) == 1
