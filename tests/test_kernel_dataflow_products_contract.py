"""Every (m, n, k) product counted once (layoutalg/kernel/dataflow/products.py): a product accumulated a second
time refutes, naming the instruction and the element (m, n, k) -- whether the two come from one instruction
in two lanes, from two instructions, from two mma tiles, or in a problem too big for a dense counter (more
than 2**27 products: sorted keys instead).  Scalar products: the harness's GEMM (lane l computes C(l / 8, l % 8));
mma tiles: the generated m16n8k16 kernel of tests/dataflow_synth.py."""

from __future__ import annotations

import pytest
from dataflow_synth import MmaCase, mma_kernel
from kernel_dataflow_contract_harness import SPECS, gemm

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module

FMA0 = "fma.rn.f32 %f30, %f10, %f20, %f0;"


def check(text: str, **specs: str):
    return check_mma(trace(parse_module(text), block=32), **{**SPECS, **specs})


def line_of(text: str, ins: str) -> int:
    return [i + 1 for i, x in enumerate(text.split("\n")) if x.strip() == ins][0]


def test_the_same_k_product_twice_in_a_chain_is_a_duplicate_at_the_second_instruction() -> None:
    text = gemm(k_products=(0, 0))
    r = check(text)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "duplicate"
    assert r.counterexample["element"] == [0, 0, 0]
    assert r.counterexample["line"] == line_of(text, "fma.rn.f32 %f31, %f11, %f21, %f30;")
    assert r.reason.endswith("the product A(0, 0) * B(0, 0) is accumulated a second time (into C(0, 0))")


def test_two_lanes_of_one_instruction_computing_the_same_product_are_a_duplicate() -> None:
    text = gemm().replace("shr.u32 %r3, %r2, 3;", "mov.u32 %r3, 0;")  # every lane's row m is 0
    r = check(text)
    assert r.counterexample["kind"] == "duplicate" and r.counterexample["element"] == [0, 0, 0]
    assert r.counterexample["line"] == line_of(text, FMA0)


def test_products_of_distinct_lanes_and_k_are_each_counted_once() -> None:
    r = check(gemm(k_products=(1, 0)))  # the k order does not matter
    assert r.verdict == "proved" and "each (m, n, k) of the 4x8x2 problem is accumulated once" in r.claim


def deep(text: str) -> str:
    """The GEMM with A's rows 65535 elements apart: A(m, k) at 65535 m + k (K = 65535 in the specs)."""
    for k in (0, 1):
        text = text.replace(f"mad.lo.u32 %r10, %r3, 2, {k};", f"mad.lo.u32 %r10, %r3, 65535, {k};")
    return text


# 512 x 8 x 65535 = 268 431 360 products > 2**27: no dense counter
BIG = {"a": "pA@(512,65535):(65535,1)", "b": "pB@(65535,8):(8,1)", "c": "pC@(512,8):(8,1)"}


def test_a_duplicate_in_a_problem_too_big_for_a_dense_counter_is_still_found() -> None:
    r = check(deep(gemm(k_products=(0, 0))), **BIG)
    assert r.counterexample["kind"] == "duplicate" and r.counterexample["element"] == [0, 0, 0]
    assert r.reason == "the product A(0, 0) * B(0, 0) is accumulated more than once"
    assert check(deep(gemm(k_products=(1, 0))), **BIG).counterexample["kind"] == "store"  # (K = 65535 not reached)


MMA_SPECS = {"a": "pA@(16,32):(32,1)", "b": "pB@(32,8):(8,1)", "c": "pC@(16,8):(8,1)"}


def test_an_mma_tile_accumulated_twice_is_a_duplicate_at_its_origin() -> None:
    lines = mma_kernel(MmaCase()).split("\n")
    first = [i for i, x in enumerate(lines) if "mma.sync" in x][0]
    again = lines[first].replace("{%f0, %f1, %f2, %f3};", "{%f4, %f5, %f6, %f7};")  # the same tile into its own result
    text = "\n".join(lines[:first + 1] + [again] + lines[first + 1:])
    assert check_mma(trace(parse_module("\n".join(lines)), block=32), **MMA_SPECS).verdict == "proved"
    r = check_mma(trace(parse_module(text), block=32), **MMA_SPECS)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "duplicate"
    assert r.counterexample["element"] == [0, 0, 0] and r.counterexample["line"] == first + 2


# The 16 x 32 / 32 x 8 / 16 x 8 corner of MMA_SPECS inside a 512 x 512 x 1024 problem: 2**28 products, more than
# the dense counter takes (sorted keys instead); the extra mma / fma below repeat products of the first tile.
BIG_MMA = {"a": "pA@((16,32),(32,32)):((32,512),(1,16384))", "b": "pB@((32,32),(8,64)):((8,256),(1,8192))",
           "c": "pC@((16,32),(8,64)):((8,128),(1,4096))"}
ZERO_C = [f"  mov.f32 %f{20 + i}, 0f00000000;" for i in range(4)]


def with_extra(extra: list[str], before_first_mma: bool) -> str:
    """The two-step m16n8k16 kernel with ``extra`` lines just before (or just after) its first mma."""
    lines = mma_kernel(MmaCase()).split("\n")
    first = [i for i, x in enumerate(lines) if "mma.sync" in x][0]
    at = first if before_first_mma else first + 1
    return "\n".join(lines[:at] + extra + lines[at:])


def first_mma_fragments() -> tuple[list[str], list[str]]:
    line = [x for x in mma_kernel(MmaCase()).split("\n") if "mma.sync" in x][0]
    _d, a, b, _c = line.split(" ", 3)[3].strip(" ;").split("}, {")
    return a.strip("{} ").split(", "), b.strip("{} ").split(", ")


def duplicates(text: str, specs: dict) -> list[list[int]]:
    r = check_mma(trace(parse_module(text), block=32), **specs)
    return [f.fields["element"] for f in r.findings if f.kind == "duplicate"]


@pytest.mark.parametrize("specs", [MMA_SPECS, BIG_MMA], ids=["dense", "sorted-keys"])
@pytest.mark.parametrize("before", [False, True], ids=["after", "before"])
def test_an_mma_of_another_shape_repeating_half_a_tile_is_a_duplicate_in_any_problem_size(specs, before) -> None:
    # m16n8k8 on the m16n8k16 tile's a0, a1 and b0: the k = 0..7 half of its products, counted again
    a, b = first_mma_fragments()
    k8 = f"  mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {{%f24, %f25, %f26, %f27}}, {{{a[0]}, {a[1]}}}, " \
         f"{{{b[0]}}}, {{%f20, %f21, %f22, %f23}};"
    assert [0, 0, 0] in duplicates(with_extra(ZERO_C + [k8], before), specs)


@pytest.mark.parametrize("specs", [MMA_SPECS, BIG_MMA], ids=["dense", "sorted-keys"])
def test_a_scalar_fma_of_a_product_a_later_mma_tile_accumulates_is_a_duplicate_in_any_problem_size(specs) -> None:
    # lane l's first A and B halves are A(l/4, 2(l%4)) and B(2(l%4), l/4): (m, n, k) = (l/4, l/4, 2(l%4)) of tile 0
    lines = mma_kernel(MmaCase()).split("\n")
    halves = [x.split()[1].rstrip(",") for x in lines if "ld.global.u16" in x]
    fma = ["  mov.b16 %h120, 0;", f"  fma.rn.f16 %h121, {halves[0]}, {halves[8]}, %h120;"]
    assert duplicates(with_extra(fma, before_first_mma=True), specs)[:1] == [[0, 0, 0]]
    assert duplicates(with_extra([], before_first_mma=True), specs) == []


def placed_mma_kernel(monkeypatch, a_cols: int, b_cols: int, shift: dict[str, int], dup_step: int | None) -> str:
    """The two-step m16n8k16 kernel over row-major A (16 x ``a_cols`` read) and B (32 x ``b_cols``), C rows
    ``b_cols`` apart, with each matrix's pointer moved ``shift[name]`` elements on (so its tile lands at another
    origin of the specs' matrices), and the mma of step ``dup_step`` run a second time into its own result."""
    import dataflow_synth

    monkeypatch.setattr(dataflow_synth, "A_COLS", a_cols)
    monkeypatch.setattr(dataflow_synth, "B_COLS", b_cols)
    text = mma_kernel(MmaCase())
    for reg, name, size in (("%rd1", "A", 2), ("%rd2", "B", 2), ("%rd3", "C", 4)):
        param = f"ld.param.u64 {reg}, [p{name}];"
        text = text.replace(param, f"{param}\n  add.s64 {reg}, {reg}, {size * shift.get(name, 0)};")
    if dup_step is None:
        return text
    lines = text.split("\n")
    at = [i for i, x in enumerate(lines) if "mma.sync" in x][dup_step]
    d = lines[at].split("{")[1].split("}")[0]  # the mma's own result registers, read back as its C
    c = lines[at].split("{")[4].split("}")[0]
    return "\n".join(lines[:at + 1] + [lines[at].replace("{" + c + "}", "{" + d + "}")] + lines[at + 1:])


def duplicate_findings(text: str, specs: dict) -> list:
    r = check_mma(trace(parse_module(text), block=32), **specs)
    return [f for f in r.findings if f.kind == "duplicate"]


def test_a_tile_counted_twice_away_from_the_origin_is_named_by_its_own_m_n_k(monkeypatch) -> None:
    # A 48 x 64, B 64 x 16, C 48 x 16: the kernel's tiles sit at m = 32, n = 8 and k = 32 / 48 (tiles 2, 1, 2 / 3)
    specs = {"a": "pA@(48,64):(64,1)", "b": "pB@(64,16):(16,1)", "c": "pC@(48,16):(16,1)"}
    shift = {"A": 32 * 64 + 32, "B": 32 * 16 + 8, "C": 32 * 16 + 8}
    assert duplicate_findings(placed_mma_kernel(monkeypatch, 64, 16, shift, None), specs) == []
    (dup,) = duplicate_findings(placed_mma_kernel(monkeypatch, 64, 16, shift, 1), specs)
    assert dup.fields["element"] == [32, 8, 48]
    assert dup.message.endswith("the product A(32, 48) * B(48, 8) is accumulated a second time (into C(32, 8))")


@pytest.mark.parametrize("axis, shift, element", [
    ("m", {"A": 64, "C": 16}, [1, 0, 0]),     # A and C one row on: the tile starts at m = 1
    ("n", {"B": 1, "C": 1}, [0, 1, 0]),       # B and C one column on: n = 1
    ("k", {"A": 1, "B": 16}, [0, 0, 1]),      # A one column and B one row on: k = 1 (and 17)
])
def test_a_tile_at_an_unaligned_origin_counted_twice_is_named_at_its_own_first_element(monkeypatch, axis, shift,
                                                                                          element) -> None:
    # tiles not on the m16n8k16 grid are counted per element: the duplicate is the tile's own first element,
    # not the grid tile it falls in
    specs = {"a": "pA@(32,64):(64,1)", "b": "pB@(64,16):(16,1)", "c": "pC@(32,16):(16,1)"}
    (dup,) = duplicate_findings(placed_mma_kernel(monkeypatch, 64, 16, shift, 0), specs)
    assert dup.fields["element"] == element


def test_up_to_2_to_the_27_products_a_duplicate_is_named_at_its_instruction(monkeypatch) -> None:
    # 512 x 512 x 512 = 2**27 products: the dense counter (MAX_COUNTERS) still takes the problem, so the
    # duplicate of an (unaligned, per-element) tile is found at the instruction that repeats it
    specs = {"a": "pA@(512,512):(512,1)", "b": "pB@(512,512):(512,1)", "c": "pC@(512,512):(512,1)"}
    text = placed_mma_kernel(monkeypatch, 512, 512, {"A": 512, "C": 512}, 0)
    (dup,) = duplicate_findings(text, specs)
    assert dup.fields["element"] == [1, 0, 0]
    assert dup.fields["line"] == [i + 1 for i, x in enumerate(text.split("\n")) if "mma.sync" in x][1]


def test_a_duplicate_within_one_instruction_is_named_at_the_element_repeated_not_the_first_lane() -> None:
    # rows m = min(lane / 8, 2): lanes 24..31 repeat the products of lanes 16..23, lanes 0..15 are each counted once
    text = gemm().replace("shr.u32 %r3, %r2, 3;", "shr.u32 %r3, %r2, 3;\nmin.u32 %r3, %r3, 2;")
    r = check(text)
    assert r.counterexample["kind"] == "duplicate" and r.counterexample["element"] == [2, 0, 0]
    assert r.counterexample["line"] == line_of(text, FMA0)


def zero_filled_before_k0(text: str) -> str:
    """The placed kernel with the elements its first step's tile (k = -1..14 after a one-column shift back) has
    at k = -1 masked to zeros, as a bounds-checked load leaves them: the low halves of the registers packing A's
    a0 and a2 and B's b0 in the lanes with lane % 4 == 0 (PTX ISA m16n8k16 fragments: A column 2 (l % 4) + i % 2
    + 8 (i / 4), B row 2 (l % 4) + i % 2 + 8 (i / 2))."""
    return zero_filled_halves(text, 0, (0, 2, 8), high_half=False, scratch="%r1023", predicate="%p7")


def zero_filled_halves(text: str, lane_residue: int, load_indices: tuple[int, ...], high_half: bool, scratch: str,
                       predicate: str) -> str:
    """The kernel with the halves loaded by the ``ld.global.u16`` number ``load_indices`` zeroed, in the lanes
    with ``lane % 4 == lane_residue``, in the register each is packed into (its low or its high half)."""
    lines = text.split("\n")
    start = lines.index("  mov.u32 %r1, %laneid;") + 1
    lines[start:start] = [f"  and.b32 {scratch}, %r1, 3;", f"  setp.eq.u32 {predicate}, {scratch}, {lane_residue};"]
    loads = [x.split()[1].rstrip(",") for x in lines if "ld.global.u16" in x]
    for half in (loads[i] for i in load_indices):
        place = f", {half}}};" if high_half else f"{{{half}, "
        at = next(i for i, x in enumerate(lines) if x.startswith("  mov.b32 ") and place in x)
        packed = lines[at].split()[1].rstrip(",")
        lines.insert(at + 1, f"  @{predicate} and.b32 {packed}, {packed}, {65535 if high_half else -65536};")
    return "\n".join(lines)


def test_a_tile_reaching_before_k_0_with_zeros_counts_only_the_problems_products(monkeypatch) -> None:
    # A 16 x 31 (rows 64 apart), B 31 x 8 (rows 16 apart), C 16 x 8; A's and B's pointers one k back: the tiles
    # start at k = -1 and 15 (off the k16 grid: counted per element) and cover k = 0..30 once, the k = -1
    # elements being zeros.  Those products lie outside the problem: counted, they would land on another
    # (m, n, k) -- (m, n - 1, 30) -- or outside the counter
    specs = {"a": "pA@(16,31):(64,1)", "b": "pB@(31,8):(16,1)", "c": "pC@(16,8):(16,1)"}
    shift = {"A": -1, "B": -16}
    text = zero_filled_before_k0(placed_mma_kernel(monkeypatch, 64, 16, shift, None))
    r = check_mma(trace(parse_module(text), block=32), **specs)
    assert r.verdict == "proved" and "each (m, n, k) of the 16x8x31 problem is accumulated once" in r.claim
    (dup,) = duplicate_findings(zero_filled_before_k0(placed_mma_kernel(monkeypatch, 64, 16, shift, 1)), specs)
    assert dup.fields["element"] == [0, 0, 15]


def zero_filled_at_k15_of_step_1(text: str) -> str:
    """The kernel with the elements its second step's tile has at local k = 15 masked to zeros, as a
    bounds-checked load leaves them: the high halves of the registers packing A's a5 and a7 and B's b3 in the
    lanes with lane % 4 == 3 (PTX ISA m16n8k16 fragments, as zero_filled_before_k0: A column 6 + 1 + 8 = 15,
    B row 6 + 1 + 8 = 15)."""
    # step 1: A's a5, a7, then B's b3
    return zero_filled_halves(text, 3, (12 + 5, 12 + 7, 12 + 8 + 3), high_half=True, scratch="%r1022", predicate="%p6")


def test_a_tile_reaching_past_the_last_k_with_zeros_counts_only_the_problems_products(monkeypatch) -> None:
    # A 16 x 30, B 30 x 8, C 16 x 8; A's and B's pointers one k back: the tiles cover k = -1..14 and 15..30,
    # the k = -1 and k = 30 (= K) elements being zeros.  The products at k = K lie outside the problem: counted,
    # (m, n, K) would land on (m, n + 1, 0) (key (m N + n) K + K) or past the counter
    specs = {"a": "pA@(16,30):(64,1)", "b": "pB@(30,8):(16,1)", "c": "pC@(16,8):(16,1)"}
    shift = {"A": -1, "B": -16}
    text = zero_filled_at_k15_of_step_1(zero_filled_before_k0(placed_mma_kernel(monkeypatch, 64, 16, shift, None)))
    r = check_mma(trace(parse_module(text), block=32), **specs)
    assert r.verdict == "proved" and "each (m, n, k) of the 16x8x30 problem is accumulated once" in r.claim


def zeroed_in_last_group(text: str, operand: int, regs: tuple[int, ...]) -> str:
    """The kernel with registers ``regs`` of mma operand ``operand`` (1 = A, 2 = B) set to zero in lanes 28..31
    (groupID 7) just before each mma, as a bounds-checked load leaves them."""
    lines = text.split("\n")
    start = lines.index("  mov.u32 %r1, %laneid;") + 1
    lines[start:start] = ["  setp.ge.u32 %p5, %r1, 28;"]
    out = []
    for x in lines:
        if "mma.sync" in x:
            names = x.split("{")[operand + 1].split("}")[0].split(", ")
            out += [f"  @%p5 mov.b32 {names[i]}, 0;" for i in regs]
        out.append(x)
    return "\n".join(out)


@pytest.mark.parametrize("axis", ["m", "n"])
def test_a_tile_reaching_one_past_the_last_row_or_column_with_zeros_counts_only_the_problems_products(
        monkeypatch, axis: str) -> None:
    # A 16 x 32 (rows 64 apart), B 32 x 8 and C 16 x 8 (rows 16 apart).  m: A and C one row on, the tiles cover
    # rows 1..16; row 16 = M (PTX ISA m16n8k16: A rows groupID + 8 in a2, a3 / a6, a7 = registers 1 and 3,
    # groupID 7 = lanes 28..31) is zeros.  n: B and C one column on, columns 1..8; column 8 = N (B column groupID,
    # every B register) is zeros.  Row 0 / column 0 of C is never written; no product is counted twice -- the
    # products at m = M or n = N lie outside the problem (counted, (m, N, k) would land on (m + 1, 0, k) and
    # (M, n, k) past the counter)
    specs = {"a": "pA@(16,32):(64,1)", "b": "pB@(32,8):(16,1)", "c": "pC@(16,8):(16,1)"}
    shift = {"A": 64, "C": 16} if axis == "m" else {"B": 1, "C": 1}
    text = placed_mma_kernel(monkeypatch, 64, 16, shift, None)
    text = zeroed_in_last_group(text, 1, (1, 3)) if axis == "m" else zeroed_in_last_group(text, 2, (0, 1))
    r = check_mma(trace(parse_module(text), block=32), **specs)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex is not None and cex["kind"] == "store" and cex["element"] == [0, 0]
    assert "C(0, 0) is never written" in r.reason
    assert [f for f in r.findings if f.kind in ("duplicate", "operand")] == []
