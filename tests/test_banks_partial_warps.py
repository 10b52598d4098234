"""Partial warps in the bank model: the phase rule with the inactive lanes absent (``active=`` / ``None``).

An independent brute-force oracle (written here from the rule's statement: phases by lane index,
cost = the most distinct words one bank delivers to the phase's *active* lanes, a phase without an
active lane costs nothing, 64/128-bit loads pair up only if every active lane's partner is active
with the same address) is checked against the vectorised ``wavefronts_many(..., active=)`` and the
scalar ``wavefronts`` with ``None`` lanes.  Round 8's measurements (tests/test_banks_round8.py) chose
the lenient reading of the pairing (a pair with an inactive lane is ignored) over the strict one the
model used to refuse on; the corpus kernels with partial warps (the reductions, softmax, the TMA
kernel's one-lane accesses) check the rule on hardware too (tests/test_kernel_corpus_counters.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg.banks as banks
from layoutalg.errors import InstructionError

PLAIN = [("ld.shared.u8", 1), ("st.shared.u16", 2), ("ld.shared.b32", 4), ("st.shared.b32", 4),
         ("ld.shared.v2.b32", 8), ("st.shared.v2.b32", 8), ("ld.shared.v4.b32", 16), ("st.shared.v4.b32", 16)]
MATRIX = ["ldmatrix.sync.aligned.m8n8.x1.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
          "stmatrix.sync.aligned.m8n8.x2.shared.b16"]


def oracle(text: str, width: int, addrs: list[int | None], pairing: str = "lenient") -> int:
    """Wavefronts by the rule's statement (module doc); ``pairing``: strict or lenient reading."""
    if "matrix" in text:
        count = int(text.split(".x")[1][0])
        groups = [range(8 * m, 8 * m + 8) for m in range(count)]
        width = 16
    else:
        per = 32 if width <= 4 else 128 // width
        if text.startswith("ld.") and width > 4 and any(a is not None for a in addrs):
            for step in (1, 2):
                ok = True
                for i in range(32):
                    a, b = addrs[i], addrs[i ^ step]
                    if a is None and b is None:
                        continue
                    if a is None or b is None:
                        ok = ok and pairing == "lenient"
                    elif a != b:
                        ok = False
                if ok:
                    per *= 2
                    break
        groups = [range(p, p + per) for p in range(0, 32, per)]
    total = 0
    for lanes in groups:
        words: dict[int, set[int]] = {}
        for lane in lanes:
            a = addrs[lane]
            if a is None:
                continue
            for w in range(a // 4, (a + width - 1) // 4 + 1):
                words.setdefault(w % 32, set()).add(w)
        total += max((len(v) for v in words.values()), default=0)
    return total


@st.composite
def partial_warp(draw: st.DrawFn) -> tuple[str, int, list[int | None]]:
    text, width = draw(st.sampled_from(PLAIN + [(m, 16) for m in MATRIX]))
    slots = draw(st.sampled_from([4, 16, 64]))  # few slots: duplicates, pairs and conflicts are common
    unit = max(width, 4) if "matrix" not in text else 16
    base = draw(st.lists(st.integers(0, slots - 1), min_size=32, max_size=32))
    stride = draw(st.sampled_from([unit, 128, 128 + unit]))
    pair = draw(st.sampled_from([0, 1, 2]))  # make lanes i and i^pair share an address
    active = draw(st.lists(st.booleans(), min_size=32, max_size=32))
    addrs = [base[i & ~pair if pair else i] * stride // unit * unit for i in range(32)]
    return text, width, [a if on else None for a, on in zip(addrs, active)]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(partial_warp())
def test_partial_warps_cost_what_their_active_lanes_cost_in_the_vector_and_scalar_models(
        case: tuple[str, int, list[int | None]]) -> None:
    text, width, addrs = case
    active = np.array([a is not None for a in addrs])
    filled = np.array([0 if a is None else a for a in addrs])
    wf, _ = banks.wavefronts_many(text, filled[None, :], active=active[None, :])
    expected = oracle(text, width, addrs)
    assert int(wf[0]) == expected == banks.wavefronts(text, addrs) == banks.report(text, addrs).wavefronts


def test_a_phase_without_an_active_lane_costs_nothing() -> None:
    lone = [0] + [None] * 31
    assert banks.wavefronts("st.shared.v4.b32", lone) == 1  # four 8-lane phases, three of them empty
    assert banks.wavefronts("ld.shared.v2.b32", [8 * i if i < 16 else None for i in range(32)]) == 1
    nothing = np.zeros((1, 32), dtype=np.int64)
    wf, ideal = banks.wavefronts_many("ld.shared.b32", nothing, active=np.zeros((1, 32), dtype=bool))
    assert (int(wf[0]), int(ideal[0])) == (0, 0)


def test_inactive_lanes_never_add_a_word_even_where_their_stale_address_would_conflict() -> None:
    addrs = np.array([[4 * i for i in range(16)] + [128 * i for i in range(16)]])
    active = np.array([[True] * 16 + [False] * 16])
    assert banks.wavefronts_many("st.shared.b32", addrs)[0][0] == 16
    assert banks.wavefronts_many("st.shared.b32", addrs, active=active)[0][0] == 1


def test_full_masks_change_nothing() -> None:
    rng = np.random.default_rng(3)
    addrs = rng.integers(0, 64, size=(50, 32)) * 16
    for text in ("ld.shared.v4.b32", "st.shared.b32", "ldmatrix.sync.aligned.m8n8.x4.shared.b16"):
        plain = banks.wavefronts_many(text, addrs)
        masked = banks.wavefronts_many(text, addrs, active=np.ones(addrs.shape, dtype=bool))
        assert (plain[0] == masked[0]).all() and (plain[1] == masked[1]).all()


def test_a_pairing_with_an_inactive_partner_counts_as_paired() -> None:
    # lanes 2k and 2k+1 share 8 bytes, lane 30 is alone (lane 31 inactive): one 32-lane phase (1 wavefront)
    # since the inactive partner is ignored (measured, round 8); the strict reading would give two 16-lane phases
    addrs: list[int | None] = [8 * (i // 2) for i in range(31)] + [None]
    assert oracle("ld.shared.v2.b32", 8, addrs) == 1 and oracle("ld.shared.v2.b32", 8, addrs, "strict") == 2
    assert banks.wavefronts("ld.shared.v2.b32", addrs) == banks.report("ld.shared.v2.b32", addrs).wavefronts == 1
    filled = np.array([[0 if a is None else a for a in addrs]])
    active = np.array([[a is not None for a in addrs]])
    assert banks.wavefronts_many("ld.shared.v2.b32", filled, active=active)[0].tolist() == [1]
    assert banks.wavefronts("st.shared.v2.b32", addrs) == 2  # stores never pair


def test_active_must_match_the_addresses() -> None:
    with pytest.raises(InstructionError, match="active must be a bool array"):
        banks.wavefronts_many("ld.shared.b32", np.zeros((2, 32), dtype=np.int64), active=np.ones((1, 32), dtype=bool))
