"""Decoding of a traced function (``layoutalg.kernel.interp.program``): a ``.param`` variable declared in the
function body (a call's argument or return slot, PTX ISA "Parameter State Space") is per-thread memory that
``st.param``/``ld.param`` write and read, not the kernel's parameter block."""

from __future__ import annotations

import pytest
from kernel_interp_harness import lanes, launch

from layoutalg.errors import KernelError
from layoutalg.kernel import trace


def test_a_param_variable_of_the_function_body_is_written_and_read_per_thread() -> None:
    body = ("{\n.param .b32 slot;\nmov.u32 %r2, %tid.x;\nadd.u32 %r2, %r2, 5;\nst.param.b32 [slot], %r2;\n"
            "ld.param.b32 %r1, [slot];\n}")
    m = launch(body)
    assert lanes(m, "%r1") == [t + 5 for t in range(32)]



HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
LOAD = ".reg .b32 %r<4>;\nmov.u32 %r1, s;\nld.shared.u32 %r2, [%r1];\nret;\n}\n"


def test_an_unsized_shared_array_without_extern_is_refused_as_ptxas_refuses_it() -> None:
    # ptxas 13.0 on such a kernel: "error: Non-external variable 's' has incomplete type"; only an .extern
    # .shared array may leave its size open (it is the dynamic shared memory)
    module_level = HEAD + ".shared .align 16 .b8 s[];\n.visible .entry k()\n{\n" + LOAD  # declared on line 4
    in_body = HEAD + ".visible .entry k()\n{\n.shared .align 16 .b8 s[];\n" + LOAD  # declared on line 6
    for src, line in ((module_level, 4), (in_body, 6)):
        with pytest.raises(KernelError, match=r"shared array s\[\] without .extern") as e:
            trace(src, block=32, dynamic_smem=64)
        assert e.value.line == line
    ok = trace(HEAD + ".extern .shared .align 16 .b8 s[];\n.visible .entry k()\n{\n" + LOAD, block=32,
               dynamic_smem=64)
    assert ok.shared_layout == {"s": 1024}  # the dynamic array at the shared-memory base (no static arrays)
