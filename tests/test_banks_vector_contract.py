"""``wavefronts_many``'s input contract and shapes: what it refuses (naming the argument), what it ignores
(inactive lanes, lanes an ldmatrix .x1/.x2 does not read) and that its batch shape is kept.

Expected costs come from the rule statement (phases by lane index, the most distinct words one bank delivers) or
from the scalar model fed the same lanes one warp at a time.
"""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.banks import wavefronts, wavefronts_many
from layoutalg.banks.vector import lane_array
from layoutalg.errors import InstructionError

LDSM_X1 = "ldmatrix.sync.aligned.m8n8.x1.shared.b16"
LDSM_X2 = "ldmatrix.sync.aligned.m8n8.x2.shared.b16"
CG = "cp.async.cg.shared.global"
LANES = np.arange(32, dtype=np.int64)


def test_the_batch_shape_of_the_addresses_is_the_shape_of_the_answer() -> None:
    rng = np.random.default_rng(11)
    addrs = rng.integers(0, 256, size=(2, 3, 32)) * 16
    for text in ("ld.shared.v4.b32", "st.shared.b32", LDSM_X2):
        wf, ideal = wavefronts_many(text, addrs)
        assert wf.shape == ideal.shape == (2, 3)
        for i in range(2):
            for j in range(3):
                assert int(wf[i, j]) == wavefronts(text, addrs[i, j].tolist())
    one = wavefronts_many("ld.shared.b32", 4 * LANES)
    assert one[0].shape == () and int(one[0]) == int(one[1]) == 1
    empty = wavefronts_many("ld.shared.b32", np.zeros((0, 32), dtype=np.int64))
    assert empty[0].shape == empty[1].shape == (0,)
    glob = wavefronts_many(CG, np.stack([16 * LANES] * 3).reshape(3, 1, 32),
                           global_addresses=np.stack([16 * LANES] * 3).reshape(3, 1, 32))
    assert glob[0].shape == (3, 1) and glob[0].tolist() == [[4]] * 3


def test_an_ldmatrix_reads_only_the_lanes_of_its_matrices() -> None:
    rows = 16 * LANES  # eight 16-byte rows per matrix, one after the other: one wavefront per matrix
    junk = rows.copy()
    junk[8:] = -3  # lanes 8..31 hold no address an .x1 reads: negative and misaligned is fine there
    assert [int(x[0]) for x in wavefronts_many(LDSM_X1, junk[None, :])] == [1, 1]
    junk2 = rows.copy()
    junk2[16:] = 7
    assert [int(x[0]) for x in wavefronts_many(LDSM_X2, junk2[None, :])] == [2, 2]
    junk2[15] = 7  # lane 15 is read by .x2
    with pytest.raises(InstructionError, match="misaligned address 7"):
        wavefronts_many(LDSM_X2, junk2[None, :])


@pytest.mark.parametrize("bad, message", [
    (np.zeros((1, 31), dtype=np.int64), r"addresses must have 32 lanes on the last axis, got shape \(1, 31\)"),
    (np.int64(0), r"addresses must have 32 lanes on the last axis, got shape \(\)"),
    (np.zeros((1, 32), dtype=np.float64), "addresses must be integers, got dtype float64"),
    ([[0] * 32, [0] * 31], "addresses is not an array of lane values: ValueError"),
    (np.array([[-4] + [0] * 31]), "negative shared-memory address -4 in ld.shared.b32"),
    (np.array([[0] * 31 + [6]]), r"misaligned address 6 at index \(0, 31\) of ld.shared.b32 \(must be a multiple of 4\)"),
])
def test_bad_addresses_are_refused_naming_the_argument(bad: object, message: str) -> None:
    with pytest.raises(InstructionError, match=message):
        wavefronts_many("ld.shared.b32", bad)


def test_unsigned_addresses_are_accepted_as_integers() -> None:
    assert int(wavefronts_many("ld.shared.b32", (4 * LANES).astype(np.uint32)[None, :])[0][0]) == 1


def test_lane_array_names_what_is_not_an_array() -> None:
    assert lane_array([1, 2], "x").tolist() == [1, 2]
    with pytest.raises(InstructionError, match="global_addresses is not an array of lane values"):
        lane_array([[1], [1, 2]], "global_addresses")


def test_a_cp_async_source_must_be_aligned_and_shaped_like_its_destination() -> None:
    dst = 16 * LANES[None, :]
    with pytest.raises(InstructionError, match=r"misaligned global source offset 24 at index \(0, 1\) of "
                                               r"cp.async.cg.shared.global, 16 \(must be a multiple of 16\)"):
        wavefronts_many(CG, dst, global_addresses=np.array([[0, 24] + [0] * 30]))
    with pytest.raises(InstructionError, match=r"global_addresses has shape \(1, 32\), addresses \(2, 32\)"):
        wavefronts_many(CG, np.vstack([dst, dst]), global_addresses=dst)
    with pytest.raises(InstructionError, match="negative global source offset -16"):
        wavefronts_many(CG, dst, global_addresses=np.array([[-16] + [0] * 31]))
    with pytest.raises(InstructionError, match="pass global_addresses"):
        wavefronts_many(CG, dst)
    assert int(wavefronts_many(CG, dst, global_addresses=np.zeros((1, 32), dtype=np.int64))[0][0]) >= 1


def test_inactive_lanes_are_never_validated_or_costed() -> None:
    addrs = 4 * LANES[None, :].copy()
    addrs[0, 5] = -7  # an inactive lane's register may hold anything
    active = np.ones((1, 32), dtype=bool)
    active[0, 5] = False
    assert int(wavefronts_many("st.shared.b32", addrs, active=active)[0][0]) == 1
    with pytest.raises(InstructionError, match="negative"):
        wavefronts_many("st.shared.b32", addrs)
    # a cp.async: an inactive lane's stale global source offset is ignored too
    dst, src = 16 * LANES[None, :], 16 * LANES[None, :].copy()
    src[0, 5] = 5
    stale = int(wavefronts_many(CG, dst, global_addresses=src, active=active)[0][0])
    lanes: list[int | None] = [None if lane == 5 else 16 * lane for lane in range(32)]
    assert stale == wavefronts(CG, lanes, (16 * LANES).tolist())
    with pytest.raises(InstructionError, match="misaligned global"):
        wavefronts_many(CG, dst, global_addresses=src)
    with pytest.raises(InstructionError, match="active must be a bool array"):
        wavefronts_many("st.shared.b32", 4 * LANES[None, :], active=np.ones((1, 32), dtype=np.int64))


def test_an_inactive_partner_is_ignored_when_wide_load_lanes_pair_up() -> None:
    # lanes 2k, 2k+1 share 8 bytes; lane 31 inactive leaves lane 30 without an active partner: the pair is
    # ignored (rule 5, measured in round 8), so the warp pairs up: one 32-lane phase of 16 units, 1 wavefront
    addrs = np.array([[8 * (i // 2) for i in range(32)]])
    active = np.ones((1, 32), dtype=bool)
    active[0, 31] = False
    assert wavefronts_many("ld.shared.v2.b32", addrs, active=active)[0].tolist() == [1]
    # the same lanes storing never pair: two 16-lane phases
    assert wavefronts_many("st.shared.v2.b32", addrs, active=active)[0].tolist() == [2]
    # an unequal pair of active lanes still breaks the pairing
    broken = addrs.copy()
    broken[0, 1] = 8 * 16
    assert wavefronts_many("ld.shared.v2.b32", broken, active=active)[0].tolist() == [3]


def test_a_source_offset_one_byte_off_the_copy_size_is_misaligned() -> None:
    dst = 16 * LANES[None, :]
    for off in (1, 2, 8, 17):
        with pytest.raises(InstructionError, match=f"misaligned global source offset {off}"):
            wavefronts_many(CG, dst, global_addresses=np.array([[off] + [0] * 31]))
    with pytest.raises(InstructionError, match="global_addresses is for cp.async only, not ld.shared.b32"):
        wavefronts_many("ld.shared.b32", 4 * LANES[None, :], global_addresses=4 * LANES[None, :])


@pytest.mark.parametrize("text", ["ld.shared.b32", "ld.shared.v2.b32", "st.shared.v4.b32", LDSM_X2, CG])
def test_no_warp_at_all_costs_nothing(text: str) -> None:
    empty = np.zeros((0, 32), dtype=np.int64)
    wf, ideal = wavefronts_many(text, empty, global_addresses=empty if text == CG else None)
    assert wf.shape == ideal.shape == (0,)


def test_a_partial_warp_is_costed_without_numeric_warnings() -> None:
    import warnings

    addrs = 16 * LANES[None, :]
    active = np.zeros((1, 32), dtype=bool)
    active[0, 0] = True  # three of the four 8-lane phases of a 16-byte store are empty
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert int(wavefronts_many("st.shared.v4.b32", addrs, active=active)[0][0]) == 1


@pytest.mark.parametrize("same", [True, False])
@pytest.mark.parametrize("on0", [True, False])
@pytest.mark.parametrize("on1", [True, False])
def test_wide_load_lanes_pair_up_unless_two_active_partners_differ(
        same: bool, on0: bool, on1: bool) -> None:
    """Lanes 2k and 2k+1 share 8-byte unit k (banks 2k, 2k+1), all active, except lanes 0 and 1 (configured; lane
    1 alone may take unit 16, the same banks as unit 0).  Paired (one 32-lane phase of 16 units): 1 wavefront;
    unpaired: two 16-lane phases, 1 wavefront each, 2 for the first when lanes 0 and 1 both need banks 0-1 for
    different units.  The measured rule (round 8): a pair with an inactive lane is ignored, so only two active
    lanes with different addresses break the pairing."""
    addrs = np.array([[8 * (lane // 2) for lane in range(32)]])
    if not same:
        addrs[0, 1] = 8 * 16
    active = np.ones((1, 32), dtype=bool)
    active[0, 0], active[0, 1] = on0, on1
    paired = same or not on0 or not on1
    unpaired = 3 if on0 and on1 and not same else 2
    assert int(wavefronts_many("ld.shared.v2.b32", addrs, active=active)[0][0]) == (1 if paired else unpaired)


def test_a_batch_of_partial_cp_async_warps_costs_each_warp_as_alone() -> None:
    rng = np.random.default_rng(5)
    dst = rng.integers(0, 64, size=(3, 32)) * 16
    src = rng.integers(0, 64, size=(3, 32)) * 16
    active = rng.random((3, 32)) < 0.7
    wf, _ = wavefronts_many(CG, dst, global_addresses=src, active=active)
    for i in range(3):
        lanes = [int(d) if on else None for d, on in zip(dst[i], active[i])]
        assert int(wf[i]) == wavefronts(CG, lanes, src[i].tolist())
