"""Decoding of a traced function (``layoutalg.kernel.interp.program``): a ``.param`` variable declared in the
function body (a call's argument or return slot, PTX ISA "Parameter State Space") is per-thread memory that
``st.param``/``ld.param`` write and read, not the kernel's parameter block."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import HEADER, SPECS, StoreRecorder, gemm, kernel, what
from kernel_interp_harness import lanes, launch

from layoutalg.errors import KernelError
from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.dataflow import flow, launch_of
from layoutalg.kernel.interp.geometry import Geometry
from layoutalg.kernel.interp.program import build_image, decode, run
from layoutalg.kernel.ptx import parse_module
from layoutalg.kernel.records import Recorder


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


def _uses(decls: str, names: list[str], dynamic_smem: int = 0) -> dict[str, int]:
    body = "".join(f"mov.u32 %r1, {n};\n" for n in names)
    src = HEAD + decls + ".visible .entry k()\n{\n.reg .b32 %r<4>;\n" + body + "ret;\n}\n"
    return trace(src, block=32, dynamic_smem=dynamic_smem).shared_layout


def test_a_module_shared_variable_the_kernel_never_names_takes_no_shared_memory() -> None:
    # spaces.py's placement rule: the static .shared variables the kernel uses follow SMEM_BASE = 1024
    layout = _uses(".shared .align 16 .b8 unused[64];\n.shared .align 16 .b8 s[16];\n", ["s"])
    assert layout == {"s": 1024}


@pytest.mark.parametrize("dynamic_smem", [0, 64])
def test_scalar_shared_variables_are_static_and_the_extern_array_follows_them_16_byte_aligned(
        dynamic_smem: int) -> None:
    # spaces.py's placement rule: static variables in declaration order, each aligned to its .align (x 1024,
    # y 1028: scalars are one element, not the unsized dynamic array); the .extern array follows them aligned
    # to max(16, its .align) = 16 -> 1040, whatever dynamic_smem is
    decls = ".shared .align 4 .b32 x;\n.shared .align 4 .b32 y;\n.extern .shared .align 4 .b8 dyn[];\n"
    assert _uses(decls, ["x", "y", "dyn"], dynamic_smem) == {"x": 1024, "y": 1028, "dyn": 1040}


def test_a_local_access_just_past_a_one_byte_local_variable_is_refused() -> None:
    # the only local variable is one byte: offset 1 is outside every local variable (as memops' refusal test)
    src = (HEAD + ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.local .b8 c;\n"
           "mov.u64 %rd1, c;\nld.local.u8 %r1, [%rd1];\nld.local.u8 %r2, [%rd1+1];\nret;\n}\n")
    with pytest.raises(KernelError, match="local") as e:
        trace(src, block=32)
    assert e.value.line == 11  # the second load; the first, at offset 0, is inside c


def test_two_module_global_variables_are_two_distinct_buffers() -> None:
    # program.py: each module .global variable is the base of a global buffer of its own; the data flow tags a
    # loaded unit with (buffer, byte offset), so g1's and g2's first units must name two buffers, neither A (0)
    # nor C (1), the kernel's pointer arguments
    body = ["mov.u64 %rd6, g1;", "mov.u64 %rd7, g2;", "ld.global.u16 %h1, [%rd6];", "ld.global.u16 %h2, [%rd7];",
            "mov.b32 %r6, {%h1, %h2};", "st.global.u32 [%rd5], %r6;"]
    text = kernel(body).replace(HEADER, HEADER + ".global .align 4 .u32 g1[4];\n.global .align 4 .u32 g2[4];\n")
    rec = StoreRecorder()
    flow(launch_of(parse_module(text), grid=1, block=32), rec)
    g1, g2 = what(rec.units[(1, 0)]), what(rec.units[(1, 2)])
    assert g1[1] == g2[1] == 0 and g1[0] != g2[0] and {g1[0], g2[0]}.isdisjoint({"A", 1}), (g1, g2)


def test_tracing_and_checking_one_parsed_module_again_gives_the_same_answers() -> None:
    # the data-flow check wraps decoded ops with its tag rules: neither a later trace nor a later check of
    # the same parsed module may see those wrappers (a plain trace has no tags; a rule run twice counts twice)
    module = parse_module(gemm())
    first = trace(module, block=32)
    verdicts = [check_mma(trace(module, block=32), **SPECS).verdict for _ in range(2)]
    again = trace(module, block=32)
    assert verdicts == ["proved", "proved"]
    assert again.steps == first.steps > 0


def test_decode_returns_an_op_for_every_instruction_also_those_never_run() -> None:
    src = HEAD + ".visible .entry k()\n{\n.reg .b32 %r<4>;\nbra END;\nadd.u32 %r1, %r1, 1;\nEND:\nret;\n}\n"
    module = parse_module(src)
    fn = module.entries["k"]
    image = build_image(module, fn, b"", {}, 0, 0)
    machine = run(image, Geometry((1, 1, 1), (32, 1, 1), [(0, 0, 0)]), Recorder(), 1000)  # the add never runs
    for private in (False, True):
        ops = decode(image, machine, private)
        assert [op.ins for op in ops] == list(fn.body)


def test_a_sized_extern_shared_array_is_a_static_variable_in_declaration_order() -> None:
    # ptxas 13.0 (whole program): "Unresolved extern variable ... ignoring extern qualifier", and its -v smem
    # counts the array's bytes (tests/data/ptxas_reader_verdicts.json); so it is placed as the static variable it
    # is, first (1024 .. 1088), and t follows it at 1088, not as the dynamic array after t
    decls = ".extern .shared .align 16 .b8 dyn[64];\n.shared .align 4 .b8 t[100];\n"
    assert _uses(decls, ["t", "dyn"], 64) == {"dyn": 1024, "t": 1088}


@pytest.mark.parametrize("decl, why", [(".local .b8 a[];", r"array a\[\] without .extern"),
                                       (".local .b8 a[0];", r"array a\[\] without .extern"),
                                       (".param .b8 a[];", r"array a\[\] without .extern"),
                                       (".extern .local .b8 a[];", r"\.extern variable inside a function body")])
def test_an_unsized_local_or_param_array_is_refused_as_ptxas_refuses_it(decl: str, why: str) -> None:
    # ptxas 13.0: "Non-external variable 'a' has incomplete type" for the first three, a syntax error at .local
    # for .extern .local (no linkage directive inside a function body); only a module-scope .extern .shared (and
    # .extern .global, resolved elsewhere) may leave a size open
    src = HEAD + ".visible .entry k()\n{\n.reg .b64 %rd<4>;\n" + decl + "\n.local .b8 b[4];\nmov.u64 %rd1, b;\nret;\n}\n"
    with pytest.raises(KernelError, match=why) as e:
        trace(src, block=32)
    assert e.value.line == 7
