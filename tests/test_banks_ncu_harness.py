"""The measuring harness (layoutalg/gpu/banks_ncu.py) without a GPU: generated source, case files, CSV parsing.

The GPU test at the end re-measures a few calibration cases when ncu and a GPU are present.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import sys

import pytest

from layoutalg.gpu import banks_ncu
from layoutalg.gpu.banks_ncu import Case

DATA = os.path.join(os.path.dirname(__file__), "data")


def test_import_does_not_pull_in_cupy_or_subprocess_users():
    src = open(banks_ncu.__file__).read()
    head = src.split("def ")[0]
    assert "import cupy" not in src
    assert "import subprocess" not in head


def test_one_kernel_per_instruction_with_exactly_one_shared_access():
    src = banks_ncu.cuda_source()
    table = banks_ncu.kernel_table()
    kernels = re.findall(r'extern "C" __global__ void (k_\w+)\(', src)
    assert len(kernels) == len(table) == len(set(kernels))
    for canonical, (body, pattern) in table.items():
        # a masked ld/st sets its predicate inside the asm: "{ .reg .pred p; setp...; @p ld.shared... }"
        asm = [a.split("@p ", 1)[1] if "@p " in a else a for a in re.findall(r'asm volatile\("([^"]*)"', body)]
        shared = [a for a in asm if ".shared" in a]
        assert len(shared) == 1, canonical
        family = canonical.split(".")[0] if not canonical.startswith("cp.async") else "cp.async"
        assert shared[0].startswith(family + "."), (canonical, shared[0])
        re.compile(pattern)


def test_case_file_layout():
    cases = [Case("a", "ld.shared.b32", tuple(range(0, 128, 4))),
             Case("b", "cp.async.ca.shared.global, 8", tuple(range(0, 256, 8)), tuple(range(0, 512, 16)))]
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "banks_cases_test.bin")
    banks_ncu.write_cases(cases, path)
    raw = open(path, "rb").read()
    assert len(raw) == 2 * (4 + 128 + 256)
    names = list(banks_ncu.kernel_table())
    kid, *soff = struct.unpack_from("<I32I", raw, 0)
    assert names[kid] == "ld.shared.b32" and soff == list(range(0, 128, 4))
    kid2, = struct.unpack_from("<I", raw, 388)
    goff = struct.unpack_from("<32Q", raw, 388 + 132)
    assert names[kid2] == "cp.async.ca.shared.global, 8" and list(goff) == list(range(0, 512, 16))


def test_parse_ncu_csv():
    text = ('==PROF== Connected\n"ID","Kernel Name","l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",'
            '"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"\n"","","","(count)"\n'
            '"0","k_ld_shared_b32","32","0"\n"1","k_st_shared_b32","n/a","1,024"\n')
    rows = banks_ncu.parse_ncu_csv(text, [banks_ncu.LD_METRIC, banks_ncu.ST_METRIC])
    assert rows == [{banks_ncu.LD_METRIC: 32.0, banks_ncu.ST_METRIC: 0.0},
                    {banks_ncu.LD_METRIC: -1.0, banks_ncu.ST_METRIC: 1024.0}]
    with pytest.raises(RuntimeError):
        banks_ncu.parse_ncu_csv("no csv here", [banks_ncu.LD_METRIC])


def test_measurement_script_regenerates_the_recorded_patterns():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
    try:
        import measure_banks
    finally:
        sys.path.pop(0)
    recorded = json.load(open(os.path.join(DATA, "h200_smem_wavefronts_more.json")))["cases"]
    generated = (measure_banks.targeted() + measure_banks.random_cases() + measure_banks.round2()
                 + measure_banks.round3() + measure_banks.round4() + measure_banks.round5())
    assert [c.name for c in generated] == [c["name"] for c in recorded]
    assert all(list(g.lane_byte_addresses) == r["lane_byte_addresses"] for g, r in zip(generated, recorded))


@pytest.mark.gpu
def test_remeasure_calibration_cases_on_this_gpu():
    if shutil.which("ncu") is None or shutil.which("nvcc") is None:
        pytest.skip("needs ncu and nvcc")
    from layoutalg.banks import wavefronts

    cal = json.load(open(os.path.join(DATA, "..", "..", "layoutalg", "data",
                                      "h200_smem_wavefronts_calibration.json")))["cases"][::10]
    cases = [Case(c["name"], c["instruction"], tuple(c["lane_byte_addresses"])) for c in cal]
    for rec, c in zip(banks_ncu.measure(cases), cal):
        assert rec["wavefronts"] == c["wavefronts"] == wavefronts(c["instruction"], c["lane_byte_addresses"])


def test_partial_warps_run_the_masked_kernel_with_inactive_lanes_marked():
    active = tuple(lane % 3 != 0 for lane in range(32))
    cases = [Case("m", "cp.async.cg.shared.global", tuple(range(0, 512, 16)), tuple(range(0, 512, 16)), (),
                  active)]
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "banks_cases_masked.bin")
    banks_ncu.write_cases(cases, path)
    kid, *soff = struct.unpack_from("<I32I", open(path, "rb").read(), 0)
    assert list(banks_ncu.kernel_table())[kid] == "cp.async.cg.shared.global, 16" + banks_ncu.MASKED
    assert soff == [16 * lane if lane % 3 else banks_ncu.INACTIVE for lane in range(32)]
    src = banks_ncu.cuda_source()
    body = src.split("k_cp_async_cg_shared_global_16_masked(")[1].split("\n}")[0]
    assert f"if (soff[t] != {banks_ncu.INACTIVE}u)" in body and body.count("cp.async.cg.shared.global") == 1
    with pytest.raises(Exception, match="active mask"):
        banks_ncu.write_cases([Case("x", "ldmatrix.x4", tuple(range(0, 512, 16)), None, (), active)], path)


@pytest.mark.parametrize("instruction", ["ld.shared.v2.b32", "st.shared.u8", "ld.shared.v4.b32"])
def test_partial_ld_st_keep_every_address_and_pass_the_mask_in_the_global_slots(instruction):
    """Masked ld/st: inactive lanes keep their shared offset (their address register is still computed, so a
    case can test whether the hardware's pairing looks at it); lane t accesses only where goff[t] is the flag."""
    active = tuple(lane % 5 != 2 for lane in range(32))
    addrs = tuple(8 * (lane // 2) for lane in range(32))
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "banks_cases_masked_ld_st.bin")
    banks_ncu.write_cases([Case("m", instruction, addrs, None, (), active)], path)
    kid, *rest = struct.unpack_from("<I32I32Q", open(path, "rb").read(), 0)
    soff, goff = rest[:32], rest[32:]
    canonical = list(banks_ncu.kernel_table())[kid]
    assert canonical.endswith(banks_ncu.MASKED) and canonical.startswith(instruction.split(".")[0] + ".shared")
    assert soff == list(addrs)
    assert goff == [banks_ncu.ACTIVE_FLAG if lane % 5 != 2 else 0 for lane in range(32)]
    name = banks_ncu._kernel_name(canonical)
    body = banks_ncu.cuda_source().split(name + "(")[1].split("\n}")[0]
    # the predicate is set inside the asm from the flag, the address is an input every lane computes
    assert re.search(rf"setp\.eq\.u32 p, %\d+, {banks_ncu.ACTIVE_FLAG}; @p {instruction.split('.')[0]}\.shared", body)
    assert '"r"(a), "r"((u32)goff[t])' in body and body.count("shared.") == 1 and "if (goff" not in body


def test_masked_kernels_are_appended_so_earlier_kernel_ids_stay():
    """Case files store kernel ids: the plain kernels come first, then the masked ones, then the atomics (in the
    order of ATOMICS), so every id a recorded round used still names the same kernel."""
    names = list(banks_ncu.kernel_table())
    atomics = list(banks_ncu.ATOMICS)
    assert names[-len(atomics):] == atomics
    first_masked = min(i for i, n in enumerate(names) if n.endswith(banks_ncu.MASKED))
    assert all(n.endswith(banks_ncu.MASKED) for n in names[first_masked:-len(atomics)])
    assert not any(n.endswith(banks_ncu.MASKED) for n in names[:first_masked])
    assert names[first_masked].startswith("cp.async")
