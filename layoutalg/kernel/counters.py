"""Which Nsight Compute counter each traced shared-memory instruction adds to: the ONE table to correct.

Status of each mapping (update it here, and only here, when a GPU run measures it):

* MEASURED (tools/measure_banks.py, H200, one instruction per launch; meta of
  ``tests/data/h200_smem_wavefronts_more.json``): ``ld.shared`` and ``ldmatrix`` wavefronts in
  ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum``, ``st.shared`` and ``stmatrix`` in
  ``..._op_st.sum``, their bank conflicts in ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}``;
  ``cp.async.ca`` wavefronts in ``sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access``,
  ``cp.async.cg`` in ``..._cache_bypass``.
* ASSUMED (to be checked by the corpus run, ``tests/data/kernels``):

  - instruction counts: ``ld.shared`` (LDS) in ``smsp__sass_inst_executed_op_shared_ld``, ``st.shared``
    (STS) and ``stmatrix`` (STSM) in ``smsp__sass_inst_executed_op_shared_st``, ``ldmatrix`` (LDSM) in
    ``smsp__inst_executed_op_ldsm`` only, cp.async (LDGSTS) in ``smsp__sass_inst_executed_op_ldgsts``;
  - a generic ``ld``/``st`` that reaches shared memory counts like ``ld.shared``/``st.shared``;
  - a warp whose guard predicate is false on every lane still executes (issues) the instruction:
    it adds to the instruction counters but no wavefront (:data:`PREDICATED_OFF_ISSUES`);
  - a partial warp of a 1-4 byte ld/st costs what its active lanes cost alone (inactive lanes
    request no word); wider partial accesses are not counted (listed as unmodelled).
"""

from __future__ import annotations

from dataclasses import dataclass

LD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
ST_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
LD_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
ST_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
LDGSTS_ACCESS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access.sum"
LDGSTS_BYPASS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_bypass.sum"
INST_LD = "smsp__sass_inst_executed_op_shared_ld.sum"
INST_ST = "smsp__sass_inst_executed_op_shared_st.sum"
INST_LDSM = "smsp__inst_executed_op_ldsm.sum"
INST_LDGSTS = "smsp__sass_inst_executed_op_ldgsts.sum"

ALL_COUNTERS = (LD_WAVEFRONTS, ST_WAVEFRONTS, LD_CONFLICTS, ST_CONFLICTS, LDGSTS_ACCESS, LDGSTS_BYPASS,
                INST_LD, INST_ST, INST_LDSM, INST_LDGSTS)

PREDICATED_OFF_ISSUES = True
"""ASSUMED: an instruction whose guard is false on every lane of a warp still counts as executed."""


@dataclass(frozen=True)
class CounterMap:
    """Where one kind of instruction adds: its wavefronts, its excess (bank conflicts), its executions."""

    wavefronts: str | None
    conflicts: str | None
    executions: tuple[str, ...]
    measured: bool


#: kind (``ld``, ``st``, ``ldmatrix``, ``stmatrix``, ``cp.async.ca``, ``cp.async.cg``, ``atom``, ``red``,
#: ``wmma``) -> counters.  ``measured`` refers to the wavefront mapping; execution counters are assumed.
COUNTER_MAP: dict[str, CounterMap] = {
    "ld": CounterMap(LD_WAVEFRONTS, LD_CONFLICTS, (INST_LD,), True),
    "st": CounterMap(ST_WAVEFRONTS, ST_CONFLICTS, (INST_ST,), True),
    "ldmatrix": CounterMap(LD_WAVEFRONTS, LD_CONFLICTS, (INST_LDSM,), True),
    "stmatrix": CounterMap(ST_WAVEFRONTS, ST_CONFLICTS, (INST_ST,), True),
    "cp.async.ca": CounterMap(LDGSTS_ACCESS, None, (INST_LDGSTS,), True),
    "cp.async.cg": CounterMap(LDGSTS_BYPASS, None, (INST_LDGSTS,), True),
    "atom": CounterMap(None, None, (), False),
    "red": CounterMap(None, None, (), False),
    "wmma": CounterMap(None, None, (), False),
}


def counter_kind(kind: str, model_text: str) -> str:
    """The key of :data:`COUNTER_MAP` for an access record."""
    if kind == "cp.async":
        return "cp.async.cg" if ".cg." in model_text else "cp.async.ca"
    return kind
