"""What layout recovery reports (layoutalg/kernel/dataflow/recovered.py): the layout handed to ``prove``, its
text and description, and CuTe's copy-atom name of each shared-memory instruction (ldmatrix/stmatrix ->
SM75 LDSM / SM90 STSM atoms, cp.async -> SM80_CP_ASYNC_CACHE{GLOBAL,ALWAYS}<uint{8 bytes}_t>, others ->
UniversalCopy<uint{bits moved}_t>)."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import kernel

from layoutalg.atoms.layout_text import parse
from layoutalg.errors import LayoutError
from layoutalg.kernel.dataflow.recovered import RecoveredLayout, atom_name
from layoutalg.kernel.ptx import parse_module
from layoutalg.kernel.source import select_entry
from layoutalg.swizzle import Swizzle
from layoutalg.swizzle.composed import ComposedLayout


def rec(layout: object = None, offset: int = 0, **kw: object) -> RecoveredLayout:
    args: dict = dict(line=7, opcode="ld.shared.v4.u32", direction="read", atom="UniversalCopy<uint128_t>",
                      matrix="A", element_bytes=2, tile=(16, 32), layout=layout, offset=offset)
    args.update(kw)
    return RecoveredLayout(**args)


def test_as_layout_refuses_when_nothing_was_recovered_naming_the_line_and_why() -> None:
    with pytest.raises(LayoutError, match=r"^PTX line 7: no layout recovered \(tiles disagree\)$"):
        rec(note="tiles disagree").as_layout()


def test_a_plain_layout_is_handed_over_as_is_and_its_offset_is_told_in_text() -> None:
    lay = parse("(16,32):(32,1)")
    assert rec(lay).as_layout() is lay
    assert rec(lay).text() == str(lay)
    assert rec(lay, offset=512).text() == f"{lay} at element offset 512"
    assert rec(lay, offset=512).as_layout() is lay


def test_a_swizzled_layout_carries_its_offset_inside_the_composition() -> None:
    base = ComposedLayout(Swizzle(3, 3, 3), 0, parse("(8,64):(64,1)"))
    got = rec(base, offset=4096).as_layout()
    assert isinstance(got, ComposedLayout)
    assert (got.outer, got.offset, got.inner) == (base.outer, 4096, base.inner)
    assert rec(base, offset=4096).text() == str(got)
    assert rec(base).as_layout() is base


def test_describe_and_as_dict_state_the_instruction_the_tile_and_the_layout() -> None:
    lay = parse("(16,32):(32,1)")
    r = rec(lay, note="pooled", samples=12)
    assert r.describe() == (f"PTX line 7 ld.shared.v4.u32 reads A tile 16x32 (16-bit) at {lay} through "
                            "UniversalCopy<uint128_t> (pooled)")
    w = rec(lay, direction="write", element_bytes=4)
    assert w.describe() == f"PTX line 7 ld.shared.v4.u32 writes A tile 16x32 (32-bit) at {lay} through " \
        "UniversalCopy<uint128_t>"
    assert r.as_dict() == {"line": 7, "opcode": "ld.shared.v4.u32", "direction": "read",
                           "atom": "UniversalCopy<uint128_t>", "matrix": "A", "element_bits": 16, "tile": [16, 32],
                           "layout": str(lay), "offset": 0, "own_fit": False, "note": "pooled", "samples": 12}
    assert rec().as_dict()["layout"] is None
    assert rec().text() == "no layout of the form Layout or Swizzle o Layout fits"
    assert rec(matrix=None).describe() == ("PTX line 7 ld.shared.v4.u32 moves no element of A, B or C the data "
                                           "flow followed (through UniversalCopy<uint128_t>); nothing to recover")


def instruction(text: str):
    fn = select_entry(parse_module(kernel([text])), None)
    return [x for x in fn.body if getattr(x, "opcode", "").startswith(text.split()[0])][0]


@pytest.mark.parametrize("text,name", [
    ("ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r6];", "UniversalCopy<uint128_t>"),
    ("ld.shared.u16 %h1, [%r6];", "UniversalCopy<uint16_t>"),
    ("st.shared.v2.u32 [%r6], {%r2, %r3};", "UniversalCopy<uint64_t>"),
    ("cp.async.cg.shared.global [%r6], [%rd4], 16;", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"),
    ("cp.async.ca.shared.global [%r6], [%rd4], 8;", "SM80_CP_ASYNC_CACHEALWAYS<uint64_t>"),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r6];", "SM75_U32x4_LDSM_N"),
    ("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r2, %r3}, [%r6];", "SM75_U16x4_LDSM_T"),
    ("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r6], {%r2};", "SM90_U32x1_STSM_N"),
])
def test_atom_name_is_cutes_copy_atom(text: str, name: str) -> None:
    assert atom_name(instruction(text)) == name
