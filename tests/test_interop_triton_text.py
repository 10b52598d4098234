"""Triton layout text as IR dumps print it (layoutalg.interop.triton_text.ttg_attribute): an alias definition from a
module's header and the dialect's prefix before Triton 3.2 (#triton_gpu.) read as the #ttg. attribute they hold."""

from __future__ import annotations

import pytest

import layoutalg as la

BLOCKED = "{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}"
SWIZZLED = "{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}"


@pytest.mark.parametrize("text", [f"#triton_gpu.blocked<{BLOCKED}>", f"#blocked = #ttg.blocked<{BLOCKED}>",
                                  f"  #blocked1 = #triton_gpu.blocked<{BLOCKED}>  "])
def test_an_alias_line_or_the_old_dialect_prefix_reads_as_the_ttg_attribute(text: str) -> None:
    want = la.from_triton(f"#ttg.blocked<{BLOCKED}>", shape=(64, 64))
    assert la.from_triton(text, shape=(64, 64)) == want
    assert la.as_layout(text, shape=(64, 64)) == want  # as_layout passed the shape on only for "#ttg." text


def test_la_parse_reads_them_too() -> None:
    want = la.parse("#ttg.shared_linear<{offset = [[1, 0], [0, 1]]}, alignment = 16>")
    assert la.parse("#triton_gpu.shared_linear<{offset = [[1, 0], [0, 1]]}, alignment = 16>") == want
    assert str(la.from_triton(f"#shared = #ttg.swizzled_shared<{SWIZZLED}>", shape=(64, 64))) == \
        "Sw<3,3,3> o _0 o (64,64):(64,1)"
