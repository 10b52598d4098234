"""The LAYOUT reader every command shares (layoutalg.cli.common.parse_layout): a Triton shared layout that carries
no shape takes it from the option the hint names (show/convert --tile, banks/prove-fragment/show --tile-to), and
--tv reads every notation LAYOUT reads."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from layoutalg.cli import main

NVMMA = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
LINEAR = "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv, option", [
    (["convert", NVMMA], "--tile"), (["show", SWIZZLED], "--tile"),
    (["banks", NVMMA, "--dtype", "f16", "--access", "ldmatrix.x4"], "--tile-to"),
])
def test_a_shapeless_triton_layout_is_read_with_the_option_its_hint_names(argv: list[str], option: str) -> None:
    code, _, err = run(*argv)
    assert code == 2 and f"hint: give the tensor shape with {option} MxN, e.g. {option} 64x64" in err
    code, out, err = run(*argv, option, "64x64")
    assert code == 0, err
    assert "Sw<3,3,3> o _0 o (64,64):(64,1)" in out


def test_prove_fragment_reads_a_triton_smem_layout_with_tile_to() -> None:
    code, out, err = run("prove-fragment", "--copy", "ldmatrix.x4.trans", "--smem", NVMMA, "--tile-to", "64x64",
                         "--mma", "mma.m16n8k16.f16", "--operand", "B")
    assert code == 0, err
    assert out.startswith("proved:")


@pytest.mark.parametrize("tv", [LINEAR, "Layout(((4, 8), (2, 2)),((32, 1), (16, 8)))"])
def test_show_tv_reads_triton_and_pycute_text_as_a_tv_layout(tv: str) -> None:
    code, out, err = run("show", "--tv", tv, "--tile", "16x8")
    assert code == 0, err
    assert out.startswith("((4,8),(2,2)):((32,1),(16,8)) (16x8)")


@pytest.mark.parametrize("argv", [
    ["show", "Sw<3,3,3>"], ["show", "SW_3_3_3", "--tile-to", "8x64"], ["show", "S<3,3,3>", "--svg", "x.svg"],
    ["banks", "Swizzle<3,3,3>", "--dtype", "f16", "--access", "ldmatrix.x4"],
    ["prove-fragment", "--copy", "ldmatrix.x4", "--smem", "Sw<3,3,3>", "--mma", "mma.m16n8k16.f16", "--operand", "A"],
])
def test_a_bare_swizzle_where_a_layout_is_needed_is_a_usage_error_not_a_traceback(argv: list[str]) -> None:
    code, _, err = run(*argv)
    assert code == 2 and "is a bare swizzle" in err and "hint: compose it with the layout it swizzles" in err


@pytest.mark.parametrize("argv", [["show", "():()"], ["banks", "():()", "--dtype", "f16", "--access", "ldmatrix.x4"]])
def test_a_rank_0_layout_is_a_usage_error_not_a_traceback(argv: list[str]) -> None:
    code, _, err = run(*argv)
    assert code == 2 and "has no modes (rank 0)" in err


def test_a_parse_error_in_text_of_several_lines_names_the_line_and_shows_it_with_the_caret() -> None:
    code, _, err = run("convert", "(8,64):(64,1)\n(4,4):(4,1)")
    assert code == 2
    assert "unexpected text after the layout at line 2, column 1\n    (4,4):(4,1)\n    ^\n" in err


@pytest.mark.parametrize("name", ["SM75_U16x8_LDSM_T", "ldmatrix.x4", "mma.m16n8k16.f16"])
def test_an_atom_given_as_layout_is_pointed_to_show_tv(name: str) -> None:
    code, _, err = run("show", name)
    assert code == 2 and f"hint: {name} names an instruction atom, not a layout: draw its thread-value layouts with " \
        f"layoutalg show --tv {name}" in err
