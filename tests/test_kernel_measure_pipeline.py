"""The GPU measurement harness (tools/kernel_corpus/launcher.cpp, tools/measure_kernels.py,
tools/import_kernel_measurements.py) run end to end on a CPU, against a mock libcuda and a fake ncu
(tests/kernel_corpus_mock/).  Needs g++, cuda.h and ptxas; skipped where the CUDA toolkit is absent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MOCK = os.path.join(ROOT, "tests", "kernel_corpus_mock")
CORPUS = os.path.join(ROOT, "tests", "data", "kernels")
sys.path.insert(0, os.path.join(ROOT, "tools", "kernel_corpus"))

import launchspec  # noqa: E402

KERNELS = ["hw_mma_trans_padded", "triton_matmul_sm80", "triton_matmul_tma_sm90"]
CUDA_INCLUDE = next((d for d in ("/usr/local/cuda/include", os.path.join(os.environ.get("CUDA_HOME", "/x"), "include"))
                     if os.path.exists(os.path.join(d, "cuda.h"))), None)
needs_toolkit = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("gcc") is None or CUDA_INCLUDE is None
                                   or shutil.which("ptxas") is None, reason="needs gcc/g++, cuda.h and ptxas")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The mock libcuda, the launcher and the cubins of KERNELS, built into a scratch folder."""
    tmp = tmp_path_factory.mktemp("kbuild")
    lib = tmp / "lib"
    lib.mkdir()
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(lib / "libcuda.so.1"),
                    os.path.join(MOCK, "mock_libcuda.c")], check=True)
    build = tmp / "build"
    build.mkdir()
    subprocess.run(["g++", "-O1", "-std=c++17", "-I", CUDA_INCLUDE, "-o", str(build / "kernel_launcher"),
                    os.path.join(ROOT, "tools", "kernel_corpus", "launcher.cpp"), "-ldl"], check=True)
    for name in KERNELS:
        (build / name).mkdir()
        ptx = os.path.join(CORPUS, name, "kernel.ptx")
        arch = "sm_90a" if ".target sm_90a" in open(ptx).read() else "sm_90"
        subprocess.run(["ptxas", f"-arch={arch}", ptx, "-o", str(build / name / "kernel.cubin")], check=True)
    env = dict(os.environ, PATH=MOCK + os.pathsep + os.environ["PATH"], LD_LIBRARY_PATH=str(lib))
    return tmp, build, env


@needs_toolkit
def test_launcher_passes_packed_bytes_with_distinct_buffers(built):
    tmp, build, env = built
    name = "triton_matmul_tma_sm90"
    with open(os.path.join(CORPUS, name, "launch.json")) as fh:
        launch = json.load(fh)
    with open(os.path.join(CORPUS, name, "kernel.ptx")) as fh:
        ptx = fh.read()
    spec = tmp / "spec.txt"
    spec.write_text(launchspec.launch_text(launch, ptx))
    log = tmp / "mock.log"
    sizes = [p["size"] for p in launch["params"]]
    env = dict(env, MOCK_CUDA_LOG=str(log), MOCK_CUDA_PARAM_SIZES=",".join(map(str, sizes)))
    res = subprocess.run([str(build / "kernel_launcher"), str(spec), str(build / name / "kernel.cubin"),
                          "--dump", str(tmp / "dump")], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    lines = log.read_text().splitlines()
    assert len(lines) == 2 and lines[0] == lines[1]       # warm-up and measured launch, same arguments
    head, params = lines[1].split(" params ")
    assert head == f"launch {launch['kernel']} grid 4 1 1 block 128 1 1 smem {launch['dynamic_smem']}"
    got = [bytes.fromhex(h) for h in params.split(",")]
    packed = launchspec.pack_all(launchspec.params(ptx, launch["kernel"]), launch["args"])
    pointers = []
    for g, pk in zip(got, packed):
        for off, _ in pk.pointers:
            pointers.append(int.from_bytes(g[off:off + 8], "little"))
            g = g[:off] + bytes(8) + g[off + 8:]
        assert g == bytes(pk.data)
    assert len(set(pointers)) == len(pointers) == 5 and all(p % 256 == 0 and p for p in pointers)
    # the dumps hold every buffer at its launch.json size; outputs start as the 0xFF sentinel
    scratch = launch["buffers"]["6"]["count"]
    assert (tmp / "dump" / "buf3.in").stat().st_size == scratch
    assert set((tmp / "dump" / "buf2.in").read_bytes()) == {0xFF}


@needs_toolkit
def test_measure_and_import_end_to_end_on_the_mock(built, tmp_path):
    _, build, env = built
    out = tmp_path / "out"
    env = dict(env, MOCK_NCU_UNKNOWN="smsp__inst_executed_op_stsm")
    res = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "measure_kernels.py"), str(out), "--build",
                          str(build), "--only", ",".join(KERNELS), "--budget-s", "120"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert "smsp__inst_executed_op_stsm.sum" in summary["metrics_dropped"]
    assert "smsp__inst_executed_op_stsm.sum" not in summary["metrics"]
    for name in KERNELS:
        rec = summary["kernels"][name]
        assert rec["run"]["rc"] == 0 and rec["runs_agree"] is True
        assert set(rec["ncu_run1"]["counters"]) == set(summary["metrics"])
        # the mock computes nothing: the check must see the untouched NaN sentinel in every C element
        assert rec["verify"]["ok"] is False and rec["verify"]["not_finite"] == 128 * 128
    assert summary["kernels"]["triton_matmul_sm80"]["jit_run"]["rc"] == 0
    assert "jit_run" not in summary["kernels"]["hw_mma_trans_padded"]
    corpus = tmp_path / "corpus"
    for name in KERNELS:
        shutil.copytree(os.path.join(CORPUS, name), corpus / name)
    imp = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "import_kernel_measurements.py"),
                          str(out / "kernels_ncu.tar.gz"), "--corpus", str(corpus)], capture_output=True, text=True)
    assert imp.returncode == 1 and "output wrong (expected correct)" in imp.stdout   # the mock's outputs
    measured = json.loads((corpus / "triton_matmul_sm80" / "measured.json").read_text())
    assert measured["runs_agree"] is True and measured["ptx_unchanged"] is True
    assert set(measured["runs"]) == {"ncu_run1", "ncu_run2", "ncu_jit"}
    assert measured["verify"]["checked"] == "here, from the dumped buffers"
    assert (corpus / "triton_matmul_sm80" / "ncu_run1.csv").read_text().startswith('"ID"')


@needs_toolkit
def test_a_failing_batch_falls_back_to_one_ncu_per_kernel(built, tmp_path):
    _, build, env = built
    out = tmp_path / "out"
    env = dict(env, MOCK_NCU_FAIL_BATCH="1")
    res = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "measure_kernels.py"), str(out), "--build",
                          str(build), "--only", "hw_mma_trans_padded", "--no-jit", "--budget-s", "120"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    rec = json.loads((out / "summary.json").read_text())["kernels"]["hw_mma_trans_padded"]
    assert rec["ncu_run1"]["source"] == rec["ncu_run2"]["source"] == "single" and rec["runs_agree"] is True
