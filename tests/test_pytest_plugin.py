"""The pytest plugin: theorem files become test items; helpers fail with counterexamples in kernel terms."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from layoutalg.core.layout import Layout
from layoutalg.pytest_plugin import (
    assert_bijective,
    assert_equivalent,
    assert_fragment,
    assert_injective,
    is_theorem_file,
)
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

pytest_plugins = ["pytester"]

THEOREMS = '''
from layoutalg.core.layout import Layout
from layoutalg.prove import equivalent, injective, theorem

@theorem
def holds():
    """A row-major tile is injective."""
    return injective(Layout((4, 8), (8, 1)), {"row": 4, "col": 8})

@theorem(expect="refuted")
def refuted_as_expected():
    return equivalent(Layout((4, 8), (8, 1)), Layout((4, 8), (1, 4)), {"row": 4, "col": 8})

@theorem
def wrongly_expected():
    return injective(Layout((4, 8), (0, 1)), {"lane": 4, "v": 8})
'''


def test_collection_rule() -> None:
    assert is_theorem_file(Path("repo/proofs/ldmatrix.py"))
    assert is_theorem_file(Path("repo/proofs/sub/banks_sm80.py"))
    assert is_theorem_file(Path("kernels/thm_swizzle.py"))
    assert is_theorem_file(Path("kernels/swizzle_thm.py"))
    assert not is_theorem_file(Path("repo/proofs/_ptx.py"))
    assert not is_theorem_file(Path("repo/proofs/test_x.py"))
    assert not is_theorem_file(Path("repo/proofs/conftest.py"))
    assert not is_theorem_file(Path("repo/kernels/gemm.py"))
    assert not is_theorem_file(Path("repo/proofs/notes.txt"))
    # folders count from the base: a checkout under some "proofs" folder is not all theorems
    assert not is_theorem_file(Path("/x/proofs/repo/kernels/gemm.py"), Path("/x/proofs/repo"))
    assert is_theorem_file(Path("/x/proofs/repo/proofs/gemm.py"), Path("/x/proofs/repo"))
    assert is_theorem_file(Path("/x/repo/proofs/gemm.py"), Path("/x/repo/proofs"))


def test_theorem_files_run_as_pytest_items(pytester: pytest.Pytester) -> None:
    proofs = pytester.mkdir("proofs")
    (proofs / "tiles.py").write_text(textwrap.dedent(THEOREMS))
    result = pytester.runpytest("proofs", "-v", "--layoutalg-proofs")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*holds PASSED*", "*refuted_as_expected PASSED*", "*wrongly_expected FAILED*"])
    out = result.stdout.str()
    assert "expected proved, got refuted" in out
    assert "lane'=" in out  # the two colliding points of the counterexample


def test_thm_prefix_collected_anywhere_when_asked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(thm_small=textwrap.dedent(THEOREMS).replace("@theorem\ndef wrongly", "def wrongly"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--layoutalg-proofs")
    result.assert_outcomes(passed=2)


def test_collection_is_opt_in(pytester: pytest.Pytester) -> None:
    """Installing layoutalg changes nothing in another project's test run: its proofs/ folders and thm_*.py
    files are not collected (nor imported) unless the run asks."""
    proofs = pytester.mkdir("proofs")
    (proofs / "tiles.py").write_text("raise RuntimeError('imported without being asked')\n")
    pytester.makepyfile(thm_small="raise RuntimeError('imported without being asked')\n",
                        test_plain="def test_ok():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "imported without being asked" not in result.stdout.str()


def test_ini_option_collects_only_the_listed_folders(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nlayoutalg_proofs = kernels/proofs\n")
    listed = pytester.mkdir("kernels")
    (listed / "proofs").mkdir()
    (listed / "proofs" / "tiles.py").write_text(textwrap.dedent(THEOREMS))
    other = pytester.mkdir("vendor")
    (other / "proofs").mkdir()
    (other / "proofs" / "broken.py").write_text("raise RuntimeError('not a listed folder')\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=2, failed=1)
    assert "not a listed folder" not in result.stdout.str()


def test_helpers_pass_on_true_claims() -> None:
    sw = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
    assert assert_bijective(sw).proved
    assert assert_injective(Layout((4, 8), (8, 1))).proved
    assert assert_equivalent(Layout((4, 8), (8, 1)), Layout(((2, 2), 8), ((8, 16), 1))).proved


def test_helpers_fail_with_the_counterexample() -> None:
    with pytest.raises(AssertionError, match=r"at row=\d+, col=\d+: lhs=\d+ but rhs=\d+"):
        assert_equivalent(Layout((4, 8), (8, 1)), Layout((4, 8), (1, 4)), {"row": 4, "col": 8})
    with pytest.raises(AssertionError, match="outside"):
        assert_bijective(Layout((8, 64), (64, 2)))


def test_assert_fragment_on_tv_layouts() -> None:
    """CuTe's m16n8k16 C layout vs the PTX formula; then vs a deliberately wrong one (row/col swapped)."""
    from layoutalg.atoms import catalog

    c_layout = catalog.mma("m16n8k16", a="f16", c="f32").c_layout
    assert_fragment(c_layout, lambda lane, v: (lane >> 2) + 8 * (v >> 1) + 16 * (2 * (lane & 3) + (v & 1)))
    with pytest.raises(AssertionError, match="lane=") as err:
        assert_fragment(c_layout, lambda lane, v: 2 * (lane & 3) + (v & 1) + 16 * ((lane >> 2) + 8 * (v >> 1)))
    assert "value=" in str(err.value)


def test_assert_conflict_free_delegates_to_banks() -> None:
    import layoutalg.banks as banks
    from layoutalg.pytest_plugin import assert_conflict_free

    class Proved:
        status = "proved"

    class Refuted:
        status = "refuted"

        def render(self) -> str:
            return "refuted: lanes 0 and 8 hit bank 0"

    original = banks.conflict_free
    try:
        banks.conflict_free = lambda *a, **k: Proved()  # type: ignore[assignment]
        assert assert_conflict_free("layout", "access").status == "proved"
        banks.conflict_free = lambda *a, **k: Refuted()  # type: ignore[assignment]
        with pytest.raises(AssertionError, match="lanes 0 and 8"):
            assert_conflict_free("layout", "access")
    finally:
        banks.conflict_free = original  # type: ignore[assignment]


# ------------------------------------------------------------------ near misses: each helper fails on any difference
def _near_miss_cases() -> list[tuple[str, Any, bool]]:
    """(name, call, passes): each failing case differs from a passing one in one point, one lane or one size."""
    import numpy as np

    from layoutalg import banks
    from layoutalg.atoms import catalog
    from layoutalg.pytest_plugin import assert_conflict_free

    c_layout = catalog.mma("m16n8k16", a="f16", c="f32").c_layout

    def c_formula(lane: Any, v: Any) -> Any:  # PTX ISA m16n8 C fragment, column-major index into the 16x8 tile
        return (lane >> 2) + 8 * (v >> 1) + 16 * (2 * (lane & 3) + (v & 1))

    sw = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (64, 1)))
    lane = np.arange(32)
    rows = np.stack([lane % 16, 8 * (lane // 16)], axis=-1)  # ldmatrix.x4 over the first 16x16 block
    bad_rows = rows.copy()
    bad_rows[9] = (0, 0)  # lane 9 reads row 0 beside lane 8's row 8: Swizzle<3,3,3> maps both to bank group 0
    ldsm = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
    one_good = banks.Access(ldsm, np.stack([rows, rows]), ("i",))
    one_bad = banks.Access(ldsm, np.stack([rows, bad_rows]), ("i",))
    return [
        ("equivalent: same function", lambda: assert_equivalent(Layout(8, 1), lambda i: i, {"i": 8}), True),
        ("equivalent: differs at the last point",
         lambda: assert_equivalent(Layout(8, 1), lambda i: i + i // 7, {"i": 8}), False),
        ("equivalent: one point more", lambda: assert_equivalent(Layout(8, 1), Layout(9, 1)), False),
        ("equivalent: one point fewer", lambda: assert_equivalent(Layout(8, 1), Layout(7, 1)), False),
        ("equivalent: one swizzle bit", lambda: assert_equivalent(
            sw, ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (64, 1)))), True),
        ("equivalent: swizzle base off by one", lambda: assert_equivalent(
            sw, ComposedLayout(Swizzle(3, 4, 3), 0, Layout((64, 64), (64, 1)))), False),
        ("injective: a permutation", lambda: assert_injective(lambda i: 31 - i, {"i": 32}), True),
        ("injective: one collision at the end", lambda: assert_injective(lambda i: i - i // 31, {"i": 32}), False),
        ("injective: broadcast mode", lambda: assert_injective(Layout((4, 8), (8, 0))), False),
        ("bijective: onto its size", lambda: assert_bijective(Layout((4, 8), (8, 1))), True),
        ("bijective: onto one more", lambda: assert_bijective(Layout((4, 8), (8, 1)), 33), False),
        ("bijective: onto one fewer", lambda: assert_bijective(Layout((4, 8), (8, 1)), 31), False),
        ("bijective: collision at the end", lambda: assert_bijective(lambda i: i - i // 7, 8, {"i": 8}), False),
        ("fragment: the PTX formula", lambda: assert_fragment(c_layout, c_formula), True),
        ("fragment: lane 31 value 3 off by one",
         lambda: assert_fragment(c_layout, lambda ln, v: c_formula(ln, v) + (ln // 31) * (v // 3)), False),
        ("fragment: fewer values per lane",
         lambda: assert_fragment(Layout((32, 4), (1, 32)), Layout((32, 2), (1, 32))), False),
        ("fragment: more values per lane",
         lambda: assert_fragment(Layout((32, 2), (1, 32)), Layout((32, 4), (1, 32))), False),
        ("fragment: fewer lanes", lambda: assert_fragment(Layout((16, 4), (4, 1)), Layout((32, 4), (4, 1))), False),
        ("fragment: values= smaller than the layouts",
         lambda: assert_fragment(Layout((32, 4), (4, 1)), Layout((32, 4), (4, 1)), values=2), False),
        ("fragment: lanes= smaller than the layouts",
         lambda: assert_fragment(Layout((32, 4), (4, 1)), Layout((32, 4), (4, 1)), lanes=16), False),
        ("conflict_free: both instances clean", lambda: assert_conflict_free(sw, one_good, "f16"), True),
        ("conflict_free: one lane of one instance collides", lambda: assert_conflict_free(sw, one_bad, "f16"), False),
        ("conflict_free: row-major tile", lambda: assert_conflict_free(
            Layout((64, 64), (64, 1)), "ldmatrix.x4", "f16"), False),
    ]


NEAR_MISSES = _near_miss_cases()


@pytest.mark.parametrize("name, call, passes", NEAR_MISSES, ids=[n for n, _, _ in NEAR_MISSES])
def test_helpers_fail_on_near_misses(name: str, call: Any, passes: bool) -> None:
    if passes:
        call()
    else:
        with pytest.raises(AssertionError):
            call()


def test_helpers_fail_on_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim the prover cannot decide is not a pass."""
    import layoutalg.prove as prove
    from layoutalg.prove.result import ProofResult

    monkeypatch.setattr(prove, "equivalent", lambda *a, **k: ProofResult("unknown", None, 0.0, "z3", "claim", "timeout"))
    with pytest.raises(AssertionError, match="unknown"):
        assert_equivalent(Layout(8, 1), Layout(8, 1))
