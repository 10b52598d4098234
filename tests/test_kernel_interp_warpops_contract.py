"""Warp-level instructions of the tracer (shfl, vote, activemask, match, redux, elect, movmatrix) against
the PTX ISA's definitions (ISA 8.x, "Parallel Synchronization and Communication Instructions" and
"Data Movement": shfl.sync), written here as Python ints per lane.

Every example runs warps with chosen per-lane inputs and a chosen set of active lanes (the inactive ones
branch around the instruction), including several warps and a partial last warp, so values must stay
inside their own warp and come only from lanes that execute the instruction.  A value read from a lane
that does not take part is undefined in the ISA: the tracer must report it unknown (None here).
"""

from __future__ import annotations

from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from kernel_interp_harness import lanes, launch, refusal

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, phases=[Phase.generate])  # no shrinking: a failure reports at once
THREADS = st.sampled_from([32, 48, 64])


@st.composite
def warps(draw: st.DrawFn, small: bool = False) -> tuple[int, list[list[int]], list[bool]]:
    n = draw(THREADS)
    word = st.integers(0, 3) if small else st.integers(0, 2**32 - 1)
    inputs = [[draw(word), draw(word), draw(st.integers(0, 2**32 - 1))] for _ in range(n)]
    active = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if not any(active):
        active[draw(st.integers(0, n - 1))] = True
    return n, inputs, active


def warp_of(t: int) -> range:
    return range(t - t % 32, t - t % 32 + 32)


# ----------------------------------------------------------------- oracles (PTX ISA pseudocode)
def shfl_source(mode: str, lane: int, b: int, c: int) -> tuple[int, bool]:
    """shfl.sync: the source lane j and the predicate p (ISA: maxLane/minLane from c's clamp and segmask)."""
    bval, cval, seg = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & seg) | (cval & ~seg & 31)
    min_lane = lane & seg
    if mode == "up":
        j = lane - bval
        p = j >= max_lane
    elif mode == "down":
        j = lane + bval
        p = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        p = j <= max_lane
    else:
        j = min_lane | (bval & ~seg & 31)
        p = j <= max_lane
    return (j if p else lane), p


def expected_shfl(mode: str, n: int, a: list[int], b: list[int], c: list[int], active: list[bool]
                  ) -> tuple[list[int | None], list[int | None]]:
    d: list[int | None] = []
    p: list[int | None] = []
    for t in range(n):
        if not active[t]:
            d.append(None)
            p.append(None)
            continue
        j, ok = shfl_source(mode, t % 32, b[t], c[t])
        src = t - t % 32 + j
        d.append(a[src] if src < n and active[src] else None)
        p.append(int(ok))
    return d, p


# ----------------------------------------------------------------- shfl
@SETTINGS
@given(warps(), st.sampled_from(["up", "down", "bfly", "idx"]), st.integers(0, 40), st.integers(0, 31),
       st.integers(0, 31), st.booleans())
def test_shfl_reads_the_isa_source_lane_with_clamp_and_segment_mask(w, mode, b, clamp, seg, per_lane_b):
    n, inputs, active = w
    a = [row[0] for row in inputs]
    c = (seg << 8) | clamp
    bs = [row[1] % 64 if per_lane_b else b for row in inputs]
    b_op = "%r31" if per_lane_b else str(b)
    body = "and.b32 %r31, %r31, 63;\n" + \
        f"shfl.sync.{mode}.b32 %r1|%p1, %r30, {b_op}, {c}, 0xffffffff;"
    m = launch(body, inputs, active)
    d, p = expected_shfl(mode, n, a, bs, [c] * n, active)
    assert lanes(m, "%r1") == d
    assert lanes(m, "%p1") == p


@SETTINGS
@given(warps(), st.sampled_from(["up", "down", "bfly", "idx"]))
def test_shfl_takes_clamp_and_segment_mask_per_lane_from_a_register(w, mode):
    n, inputs, active = w
    a = [row[0] for row in inputs]
    b = [row[1] & 31 for row in inputs]
    c = [row[2] & 0x1F1F for row in inputs]
    body = "and.b32 %r31, %r31, 31;\nand.b32 %r32, %r32, 0x1f1f;\n" + \
        f"shfl.sync.{mode}.b32 %r1|%p1, %r30, %r31, %r32, 0xffffffff;"
    m = launch(body, inputs, active)
    d, p = expected_shfl(mode, n, a, b, c, active)
    assert lanes(m, "%r1") == d
    assert lanes(m, "%p1") == p


def test_shfl_without_predicate_and_full_warp_examples_from_the_isa():
    a = [100 + t for t in range(32)]
    m = launch("shfl.sync.down.b32 %r1, %r30, 3, 31, 0xffffffff;\n"
               "shfl.sync.up.b32 %r2, %r30, 3, 0, 0xffffffff;\n"
               "shfl.sync.idx.b32 %r3, %r30, 5, 0x181f, 0xffffffff;\n"  # segments of 8 lanes: lane 5 of each
               "shfl.sync.bfly.b32 %r4, %r30, 16, 31, 0xffffffff;", [[v] for v in a])
    assert lanes(m, "%r1") == [a[t + 3] if t + 3 < 32 else a[t] for t in range(32)]
    assert lanes(m, "%r2") == [a[t - 3] if t >= 3 else a[t] for t in range(32)]
    assert lanes(m, "%r3") == [a[(t & ~7) | 5] for t in range(32)]
    assert lanes(m, "%r4") == [a[t ^ 16] for t in range(32)]


def test_shfl_of_an_unknown_lane_offset_is_unknown():
    m = launch("ld.global.u32 %r5, [%rd14];\nshfl.sync.idx.b32 %r1|%p1, %r30, %r5, 31, 0xffffffff;",
               [[t] for t in range(32)])
    assert lanes(m, "%r1") == [None] * 32
    assert lanes(m, "%p1") == [None] * 32


def test_shfl_without_a_mode_is_refused_naming_the_line():
    err, line = refusal("shfl.sync.b32 %r1, %r30, 1, 31, 0xffffffff;", "shfl.sync.b32")
    assert err.line == line and err.opcode == "shfl.sync.b32" and ".up/.down/.bfly/.idx" in str(err)


# ----------------------------------------------------------------- vote, activemask
def per_warp(n: int, active: list[bool], f) -> list[int | None]:
    out: list[int | None] = []
    for t in range(n):
        members = [s for s in warp_of(t) if s < n and active[s]]
        out.append(f(members) if active[t] else None)
    return out


@SETTINGS
@given(warps(), st.booleans())
def test_vote_all_any_uni_ballot_and_activemask_follow_the_isa_over_active_lanes(w, negate):
    n, inputs, active = w
    pred = [bool(row[1] & 1) != negate for row in inputs]
    src = "!%p1" if negate else "%p1"
    body = ("and.b32 %r5, %r31, 1;\nsetp.ne.u32 %p1, %r5, 0;\n"
            f"vote.sync.all.pred %p2, {src}, 0xffffffff;\nvote.sync.any.pred %p3, {src}, 0xffffffff;\n"
            f"vote.sync.uni.pred %p4, {src}, 0xffffffff;\nvote.sync.ballot.b32 %r1, {src}, 0xffffffff;\n"
            "activemask.b32 %r2;")
    m = launch(body, inputs, active)
    assert lanes(m, "%p2") == per_warp(n, active, lambda ms: int(all(pred[s] for s in ms)))
    assert lanes(m, "%p3") == per_warp(n, active, lambda ms: int(any(pred[s] for s in ms)))
    assert lanes(m, "%p4") == per_warp(n, active, lambda ms: int(len({pred[s] for s in ms}) == 1))
    assert lanes(m, "%r1") == per_warp(n, active, lambda ms: sum(1 << (s % 32) for s in ms if pred[s]))
    assert lanes(m, "%r2") == per_warp(n, active, lambda ms: sum(1 << (s % 32) for s in ms))


def test_vote_uni_is_true_when_every_active_lane_votes_true():
    m = launch("setp.ne.u32 %p1, %r30, 0;\nvote.sync.uni.pred %p2, %p1, 0xffffffff;",
               [[t % 2] for t in range(32)], [t % 2 == 1 for t in range(32)])
    assert lanes(m, "%p2") == [1 if t % 2 else None for t in range(32)]


def test_vote_uni_is_true_when_every_active_lane_votes_false():
    m = launch("setp.ne.u32 %p1, %r30, 0;\nvote.sync.uni.pred %p2, %p1, 0xffffffff;\n"
               "vote.sync.all.pred %p3, %p1, 0xffffffff;\nvote.sync.any.pred %p4, %p1, 0xffffffff;",
               [[0]] * 32)
    assert lanes(m, "%p2") == [1] * 32
    assert lanes(m, "%p3") == [0] * 32
    assert lanes(m, "%p4") == [0] * 32


def test_vote_of_a_predicate_unknown_on_an_active_lane_is_unknown():
    m = launch("ld.global.u32 %r5, [%rd14];\nsetp.ne.u32 %p1, %r5, 0;\nvote.sync.any.pred %p2, %p1, 0xffffffff;\n"
               "vote.sync.ballot.b32 %r1, %p1, 0xffffffff;", threads=32)
    assert lanes(m, "%p2") == [None] * 32
    assert lanes(m, "%r1") == [None] * 32


def test_vote_without_a_mode_is_refused_naming_the_line():
    err, line = refusal("setp.ne.u32 %p1, %r30, 0;\nvote.sync.pred %p2, %p1, 0xffffffff;", "vote.sync.pred")
    assert err.line == line and ".all/.any/.uni/.ballot" in str(err)


# ----------------------------------------------------------------- match
@SETTINGS
@given(warps(small=True))
def test_match_any_and_all_b32_compare_values_among_active_lanes(w):
    n, inputs, active = w
    a = [row[0] for row in inputs]
    body = ("activemask.b32 %r9;\nmatch.any.sync.b32 %r1, %r30, %r9;\nmatch.all.sync.b32 %r2|%p1, %r30, %r9;")
    m = launch(body, inputs, active)
    assert lanes(m, "%r1") == [sum(1 << (s % 32) for s in warp_of(t) if s < n and active[s] and a[s] == a[t])
                               if active[t] else None for t in range(n)]

    def all_same(ms: list[int]) -> bool:
        return len({a[s] for s in ms}) == 1
    assert lanes(m, "%r2") == per_warp(n, active, lambda ms: sum(1 << (s % 32) for s in ms) if all_same(ms) else 0)
    assert lanes(m, "%p1") == per_warp(n, active, lambda ms: int(all_same(ms)))


@SETTINGS
@given(warps(small=True))
def test_match_b64_compares_all_64_bits(w):
    n, inputs, active = w
    v = [row[0] | (row[1] << 32) for row in inputs]
    body = ("mov.b64 %rd1, {%r30, %r31};\nactivemask.b32 %r9;\nmatch.any.sync.b64 %r1, %rd1, %r9;\n"
            "match.all.sync.b64 %r2|%p1, %rd1, %r9;")
    m = launch(body, inputs, active)
    assert lanes(m, "%r1") == [sum(1 << (s % 32) for s in warp_of(t) if s < n and active[s] and v[s] == v[t])
                               if active[t] else None for t in range(n)]
    assert lanes(m, "%p1") == per_warp(n, active, lambda ms: int(len({v[s] for s in ms}) == 1))


def test_match_all_when_every_lane_agrees_gives_the_member_mask_and_true():
    m = launch("match.all.sync.b32 %r2|%p1, %r30, 0xffffffff;\nmatch.all.sync.b32 %r3, %r30, 0xffffffff;",
               [[7, 0]] * 32)
    assert lanes(m, "%r2") == [0xFFFFFFFF] * 32
    assert lanes(m, "%p1") == [1] * 32
    assert lanes(m, "%r3") == [0xFFFFFFFF] * 32


def test_match_of_an_unknown_value_is_unknown():
    m = launch("ld.global.u32 %r5, [%rd14];\nmatch.any.sync.b32 %r1, %r5, 0xffffffff;", threads=32)
    assert lanes(m, "%r1") == [None] * 32


# ----------------------------------------------------------------- redux
def signed32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


@SETTINGS
@given(warps())
def test_redux_reduces_over_the_active_lanes_of_each_warp(w):
    n, inputs, active = w
    a = [row[0] for row in inputs]
    body = ("redux.sync.add.u32 %r1, %r30, 0xffffffff;\nredux.sync.min.u32 %r2, %r30, 0xffffffff;\n"
            "redux.sync.max.u32 %r3, %r30, 0xffffffff;\nredux.sync.min.s32 %r4, %r30, 0xffffffff;\n"
            "redux.sync.max.s32 %r5, %r30, 0xffffffff;\nredux.sync.and.b32 %r6, %r30, 0xffffffff;\n"
            "redux.sync.or.b32 %r7, %r30, 0xffffffff;\nredux.sync.xor.b32 %r8, %r30, 0xffffffff;\n"
            "redux.sync.add.s32 %r10, %r30, 0xffffffff;")
    m = launch(body, inputs, active)

    def fold(f, start):
        def g(ms: list[int]) -> int:
            acc = start
            for s in ms:
                acc = f(acc, a[s])
            return acc & 0xFFFFFFFF
        return g
    assert lanes(m, "%r1") == per_warp(n, active, fold(lambda x, y: x + y, 0))
    assert lanes(m, "%r10") == per_warp(n, active, fold(lambda x, y: x + y, 0))
    assert lanes(m, "%r2") == per_warp(n, active, lambda ms: min(a[s] for s in ms))
    assert lanes(m, "%r3") == per_warp(n, active, lambda ms: max(a[s] for s in ms))
    assert lanes(m, "%r4") == per_warp(n, active, lambda ms: min(signed32(a[s]) for s in ms) & 0xFFFFFFFF)
    assert lanes(m, "%r5") == per_warp(n, active, lambda ms: max(signed32(a[s]) for s in ms) & 0xFFFFFFFF)
    assert lanes(m, "%r6") == per_warp(n, active, fold(lambda x, y: x & y, 0xFFFFFFFF))
    assert lanes(m, "%r7") == per_warp(n, active, fold(lambda x, y: x | y, 0))
    assert lanes(m, "%r8") == per_warp(n, active, fold(lambda x, y: x ^ y, 0))


def test_redux_of_an_unknown_value_is_unknown_and_a_missing_operation_is_refused():
    m = launch("ld.global.u32 %r5, [%rd14];\nredux.sync.add.u32 %r1, %r5, 0xffffffff;", threads=32)
    assert lanes(m, "%r1") == [None] * 32
    err, line = refusal("redux.sync.u32 %r1, %r30, 0xffffffff;", "redux.sync.u32")
    assert err.line == line and "redux needs an operation" in str(err)


# ----------------------------------------------------------------- movmatrix
def test_movmatrix_other_than_m8n8_trans_b16_is_refused_naming_the_line():
    err, line = refusal("movmatrix.sync.aligned.m8n8.b16 %r1, %r30;", "movmatrix")
    assert err.line == line and "m8n8.trans.b16" in str(err)


def fragment_word(mat, t: int) -> int:
    """PTX ISA, movmatrix / the m8n8 b16 fragment: lane t holds row t / 4, columns 2 (t % 4) and 2 (t % 4) + 1
    (low half first)."""
    return mat(t // 4, 2 * (t % 4)) | (mat(t // 4, 2 * (t % 4) + 1) << 16)


def test_movmatrix_trans_gives_each_lane_its_fragment_of_the_transpose_and_nothing_from_absent_lanes():
    def ids(r: int, c: int) -> int:
        return 0x100 * r + c + 1
    inputs = [[fragment_word(ids, t % 32)] for t in range(64)]
    active = [t != 37 for t in range(64)]  # warp 1's lane 5 (row 1, columns 2 and 3) does not take part
    m = launch("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r30;", inputs, active)
    want = [fragment_word(lambda r, c: ids(c, r), t % 32) for t in range(64)]
    # M[1][2] and M[1][3] (the transpose's (2, 1), (3, 1)) are the high halves of lanes 8 and 12 of warp 1
    assert lanes(m, "%r1") == [None if t in (37, 40, 44) else want[t] for t in range(64)]


def test_elect_names_the_lowest_active_lane_to_all_and_is_true_only_there():
    active = [t % 32 >= 3 and t != 36 for t in range(64)]  # warp 0 from lane 3, warp 1 from lane 3 but lane 4
    m = launch("elect.sync %r1|%p1, 0xffffffff;\nselp.u32 %r2, 1, 0, %p1;", threads=64, active=active)
    assert lanes(m, "%r1") == [3 if active[t] else None for t in range(64)]
    assert lanes(m, "%r2") == [int(t % 32 == 3) if active[t] else None for t in range(64)]


# ----------------------------------------------------------------- inactive lanes, one unknown lane
UNKNOWN_IN_LANE_7 = "setp.eq.u32 %p5, %r39, 7;\nmov.u32 %r5, 0;\n@%p5 ld.global.u32 %r5, [%rd14];\n"


def test_vote_all_is_true_when_every_active_lane_votes_true():
    m = launch("setp.ne.u32 %p1, %r30, 0;\nvote.sync.all.pred %p2, %p1, 0xffffffff;",
               [[1]] * 32, [t != 3 for t in range(32)])
    assert lanes(m, "%p2") == [None if t == 3 else 1 for t in range(32)]


def test_vote_of_a_predicate_known_on_every_active_lane_is_known_whatever_the_inactive_lanes_hold():
    # %p15 (the harness's "inactive" flag) is known in every lane: false where the lane runs the body
    active = [t % 4 != 0 for t in range(32)]
    m = launch("vote.sync.any.pred %p2, %p15, 0xffffffff;\nvote.sync.ballot.b32 %r1, %p15, 0xffffffff;",
               active=active)
    assert lanes(m, "%p2") == [0 if a else None for a in active]
    assert lanes(m, "%r1") == [0 if a else None for a in active]


def test_a_vote_match_or_redux_over_one_unknown_lane_is_unknown_in_every_lane_of_its_warp():
    # the result of each depends on every participating lane's value (ISA), so lane 7's unknown reaches all
    body = UNKNOWN_IN_LANE_7 + ("setp.ne.u32 %p1, %r5, 0;\nvote.sync.any.pred %p2, %p1, 0xffffffff;\n"
                                "match.any.sync.b32 %r1, %r5, 0xffffffff;\nredux.sync.add.u32 %r2, %r5, 0xffffffff;")
    m = launch(body, threads=64)
    assert lanes(m, "%p2") == [None] * 32 + [0] * 32
    assert lanes(m, "%r1") == [None] * 32 + [0xFFFFFFFF] * 32
    assert lanes(m, "%r2") == [None] * 32 + [0] * 32


def test_match_all_compares_only_the_lanes_that_take_part():
    # PTX ISA match.sync: broadcast and compare across the threads in membermask (here: the active lanes);
    # lanes 16..31 hold another value but branch around the instruction
    inputs = [[5] if t < 16 else [7] for t in range(32)]
    active = [t < 16 for t in range(32)]
    m = launch("activemask.b32 %r9;\nmatch.all.sync.b32 %r2|%p1, %r30, %r9;", inputs, active)
    assert lanes(m, "%r2") == [0xFFFF] * 16 + [None] * 16
    assert lanes(m, "%p1") == [1] * 16 + [None] * 16


def test_match_all_decides_each_warp_on_its_own_lanes():
    # warp 0 agrees (all 5), warp 1 does not (lane 40 holds 6); lanes 20 and 50 do not take part
    inputs = [[6] if t == 40 else [5] for t in range(64)]
    active = [t not in (20, 50) for t in range(64)]
    m = launch("activemask.b32 %r9;\nmatch.all.sync.b32 %r2|%p1, %r30, %r9;", inputs, active)
    assert lanes(m, "%r2") == [None if not active[t] else (0xFFFFFFFF & ~(1 << 20)) if t < 32 else 0
                               for t in range(64)]
    assert lanes(m, "%p1") == [None if not active[t] else int(t < 32) for t in range(64)]


def test_redux_max_and_and_ignore_the_lanes_that_do_not_take_part():
    # every active lane holds a negative odd value; inactive lanes hold 0 (and would win a max or clear bit 0)
    active = [t % 3 != 0 for t in range(32)]
    inputs = [[(-(t + 1) & 0xFFFFFFFF) | 1 if active[t] else 0] for t in range(32)]
    m = launch("redux.sync.max.s32 %r1, %r30, 0xffffffff;\nredux.sync.and.b32 %r2, %r30, 0xffffffff;",
               inputs, active)
    vals = [signed32(inputs[t][0]) for t in range(32) if active[t]]
    want_and = 0xFFFFFFFF
    for t in range(32):
        if active[t]:
            want_and &= inputs[t][0]
    assert want_and & 1
    assert lanes(m, "%r1") == [max(vals) & 0xFFFFFFFF if a else None for a in active]
    assert lanes(m, "%r2") == [want_and if a else None for a in active]
