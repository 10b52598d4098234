"""The per-lane bytes a ``wmma.load`` / ``wmma.store`` on shared memory records (``Trace.accesses``), against
the PTX ISA 9.7.14.4.1 "Matrix Fragments for WMMA" table, for every shape, element type, matrix and layout.

``ISA_BYTES`` is written here from the ISA's table: elements per lane x element width (``.f16x2`` registers
hold two ``.f16``, a ``.b32`` two ``.bf16``, four ``.s8``/``.u8``, eight ``.s4``/``.u4``, 32 ``.b1``; ``.tf32``
is 32 bits in memory).  ``tests/data/wmma_fragments_ptxas.json`` (``tools/wmma_fragments_ptxas.py``) lists the
register-vector lengths ptxas accepts for each form; each accepted form is traced and the record must say the
ISA's bytes, and the one length ptxas accepts must be those bytes in registers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel import trace
from layoutalg.kernel.ptx import parse_module

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import wmma_fragments_ptxas  # noqa: E402

TABLE = json.loads((Path(__file__).parent / "data" / "wmma_fragments_ptxas.json").read_text())
F16_SHAPES = ("m16n16k16", "m8n32k16", "m32n8k16")

#: (shape, type, matrix) -> bytes one lane's fragment holds (PTX ISA 9.7.14.4.1); "c" also stands for "d"
ISA_BYTES: dict[tuple[str, str, str], int] = {
    **{(s, "f16", x): 8 * 4 for s in F16_SHAPES for x in "ab"},  # eight .f16x2 registers: 16 halves
    **{(s, "f16", "c"): 4 * 4 for s in F16_SHAPES},  # four .f16x2 registers: 8 halves
    **{(s, "f32", "c"): 8 * 4 for s in F16_SHAPES},  # eight .f32 registers
    **{(s, "s32", "c"): 8 * 4 for s in F16_SHAPES},  # eight .s32 registers
    # .bf16: .b32 registers of two elements; m16n16k16 4 and 4, m8n32k16 2 and 8, m32n8k16 8 and 2
    ("m16n16k16", "bf16", "a"): 4 * 4, ("m16n16k16", "bf16", "b"): 4 * 4,
    ("m8n32k16", "bf16", "a"): 2 * 4, ("m8n32k16", "bf16", "b"): 8 * 4,
    ("m32n8k16", "bf16", "a"): 8 * 4, ("m32n8k16", "bf16", "b"): 2 * 4,
    # .s8/.u8: .b32 registers of four elements; m16n16k16 2 and 2, m8n32k16 1 and 4, m32n8k16 4 and 1
    **{("m16n16k16", t, x): 2 * 4 for t in ("s8", "u8") for x in "ab"},
    **{("m8n32k16", t, "a"): 1 * 4 for t in ("s8", "u8")}, **{("m8n32k16", t, "b"): 4 * 4 for t in ("s8", "u8")},
    **{("m32n8k16", t, "a"): 4 * 4 for t in ("s8", "u8")}, **{("m32n8k16", t, "b"): 1 * 4 for t in ("s8", "u8")},
    ("m16n16k8", "tf32", "a"): 4 * 4, ("m16n16k8", "tf32", "b"): 4 * 4,  # four .b32 registers
    ("m16n16k8", "f32", "c"): 8 * 4,  # eight .f32 registers
    ("m8n8k4", "f64", "a"): 8, ("m8n8k4", "f64", "b"): 8,  # one .f64 register
    # the ISA's table text says one .f64 register; ptxas 13.0 accepts only two (as mma.m8n8k4.f64's accumulator)
    ("m8n8k4", "f64", "c"): 2 * 8,
    **{("m8n8k32", t, x): 4 for t in ("s4", "u4") for x in "ab"},  # one .b32 register of eight elements
    ("m8n8k32", "s32", "c"): 2 * 4,  # two .s32 registers
    ("m8n8k128", "b1", "a"): 4, ("m8n8k128", "b1", "b"): 4,  # one .b32 register of 32 elements
    ("m8n8k128", "s32", "c"): 2 * 4,
}

KERNEL = wmma_fragments_ptxas.KERNEL  # the kernel the ptxas recording compiled, one .shared tile at %rd1


def wmma_records(body: str) -> list:
    return [r for r in trace(parse_module(KERNEL.format(body=body)), block=32).accesses if r.kind == "wmma"]


def accepted_forms() -> list[dict]:
    return [row for row in TABLE["forms"] if row["accepted_lengths"]]


def test_the_ptxas_table_covers_every_fragment_of_the_isa_table() -> None:
    got = {(r["shape"], r["type"], "c" if r["fragment"] == "d" else r["fragment"]) for r in accepted_forms()}
    assert got == set(ISA_BYTES)
    assert all(len(r["accepted_lengths"]) == 1 for r in accepted_forms())  # one vector length per form


def form_id(row: dict) -> str:
    return f"{row['fragment']}.{row['layout']}.{row['shape']}.{row['type']}"


@pytest.mark.parametrize("row", accepted_forms(), ids=form_id)
def test_each_wmma_load_and_store_records_the_isa_fragment_bytes_per_lane(row: dict) -> None:
    want = ISA_BYTES[(row["shape"], row["type"], "c" if row["fragment"] == "d" else row["fragment"])]
    assert row["accepted_lengths"] == [want // (8 if row["register"] == "f64" else 4)]  # ptxas agrees with the ISA
    recs = wmma_records(row["statement"])
    assert [r.access_bytes for r in recs] == [want]


def test_an_f32_accumulator_store_records_32_bytes_per_lane() -> None:
    # the reported case: m16n16k16 .f32 d is eight .f32 registers per thread, 8 x 4 = 32 bytes (was 16)
    vec = "{" + ", ".join(f"%r{i}" for i in range(8)) + "}"
    recs = wmma_records(f"wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%rd1], {vec}, 16;")
    assert [r.access_bytes for r in recs] == [32]


def test_a_wmma_store_leaves_every_byte_of_the_matrix_it_spans_unknown() -> None:
    # the interpreter does not model the stored values: the store forgets the CTA's shared memory, so the last
    # word of the 16 x 16 f32 matrix (bytes 1020..1023) is unknown afterwards, as the first is
    from kernel_interp_harness import lanes, launch

    vec = "{" + ", ".join(f"%r{i}" for i in range(1, 9)) + "}"
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [tile], 5;\nst.shared.u32 [tile+1020], 7;\n"
            f"wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%rd1], {vec}, 16;\n"
            "ld.shared.u32 %r20, [tile];\nld.shared.u32 %r21, [tile+1020];")
    m = launch(body, decls=".shared .align 16 .b8 tile[1024];")
    assert lanes(m, "%r20") == [None] * 32 and lanes(m, "%r21") == [None] * 32


def test_a_fragment_the_isa_does_not_list_is_refused_naming_the_line() -> None:
    # .tf32 multiplicands exist only for m16n16k8 (PTX ISA 9.7.14.4.1)
    with pytest.raises(KernelError) as err:
        wmma_records("wmma.load.a.sync.aligned.row.m16n16k16.shared.tf32 {%r0, %r1, %r2, %r3}, [%rd1], 16;")
    assert err.value.line == 11 and "no wmma .a fragment of shape .m16n16k16 with type .tf32" in str(err.value)
