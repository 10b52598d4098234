"""Text tables: print_layout-style and T#V# tables, read back cell by cell and checked independently."""

from __future__ import annotations

import doctest

import pytest

import layoutalg.viz.text as text
from layoutalg import atoms
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def parse(table: str) -> dict[tuple[int, int], str]:
    """Cells of a boxed table: {(row, col): text}."""
    cells = {}
    for line in table.splitlines():
        if "|" not in line:
            continue
        head, *body = line.split("|")
        row = int(head.strip())
        for col, cell in enumerate(body[:-1]):
            cells[(row, col)] = cell.strip()
    return cells


def test_docstring_example():
    assert doctest.testmod(text, extraglobs={"Layout": Layout}).failed == 0


def test_layout_table_cells_are_the_layout():
    cells = parse(text.layout_table(Layout(((2, 2), 3), ((1, 6), 2))))
    assert len(cells) == 4 * 3
    for m in range(4):
        for n in range(3):
            assert int(cells[(m, n)]) == (m % 2) * 1 + (m // 2) * 6 + n * 2


def test_layout_table_of_a_swizzled_layout():
    lay = ComposedLayout(Swizzle(2, 0, 2), 0, Layout((4, 4), (4, 1)))
    cells = parse(text.layout_table(lay))
    for m in range(4):
        for n in range(4):
            x = 4 * m + n
            assert int(cells[(m, n)]) == x ^ ((x >> 2) & 3)


def test_rank1_is_a_column_and_rank3_is_refused():
    cells = parse(text.layout_table(Layout(5, 3)))
    assert [int(cells[(m, 0)]) for m in range(5)] == [0, 3, 6, 9, 12]
    with pytest.raises(LayoutError):
        text.layout_table(Layout((2, 2, 2)))


def test_tv_table_of_the_m16n8k16_accumulator_is_the_ptx_picture():
    cells = parse(text.atom_table(atoms.get("SM80_16x8x16_F32F16F16F32_TN"), "C"))
    assert len(cells) == 16 * 8
    for (m, n), label in cells.items():
        t, v = (int(x) for x in label[1:].split("V"))
        # PTX ISA: c_i of lane l sits at row groupID + 8*(i >= 2), col 2*(l % 4) + (i & 1)
        assert (m, n) == ((t >> 2) + 8 * (v >= 2), 2 * (t % 4) + (v & 1))


def test_tv_table_uses_thr_id_and_marks_broadcasts():
    # sm70 quad pair: logical threads 4..7 are lanes 16..19
    labels = set(parse(text.atom_table(atoms.get("SM70_8x8x4_F16F16F16F16_TN"), "A")).values())
    assert {f"T{lane}V0" for lane in (0, 1, 2, 3, 16, 17, 18, 19)} <= labels
    # ldmatrix .x1 source: lanes 8..31 repeat lanes 0..7 (stride 0), so every cell is shared
    cells = parse(text.atom_table(atoms.ldmatrix(1), "src", 16))
    assert all(c.endswith("+") for c in cells.values()) and len(cells) == 64


def test_tv_table_rejects_indices_outside_the_tile():
    with pytest.raises(LayoutError, match="outside"):
        text.tv_table(Layout((4, 2), (1, 4)), (2, 2))
    with pytest.raises(LayoutError):
        text.tv_table(Layout(8), (2, 4))


def test_partition_table_lists_every_value():
    mma = atoms.make_tiled_mma(atoms.get("SM80_16x8x8_F32F16F16F32_TN"))
    part = mma.get_slice(5).partition_C(Layout((16, 8), (8, 1)))
    out = text.partition_table(part)
    assert out.count("\n") == 2 + part.size()
    # lane 5: groupID 1, threadID_in_group 1 -> (1, 2), (1, 3), (9, 2), (9, 3); row-major offsets 8*m + n
    assert "(1, 2)      10" in out and "(9, 3)      75" in out


def test_the_module_docstring_example_runs() -> None:
    import doctest

    import layoutalg.viz.text as module

    result = doctest.testmod(module)
    assert result.attempted and not result.failed
