"""analyze / conflict_free read their layout arguments as the command line does (layoutalg.banks.inputs): layout
text in any notation, and global_ld=N for --global-ld N; the answers are the CLI's."""

from __future__ import annotations

import json

import pytest

from layoutalg.banks import analyze
from layoutalg.cli import main
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError
from layoutalg.prove import conflict_free

SW = "Sw<3,3,3> o 0 o (64,64):(64,1)"


@pytest.mark.parametrize("ld, total", [(4096, 64), (72, 168)])
def test_global_ld_is_the_clis_global_ld(ld: int, total: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["banks", SW, "--dtype", "f16", "--access", "cp.async.cg", "--global-ld", str(ld), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    got = analyze(SW, "cp.async.cg", "float16", global_ld=ld)
    assert got.total == total == cli["wavefronts"]
    assert got.total == analyze(SW, "cp.async.cg", "f16", global_layout=Layout((64, 64), (ld, 1))).total
    assert conflict_free(SW, "cp.async.cg", "f16", global_ld=ld).status == ("proved" if total == 64 else "refuted")


@pytest.mark.parametrize("text", ["(64,64):(64,1)", "Layout<Shape<_64,_64>,Stride<_64,_1>>", "Layout((64, 64),(64, 1))"])
def test_layout_text_is_read_as_the_cli_reads_it(text: str) -> None:
    assert analyze(text, "ldmatrix.x4", "f16").total == 512
    assert conflict_free(text, "ldmatrix.x4", "f16").status == "refuted"


def test_a_smem_atom_name_takes_its_width_from_dtype() -> None:
    assert conflict_free("Layout_K_SW128_Atom", "ld.shared.v4", "bf16").status == "proved"
    assert analyze("Layout_K_SW128_Atom", "ld.shared.v4", "bf16").excess == 0


def test_global_ld_and_global_layout_together_are_refused() -> None:
    with pytest.raises(LayoutError, match="give global_layout or global_ld, not both"):
        analyze(SW, "cp.async.cg", "f16", global_ld=64, global_layout=Layout((64, 64), (64, 1)))
    with pytest.raises(LayoutError, match="global_ld=32 needs a rank-2 tile whose row it covers"):
        analyze(SW, "cp.async.cg", "f16", global_ld=32)


def test_tile_to_is_the_clis_tile_to(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["banks", "Layout_K_SW128_Atom", "--dtype", "bf16", "--tile-to", "64x64", "--access", "stmatrix.x4",
                 "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    for tile in ((64, 64), "64x64"):
        assert analyze("Layout_K_SW128_Atom", "stmatrix.x4", "bf16", tile_to=tile).total == cli["wavefronts"] == 64
        assert conflict_free("Layout_K_SW128_Atom", "stmatrix.x4", "bf16", tile_to=tile).status == "proved"
    with pytest.raises(LayoutError, match=r"tile_to must be \(rows, cols\) of positive ints or 'MxN' text, got '64'"):
        analyze("Layout_K_SW128_Atom", "stmatrix.x4", "bf16", tile_to="64")


@pytest.mark.parametrize("by", ["column", "col", "Column", "columns"])
def test_by_and_along_share_one_vocabulary(by: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert analyze("(32,32):(32,1)", "ld.shared", "f32", by=by).total == 1024
    from layoutalg.banks import suggest_swizzle
    from layoutalg.prove import fragment_delivers

    assert suggest_swizzle((32, 32), "f32", ("ld.shared", by)).conflict_free
    assert fragment_delivers("ldmatrix.x4.trans", "(64,64):(64,1)", "mma.m16n8k16.f16", "B",
                             along=by.replace("Column", "col")).status == "proved"
    if by in ("col", "column"):
        assert main(["banks", "(32,32):(32,1)", "--dtype", "f32", "--access", "ld.shared", "--by", by, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["wavefronts"] == 1024
        assert main(["prove-fragment", "--copy", "ldmatrix.x4.trans", "--smem", "(64,64):(64,1)", "--mma",
                     "mma.m16n8k16.f16", "--operand", "B", "--along", by]) == 0


def test_conflict_free_checks_the_tile_against_the_arch_as_analyze_does() -> None:
    for f in (analyze, conflict_free):
        with pytest.raises(LayoutError, match="a 256x256 tile has 65536 = 2\\^16 elements .* on sm_86"):
            f("(256,256):(256,1)", "ld.shared.v4", "f16", arch="sm_86")
