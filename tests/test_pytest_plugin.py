"""The pytest plugin: theorem files become test items; helpers fail with counterexamples in kernel terms."""

from __future__ import annotations

import textwrap
from pathlib import Path

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
    result = pytester.runpytest("proofs", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*holds PASSED*", "*refuted_as_expected PASSED*", "*wrongly_expected FAILED*"])
    out = result.stdout.str()
    assert "expected proved, got refuted" in out
    assert "lane'=" in out  # the two colliding points of the counterexample


def test_thm_prefix_collected_anywhere(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(thm_small=textwrap.dedent(THEOREMS).replace("@theorem\ndef wrongly", "def wrongly"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


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
