"""Register operand types: layoutalg refuses exactly the register/operand pairs ptxas refuses.

``tests/data/ptxas_operand_widths.json`` (``tools/probe_ptx_operand_widths.py``, ptxas 13.0, sm_90) holds one
kernel per (instruction, operand, register type): ptxas's verdict on that operand being a register of each
type -- narrower, equal and wider, integer, bit-size, float and predicate, in source and destination
positions, over integer arithmetic, logic, shifts, setp/selp, mov, cvt, ld/st (shared, global, vectors,
addresses; one register of a vector swapped, and all of them), ldmatrix/stmatrix, mma, float arithmetic
(.f32/.f64/.f16/.f16x2/.bf16), packed and fp8 cvt, bfe/bfi/prmt, shfl, vote and a guard.  Each case is traced; a refusal must be a LayoutError naming the PTX line and the register.

Deliberately more permissive (:func:`permissive`; ``docs/DESIGN.md`` Known gaps), none of them a width
mismatch of data the tracer computes with:

* ``fixed-u32-f16x2``: a ``.f16x2``-declared register as an operand whose type the ISA fixes at ``.u32`` (a
  shift amount, ``bfe``/``bfi`` position and length, ``popc``/``clz`` result).  ptxas takes such a register for
  ``.u32``/``.s32``/``.b32`` instruction-typed operands but not for these; the builders state ``.u32`` for
  both, and the 32 bits are read the same either way.
* ``mma-fragment-kind``: an ``mma`` multiplicand register of another 32-bit kind (``.u32``, ``.f32``, ``.pred``
  where ptxas wants ``.b32``/``.f16x2`` for a one-register fragment); mma results are unknown to the tracer.
* ``address-size``: a 32-bit register as a ``.global`` address under ``.address_size 64`` (the decoder does not
  see the module's address size; global memory values are not traced).
* ``pred-vector``: a vector of ``.pred`` registers only, for 32-bit elements (``ld.v2.b32 {%p, %q}``): ptxas
  takes it for ``ldmatrix``/``stmatrix`` and a ``.pred`` register beside 32-bit ones everywhere, but refuses
  it for ``ld``/``st``/``mov``; layoutalg takes it (a predicate reads as 0 or 1, and holds "not 0").
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from layoutalg.errors import LayoutError
from layoutalg.kernel.trace import trace

DATA = json.loads((Path(__file__).parent / "data" / "ptxas_operand_widths.json").read_text())
KERNEL: str = DATA["meta"]["kernel"]
CASES: list[dict[str, Any]] = DATA["cases"]
LINE = KERNEL.split("\n").index("{instruction}") + 1


def permissive(case: dict[str, Any]) -> str | None:
    """The documented category of a ptxas refusal layoutalg deliberately does not repeat, or None."""
    ins, reg, k = case["instruction"], case["register_type"], case["operand"]
    root = ins.split()[0]
    if reg == "f16x2" and (root.startswith(("shl", "shr", "popc", "clz")) and case["proper_type"] == "b32"
                           and (k == 2 or root.startswith(("popc", "clz"))) or root.startswith(("bfe", "bfi"))
                           and k >= len(ins.split(",")) - 2):
        return "fixed-u32-f16x2"
    if root.startswith("mma") and case["role"] == "source" and case["proper_type"] == "b32" and \
            reg in ("u32", "s32", "f32", "pred"):
        return "mma-fragment-kind"
    if case["family"] == "address" and root.startswith(("ld.global", "st.global")) and reg in ("b32", "u32",
                                                                                                 "s32"):
        return "address-size"
    if reg == "pred" and case.get("whole_vector") and case["proper_type"] == "b32" and \
            root.startswith(("ld.", "st.", "mov.")):
        return "pred-vector"
    return None


def _verdict(case: dict[str, Any]) -> str | None:
    """None when layoutalg traces the case, else its refusal message."""
    try:
        trace(KERNEL.replace("{instruction}", case["instruction"]), block=32, keep_accesses=False)
    except LayoutError as e:
        return str(e)
    return None


def _id(case: dict[str, Any]) -> str:
    return f"{case['instruction'].split()[0]}-op{case['operand']}-{case['register_type']}"


@pytest.mark.parametrize("case", [c for c in CASES if c["ptxas_accepts"]], ids=_id)
def test_layoutalg_traces_what_ptxas_accepts(case: dict[str, Any]) -> None:
    assert _verdict(case) is None, case["instruction"]


@pytest.mark.parametrize("case", [c for c in CASES if not c["ptxas_accepts"]], ids=_id)
def test_layoutalg_refuses_what_ptxas_refuses(case: dict[str, Any]) -> None:
    why = _verdict(case)
    if permissive(case) is not None:
        assert why is None, f"{case['instruction']}: documented as permissive, but refused: {why}"
        return
    assert why is not None, f"ptxas refuses {case['instruction']!r} ({case['register']} is .{case['register_type']})"
    assert f"PTX line {LINE}" in why and re.search(re.escape(case["register"]) + r"\b", why), why


def test_the_recording_covers_every_family_and_register_type() -> None:
    families = {c["family"] for c in CASES}
    assert {"int-arith", "logic", "shift", "setp", "selp", "mov", "cvt", "ld-st", "address", "matrix", "mma",
            "float", "bitfield"} <= families
    assert set(DATA["meta"]["register_types"]) >= {"pred", "b16", "b32", "b64", "f32", "f64", "f16x2"}
    assert DATA["meta"]["ptxas_version"].startswith("Cuda compilation tools")


def test_a_narrow_shift_source_is_refused_naming_line_and_operand() -> None:
    """The found case: ``shl.b64 %rd1, %r1, 2`` with ``%r1`` a .b32 register was read zero-extended."""
    ptx = KERNEL.replace("{instruction}", "shl.b64 %v_b64_0, %v_b32_1, 2;")
    with pytest.raises(LayoutError, match=rf"PTX line {LINE}, shl.b64: operand 1 \(%v_b32_1, a \.b32 register\)"):
        trace(ptx, block=32)
