"""Counted barriers against an oracle that runs every schedule (layoutalg/kernel/dataflow/state.py's forced
phases, flow.py's re-run).

Random programs of three or four warps: each warp writes and reads shared words and arrives at barriers 1 and 2
(``bar.sync b, n`` blocks, ``bar.arrive b, n`` does not; one count per barrier id).  The oracle (written here
from PTX ISA 8.x "bar, barrier" and "Memory Consistency Model", no layoutalg) interleaves the warps in every
order: a phase of barrier b completes when ``n / 32`` warp arrivals have come since the last one, releasing the
warps blocked at b, which are then ordered after every access the phase's arriving warps made before arriving.
A race is two accesses of one word by different warps, one a write, neither ordered before the other, in some
execution (one that deadlocks included, up to where it stops).

The data-flow model must never call a program race-free that races on some schedule, and a race it meets with
the trace's own phases (``FlowResult.sure_races``, every race where no barrier turned out unforced) must be one
that some schedule has."""

from __future__ import annotations

import random
from typing import Any

import pytest
from kernel_dataflow_contract_harness import run

from layoutalg.errors import KernelError

Op = tuple[str, int, int]  # ("W" | "R", word, 0) or ("S" | "A", barrier, warps counted)


def program(rng: random.Random) -> list[list[Op]]:
    """Half of them: per barrier id a group of warps (its count, or twice it) arriving the same number of times,
    accesses in between; the others: anything (most deadlock: skipped)."""
    if rng.random() < 0.5:
        return _balanced(rng)
    warps = rng.choice([3, 4])
    counts = {b: rng.choice([2, 2, 3] if warps == 3 else [2, 3, 4]) for b in (1, 2)}
    out = []
    for _ in range(warps):
        ops: list[Op] = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice("WRSSA")
            if kind in "WR":
                ops.append((kind, rng.randrange(2), 0))
            else:
                b = rng.choice([1, 1, 2])
                ops.append((kind, b, counts[b]))
        out.append(ops)
    return out


def _balanced(rng: random.Random) -> list[list[Op]]:
    warps = rng.choice([3, 4])
    out: list[list[Op]] = [[] for _ in range(warps)]
    for b in rng.sample([1, 2], rng.choice([1, 2])):
        n = rng.choice([2, 2, 3]) if warps >= 3 else 2
        group = rng.sample(range(warps), min(warps, n * rng.choice([1, 1, 2])))
        rounds = rng.choice([1, 2])
        for w in group:
            for _ in range(rounds):
                out[w].append(("S" if rng.random() < 0.7 else "A", b, n))
    for ops in out:
        for _ in range(rng.randint(1, 3)):
            ops.insert(rng.randint(0, len(ops)), (rng.choice("WR"), rng.randrange(2), 0))
    return out


def ptx_body(prog: list[list[Op]]) -> list[str]:
    body = ["mov.u32 %r10, sm;", "shr.u32 %r12, %r1, 5;"]
    for w in range(len(prog)):
        body += [f"setp.eq.u32 %p{w + 1}, %r12, {w};", f"@%p{w + 1} bra W{w};"]
    body.append("bra DONE;")
    for w, ops in enumerate(prog):
        body.append(f"W{w}:")
        for kind, x, n in ops:
            if kind == "W":
                body.append(f"st.shared.u32 [%r10+{4 * x}], %r1;")
            elif kind == "R":
                body.append(f"ld.shared.u32 %r3, [%r10+{4 * x}];")
            else:
                body.append(f"bar.{'sync' if kind == 'S' else 'arrive'} {x}, {32 * n};")
        body.append("bra DONE;")
    body.append("DONE:")
    return body


def races_on_some_schedule(prog: list[list[Op]]) -> bool:
    """Every interleaving, depth first (the oracle of the module doc)."""
    nw = len(prog)

    def step(pcs: tuple[int, ...], blocked: frozenset[int], vcs: tuple[tuple[int, ...], ...],
             phases: dict[int, tuple[tuple[int, ...], list[int]]], seen: list[tuple[int, str, int, int]]) -> bool:
        # seen: (warp, kind, word, own clock of the access); phases: barrier -> (joined clock, warps arrived)
        for w in range(nw):
            if w in blocked or pcs[w] >= len(prog[w]):
                continue
            kind, x, n = prog[w][pcs[w]]
            vc = list(vcs[w])
            new_vcs = list(vcs)
            new_pcs = list(pcs)
            new_pcs[w] += 1
            new_blocked = set(blocked)
            new_phases = dict(phases)
            new_seen = seen
            if kind in "WR":
                for u, k2, x2, t in seen:
                    if u != w and x2 == x and "W" in (kind, k2) and vc[u] < t:
                        return True
                new_seen = seen + [(w, kind, x, vc[w])]
            else:
                joined, arrived = phases.get(x, (tuple([-1] * nw), []))
                joined = tuple(max(a, b) for a, b in zip(joined, vc))
                vc[w] += 1
                new_vcs[w] = tuple(vc)
                arrived = arrived + [w]
                if kind == "S":
                    new_blocked.add(w)
                if len(arrived) == n:  # the phase completes: release the warps blocked at x
                    waiting = {u for u in new_blocked if u in arrived and prog[u][new_pcs[u] - 1][:2] == ("S", x)}
                    for u in waiting:
                        new_vcs[u] = tuple(max(a, b) for a, b in zip(new_vcs[u], joined))
                    new_blocked -= waiting
                    new_phases.pop(x, None)
                else:
                    new_phases[x] = (joined, arrived)
            if step(tuple(new_pcs), frozenset(new_blocked), tuple(new_vcs), new_phases, new_seen):
                return True
        return False

    start = tuple(tuple(0 if u == w else -1 for u in range(nw)) for w in range(nw))
    return step(tuple([0] * nw), frozenset(), start, {}, [])


def judged(seed: int) -> tuple[str, Any]:
    return judge(program(random.Random(seed)))


def judge(prog: list[list[Op]]) -> tuple[str, Any]:
    """The model's answer on ``prog`` checked against the oracle: (outcome, prog)."""
    try:
        _, res = run(ptx_body(prog), block=32 * len(prog))
    except KernelError:
        return "deadlock", None  # the trace's own schedule never completes
    truth = races_on_some_schedule(prog)
    if not res.races:
        assert not truth, (prog, "called race-free, but some schedule races")
        return ("forced" if any(op[0] in "SA" for ops in prog for op in ops) and not res.loose_barriers
                else "free"), prog
    sure = res.races if res.sure_races is None else [r for r in res.races
                                                     if (r.kind, r.first, r.second) in res.sure_races]
    if sure:
        assert truth, (prog, "a race met on the trace's own phases that no schedule has")
    return ("race" if truth else "no race, not proved"), prog


def test_counted_barrier_programs_agree_with_every_schedule() -> None:
    # seeds 859 and 1034 are programs the model called race-free before phases had to be forced (of 3000
    # seeds, 9 were; none is now)
    outcomes = [judged(seed)[0] for seed in range(800, 1100)]
    # the sample exercises phases proved forced, races, and programs left unproved
    assert outcomes.count("forced") >= 5 and outcomes.count("race") >= 20, outcomes


@pytest.mark.parametrize("prog, races", [
    # warps 0, 1 meet first; warps 2, 3 could take their places: warp 1's read races with warp 0's write
    ([[("W", 0, 0), ("S", 1, 2)], [("S", 1, 2), ("R", 0, 0)], [("S", 1, 2)], [("S", 1, 2)]], True),
    # the same pair meeting twice, nobody else at barrier 1: forced
    ([[("W", 0, 0), ("S", 1, 2), ("S", 1, 2), ("W", 0, 0)], [("S", 1, 2), ("R", 0, 0), ("S", 1, 2)], [], []], False),
])
def test_the_oracle_and_the_model_on_hand_worked_programs(prog: list[list[Op]], races: bool) -> None:
    assert races_on_some_schedule(prog) is races
    assert judge(prog)[0] == ("race" if races else "forced")
