"""Decoding of a traced function (``layoutalg.kernel.interp.program``): a ``.param`` variable declared in the
function body (a call's argument or return slot, PTX ISA "Parameter State Space") is per-thread memory that
``st.param``/``ld.param`` write and read, not the kernel's parameter block."""

from __future__ import annotations

from kernel_interp_harness import lanes, launch


def test_a_param_variable_of_the_function_body_is_written_and_read_per_thread() -> None:
    body = ("{\n.param .b32 slot;\nmov.u32 %r2, %tid.x;\nadd.u32 %r2, %r2, 5;\nst.param.b32 [slot], %r2;\n"
            "ld.param.b32 %r1, [slot];\n}")
    m = launch(body)
    assert lanes(m, "%r1") == [t + 5 for t in range(32)]
