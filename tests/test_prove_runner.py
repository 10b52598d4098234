"""``layoutalg prove``: collection, the table, --json, exit codes, progress, and the shipped proofs/ library."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from layoutalg.prove import runner
from layoutalg.prove.theorem import theorem

PROOFS = Path(__file__).resolve().parent.parent / "proofs"

GOOD = '''
from layoutalg.core.layout import Layout
from layoutalg.prove import equivalent, injective, theorem

@theorem
def row_major_is_injective():
    """A row-major 4x8 tile."""
    return injective(Layout((4, 8), (8, 1)), {"row": 4, "col": 8})

@theorem(expect="refuted")
def row_major_is_not_column_major():
    return equivalent(Layout((4, 8), (8, 1)), Layout((4, 8), (1, 4)), {"row": 4, "col": 8})
'''

WRONG_EXPECTATION = '''
from layoutalg.core.layout import Layout
from layoutalg.prove import injective, theorem

@theorem
def broadcast_is_injective():
    return injective(Layout((4, 8), (0, 1)), {"lane": 4, "v": 8})
'''

RAISES = '''
from layoutalg.prove import theorem

@theorem
def broken():
    raise RuntimeError("bug in the theorem file")

@theorem
def returns_nonsense():
    return 42
'''


def write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(textwrap.dedent(text))
    return p


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = runner.run_cli(argv, out=out, err=err)
    return rc, out.getvalue(), err.getvalue()


def test_a_folder_without_theorem_files_says_the_rule(tmp_path: Path) -> None:
    write(tmp_path, "tiles.py", GOOD)  # not thm_*/_thm and not under proofs/
    rc, _, err = run([str(tmp_path)])
    assert rc == 2 and "thm_*.py" in err
    rc, _, _ = run([str(tmp_path / "tiles.py")])  # given by name, it runs
    assert rc == 0


def test_table_and_exit_zero_when_outcomes_match(tmp_path: Path) -> None:
    write(tmp_path, "thm_tiles.py", GOOD)
    rc, out, _ = run([str(tmp_path)])
    assert rc == 0
    header = out.splitlines()[0].split()
    assert header == ["theorem", "status", "expected", "seconds", "method", "counterexample"]
    assert "row_major_is_injective" in out and "row_major_is_not_column_major" in out
    assert "row=" in out and "col=" in out  # the refuted one's counterexample, in the file's own names
    assert "2/2 theorems as expected" in out


def test_json_keys_and_values(tmp_path: Path) -> None:
    write(tmp_path, "thm_tiles.py", GOOD)
    rc, out, _ = run([str(tmp_path), "--json"])
    assert rc == 0
    rows = json.loads(out)
    keys = {"theorem", "file", "line", "status", "expected", "seconds", "method", "counterexample", "error"}
    assert [set(r) for r in rows] == [keys] * 2
    by_name = {r["theorem"]: r for r in rows}
    source = textwrap.dedent(GOOD).splitlines()
    for name, row in by_name.items():
        assert row["file"] == str(tmp_path / "thm_tiles.py") and row["error"] is None
        # the theorem's line is its decorator's, followed by its def
        assert source[row["line"] - 1].startswith("@theorem") and source[row["line"]] == f"def {name}():"
    refuted = by_name["row_major_is_not_column_major"]
    assert refuted["status"] == refuted["expected"] == "refuted"
    cex = refuted["counterexample"]
    assert 8 * cex["row"] + cex["col"] != cex["row"] + 4 * cex["col"]
    assert by_name["row_major_is_injective"]["counterexample"] is None


def test_exit_nonzero_when_an_outcome_differs(tmp_path: Path) -> None:
    write(tmp_path, "thm_a.py", GOOD)
    write(tmp_path, "thm_b.py", WRONG_EXPECTATION)
    rc, out, _ = run([str(tmp_path)])
    assert rc == 1
    assert "EXPECTED PROVED" in out and "broadcast_is_injective" in out
    assert "lane'=" in out  # the two colliding points


def test_errors_in_theorems_are_reported_and_fail(tmp_path: Path) -> None:
    write(tmp_path, "thm_raises.py", RAISES)
    rc, out, _ = run([str(tmp_path / "thm_raises.py"), "--json"])
    rows = json.loads(out)
    assert rc == 1
    assert [r["status"] for r in rows] == ["error", "error"]


def test_unloadable_file_and_no_theorems(tmp_path: Path) -> None:
    write(tmp_path, "thm_syntax.py", "def oops(:\n")
    rc, _, err = run([str(tmp_path)])
    assert rc == 2 and "cannot load" in err and "thm_syntax.py:1:" in err
    rc, _, err = run([str(tmp_path / "missing")])
    assert rc == 2 and "no such file" in err


BREAKS_ON_LINE_4 = '''
from layoutalg.prove import theorem

undefined_name + 1

@theorem
def never_runs():
    raise AssertionError
'''


def test_a_file_that_does_not_load_is_an_error_in_text_and_json(tmp_path: Path) -> None:
    """Two good theorems and one broken file: exit 2, and the broken file is named with its line in both outputs
    (the summary never says all is as expected)."""
    write(tmp_path, "thm_tiles.py", GOOD)
    write(tmp_path, "thm_broken.py", BREAKS_ON_LINE_4)
    broken = str(tmp_path / "thm_broken.py")
    rc, out, err = run([str(tmp_path)])
    assert rc == 2
    assert f"{broken}:4: NameError" in out and f"cannot load {broken}:4" in err
    assert "ERROR: 1 file did not load" in out.splitlines()[-1]
    rc, out, _ = run([str(tmp_path), "--json"])
    assert rc == 2
    rows = json.loads(out)
    failed = [r for r in rows if r["theorem"] is None]
    assert len(rows) == 3 and len(failed) == 1
    assert failed[0]["file"] == broken and failed[0]["line"] == 4 and failed[0]["status"] == "error"
    assert failed[0]["error"].startswith("NameError")
    assert {r["file"] for r in rows if r["theorem"]} == {str(tmp_path / "thm_tiles.py")}


def test_load_error_line_is_the_last_frame_in_the_file(tmp_path: Path) -> None:
    """An exception raised in a helper module is located at the theorem file's line that called it."""
    write(tmp_path, "helper.py", "def explode():\n    raise ValueError('inside the helper')\n")
    write(tmp_path, "thm_calls.py", "import helper\n\n\nhelper.explode()\n")
    rc, out, _ = run([str(tmp_path / "thm_calls.py"), "--json"])
    row = json.loads(out)[0]
    assert rc == 2 and row["line"] == 4 and "inside the helper" in row["error"]


def test_collection_skips_private_and_non_theorem_files_and_selects(tmp_path: Path) -> None:
    write(tmp_path, "_helpers.py", "raise RuntimeError('must not be imported')\n")
    write(tmp_path, "script.py", "raise RuntimeError('not a theorem file: must not be imported')\n")
    sub = tmp_path / "proofs"
    sub.mkdir()
    write(sub, "more.py", GOOD)
    files = runner.theorem_files([str(tmp_path)])
    assert [f.name for f in files] == ["more.py"]
    rc, out, _ = run([str(tmp_path), "-k", "injective", "--json"])
    assert rc == 0 and [r["theorem"] for r in json.loads(out)] == ["row_major_is_injective"]


def test_progress_goes_to_stderr(tmp_path: Path) -> None:
    write(tmp_path, "thm_tiles.py", GOOD)
    rc, out, err = run([str(tmp_path), "--progress", "--json"])
    assert rc == 0
    assert "[2/2]" in err and "[" not in out.splitlines()[0][1:]  # stdout stays pure JSON
    json.loads(out)


def test_timeout_option_reaches_the_solver(tmp_path: Path) -> None:
    write(
        tmp_path,
        "thm_hard.py",
        '''
        from layoutalg.prove import forall, theorem, var

        @theorem
        def factoring_is_hard():
            x, y = var("x", lo=2, hi=1 << 31), var("y", lo=2, hi=1 << 31)
            return forall(x * y != 1073741789 * 1073741783, [x, y], method="z3")
        ''',
    )
    rc, out, _ = run([str(tmp_path), "--json", "--timeout", "0.05"])
    assert rc == 1 and json.loads(out)[0]["status"] == "unknown"
    assert run([str(tmp_path), "--timeout", "-1"])[0] == 2


def test_theorem_decorator_rejects_bad_expectations() -> None:
    from layoutalg.errors import ProofError

    with pytest.raises(ProofError, match="expect"):
        theorem(expect="maybe")


def test_shipped_proofs_all_meet_their_expectations() -> None:
    """``layoutalg prove proofs/``: the README's main command exits 0; refuted theorems show counterexamples."""
    rc, out, _ = run([str(PROOFS), "--json"])
    rows = json.loads(out)
    assert rc == 0, [r for r in rows if r["status"] != r["expected"]]
    assert len(rows) >= 12
    refuted = [r for r in rows if r["expected"] == "refuted"]
    assert len(refuted) >= 4
    for r in refuted:
        assert r["counterexample"], r
    names = {r["theorem"] for r in rows}
    for required in (
        "ldmatrix_x4_gives_mma_m16n8k16_a_fragment",
        "ldmatrix_x4_trans_gives_two_mma_b_fragments",
        "ldmatrix_x2_without_trans_is_not_the_b_fragment",
        "ldmatrix_x4_breaks_under_swizzle_3_2_3",
        "stmatrix_x4_writes_the_f16_accumulators_row_major",
        "movmatrix_trans_turns_accumulator_into_b_fragment",
        "sm80_smem_tile_is_a_bijection_onto_its_buffer",
        "k_sw128_bf16_tile_equals_wgmma_descriptor_addresses",
        "cp_async_sources_in_bounds_for_every_tile_count",
    ):
        assert required in names


def test_shipped_proofs_have_docstrings_naming_the_pattern() -> None:
    for path in sorted(PROOFS.glob("*.py")):
        if path.name.startswith("_"):
            continue
        module = runner.load_module(path)
        assert (module.__doc__ or "").strip(), path
        for t in runner.theorems_in(module):
            assert t.doc, f"{path.name}:{t.name} has no docstring"
