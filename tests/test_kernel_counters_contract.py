"""Which Nsight Compute counters each traced shared-memory instruction feeds (``layoutalg.kernel.counters``),
against the metric names of the module's evidence list (issue 14's ten counters, the ``sm__sass_*`` split by
SASS opcode, LDGSTS conflicts from ``.ca`` only, STSM in no instruction counter)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from layoutalg.kernel import counters as cn

ISSUE_14 = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
            "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access.sum",
            "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_bypass.sum",
            "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
            "smsp__inst_executed_op_ldsm.sum", "smsp__sass_inst_executed_op_ldgsts.sum")


def test_the_issue_counters_are_issue_14_s_ten_and_lead_the_full_list() -> None:
    assert cn.ISSUE_COUNTERS == ISSUE_14
    assert cn.ALL_COUNTERS[:10] == ISSUE_14 and len(cn.ALL_COUNTERS) == 25
    assert len(set(cn.ALL_COUNTERS)) == 25 and all(n.endswith(".sum") for n in cn.ALL_COUNTERS)


def test_every_counter_a_kind_feeds_is_a_listed_counter() -> None:
    fed = {n for row in cn.COUNTER_MAP.values() for n in row.all}
    assert fed == set(cn.ALL_COUNTERS)


def test_loads_and_stores_feed_their_own_pipe_sass_and_instruction_counters() -> None:
    ld, st = cn.COUNTER_MAP["ld"], cn.COUNTER_MAP["st"]
    assert ld.all == ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                      "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                      "smsp__sass_inst_executed_op_shared_ld.sum")
    assert st.all == ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                      "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                      "smsp__sass_inst_executed_op_shared_st.sum")
    assert ld.measured and st.measured and ld.counted and st.counted


def test_ldmatrix_counts_as_a_load_and_stmatrix_as_a_store_without_an_instruction_counter() -> None:
    ldsm, stsm = cn.COUNTER_MAP["ldmatrix"], cn.COUNTER_MAP["stmatrix"]
    assert ldsm.wavefronts == (cn.LD_WAVEFRONTS, "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum")
    assert ldsm.conflicts == (cn.LD_CONFLICTS, "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum")
    assert ldsm.executions == ("smsp__inst_executed_op_ldsm.sum", "smsp__sass_inst_executed_op_ldsm.sum")
    assert stsm.wavefronts == (cn.ST_WAVEFRONTS, "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum")
    assert stsm.conflicts == (cn.ST_CONFLICTS, "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum")
    assert stsm.executions == () and ldsm.measured and stsm.measured


def test_cp_async_ca_and_cg_split_access_and_bypass_and_only_ca_has_conflicts() -> None:
    ca, cg = cn.COUNTER_MAP["cp.async.ca"], cn.COUNTER_MAP["cp.async.cg"]
    sass = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
    assert ca.wavefronts == (cn.LDGSTS_ACCESS, sass) and cg.wavefronts == (cn.LDGSTS_BYPASS, sass)
    assert ca.conflicts == ("sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",)
    assert cg.conflicts == ()
    assert ca.executions == (cn.INST_LDGSTS, "smsp__sass_inst_executed_op_ldgsts_cache_access.sum")
    assert cg.executions == (cn.INST_LDGSTS, "smsp__sass_inst_executed_op_ldgsts_cache_bypass.sum")
    assert ca.measured and cg.measured and ca.counted and cg.counted


def test_atom_is_measured_red_is_assumed_alike_and_wmma_is_never_counted() -> None:
    atom, red, wmma = cn.COUNTER_MAP["atom"], cn.COUNTER_MAP["red"], cn.COUNTER_MAP["wmma"]
    assert atom.all == red.all == ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
                                   "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
                                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
                                   "smsp__sass_inst_executed_op_shared_atom.sum")
    assert atom.measured and not red.measured and atom.counted and red.counted
    assert not wmma.measured and not wmma.counted
    assert set(wmma.wavefronts) == {cn.LD_WAVEFRONTS, cn.ST_WAVEFRONTS, cn.SASS_LD_WAVEFRONTS,
                                    cn.SASS_LDSM_WAVEFRONTS, cn.SASS_ST_WAVEFRONTS}
    assert set(wmma.conflicts) == {cn.LD_CONFLICTS, cn.ST_CONFLICTS, cn.LDSM_CONFLICTS}
    assert set(wmma.executions) == {cn.INST_LD, cn.INST_ST, cn.INST_LDSM, cn.INST_SASS_LDSM}
    assert set(cn.COUNTER_MAP) == {"ld", "st", "ldmatrix", "stmatrix", "cp.async.ca", "cp.async.cg", "atom", "red",
                                   "wmma", "tensormap"}
    # tensormap.replace becomes an STS and, for a read-modify-write field, an LDS (never LDSM or LDGSTS)
    tmap = cn.COUNTER_MAP["tensormap"]
    assert set(tmap.all) == set(cn.COUNTER_MAP["ld"].all) | set(cn.COUNTER_MAP["st"].all)


def test_predicated_off_warps_are_not_issued_instructions() -> None:
    assert cn.PREDICATED_OFF_ISSUES is False


def test_counter_map_rows_are_frozen_and_counted_by_default() -> None:
    row = cn.CounterMap(("a",), ("b",), ("c",), True)
    assert row.counted and row.all == ("a", "b", "c")
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.measured = False  # type: ignore[misc]


def test_counter_kind_splits_cp_async_by_cache_mode_and_keeps_other_kinds() -> None:
    assert cn.counter_kind("cp.async", "cp.async.cg.shared.global") == "cp.async.cg"
    assert cn.counter_kind("cp.async", "cp.async.ca.shared.global, 16") == "cp.async.ca"
    assert cn.counter_kind("cp.async", "cp.async.ca.shared.global, 4") == "cp.async.ca"
    for kind in ("ld", "st", "ldmatrix", "stmatrix", "atom", "red", "wmma"):
        assert cn.counter_kind(kind, "x.cg.y") == kind


def test_the_tensormap_row_is_measured_by_the_corpus_kernel_that_issues_it() -> None:
    # triton_matmul_tma_sm90 writes its TMA descriptors with tensormap.replace on shared::cta and has ncu runs
    # (measured.json): the module doc's "the corpus pins every row except red and wmma" includes this row
    kdir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kernels", "triton_matmul_tma_sm90")
    with open(os.path.join(kdir, "kernel.ptx")) as f:
        assert "tensormap.replace.tile.global_address.shared::cta" in f.read()
    assert os.path.exists(os.path.join(kdir, "measured.json"))
    tmap = cn.COUNTER_MAP["tensormap"]
    assert tmap.measured and tmap.counted
