"""ldmatrix/stmatrix forms the tracer models (matrixops.py): only .m8n8 with .b16 elements, exactly one of
.x1/.x2/.x4, and as many registers as matrices (PTX ISA 8.x "ldmatrix", "stmatrix"); anything else is
refused naming the line."""

from __future__ import annotations

from kernel_interp_harness import refusal

SMEM = ".shared .align 16 .b8 tile[1024];"


def test_unsupported_ldmatrix_and_stmatrix_forms_are_refused_naming_the_line():
    cases = [("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1}, [tile];", "m8n8 .b16 shape"),
             ("ldmatrix.sync.aligned.m8n8.shared.b16 {%r1}, [tile];", "exactly one of .x1 .x2 .x4"),
             ("ldmatrix.sync.aligned.m8n8.x1.x2.shared.b16 {%r1}, [tile];", "exactly one of .x1 .x2 .x4"),
             ("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [tile];", "needs 2 destination registers"),
             ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 %r1, [tile];", "needs 4 destination registers"),
             ("stmatrix.sync.aligned.m8n8.x4.shared.b16 [tile], {%r1, %r2};", "needs 4 source registers"),
             ("stmatrix.sync.aligned.m8n8.x1.shared.b8 [tile], {%r1};", "m8n8 .b16 shape")]
    for text, words in cases:
        err, line = refusal(text, text, decls=SMEM)
        assert err.line == line and words in str(err), text
