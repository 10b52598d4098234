"""mma fragments of the check (layoutalg/kernel/dataflow/fragments.py): the form of an ``mma.sync`` (registers
per operand, 16-bit units per element, and each lane's (row, col) of each element against the PTX ISA
fragment formulas re-typed in tests/oracles/ptx_fragments.py), the forms the check refuses with a LayoutError
naming the instruction, and the element groups and known zeros it reads from registers."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from kernel_dataflow_contract_harness import kernel
from oracles.ptx_fragments import fragment

from layoutalg.errors import LayoutError
from layoutalg.kernel.dataflow.fragments import gather, mma_form, value_groups
from layoutalg.kernel.ptx import parse_module
from layoutalg.kernel.source import select_entry

R4, R2 = "{%r2, %r3, %r4, %r5}", "{%r6, %r7}"
F4 = "{%f1, %f2, %f3, %f4}"


def mma(text: str):
    fn = select_entry(parse_module(kernel([text])), None)
    return mma_form([x for x in fn.body if getattr(x, "opcode", "").startswith("mma")][0])


@pytest.mark.parametrize("text,k,ab_bits,ue_ab,n_regs", [
    (f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R4}, {R2}, {F4};", 16, 16, 1, (4, 4, 2, 4)),
    (f"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {F4}, {R4}, {R2}, {F4};", 16, 16, 1, (4, 4, 2, 4)),
    (f"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {F4}, {{%r2, %r3}}, {{%r6}}, {F4};", 8, 16, 1, (4, 2, 1, 4)),
    (f"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {F4}, {R4}, {R2}, {F4};", 8, 32, 2, (4, 4, 2, 4)),
])
def test_mma_form_matches_the_isa_fragments(text: str, k: int, ab_bits: int, ue_ab: int, n_regs) -> None:
    form = mma(text)
    assert tuple(len(form.regs[x]) for x in "DABC") == n_regs
    assert (form.ue["A"], form.ue["B"], form.ue["C"], form.ue["D"]) == (ue_ab, ue_ab, 2, 2)
    assert form.regs["D"] == form.regs["C"] == ["%f1", "%f2", "%f3", "%f4"] and form.regs["B"][0] == "%r6"
    assert form.element_bytes("A") == 2 * ue_ab and form.element_bytes("C") == 4
    for op in "ABC":
        fr = fragment((16, 8, k), ab_bits, op, 32 if op == "C" else ab_bits)
        want = [[list(fr.coord(lane, i)) for i in range(fr.n)] for lane in range(32)]
        got = np.stack([form.row[op], form.col[op]], axis=-1).tolist()
        assert got == want, op


def test_an_f16_accumulator_has_one_unit_per_element() -> None:
    form = mma(f"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {R2}, {R4}, {{%r10, %r11}}, {{%r12, %r13}};")
    assert form.ue["C"] == form.ue["D"] == 1 and len(form.regs["C"]) == 2


@pytest.mark.parametrize("text,words", [
    (f"mma.sync.aligned.row.col.f32.f16.f16.f32 {F4}, {R4}, {R2}, {F4};", "cannot read the shape and the four types"),
    (f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16 {F4}, {R4}, {R2}, {F4};", "cannot read the shape"),
    (f"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {R4}, {R4}, {R2}, {R4};", "supports 16-bit (f16, bf16)"),
    (f"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {R2}, {R4}, {R2}, {F4};", "of the same type as D"),
    (f"mma.sync.aligned.m16n8k12.row.col.f32.f16.f16.f32 {F4}, {R4}, {R2}, {F4};", "no atom for this mma"),
    ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r2, %r3}, "
     "{%r4, %r5}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};", "sm70 quad-pair mma (m8n8k4) is not supported"),
    (f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R2}, {R2}, {F4};",
     "operand A has 2 registers, the atom"),
    (f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R4}, {R4}, {F4};", "operand B has 4 registers"),
    (f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R4}, {R2}, {{%f5, %f6}};",
     "operand C has 2 registers"),
    (f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{%f1, %f2}}, {R4}, {R2}, {F4};",
     "D and C have different register counts"),
])
def test_mma_forms_outside_the_check_are_refused_naming_the_instruction(text: str, words: str) -> None:
    with pytest.raises(LayoutError, match=r"^mma\.sync") as err:
        mma(text)
    assert words in str(err.value)


def test_gather_groups_register_units_into_elements() -> None:
    p0 = np.array([[10, 11], [20, 21], [30, 31]])
    p1 = np.array([[12, 13], [22, 23], [32, 33]])
    threads = np.array([2, 0])
    assert gather([p0, p1], threads, 1).tolist() == [[[30], [31], [32], [33]], [[10], [11], [12], [13]]]
    assert gather([p0, None], threads, 2).tolist() == [[[30, 31], [-1, -1]], [[10, 11], [-1, -1]]]
    narrow = np.array([[5], [6], [7]])  # a 16-bit register: its missing high unit is NONE
    assert gather([narrow], np.array([1, 2, 0]), 1).tolist() == [[[6], [-1]], [[7], [-1]], [[5], [-1]]]


def test_value_groups_find_known_zeros_of_either_sign() -> None:
    v = SimpleNamespace(bits=np.array([0, 0x80000000, 0x3F800000, 0x00000001, 0x80008000, 0x00010000], dtype=np.uint64),
                        known=np.array([True, True, True, True, True, False]))
    threads = np.arange(6)
    zero, vals = value_groups([v], threads, 6, 2)  # f32 elements: +0.0 and -0.0 are zero
    assert zero[:, 0].tolist() == [True, True, False, False, False, False]
    zero, vals = value_groups([v], threads, 6, 1)  # f16 halves: each half +-0 on its own
    assert zero.tolist() == [[True, True], [True, True], [True, False], [False, True], [True, True], [False, False]]
    assert vals[:, 0].tolist() == [[0, 0], [0, 0x8000], [0, 0x3F80], [1, 0], [0x8000, 0x8000], [0, 1]]


def test_an_mma_whose_layout_is_not_row_col_is_refused() -> None:
    # PTX ISA: the m16n8k16 f16 mma takes only .row.col (A row-major, B column-major)
    with pytest.raises(LayoutError, match=r"^mma\.sync.*no atom for this mma"):
        mma(f"mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {F4}, {R4}, {R2}, {F4};")


def test_an_mma_operand_that_is_not_registers_is_refused_naming_it() -> None:
    with pytest.raises(LayoutError, match=r"^mma\.sync.*operand C is not a list of registers"):
        mma(f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R4}, {R2}, "
            "{%f1, %f2, %f3, 0f00000000};")


def test_value_groups_a_high_f16_half_of_one_ulp_is_not_zero() -> None:
    # f16 0x0001 is the least subnormal (not zero); 0x8000 is -0
    v = SimpleNamespace(bits=np.array([0x00010000, 0x80000001, 0x40000000], dtype=np.uint64),
                        known=np.array([True, True, True]))
    zero, _ = value_groups([v], np.arange(3), 3, 1)
    assert zero.tolist() == [[True, False], [False, True], [True, False]]


def test_an_mma_operand_of_the_wrong_register_count_is_refused_naming_the_isa_count() -> None:
    # PTX ISA m16n8k16 .f16: A is 8 halves in 4 .f16x2 registers, B 4 halves in 2 -- the message names 4 and 2
    with pytest.raises(LayoutError, match=r"operand A has 2 registers, the atom \S+ 4$"):
        mma(f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R2}, {R2}, {F4};")
    with pytest.raises(LayoutError, match=r"operand B has 4 registers, the atom \S+ 2$"):
        mma(f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R4}, {R4}, {F4};")
