"""Red team for bank-conflict proofs: the symbolic route accepts exactly what enumeration accepts.

Random warp accesses (``ld``/``st`` of 4, 8 and 16 bytes, ``ldmatrix``/``stmatrix``) over random shared-memory
layouts (padded, swizzled, offset by ``base``), some misaligned, some with coordinates outside the layout, some
ending past the shared memory of the chosen architecture, are decided twice: by enumeration (the exact,
measured model on every instance) and symbolically (the same access as a function, through the prover).  Both
must raise the same error, or agree: a symbolic "proved" where enumeration refutes is unsound, a symbolic
"refuted" where enumeration proves is wrong; "unknown" is allowed (GF(2) alone, or a doubled-phase load the
symbolic claim cannot settle).  Every refutation must name the lanes, their (row, col) coordinates and byte
addresses consistently with the layout.  ``LAYOUTALG_ADVERSARIAL_EXAMPLES`` scales the random part
(default 25)::

    LAYOUTALG_ADVERSARIAL_EXAMPLES=5000 python -m pytest tests/adversarial

(``LAYOUTALG_ADVERSARIAL_SEED=N`` shifts the fixed seed, for a different sample.)
"""

from __future__ import annotations

import os
import random
from typing import Any, Callable

import pytest

from layoutalg.atoms.arch import get_arch
from layoutalg.banks.access import Access
from layoutalg.banks.instruction import parse_instruction
from layoutalg.banks.proof import conflict_free, symbolic_access
from layoutalg.core.layout import Layout
from layoutalg.errors import CoordinateError, InstructionError, LayoutError
from layoutalg.prove import param
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

EXAMPLES = int(os.environ.get("LAYOUTALG_ADVERSARIAL_EXAMPLES", "0") or 0) or 25
SEED = 32 + int(os.environ.get("LAYOUTALG_ADVERSARIAL_SEED", "0") or 0)
INSTRUCTIONS = ("ld.shared.b32", "st.shared.b32", "ld.shared.v2.b32", "ld.shared.v4.b32", "st.shared.v4.b32",
                "ldmatrix.x4", "ldmatrix.x2", "stmatrix.x4")


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """("error", its class) or (status, result)."""
    try:
        r = call()
    except (CoordinateError, InstructionError) as exc:
        return "error", type(exc)
    return r.status, r


def _check_refutation(r: Any, layout: Any, e: int, base: int) -> str | None:
    """The counterexample's lanes, coordinates, addresses and bank agree with the layout (None when they do)."""
    cex = r.counterexample or {}
    for s in ("", "_b"):
        need = {"lane" + s, "row" + s, "col" + s, "address" + s}
        if not need <= set(cex):
            return f"counterexample {cex} lacks {need - set(cex)}"
        if e * layout(cex["row" + s], cex["col" + s]) + base != cex["address" + s]:
            return f"address{s} {cex['address' + s]} is not layout(row{s}, col{s}) in {cex}"
    if cex["word"] % 32 != cex["bank"] or cex["word_b"] % 32 != cex["bank"] or cex["word"] == cex["word_b"]:
        return f"words {cex['word']}, {cex['word_b']} are not two words of bank {cex['bank']}"
    return None


def _random_case(rng: random.Random) -> dict[str, Any]:
    ins_text = rng.choice(INSTRUCTIONS)
    ins = parse_instruction(ins_text)
    dtype, e = rng.choice((("f16", 2), ("f32", 4)))
    per = max(1, ins.access_bytes // e)  # elements one lane moves
    rows = rng.choice((8, 16, 32, 64))
    cols = rng.choice((1, 2, 4)) * max(per, 32 // e) * 2
    pad = rng.choice((0, 0, per, 1))
    inner = Layout((rows, cols), (cols + pad, 1))
    layout: Any = inner
    if pad == 0 and rng.random() < 0.5:
        base_bits = max(ins.access_bytes, 4) // e
        layout = ComposedLayout(Swizzle(rng.choice((1, 2, 3)), base_bits.bit_length() - 1, 3), 0, inner)
    a, b = rng.choice((1, 1, 2, 3, 5)), rng.choice((0, 1, 4, 8))
    step = per * rng.choice((1, 1, 2)) + rng.choice((0, 0, 0, 0, 0, 1))  # sometimes misaligned
    group = rng.choice((1, 2, 4, 8))
    wrap = rng.random() < 0.85  # else coordinates may leave the layout
    base = rng.choice((0, 0, 0, 128, 2, 64 * 1024))
    arch = rng.choice(("sm_90", "sm_80", "sm_86"))

    def fn(lane: Any, i: Any) -> Any:
        row = a * lane + b * i
        col = step * ((lane // group) % (32 // group)) + per * i
        return (row % rows, col % cols) if wrap else (row, col)

    return {"ins": ins_text, "dtype": dtype, "e": e, "layout": layout, "fn": fn, "base": base, "arch": arch,
            "text": f"{ins_text} {dtype} over {layout}, a={a} b={b} step={step} group={group} wrap={wrap} "
                    f"base={base} {arch}"}


def test_random_symbolic_bank_proofs_agree_with_enumeration() -> None:
    rng = random.Random(SEED)
    problems: list[str] = []
    seen: set[str] = set()
    for _ in range(EXAMPLES):
        c = _random_case(rng)
        if parse_instruction(c["ins"]).kind == "stmatrix" and c["arch"] != "sm_90":
            continue  # no stmatrix before sm_90 (refused alike: checked below)
        kw = {"base": c["base"], "arch": c["arch"], "timeout": 10}
        want, enum_r = _outcome(lambda c=c, kw=kw: conflict_free(c["layout"], Access.from_fn(c["ins"], c["fn"], i=4),
                                                                 c["dtype"], **kw))
        seen.add(want)
        for method in ("auto", "z3", "f2"):
            got, sym_r = _outcome(lambda c=c, kw=kw, method=method: conflict_free(
                c["layout"], symbolic_access(c["ins"], c["fn"], i=4), c["dtype"], method=method, **kw))
            if want == "error" or got == "error":
                if (want, enum_r if want == "error" else None) != (got, sym_r if got == "error" else None):
                    problems.append(f"{method}: enumeration {want} {enum_r if want == 'error' else ''}, "
                                    f"symbolic {got} {sym_r if got == 'error' else ''}: {c['text']}")
                continue
            if got != "unknown" and got != want:
                problems.append(f"{method}: symbolic says {got}, enumeration {want}: {c['text']}")
            for r in (enum_r, sym_r):
                if r.status == "refuted":
                    bad = _check_refutation(r, c["layout"], c["e"], c["base"])
                    if bad:
                        problems.append(f"{method}: {bad}: {c['text']}")
    assert not problems, "\n".join(problems[:10])
    assert {"error", "proved", "refuted"} <= seen, seen  # the cases reach every outcome


@pytest.mark.parametrize("method", ["auto", "z3", "f2"])
def test_a_vector_access_not_aligned_to_its_width_is_refused_alike(method: str) -> None:
    layout = Layout((32, 64), (64, 1))
    fn = lambda lane, i: (lane, 4 * i + 2)  # noqa: E731 - 16-byte loads at 8-byte offsets in f32
    with pytest.raises(InstructionError, match="misaligned"):
        conflict_free(layout, Access.from_fn("ld.shared.v4.b32", fn, i=2), "f32")
    with pytest.raises(InstructionError, match="misaligned"):
        conflict_free(layout, symbolic_access("ld.shared.v4.b32", fn, i=2), "f32", method=method)


@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_90", "sm_120"])
def test_an_address_past_the_shared_memory_of_the_arch_is_refused_alike(arch: str) -> None:
    """A 256 x 128 f32 tile is 128 KiB: inside sm_80's and sm_90's shared memory, past sm_86's and sm_120's."""
    layout = Layout((256, 128), (128, 1))
    fn = lambda lane, i: (8 * i + lane % 8, 4 * (lane // 8))  # noqa: E731
    fits = get_arch(arch).smem_per_block_bytes >= 256 * 128 * 4
    for access, method in ((Access.from_fn("ld.shared.v4.b32", fn, i=32), "auto"),
                           (symbolic_access("ld.shared.v4.b32", fn, i=32), "z3")):
        if fits:
            assert conflict_free(layout, access, "f32", arch=arch, method=method).status in ("proved", "refuted")
        else:
            with pytest.raises(InstructionError, match=f"past the .* bytes of shared memory per block on {arch}"):
                conflict_free(layout, access, "f32", arch=arch, method=method)


def test_an_unbounded_parameter_that_walks_past_the_end_is_refused() -> None:
    """A k-tile index used as a stage coordinate with no ``% stages`` reaches past the layout and its memory."""
    k = param("k", 1 << 20)
    staged = Layout((32, 32, 2), (32, 1, 1024))
    with pytest.raises(CoordinateError, match="mode 2"):
        conflict_free(staged, symbolic_access("ld.shared.b32", lambda lane, i: (lane, i, k), i=1), "f32")
    assert conflict_free(staged, symbolic_access("ld.shared.b32", lambda lane, i: (lane, i, k % 2), i=1),
                         "f32").status in ("proved", "refuted")


def test_an_instruction_missing_on_the_arch_is_refused() -> None:
    with pytest.raises(LayoutError, match="sm_80"):
        conflict_free(Layout((64, 64), (64, 1)), "stmatrix.x4", "f16", arch="sm_80")


@pytest.mark.parametrize("method", ["enum", "z3"])
def test_refutations_name_lanes_coordinates_and_byte_addresses(method: str) -> None:
    layout = Layout((64, 64), (64, 1))
    fn = lambda lane, i: (lane % 16 + 16 * i, 8 * (lane // 16))  # noqa: E731 - ldmatrix.x4 rows 128 bytes apart
    access = Access.from_fn("ldmatrix.x4", fn, i=4) if method == "enum" else symbolic_access("ldmatrix.x4", fn, i=4)
    r = conflict_free(layout, access, "f16", method="auto" if method == "enum" else method, base=256)
    assert r.refuted
    assert _check_refutation(r, layout, 2, 256) is None, r.counterexample
    cex = r.counterexample or {}
    assert cex["lane"] // 8 == cex["lane_b"] // 8  # one matrix, one phase
    assert f"row {cex['row']}, col {cex['col']}, byte {cex['address']}" in r.explanation


CP_ASYNC_CASES = [  # (instruction, global layout of the 64 x 64 f16 tile's source)
    ("cp.async.cg.shared.global, 16", Layout((64, 64), (4104, 1))),  # padded global rows: lines straddle
    ("cp.async.cg.shared.global, 16", Layout((64, 64), (72, 1))),  # rows padded by 16 bytes
    # each lane's 16 (8) bytes are consecutive in global memory too (a tile sweep's copy moves one run of the row),
    # but every run of a row starts 128 bytes after the last: one global bank group for the whole phase
    ("cp.async.ca.shared.global, 16", Layout((64, (8, 8)), (4096, (1, 64)))),
    ("cp.async.ca.shared.global, 8", Layout((64, (4, 16)), (4096, (1, 64)))),
]


@pytest.mark.parametrize("instruction, source", CP_ASYNC_CASES, ids=[f"{i}-{g}" for i, g in CP_ASYNC_CASES])
def test_cp_async_refutations_name_two_lanes_by_coordinate_and_both_addresses(instruction: str, source: Layout) -> None:
    """A refuted cp.async names two lanes, their (row, col), shared and global byte addresses; the addresses are
    the layouts' own values at those coordinates, and the pair does what the explanation says it does."""
    smem = Layout((64, 64), (64, 1))
    r = conflict_free(smem, instruction, "f16", global_layout=source)
    assert r.refuted, r
    cex = r.counterexample or {}
    w = parse_instruction(instruction).access_bytes
    for tag in ("", "_b"):
        row, col = cex[f"row{tag}"], cex[f"col{tag}"]
        assert cex[f"address{tag}"] == 2 * smem(row, col)
        assert cex[f"global_address{tag}"] == 2 * source(row, col)
        assert f"{cex[f'lane{tag}']} (row {row}, col {col}, shared byte {cex[f'address{tag}']}, global byte " \
               f"{cex[f'global_address{tag}']})" in r.explanation
    s, t, g, h = cex["address"], cex["address_b"], cex["global_address"], cex["global_address_b"]
    assert cex["lane"] != cex["lane_b"]
    if ".cg" in instruction:
        same_row_other_line = s // 128 == t // 128 and g // 128 != h // 128
        same_group_other_shift = ((s // 128, g // 128) == (t // 128, h // 128)
                                  and (s // 32 - g // 32) % 4 != (t // 32 - h // 32) % 4)
        assert same_row_other_line or same_group_other_shift, cex
    else:
        groups = 128 // max(4, w)
        assert cex["lane"] // (32 if w <= 4 else 128 // w) == cex["lane_b"] // (32 if w <= 4 else 128 // w)
        assert g // w % groups == h // w % groups or s // w % groups == t // w % groups, cex
