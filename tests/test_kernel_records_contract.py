"""What the interpreter records (``layoutalg.kernel.records``): access records count their warps, and the
recorder merges repeated incidents of one instruction (summing warp executions and lanes) while keeping
different reasons apart."""

from __future__ import annotations

import numpy as np

from layoutalg.kernel.records import AccessRecord, Incident, Recorder


def test_an_access_record_counts_one_execution_per_warp_and_defaults_to_a_plain_shared_access() -> None:
    rec = AccessRecord(3, 10, "ld.shared.b32", "ld", 4, "ld.shared.b32", 0, np.array([0, 5, 9]),
                       np.ones((3, 32), bool), np.zeros((3, 32), np.int64))
    assert rec.executions == 3
    assert not rec.generic and rec.dropped is None and rec.src_size is None and rec.part == ""
    assert rec.global_buffer is None and rec.global_offset is None


def test_an_incident_defaults_to_one_warp_no_lanes_and_an_address_scope() -> None:
    inc = Incident(1, 7, "bra", "unknown guard")
    assert inc.as_dict() == {"line": 7, "opcode": "bra", "reason": "unknown guard", "warp_executions": 1,
                             "lanes": 0, "scope": "address"}
    assert inc.counter_kind == ""


def test_data_dependence_sums_warps_and_lanes_per_instruction_and_reason() -> None:
    r = Recorder()
    r.data_dependence(4, 12, "ld.shared.b32", "unknown address", 2, 40)
    r.data_dependence(4, 12, "ld.shared.b32", "unknown address", 3, 5, scope="execution")
    r.data_dependence(4, 12, "ld.shared.b32", "unknown guard", 1, 1, scope="execution")
    r.data_dependence(6, 14, "st.shared.b32", "unknown address", 1, 32)
    assert {k: (i.count, i.lanes, i.scope) for k, i in r.data_dependent.items()} == {
        (4, "unknown address"): (5, 45, "address"),  # the first report's scope stays
        (4, "unknown guard"): (1, 1, "execution"), (6, "unknown address"): (1, 32, "address")}
    assert r.data_dependent[(6, "unknown address")].as_dict()["line"] == 14


def test_outside_lsu_sums_warps_per_instruction() -> None:
    r = Recorder()
    r.outside_lsu(2, 9, "ld.shared.b32", "generic to global", 3)
    r.outside_lsu(2, 9, "ld.shared.b32", "another reason", 4)
    r.outside_lsu(5, 11, "st.shared.b32", "generic to global", 1)
    assert {k: (i.count, i.reason, i.lanes) for k, i in r.not_lsu.items()} == {
        2: (7, "generic to global", 0), 5: (1, "generic to global", 0)}
    assert r.accesses == [] and r.predicated_off == {}
    assert Recorder().data_dependent == {}  # each recorder starts empty
