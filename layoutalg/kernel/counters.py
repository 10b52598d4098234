"""Which Nsight Compute counters each traced shared-memory instruction adds to: the ONE table to correct.

Evidence (update it here, and only here, when a GPU run measures something):

* Bank-model probes (tools/measure_banks.py, H200, one instruction per launch): ``ld.shared`` and
  ``ldmatrix`` wavefronts in ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld``, ``st.shared`` and
  ``stmatrix`` in ``..._op_st``, their excess in ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}``;
  ``cp.async.ca`` in ``sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access``,
  ``cp.async.cg`` in ``..._cache_bypass``.
* The kernel corpus (``tests/data/kernels``, 26 launches measured on an H100, replayed by
  ``tests/test_kernel_corpus_counters.py``), which pins every row below except ``red`` and ``wmma``:

  - the ``sm__sass_*`` split by SASS opcode: LDS in ``..._op_ld``, LDSM in ``..._op_ldsm``, STS in
    ``..._op_st``, STSM in ``..._op_stsm``, LDGSTS in ``..._op_ldgsts`` (cache access + bypass), ATOMS in
    ``..._op_atom``;
  - instruction counts: LDS in ``smsp__sass_inst_executed_op_shared_ld``, STS in ``..._op_shared_st``
    (STSM in neither: the hw_mma kernels), LDSM in ``smsp__inst_executed_op_ldsm`` and
    ``smsp__sass_inst_executed_op_ldsm``, LDGSTS in ``..._op_ldgsts`` and ``..._ldgsts_cache_{access,bypass}``,
    ATOMS (``atom.shared``, histogram_smem) in ``..._op_shared_atom``;
  - the LDGSTS bank-conflict counter holds the ``cp.async.ca`` excess only: every ``.cg`` kernel reads 0
    there, even those costing more than the ideal (hw_bug_swizzle_write_only, triton_matmul_*);
  - :data:`PREDICATED_OFF_ISSUES`: a warp whose guard is false on every lane is *not* counted as an
    executed instruction (triton_softmax_sm80's ``@%p ld.shared`` with ``tid < 4``; the predicated
    LDS/STS of triton_matmul_tma_sm90): the ``sass`` instruction counters count warps with an active lane.

* ASSUMED: ``red.shared`` counts like ``atom.shared`` (ptxas emits ATOMS for both).
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

SASS_LD_WAVEFRONTS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SASS_ST_WAVEFRONTS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
SASS_LDSM_WAVEFRONTS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"
SASS_STSM_WAVEFRONTS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"
SASS_LDGSTS_WAVEFRONTS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
LDSM_CONFLICTS = "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum"
STSM_CONFLICTS = "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum"
LDGSTS_CONFLICTS = "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"
INST_SASS_LDSM = "smsp__sass_inst_executed_op_ldsm.sum"
INST_LDGSTS_ACCESS = "smsp__sass_inst_executed_op_ldgsts_cache_access.sum"
INST_LDGSTS_BYPASS = "smsp__sass_inst_executed_op_ldgsts_cache_bypass.sum"
ATOM_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"
SASS_ATOM_WAVEFRONTS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"
ATOM_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"
INST_ATOM = "smsp__sass_inst_executed_op_shared_atom.sum"

ISSUE_COUNTERS = (LD_WAVEFRONTS, ST_WAVEFRONTS, LD_CONFLICTS, ST_CONFLICTS, LDGSTS_ACCESS, LDGSTS_BYPASS,
                  INST_LD, INST_ST, INST_LDSM, INST_LDGSTS)
"""The counters issue 14 names (the ``--json`` object has at least these)."""

ALL_COUNTERS = ISSUE_COUNTERS + (
    SASS_LD_WAVEFRONTS, SASS_ST_WAVEFRONTS, SASS_LDSM_WAVEFRONTS, SASS_STSM_WAVEFRONTS, SASS_LDGSTS_WAVEFRONTS,
    LDSM_CONFLICTS, STSM_CONFLICTS, LDGSTS_CONFLICTS, INST_SASS_LDSM, INST_LDGSTS_ACCESS, INST_LDGSTS_BYPASS,
    ATOM_WAVEFRONTS, SASS_ATOM_WAVEFRONTS, ATOM_CONFLICTS, INST_ATOM)

PREDICATED_OFF_ISSUES = False
"""MEASURED (module doc): an instruction whose guard is false on every lane of a warp is not counted."""


@dataclass(frozen=True)
class CounterMap:
    """Where one kind of instruction adds: its wavefronts, its excess (bank conflicts), its executions.

    ``counted`` False: the kind is never added (which SASS it becomes is not known); the counters named
    are those it may feed, so they are incomplete wherever it executes."""

    wavefronts: tuple[str, ...]
    conflicts: tuple[str, ...]
    executions: tuple[str, ...]
    measured: bool
    counted: bool = True

    @property
    def all(self) -> tuple[str, ...]:
        return self.wavefronts + self.conflicts + self.executions


_ATOMS = ((ATOM_WAVEFRONTS, SASS_ATOM_WAVEFRONTS), (ATOM_CONFLICTS,), (INST_ATOM,))

#: kind (``ld``, ``st``, ``ldmatrix``, ``stmatrix``, ``cp.async.ca``, ``cp.async.cg``, ``atom``, ``red``,
#: ``wmma``, ``tensormap``) -> counters.  ``measured``: the corpus pins the row (module doc).
COUNTER_MAP: dict[str, CounterMap] = {
    "ld": CounterMap((LD_WAVEFRONTS, SASS_LD_WAVEFRONTS), (LD_CONFLICTS,), (INST_LD,), True),
    "st": CounterMap((ST_WAVEFRONTS, SASS_ST_WAVEFRONTS), (ST_CONFLICTS,), (INST_ST,), True),
    "ldmatrix": CounterMap((LD_WAVEFRONTS, SASS_LDSM_WAVEFRONTS), (LD_CONFLICTS, LDSM_CONFLICTS),
                           (INST_LDSM, INST_SASS_LDSM), True),
    "stmatrix": CounterMap((ST_WAVEFRONTS, SASS_STSM_WAVEFRONTS), (ST_CONFLICTS, STSM_CONFLICTS), (), True),
    "cp.async.ca": CounterMap((LDGSTS_ACCESS, SASS_LDGSTS_WAVEFRONTS), (LDGSTS_CONFLICTS,),
                              (INST_LDGSTS, INST_LDGSTS_ACCESS), True),
    "cp.async.cg": CounterMap((LDGSTS_BYPASS, SASS_LDGSTS_WAVEFRONTS), (), (INST_LDGSTS, INST_LDGSTS_BYPASS), True),
    "atom": CounterMap(*_ATOMS, True),
    "red": CounterMap(*_ATOMS, False),
    # wmma.load/store become LDS/LDSM/STS as ptxas chooses: everything they might feed
    "wmma": CounterMap((LD_WAVEFRONTS, ST_WAVEFRONTS, SASS_LD_WAVEFRONTS, SASS_LDSM_WAVEFRONTS, SASS_ST_WAVEFRONTS),
                       (LD_CONFLICTS, ST_CONFLICTS, LDSM_CONFLICTS), (INST_LD, INST_ST, INST_LDSM, INST_SASS_LDSM),
                       False, counted=False),
    # tensormap.replace (a data-dependent incident's key only: its traced accesses are costed as their ld/st
    # parts): the STS ptxas emits for it and, for a read-modify-write field, the LDS (kernel.interp.tensormap)
    "tensormap": CounterMap((LD_WAVEFRONTS, SASS_LD_WAVEFRONTS, ST_WAVEFRONTS, SASS_ST_WAVEFRONTS),
                            (LD_CONFLICTS, ST_CONFLICTS), (INST_LD, INST_ST), True),
}


def counter_kind(kind: str, model_text: str) -> str:
    """The key of :data:`COUNTER_MAP` for an access record."""
    if kind == "cp.async":
        return "cp.async.cg" if ".cg." in model_text else "cp.async.ca"
    return kind
