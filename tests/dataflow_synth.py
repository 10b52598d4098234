"""Generators of small PTX kernels for the data-flow tests, with the answers computed independently.

* :func:`mma_kernel`: one warp loads its m16n8k16 A and B fragments element by element from row-major
  global matrices (A 16 x 32, B 32 x 8), packs the halves into registers (mov, prmt or shift-or),
  runs two chained mma.sync (k = 0..15 then 16..31) and stores D to a row-major C (16 x 8).  Planted
  mutations move single element addresses or permute the second mma's C input;
  :func:`mma_truth` says, from the PTX ISA fragment formulas re-typed in tests/oracles/ptx_fragments.py
  (not from layoutalg), whether the kernel feeds every mma its fragments and stores every result.
* :func:`race_kernel`: two warps write and read shared words in phases separated (or not) by
  ``bar.sync``; :func:`race_truth` is the pairwise definition of a race by barrier epochs.
* :func:`move_kernel`: random bit moves (pack, unpack, prmt, shifts, masks, selp, shfl, movmatrix,
  shared/local round trips) on loaded words; ``values=True`` gives the same program with every load
  replaced by a known word whose 16-bit halves are unique ids, so the interpreter's exact values say
  where each unit really came from.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from oracles.ptx_fragments import fragment

HEADER = """.version 8.0
.target sm_90
.address_size 64
"""

A_ROWS, A_COLS, B_COLS = 16, 32, 8
FA = fragment((16, 8, 16), 16, "A", 16)
FB = fragment((16, 8, 16), 16, "B", 16)
FC = fragment((16, 8, 16), 16, "C", 32)


@dataclass
class MmaCase:
    """Mutations: ("A"|"B", step, lane, element, delta in elements), ("C", lane, element, delta) and
    ("chain", i, j): the second mma reads accumulator registers i and j swapped."""

    mutations: list[tuple] = field(default_factory=list)
    packing: list[str] = field(default_factory=list)  # per packed register: "mov", "prmt", "shift"


def _a_offset(step: int, lane: int, i: int) -> int:
    r, c = FA.coord(lane, i)
    return r * A_COLS + c + 16 * step


def _b_offset(step: int, lane: int, i: int) -> int:
    r, c = FB.coord(lane, i)
    return (r + 16 * step) * B_COLS + c


def _c_offset(lane: int, i: int) -> int:
    r, c = FC.coord(lane, i)
    return r * B_COLS + c


def mma_kernel(case: MmaCase) -> str:
    out = [HEADER, ".visible .entry synth_mma(.param .u64 pA, .param .u64 pB, .param .u64 pC)\n{",
           "  .reg .pred %p<8>;", "  .reg .b16 %h<128>;", "  .reg .b32 %r<1024>;", "  .reg .f32 %f<32>;",
           "  .reg .b64 %rd<512>;",
           "  ld.param.u64 %rd1, [pA];", "  ld.param.u64 %rd2, [pB];", "  ld.param.u64 %rd3, [pC];",
           "  mov.u32 %r1, %laneid;"]
    nr, nd, nh = [10], [10], [0]
    packs = iter(case.packing)

    def reg() -> str:
        nr[0] += 1
        return f"%r{nr[0]}"

    def dreg() -> str:
        nd[0] += 1
        return f"%rd{nd[0]}"

    def hreg() -> str:
        nh[0] += 1
        return f"%h{nh[0]}"

    def lane_table(values: list[int]) -> str:
        """A register holding values[lane], built from the lane id by selp chains (exact and known)."""
        acc = reg()
        out.append(f"  mov.u32 {acc}, {values[0]};")
        for lane in range(1, 32):
            if values[lane] == values[lane - 1] and lane > 1:
                pass
            p = f"%p{1 + lane % 4}"
            out.append(f"  setp.eq.u32 {p}, %r1, {lane};")
            nxt = reg()
            out.append(f"  selp.b32 {nxt}, {values[lane]}, {acc}, {p};")
            acc = nxt
        return acc

    def address(base: str, offsets: list[int], scale: int) -> str:
        r = lane_table(offsets)
        w = dreg()
        out.append(f"  mul.wide.u32 {w}, {r}, {scale};")
        a = dreg()
        out.append(f"  add.s64 {a}, {base}, {w};")
        return a

    def delta(kind: str, step: int, lane: int, i: int) -> int:
        return sum(m[4] for m in case.mutations if m[0] == kind and m[1:4] == (step, lane, i))

    def pack(lo: str, hi: str) -> str:
        how = next(packs, "mov")
        d = reg()
        if how == "mov":
            out.append(f"  mov.b32 {d}, {{{lo}, {hi}}};")
        else:
            a, b = reg(), reg()
            out.append(f"  cvt.u32.u16 {a}, {lo};")
            out.append(f"  cvt.u32.u16 {b}, {hi};")
            if how == "prmt":
                out.append(f"  prmt.b32 {d}, {a}, {b}, 0x5410;")
            else:
                s = reg()
                out.append(f"  shl.b32 {s}, {b}, 16;")
                out.append(f"  or.b32 {d}, {s}, {a};")
        return d

    acc = ["%f0", "%f1", "%f2", "%f3"]
    for k in range(4):
        out.append(f"  mov.f32 %f{k}, 0f00000000;")
    for step in range(2):
        a_regs: list[str] = []
        b_regs: list[str] = []
        for base, n_el, table, kind, dst in (("%rd1", 8, _a_offset, "A", a_regs), ("%rd2", 4, _b_offset, "B", b_regs)):
            halves = []
            for i in range(n_el):
                offs = [table(step, lane, i) + delta(kind, step, lane, i) for lane in range(32)]
                addr = address(base, offs, 2)
                h = hreg()
                out.append(f"  ld.global.u16 {h}, [{addr}];")
                halves.append(h)
            for j in range(n_el // 2):
                dst.append(pack(halves[2 * j], halves[2 * j + 1]))
        c_in = list(acc)
        if step == 1:
            for m in case.mutations:
                if m[0] == "chain":
                    c_in[m[1]], c_in[m[2]] = c_in[m[2]], c_in[m[1]]
        d = [f"%f{4 + 4 * step + k}" for k in range(4)]
        out.append(f"  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{', '.join(d)}}}, "
                   f"{{{', '.join(a_regs)}}}, {{{', '.join(b_regs)}}}, {{{', '.join(c_in)}}};")
        acc = d
    for i in range(4):
        offs = [_c_offset(lane, i) + sum(m[3] for m in case.mutations if m[0] == "C" and m[1:3] == (lane, i))
                for lane in range(32)]
        addr = address("%rd3", offs, 4)
        out.append(f"  st.global.f32 [{addr}], {acc[i]};")
    out.append("  ret;\n}\n")
    return "\n".join(out)


def mma_truth(case: MmaCase) -> bool:
    """True iff every mma gets one consistent fragment tile, the two cover k = 0..31 once for the whole
    16 x 8 output, the chain is intact and each D element is stored at its own C element (oracle)."""
    k_tiles = []
    for step in range(2):
        origins = set()
        for lane in range(32):
            for i in range(8):
                e = _a_offset(step, lane, i) + sum(m[4] for m in case.mutations if m[0] == "A" and m[1:4] ==
                                                   (step, lane, i))
                r, c = divmod(e, A_COLS)
                rr, cc = FA.coord(lane, i)
                origins.add(("A", r - rr, c - cc))
            for i in range(4):
                e = _b_offset(step, lane, i) + sum(m[4] for m in case.mutations if m[0] == "B" and m[1:4] ==
                                                   (step, lane, i))
                r, c = divmod(e, B_COLS)
                rr, cc = FB.coord(lane, i)
                origins.add(("B", r - rr, c - cc))
        if len(origins) != 2:
            return False
        (_, m0, ka), (_, kb, n0) = sorted(origins)
        if ka != kb or m0 != 0 or n0 != 0:
            return False
        k_tiles.append(ka)
    if sorted(k_tiles) != [0, 16]:
        return False
    if any(m[0] == "chain" and m[1] != m[2] for m in case.mutations):
        return False
    return not any(m[0] == "C" and m[3] != 0 for m in case.mutations)


def random_mma_case(rng: random.Random, mutate: bool) -> MmaCase:
    case = MmaCase(packing=[rng.choice(["mov", "prmt", "shift"]) for _ in range(12)])
    if not mutate:
        return case
    for _ in range(rng.randint(1, 2)):
        kind = rng.choice(["A", "A", "B", "B", "C", "chain"])
        lane = rng.randrange(32)
        if kind == "chain":
            i, j = rng.sample(range(4), 2)
            case.mutations.append(("chain", i, j))
        elif kind == "C":
            i = rng.randrange(4)
            base = _c_offset(lane, i)
            target = rng.choice([x for x in range(A_ROWS * B_COLS) if x != base])
            case.mutations.append(("C", lane, i, target - base))
        else:
            step = rng.randrange(2)
            n_el, table, size = (8, _a_offset, A_ROWS * A_COLS) if kind == "A" else (4, _b_offset, A_COLS * B_COLS)
            i = rng.randrange(n_el)
            base = table(step, lane, i)
            target = rng.choice([x for x in range(size) if x != base])
            case.mutations.append((kind, step, lane, i, target - base))
    return case


# ----------------------------------------------------------------------------- races
@dataclass
class RacePhase:
    """Per warp (2 warps): ("st" | "ld" | None, word offset added to the lane); then maybe a barrier."""

    ops: tuple[tuple[str | None, int], tuple[str | None, int]]
    barrier: bool


def race_kernel(phases: list[RacePhase]) -> str:
    out = [HEADER, ".visible .entry synth_race()\n{", "  .reg .pred %p<8>;", "  .reg .b32 %r<256>;",
           "  .shared .align 16 .b32 words[64];",
           "  mov.u32 %r1, %tid.x;", "  and.b32 %r2, %r1, 31;", "  shr.u32 %r3, %r1, 5;",
           "  setp.eq.u32 %p1, %r3, 0;", "  setp.eq.u32 %p2, %r3, 1;", "  mov.u32 %r4, words;"]
    n = [10]
    for ph in phases:
        for w, (kind, off) in enumerate(ph.ops):
            if kind is None:
                continue
            a, b, c = (f"%r{n[0] + k}" for k in range(3))
            n[0] += 3
            out.append(f"  add.u32 {a}, %r2, {off};")
            out.append(f"  and.b32 {b}, {a}, 63;")
            out.append(f"  mad.lo.u32 {c}, {b}, 4, %r4;")
            if kind == "st":
                out.append(f"  @%p{w + 1} st.shared.u32 [{c}], %r1;")
            else:
                out.append(f"  @%p{w + 1} ld.shared.u32 %r{n[0]}, [{c}];")
                n[0] += 1
        if ph.barrier:
            out.append("  bar.sync 0;")
    out.append("  ret;\n}\n")
    return "\n".join(out)


def race_truth(phases: list[RacePhase]) -> bool:
    """A race: two warps touch one word in the same barrier epoch, at least one of them writing."""
    epoch = 0
    seen: dict[tuple[int, int], set[tuple[int, str]]] = {}
    for ph in phases:
        for w, (kind, off) in enumerate(ph.ops):
            if kind is None:
                continue
            for lane in range(32):
                seen.setdefault((epoch, (lane + off) % 64), set()).add((w, kind))
        if ph.barrier:
            epoch += 1
    for accesses in seen.values():
        warps = {w for w, _ in accesses}
        if len(warps) > 1 and any(k == "st" for _, k in accesses):
            return True
    return False


def random_race_case(rng: random.Random) -> list[RacePhase]:
    phases = []
    for _ in range(rng.randint(1, 4)):
        ops = tuple((rng.choice(["st", "ld", None]), rng.choice([0, 0, 5, 32])) for _ in range(2))
        phases.append(RacePhase(ops, rng.random() < 0.5))  # type: ignore[arg-type]
    return phases


# ----------------------------------------------------------------------------- moves
ID_BASE = 0x4000  # unit ids: ID_BASE + byte offset // 2 of the unit in the loaded buffer (lane * 8 + j words)
WORDS = 8
SPLIT_OPS = ("prmt_sign", "prmt_bytes", "shl8", "and_split", "add", "or")  # ops that may cut units (their results may be OPAQUE)


def move_program(rng: random.Random, n_ops: int, allow_split: bool) -> list[tuple]:
    """A random list of (op, args...) over word registers w0..w7 and half registers x0..x7."""
    ops = ["mov", "unpack", "pack", "prmt", "shl16", "shr16", "and_lo", "and_hi", "or_merge", "cvt_up", "cvt_down",
           "selp", "shfl_bfly", "shfl_idx", "movmatrix", "smem", "smem16", "local", "matrix", "b64"]
    if allow_split:
        ops += list(SPLIT_OPS)
    prog = []
    for _ in range(n_ops):
        op = rng.choice(ops)
        w = [rng.randrange(WORDS) for _ in range(3)]
        x = [rng.randrange(WORDS) for _ in range(2)]
        if op == "prmt":  # whole units: result unit k takes source unit v (bytes 2v, 2v + 1)
            units = [rng.randrange(4) for _ in range(2)]
            sel = sum(((2 * v) | ((2 * v + 1) << 4)) << (8 * k) for k, v in enumerate(units))
            prog.append((op, w, x, sel))
        elif op in ("prmt_sign", "prmt_bytes"):
            sign = 8 if op == "prmt_sign" else 0
            sel = sum((rng.randrange(8) | (sign if rng.random() < 0.5 else 0)) << (4 * k) for k in range(4))
            prog.append(("prmt", w, x, sel))
        else:
            prog.append((op, w, x, rng.randrange(1, 32, 2)))
    return prog


def move_kernel(prog: list[tuple], values: bool) -> str:
    out = [HEADER, ".visible .entry synth_move(.param .u64 pA, .param .u64 pC)\n{", "  .reg .pred %p<8>;",
           "  .reg .b16 %x<8>;", "  .reg .b32 %w<8>;", "  .reg .b32 %t<16>;", "  .reg .b64 %y<4>;",
           "  .reg .b64 %rd<16>;", "  .shared .align 16 .b32 sm[64];", "  .local .align 16 .b32 loc[8];",
           "  ld.param.u64 %rd1, [pA];", "  ld.param.u64 %rd2, [pC];", "  mov.u32 %t1, %laneid;",
           "  mul.wide.u32 %rd3, %t1, 32;", "  add.s64 %rd4, %rd1, %rd3;", "  add.s64 %rd5, %rd2, %rd3;",
           "  setp.lt.u32 %p1, %t1, 16;", "  mov.u32 %t2, sm;"]
    for j in range(WORDS):
        if values:  # lane * 8 + j is word e: its halves hold ids ID_BASE + 2e and ID_BASE + 2e + 1
            out.append(f"  mad.lo.u32 %w{j}, %t1, {WORDS * 0x20002}, {(ID_BASE + 2 * j) | ((ID_BASE + 2 * j + 1) << 16)};")
        else:
            out.append(f"  ld.global.u32 %w{j}, [%rd4+{4 * j}];")
    for j in range(WORDS):
        out.append(f"  cvt.u16.u32 %x{j}, %w{j};")
    for op, w, x, k in prog:
        d, a, b = (f"%w{i}" for i in w)
        xa, xb = (f"%x{i}" for i in x)
        if op == "mov":
            out.append(f"  mov.b32 {d}, {a};")
        elif op == "unpack":
            out.append(f"  mov.b32 {{{xa}, {xb}}}, {a};")
        elif op == "pack":
            out.append(f"  mov.b32 {d}, {{{xa}, {xb}}};")
        elif op == "prmt":
            out.append(f"  prmt.b32 {d}, {a}, {b}, {k};")
        elif op == "shl16":
            out.append(f"  shl.b32 {d}, {a}, 16;")
        elif op == "shr16":
            out.append(f"  shr.u32 {d}, {a}, 16;")
        elif op == "shl8":
            out.append(f"  shl.b32 {d}, {a}, 8;")
        elif op == "and_lo":
            out.append(f"  and.b32 {d}, {a}, 65535;")
        elif op == "and_hi":
            out.append(f"  and.b32 {d}, {a}, -65536;")
        elif op == "and_split":
            out.append(f"  and.b32 {d}, {a}, 16711935;")
        elif op == "or":
            out.append(f"  or.b32 {d}, {a}, {b};")
        elif op == "or_merge":  # low unit of a, high unit of b
            out += [f"  and.b32 %t9, {a}, 65535;", f"  and.b32 %t10, {b}, -65536;", f"  or.b32 {d}, %t9, %t10;"]
        elif op == "add":
            out.append(f"  add.u32 {d}, {a}, {b};")
        elif op == "cvt_up":
            out.append(f"  cvt.u32.u16 {d}, {xa};")
        elif op == "cvt_down":
            out.append(f"  cvt.u16.u32 {xa}, {a};")
        elif op == "selp":
            out.append(f"  selp.b32 {d}, {a}, {b}, %p1;")
        elif op == "shfl_bfly":
            out.append(f"  shfl.sync.bfly.b32 {d}, {a}, {k % 32}, 31, -1;")
        elif op == "shfl_idx":
            out.append(f"  shfl.sync.idx.b32 {d}, {a}, {k % 32}, 31, -1;")
        elif op == "movmatrix":
            out.append(f"  movmatrix.sync.aligned.m8n8.trans.b16 {d}, {a};")
        elif op == "smem":  # lane l stores word (l * k) % 32, then loads word l
            out += [f"  mul.lo.u32 %t3, %t1, {k};", "  and.b32 %t3, %t3, 31;", "  mad.lo.u32 %t4, %t3, 4, %t2;",
                    f"  st.shared.u32 [%t4], {a};", "  mad.lo.u32 %t5, %t1, 4, %t2;", f"  ld.shared.u32 {d}, [%t5];"]
        elif op == "smem16":  # two halves stored separately, read back as one word
            out += ["  mad.lo.u32 %t4, %t1, 4, %t2;", f"  st.shared.u16 [%t4], {xa};", f"  st.shared.u16 [%t4+2], {xb};",
                    f"  ld.shared.u32 {d}, [%t4];"]
        elif op == "local":
            out += [f"  st.local.u32 [loc+{4 * (k % 8)}], {a};", f"  ld.local.u32 {d}, [loc+{4 * (k % 8)}];"]
        elif op == "matrix":  # stmatrix.x1 then ldmatrix.x1 (.trans when k % 4 == 1)
            trans = ".trans" if k % 4 == 1 else ""
            out += ["  and.b32 %t6, %t1, 7;", "  mad.lo.u32 %t7, %t6, 16, %t2;",
                    f"  stmatrix.sync.aligned.m8n8.x1.shared.b16 [%t7], {a};",
                    f"  ldmatrix.sync.aligned.m8n8.x1{trans}.shared.b16 {{{d}}}, [%t7];"]
        elif op == "b64":
            out += [f"  mov.b64 %y1, {{{a}, {b}}};", f"  mov.b64 {{{d}, %t8}}, %y1;"]
    for j in range(WORDS):
        out.append(f"  st.global.u32 [%rd5+{4 * j}], %w{j};")
    out.append("  ret;\n}\n")
    return "\n".join(out)


# ----------------------------------------------------------------------------- cp.async ordering
def async_kernel(wait: str | None, barrier: bool, other: bool, groups: int = 1) -> str:
    """Two warps cp.async their own 32 words ``groups`` times (one commit each); then maybe
    ``cp.async.wait_group N`` / ``wait_all`` and ``bar.sync``; then each lane reads a word of its own warp's
    last group, or (``other``) the other warp's."""
    out = [HEADER, ".visible .entry synth_async(.param .u64 pA)\n{", "  .reg .b32 %r<32>;", "  .reg .b64 %rd<8>;",
           "  .shared .align 16 .b32 words[128];", "  ld.param.u64 %rd1, [pA];", "  mov.u32 %r1, %tid.x;",
           "  mov.u32 %r2, words;", "  mul.wide.u32 %rd2, %r1, 4;", "  add.s64 %rd3, %rd1, %rd2;"]
    for g in range(groups):
        out += ["  mad.lo.u32 %r3, %r1, 4, %r2;", f"  add.u32 %r3, %r3, {256 * (g % 2)};",
                "  cp.async.ca.shared.global [%r3], [%rd3], 4;", "  cp.async.commit_group;"]
    if wait == "all":
        out.append("  cp.async.wait_all;")
    elif wait is not None:
        out.append(f"  cp.async.wait_group {wait};")
    if barrier:
        out.append("  bar.sync 0;")
    last = 256 * ((groups - 1) % 2)
    out += [f"  xor.b32 %r4, %r1, {32 if other else 0};", "  mad.lo.u32 %r5, %r4, 4, %r2;",
            f"  ld.shared.u32 %r6, [%r5+{last}];", "  ret;\n}\n"]
    return "\n".join(out)


# ----------------------------------------------------------------------------- scalar fma GEMM
FM, FN, FK = 4, 8, 8  # one warp, lane = m * 8 + n computes C[m][n] = sum_k A[m][k] * B[k][n] with f32 fma


def fma_kernel(mutations: list[tuple]) -> str:
    """Mutations: ("a", k, lane, m, kk) / ("b", k, lane, kk, n): that lane's factor k loads another element;
    ("skip", k) / ("dup", k): the k-th fma is left out / done twice; ("store", lane, pos): lane stores to C[pos]."""
    out = [HEADER, ".visible .entry synth_fma(.param .u64 pA, .param .u64 pB, .param .u64 pC)\n{",
           "  .reg .pred %p<8>;", "  .reg .b32 %r<2048>;", "  .reg .f32 %f<64>;", "  .reg .b64 %rd<256>;",
           "  ld.param.u64 %rd1, [pA];", "  ld.param.u64 %rd2, [pB];", "  ld.param.u64 %rd3, [pC];",
           "  mov.u32 %r1, %laneid;", "  mov.f32 %f0, 0f00000000;"]
    nr, nd = [10], [10]

    def table(values: list[int]) -> str:
        acc = f"%r{nr[0]}"
        out.append(f"  mov.u32 {acc}, {values[0]};")
        nr[0] += 1
        for lane in range(1, 32):
            out.append(f"  setp.eq.u32 %p1, %r1, {lane};")
            out.append(f"  selp.b32 %r{nr[0]}, {values[lane]}, {acc}, %p1;")
            acc = f"%r{nr[0]}"
            nr[0] += 1
        return acc

    def load(base: str, offsets: list[int], dst: str) -> None:
        r = table(offsets)
        out.append(f"  mul.wide.u32 %rd{nd[0]}, {r}, 4;")
        out.append(f"  add.s64 %rd{nd[0] + 1}, {base}, %rd{nd[0]};")
        out.append(f"  ld.global.f32 {dst}, [%rd{nd[0] + 1}];")
        nd[0] += 2

    acc = "%f0"
    f = [1]
    for k in range(FK):
        a_off, b_off = [], []
        for lane in range(32):
            m, n = divmod(lane, FN)
            am, ak = next(((x[3], x[4]) for x in mutations if x[0] == "a" and x[1:3] == (k, lane)), (m, k))
            bk, bn = next(((x[3], x[4]) for x in mutations if x[0] == "b" and x[1:3] == (k, lane)), (k, n))
            a_off.append(am * FK + ak)
            b_off.append(bk * FN + bn)
        fa, fb = f"%f{f[0]}", f"%f{f[0] + 1}"
        f[0] += 2
        load("%rd1", a_off, fa)
        load("%rd2", b_off, fb)
        reps = 0 if ("skip", k) in mutations else (2 if ("dup", k) in mutations else 1)
        for _ in range(reps):
            nxt = f"%f{f[0]}"
            f[0] += 1
            out.append(f"  fma.rn.f32 {nxt}, {fa}, {fb}, {acc};")
            acc = nxt
    pos = [next((x[2] for x in mutations if x[0] == "store" and x[1] == lane), lane) for lane in range(32)]
    r = table(pos)
    out += [f"  mul.wide.u32 %rd200, {r}, 4;", "  add.s64 %rd201, %rd3, %rd200;", f"  st.global.f32 [%rd201], {acc};",
            "  ret;\n}\n"]
    return "\n".join(out)


def random_fma_mutation(rng: random.Random) -> tuple:
    kind = rng.choice(["a", "b", "skip", "dup", "store"])
    k, lane = rng.randrange(FK), rng.randrange(32)
    m, n = divmod(lane, FN)
    if kind == "a":
        return ("a", k, lane, *rng.choice([(mm, kk) for mm in range(FM) for kk in range(FK) if (mm, kk) != (m, k)]))
    if kind == "b":
        return ("b", k, lane, *rng.choice([(kk, nn) for kk in range(FK) for nn in range(FN) if (kk, nn) != (k, n)]))
    if kind == "store":
        return ("store", lane, rng.choice([p for p in range(32) if p != lane]))
    return (kind, k)
