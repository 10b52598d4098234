"""Malformed instructions, absurd declarations and unreadable compiler output: every one ends in a
:class:`KernelError` naming the PTX line (never an IndexError, ValueError, ZeroDivisionError or
UnicodeDecodeError traceback), and nothing hangs.

The sweep takes a valid form of every opcode the interpreter has a builder for
(:data:`layoutalg.kernel.interp.decode.BUILDERS`), traces it as ``layoutalg kernel`` does
(:func:`layoutalg.kernel.trace`), then removes its operands one at a time, cuts it short, and empties each
vector operand: each variant is refused naming the instruction's line.  The operand counts are the PTX
ISA's (:mod:`layoutalg.kernel.interp.operand_counts`).
"""

from __future__ import annotations

import pickle
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from layoutalg.cli import main
from layoutalg.errors import KernelError
from layoutalg.kernel import trace
from layoutalg.kernel.interp.decode import BUILDERS
from layoutalg.kernel.interp.operand_counts import FORMS, check_operand_count, form_of, operand_range
from layoutalg.kernel.ptx import nodes
from layoutalg.kernel.ptx.nodes import Instruction, MissingOperandError, Operands, Reg
from layoutalg.kernel.ptx.parser import MAX_REGISTERS, parse_module
from layoutalg.kernel.source import compile_cuda, load_ptx

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
.reg .pred %p<8>;
.reg .b16 %rs<16>;
.reg .b32 %r<64>;
.reg .f32 %f<32>;
.reg .b64 %rd<16>;
.reg .f64 %fd<8>;
.shared .align 16 .b8 sm[8192];
ld.param.u64 %rd1, [k_param_0];
mov.u32 %r1, %tid.x;
shl.b32 %r2, %r1, 4;
mov.u32 %r3, sm;
add.s32 %r4, %r3, %r2;
mov.u32 %r5, 1;
mov.f32 %f1, 0f3F800000;
setp.lt.s32 %p1, %r1, 16;
cvta.to.global.u64 %rd2, %rd1;
mul.wide.u32 %rd3, %r1, 16;
add.s64 %rd4, %rd2, %rd3;
"""
LINE = HEAD.count("\n") + 1  # the line of the instruction under test
TAIL = "\n$L_end:\nret;\n}\n"

R4 = "{%r6, %r7, %r8, %r9}"
F4 = "{%f2, %f3, %f4, %f5}"
F8 = "{%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}"
R8 = "{%r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13}"
R8B = "{%r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21}"

#: A valid form (mnemonic, operands) of every root opcode; each operand is required by its form, so that
#: taking any one away leaves an instruction the PTX ISA does not have.
VALID: list[tuple[str, list[str]]] = [
    ("abs.s32", ["%r6", "%r5"]),
    ("activemask.b32", ["%r6"]),
    ("add.s32", ["%r6", "%r5", "%r1"]),
    ("add.cc.u32", ["%r6", "%r5", "%r1"]),
    ("add.f32", ["%f2", "%f1", "%f1"]),
    ("addc.u32", ["%r6", "%r5", "%r1"]),
    ("and.b32", ["%r6", "%r5", "%r1"]),
    ("applypriority.global.L2::evict_normal", ["[%rd4]", "128"]),
    ("atom.shared.add.u32", ["%r6", "[%r4]", "%r5"]),
    ("atom.shared.cas.b32", ["%r6", "[%r4]", "%r5", "%r1"]),
    ("atom.global.add.f32", ["%f2", "[%rd4]", "%f1"]),
    ("bar.sync", ["0"]),
    ("bar.arrive", ["1", "32"]),
    ("bar.red.popc.u32", ["%r6", "0", "%p1"]),
    ("bar.warp.sync", ["-1"]),
    ("barrier.sync", ["0"]),
    ("bfe.u32", ["%r6", "%r5", "0", "4"]),
    ("bfi.b32", ["%r6", "%r5", "%r1", "0", "4"]),
    ("bfind.u32", ["%r6", "%r5"]),
    ("bmsk.wrap.b32", ["%r6", "%r5", "4"]),
    ("bra.uni", ["$L_end"]),
    ("call.uni", ["vprintf"]),
    ("brev.b32", ["%r6", "%r5"]),
    ("brx.idx", ["%r5", "$L_end"]),
    ("clz.b32", ["%r6", "%r5"]),
    ("cnot.b32", ["%r6", "%r5"]),
    ("copysign.f32", ["%f2", "%f1", "%f1"]),
    ("cos.approx.f32", ["%f2", "%f1"]),
    ("cp.async.ca.shared.global", ["[%r4]", "[%rd4]", "4"]),
    ("cp.async.cg.shared.global", ["[%r4]", "[%rd4]", "16"]),
    ("cp.async.wait_group", ["0"]),
    ("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
     ["[%r4]", "[%rd1, {%r5, %r1}]", "[%r3]"]),
    ("createpolicy.fractional.L2::evict_last.b64", ["%rd5"]),
    ("cvt.u64.u32", ["%rd5", "%r5"]),
    ("cvt.rn.f32.s32", ["%f2", "%r5"]),
    ("cvt.rzi.s32.f32", ["%r6", "%f1"]),
    ("cvt.rn.f16x2.f32", ["%r6", "%f1", "%f1"]),
    ("cvta.to.global.u64", ["%rd5", "%rd1"]),
    ("discard.global.L2", ["[%rd4]", "128"]),
    ("div.s32", ["%r6", "%r5", "%r1"]),
    ("div.rn.f32", ["%f2", "%f1", "%f1"]),
    ("dp2a.lo.u32.u32", ["%r6", "%r5", "%r1", "%r2"]),
    ("dp4a.u32.u32", ["%r6", "%r5", "%r1", "%r2"]),
    ("elect.sync", ["%r6|%p2", "-1"]),
    ("ex2.approx.f32", ["%f2", "%f1"]),
    ("fence.proxy.tensormap::generic.acquire.gpu", ["[%rd4]", "128"]),
    ("fma.rn.f32", ["%f2", "%f1", "%f1", "%f1"]),
    ("getctarank.shared::cluster.u32", ["%r6", "%r5"]),
    ("isspacep.shared", ["%p2", "%rd1"]),
    ("istypep.texref", ["%p2", "%rd1"]),
    ("ld.shared.u32", ["%r6", "[%r4]"]),
    ("ld.shared.v4.u32", [R4, "[%r4]"]),
    ("ld.global.L2::cache_hint.u32", ["%r6", "[%rd4]"]),
    ("ld.param.u64", ["%rd5", "[k_param_0]"]),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", [R4, "[%r4]"]),
    ("ldu.global.u32", ["%r6", "[%rd4]"]),
    ("lg2.approx.f32", ["%f2", "%f1"]),
    ("lop3.b32", ["%r6", "%r5", "%r1", "%r2", "0x96"]),
    ("mad.lo.s32", ["%r6", "%r5", "%r1", "%r2"]),
    ("mad24.lo.s32", ["%r6", "%r5", "%r1", "%r2"]),
    ("mapa.shared::cluster.u32", ["%r6", "%r5", "0"]),
    ("match.any.sync.b32", ["%r6", "%r5", "-1"]),
    ("max.u32", ["%r6", "%r5", "%r1"]),
    ("max.f32", ["%f2", "%f1", "%f1"]),
    ("mbarrier.init.shared.b64", ["[%r4]", "%r5"]),
    ("mbarrier.inval.shared.b64", ["[%r4]"]),
    ("mbarrier.arrive.shared.b64", ["%rd5", "[%r4]"]),
    ("mbarrier.try_wait.parity.shared.b64", ["%p2", "[%r4]", "%r5"]),
    ("min.s32", ["%r6", "%r5", "%r1"]),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", [F4, R4, "{%r10, %r11}", "{%f6, %f7, %f8, %f9}"]),
    ("mov.u32", ["%r6", "%r5"]),
    ("mov.b64", ["%rd5", "{%r5, %r1}"]),
    ("mov.b32", ["{%rs1, %rs2}", "%r5"]),
    ("movmatrix.sync.aligned.m8n8.trans.b16", ["%r6", "%r5"]),
    ("mul.lo.s32", ["%r6", "%r5", "%r1"]),
    ("mul.wide.s32", ["%rd5", "%r5", "%r1"]),
    ("mul24.lo.s32", ["%r6", "%r5", "%r1"]),
    ("nanosleep.u32", ["%r5"]),
    ("neg.s32", ["%r6", "%r5"]),
    ("neg.f32", ["%f2", "%f1"]),
    ("not.b32", ["%r6", "%r5"]),
    ("or.b32", ["%r6", "%r5", "%r1"]),
    ("pmevent", ["1"]),
    ("popc.b32", ["%r6", "%r5"]),
    ("prefetch.global.L2", ["[%rd4]"]),
    ("prefetchu.L1", ["[%rd4]"]),
    ("prmt.b32", ["%r6", "%r5", "%r1", "0x5410"]),
    ("rcp.rn.f32", ["%f2", "%f1"]),
    ("red.shared.add.u32", ["[%r4]", "%r5"]),
    ("redux.sync.add.u32", ["%r6", "%r5", "-1"]),
    ("rem.u32", ["%r6", "%r5", "%r1"]),
    ("rsqrt.approx.f32", ["%f2", "%f1"]),
    ("sad.u32", ["%r6", "%r5", "%r1", "%r2"]),
    ("selp.b32", ["%r6", "%r5", "%r1", "%p1"]),
    ("set.lt.u32.s32", ["%r6", "%r5", "%r1"]),
    ("set.lt.and.u32.s32", ["%r6", "%r5", "%r1", "%p1"]),
    ("setmaxnreg.inc.sync.aligned.u32", ["240"]),
    ("setp.lt.s32", ["%p2", "%r5", "%r1"]),
    ("setp.ne.and.s32", ["%p2", "%r5", "%r1", "%p1"]),
    ("setp.lt.f32", ["%p2|%p3", "%f1", "%f1"]),
    ("shf.l.wrap.b32", ["%r6", "%r5", "%r1", "3"]),
    ("shfl.sync.bfly.b32", ["%r6", "%r5", "1", "31", "-1"]),
    ("shfl.sync.idx.b32", ["%r6|%p2", "%r5", "0", "31", "-1"]),
    ("shl.b32", ["%r6", "%r5", "2"]),
    ("shr.u32", ["%r6", "%r5", "2"]),
    ("sin.approx.f32", ["%f2", "%f1"]),
    ("slct.u32.s32", ["%r6", "%r5", "%r1", "%r2"]),
    ("sqrt.rn.f32", ["%f2", "%f1"]),
    ("st.shared.u32", ["[%r4]", "%r5"]),
    ("st.shared.v4.u32", ["[%r4]", R4]),
    ("st.shared.v2.f32", ["[%r4]", "{%f1, %f2}"]),
    ("st.global.u32", ["[%rd4]", "%r5"]),
    ("stmatrix.sync.aligned.m8n8.x4.shared.b16", ["[%r4]", R4]),
    ("sub.s32", ["%r6", "%r5", "%r1"]),
    ("subc.u32", ["%r6", "%r5", "%r1"]),
    ("suld.b.1d.b32.trap", ["{%r6}", "[%rd1, {%r5}]"]),
    ("suq.width.b32", ["%r6", "[%rd1]"]),
    ("sured.b.add.1d.u32.trap", ["[%rd1, {%r5}]", "%r6"]),
    ("sust.b.1d.b32.trap", ["[%rd1, {%r5}]", "{%r6}"]),
    ("szext.wrap.u32", ["%r6", "%r5", "4"]),
    ("tanh.approx.f32", ["%f2", "%f1"]),
    ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", ["[%r4]", "32"]),
    ("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned",
     ["[%rd4]", "[%r4]", "128"]),
    ("testp.finite.f32", ["%p2", "%f1"]),
    ("tex.2d.v4.f32.f32", [F4, "[%rd1, {%f1, %f1}]"]),
    ("tld4.r.2d.v4.f32.f32", [F4, "[%rd1, {%f1, %f1}]"]),
    ("txq.width.b32", ["%r6", "[%rd1]"]),
    ("vote.sync.ballot.b32", ["%r6", "%p1", "-1"]),
    ("vote.sync.all.pred", ["%p2", "%p1", "-1"]),
    ("wgmma.wait_group.sync.aligned", ["0"]),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", [F4, "%rd1", "%rd2", "1"]),
    ("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16", [R8, "[%r4]"]),
    ("wmma.store.d.sync.aligned.row.m16n16k16.shared.f32", ["[%r4]", F8]),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", [F8, R8, R8B, F8]),
    ("xor.b32", ["%r6", "%r5", "%r1"]),
]

#: Forms without operands: nothing to take away, but an operand they do not take is refused.
NO_OPERANDS = ["ret", "exit", "brkpt", "membar.cta", "fence.proxy.async.shared::cta", "griddepcontrol.wait",
               "cp.async.commit_group", "cp.async.wait_all", "wgmma.fence.sync.aligned",
               "wgmma.commit_group.sync.aligned", "barrier.cluster.arrive", "tcgen05.fence::before_thread_sync", "trap"]

#: Valid forms the tracer refuses for what they are, whatever their operands (so their variants are refused too).
UNSUPPORTED = {"brx.idx": "indirect branches", "tensormap.cp_fenceproxy": "tensormap"}


def kernel(instruction: str) -> str:
    return HEAD + instruction + TAIL


def run(instruction: str) -> Any:
    return trace(kernel(instruction), kernel="k", grid=1, block=32, args={0: "buf"}, step_budget=20_000)


def under_test(instruction: str) -> Instruction:
    return next(ins for ins in parse_module(kernel(instruction)).entries["k"].body if ins.line == LINE)


def text(opcode: str, operands: list[str]) -> str:
    return f"{opcode} {', '.join(operands)};" if operands else f"{opcode};"


def refused_at_the_line(instruction: str) -> KernelError:
    """Trace ``instruction``: it must be refused with a KernelError naming its line (and nothing else)."""
    try:
        run(instruction)
    except KernelError as exc:
        assert exc.line == LINE, (instruction, str(exc))
        assert f"PTX line {LINE}" in str(exc), (instruction, str(exc))
        return exc
    raise AssertionError(f"{instruction!r} was traced, not refused")


def variants(opcode: str, operands: list[str]) -> list[str]:
    """The instruction with each operand taken away, cut after each operand, and each vector emptied."""
    out: list[str] = []
    for k in range(len(operands)):
        out.append(text(opcode, operands[:k] + operands[k + 1:]))
        out.append(text(opcode, operands[:k]))
        for m in re.finditer(r"\{[^{}]*\}", operands[k]):
            emptied = operands[k][:m.start()] + "{}" + operands[k][m.end():]
            out.append(text(opcode, operands[:k] + [emptied] + operands[k + 1:]))
    return list(dict.fromkeys(out))


SWEEP = [pytest.param(v, id=v) for opcode, operands in VALID for v in variants(opcode, operands)]


def test_every_root_opcode_with_a_builder_has_a_valid_form_here_and_an_isa_form() -> None:
    swept = {opcode.split(".")[0] for opcode, _ in VALID} | {op.split(".")[0] for op in NO_OPERANDS}
    assert set(BUILDERS) <= swept, sorted(set(BUILDERS) - swept)
    assert set(BUILDERS) <= set(FORMS), sorted(set(BUILDERS) - set(FORMS))


@pytest.mark.parametrize(("opcode", "operands"), [pytest.param(o, ops, id=o) for o, ops in VALID])
def test_the_valid_form_is_traced_and_every_operand_is_required(opcode: str, operands: list[str]) -> None:
    instruction = text(opcode, operands)
    unsupported = next((why for prefix, why in UNSUPPORTED.items() if opcode.startswith(prefix)), None)
    if unsupported is None:
        run(instruction)
    else:
        with pytest.raises(KernelError, match=unsupported):
            run(instruction)
    ins = under_test(instruction)
    assert ins.opcode == opcode
    signature = form_of(ins)
    assert signature is not None
    assert operand_range(signature)[0] == len(operands), (signature, operands)  # no optional operand given


@pytest.mark.parametrize("instruction", SWEEP)
def test_an_instruction_with_operands_taken_away_or_a_vector_emptied_is_refused_naming_its_line(
        instruction: str) -> None:
    refused_at_the_line(instruction)


@pytest.mark.parametrize("opcode", NO_OPERANDS)
def test_an_operand_is_refused_where_the_form_takes_none(opcode: str) -> None:
    exc = refused_at_the_line(f"{opcode} %r5;")
    assert "takes 0 operands" in str(exc)


@pytest.mark.parametrize("instruction", [
    "st.shared.f32 [%r4], %f1, %f2;",  # a third operand exists only with .L2::cache_hint
    "ld.shared.u32 %r6, [%r4], %rd5;",
    "atom.shared.add.u32 %r6, [%r4], %r5, %r1;",
    "mov.u32 %r6, %r5, %r1;",
    "bra.uni $L_end, $L_end;",
    "vote.sync.ballot.b32 %r6, %p1, -1, -1;",
    "activemask.b32 %r6, %r5;",
    "setp.lt.s32 %p2, %r5, %r1, %p1;",  # the combining predicate needs .and/.or/.xor
])
def test_an_operand_the_isa_form_does_not_take_is_refused_not_ignored(instruction: str) -> None:
    exc = refused_at_the_line(instruction)
    assert "operand" in str(exc)


@pytest.mark.parametrize(("instruction", "message"), [
    ("st.shared.f32 [%r4];", r"st\.shared\.f32: .*(takes 2 operands|operand 2 is missing)"),
    ("shfl.sync.bfly.b32 %r6;", r"takes 5 operands \(PTX ISA: shfl d, a, b, c, membermask\), got 1"),
    ("addc.u32 %r6;", r"takes 3 operands \(PTX ISA: addc d, a, b\), got 1"),
    ("setp.ne.and.s32 %p2, %r5, %r1;", r"takes 4 operands \(PTX ISA: setp p, a, b, c\), got 3; operand 4 is missing"),
    ("atom.shared.cas.b32 %r6, [%r4], %r5;", r"takes 4 operands .*got 3"),
    ("mov.u32 %r6, {};", r"empty vector operand"),
    ("mov.u32 {}, %r5;", r"empty vector operand"),
])
def test_the_fuzzer_reproducers_say_what_is_wrong(instruction: str, message: str) -> None:
    exc = refused_at_the_line(instruction)
    assert re.search(message, str(exc)), str(exc)


@pytest.mark.parametrize("instruction", ["mov.b32 %r6, {%rs1, %rs2, %rs3};", "mov.b64 {%r6, %r7, %r8}, %rd1;",
                                         "mov.b32 %r6, {%rs1, %rs2, %rs3, %rs4, %rs5};", "mov.b32 %r6, {%r5};"])
def test_a_vector_that_does_not_split_the_moved_value_evenly_is_refused(instruction: str) -> None:
    exc = refused_at_the_line(instruction)  # ISA: mov packs 2 or 4 elements (mov.b64 d, {a, b, c, e})
    assert "packs into 2 or 4 elements" in str(exc)


def test_the_cli_reports_a_missing_operand_without_a_traceback(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    source = Path(__file__).parents[1] / "examples" / "kernels" / "transpose.ptx"
    ptx = re.sub(r"(st\.shared\.f32\s+\[%r16\]), %f1;", r"\1;", source.read_text(), count=1)
    assert ptx != source.read_text()
    broken = tmp_path / "broken.ptx"
    broken.write_text(ptx)
    line = next(i for i, t in enumerate(ptx.splitlines(), 1) if re.search(r"st\.shared\.f32\s+\[%r16\];", t))
    code = main(["kernel", str(broken), "--kernel", "transpose_tile", "--grid", "2,2", "--block", "32,8",
                 "--arg", "2=64", "--arg", "3=64"])
    err = capsys.readouterr().err
    assert code != 0
    assert f"PTX line {line}, st.shared.f32" in err and "Traceback" not in err


# ----------------------------------------------------------------- the operands container
def test_reading_an_operand_an_instruction_lacks_names_the_instruction() -> None:
    ins = Instruction("st.shared.f32", ("st", "shared", "f32"), (nodes.Addr(Reg("%r1")),), None, 12, None,
                      "st.shared.f32 [%r1]")
    with pytest.raises(MissingOperandError, match=r"PTX line 12, st\.shared\.f32: operand 2 is missing") as err:
        ins.operands[1]  # noqa: B018
    assert isinstance(err.value, KernelError) and err.value.line == 12
    with pytest.raises(KernelError, match="operand 3 is missing"):
        ins.operands[1:][1]  # noqa: B018 - a slice keeps its instruction
    assert ins.operands[-1] == nodes.Addr(Reg("%r1")) and ins.operands[5:] == ()
    assert isinstance(ins.operands, Operands) and ins.operands == (nodes.Addr(Reg("%r1")),)
    assert hash(ins.operands) == hash(tuple(ins.operands))
    copy = pickle.loads(pickle.dumps(ins))
    assert copy == ins and isinstance(copy.operands, Operands) and copy.operands.line == 12


def test_operand_ranges_are_read_from_the_isa_operand_lists() -> None:
    assert operand_range("d, [a]{, cache-policy}") == (2, 3)
    assert operand_range("d, a{, b}, c") == (3, 4)
    assert operand_range("") == (0, 0)
    assert operand_range("func, ...") == (1, None)
    assert operand_range("[dst], [tensorMap, coords], [mbar]{, im2colInfo}") == (3, 4)
    ins = under_test("setp.ne.and.s32 %p2, %r5, %r1, %p1;")
    check_operand_count(ins)
    short = Instruction(ins.opcode, ins.parts, ins.operands[:3], ins.guard, ins.line, ins.loc, ins.text)
    with pytest.raises(KernelError, match=f"PTX line {LINE}, setp.ne.and.s32: takes 4 operands"):
        check_operand_count(short)


# ----------------------------------------------------------------- declarations
@pytest.mark.parametrize("declaration", [".reg .b32 %r<999999999999>;", ".reg .b32 %q<1048577>;",
                                         f".reg .b32 %q<{'9' * 5000}>;", ".reg .b32 %q<600000>, %s<600000>;"])
def test_a_huge_register_range_is_refused_quickly(declaration: str) -> None:
    ptx = HEAD.replace(".reg .f64 %fd<8>;", ".reg .f64 %fd<8>;\n" + declaration) + "ret;\n}\n"
    start = time.perf_counter()
    with pytest.raises(KernelError, match=f"more than {MAX_REGISTERS} registers") as err:
        parse_module(ptx)
    assert time.perf_counter() - start < 5
    assert err.value.line == 12


def test_many_register_declarations_together_are_bounded_too() -> None:
    decls = "".join(f".reg .b32 %q{k}_<500000>;\n" for k in range(3))
    ptx = HEAD.replace(".shared", decls + ".shared", 1) + "ret;\n}\n"
    with pytest.raises(KernelError, match=f"function k declares more than {MAX_REGISTERS} registers") as err:
        parse_module(ptx)
    assert err.value.line == 14


def test_an_ordinary_register_range_is_still_read() -> None:
    ptx = HEAD.replace(".shared", ".reg .b32 %q<1000>;\n.shared", 1) + "mov.u32 %q999, 1;\nret;\n}\n"
    assert "%q999" in parse_module(ptx).entries["k"].registers


# ----------------------------------------------------------------- compiler output
def test_nvcc_output_that_is_not_utf8_is_reported_as_a_kernel_error(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k() { oops }\n")
    calls: list[Any] = []

    def fake_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        calls.append((cmd, kwargs))
        return subprocess.CompletedProcess(cmd, 2, stdout=b"\xff\xfe", stderr=b"k.cu(1): error: \xe9t\xff\xfe bad\n")

    monkeypatch.setattr("layoutalg.kernel.source.shutil.which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr("layoutalg.kernel.source.subprocess.run", fake_run)
    with pytest.raises(KernelError, match=r"nvcc failed on .*k\.cu:\nk\.cu\(1\): error: \ufffdt\ufffd\ufffd bad"):
        load_ptx(str(cu))
    with pytest.raises(KernelError, match="nvcc failed"):
        compile_cuda(cu)
    assert calls and calls[0][0][0] == "/usr/bin/nvcc"


def test_nvcc_that_writes_ptx_that_is_not_utf8_is_reported_as_a_kernel_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k() {}\n")

    def fake_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        Path(cmd[-1]).write_bytes(b".version 8.0\n\xff\xfe\n")
        return subprocess.CompletedProcess(cmd, 0, stdout=b"", stderr=b"warning: \xff\n")

    monkeypatch.setattr("layoutalg.kernel.source.shutil.which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr("layoutalg.kernel.source.subprocess.run", fake_run)
    with pytest.raises(KernelError, match=r"not a PTX text file \(not UTF-8\)"):
        compile_cuda(cu)


def test_nvcc_that_cannot_be_started_is_reported_as_a_kernel_error(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k() {}\n")

    def fake_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("layoutalg.kernel.source.shutil.which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr("layoutalg.kernel.source.subprocess.run", fake_run)
    with pytest.raises(KernelError, match="cannot run nvcc"):
        compile_cuda(cu)
