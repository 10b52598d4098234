"""Fuzz every ``layoutalg`` subcommand: garbage and edge arguments never crash it, never hang it.

Each generated command line (hypothesis, fixed seed) is run in-process through ``layoutalg.cli.main`` under a
CPU-time box (:mod:`timebox`), and must

* return 0, 1, 2 or 3 (success, a check failed, bad input, not decidable) -- never raise, never exit otherwise;
* print no traceback; on 2 or 3, an ``error:`` and a ``hint:`` (on stderr, or as the JSON error object);
* print valid JSON on stdout when ``--json`` is given (and no ``--help``);
* finish within :data:`CPU_LIMIT` seconds of CPU.

Arguments mix each command's real options with edge values: huge integers, huge layouts (2^40 elements),
empty strings, ``nan``/``inf``, negative numbers, unicode (combining marks, right-to-left overrides,
mathematical digits), very long strings (20,000 characters), nested brackets, NUL bytes, and hypothesis's own
random text.  File arguments come from a fixed list inside a scratch folder (the fuzzer never writes outside
it, nor reads or imports anything but the files it made).  A few command lines also run as subprocesses.

CI runs :data:`EXAMPLES` command lines (a few seconds).  The long run of both fuzzers is one command,
``python tools/fuzz_long.py`` (see there); this file alone::

    LAYOUTALG_FUZZ_EXAMPLES=100000 python -m pytest tests/adversarial/test_fuzz_cli.py -q -p no:cacheprovider

(``LAYOUTALG_FUZZ_SEED`` picks another seed, ``LAYOUTALG_FUZZ_REPORT`` a file for the totals line.)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from timebox import within

from layoutalg.cli import main

EXAMPLES = int(os.environ.get("LAYOUTALG_FUZZ_EXAMPLES", "150"))
SEED = int(os.environ.get("LAYOUTALG_FUZZ_SEED", "2026"))
CPU_LIMIT = 10.0
ROOT = Path(__file__).resolve().parents[2]

SCRATCH = Path(tempfile.mkdtemp(prefix="layoutalg-fuzz-cli-"))
LINES_RUN: Counter[str] = Counter()
(SCRATCH / "thm_good.py").write_text(
    "from layoutalg.core.layout import Layout\nfrom layoutalg.prove import injective, theorem\n\n"
    "@theorem\ndef tile_is_injective():\n    return injective(Layout((4, 8), (8, 1)), {'r': 4, 'c': 8})\n")
(SCRATCH / "thm_broken.py").write_text("import layoutalg\n\nraise RuntimeError('broken on purpose')\n")
(SCRATCH / "thm_syntax.py").write_text("def oops(:\n")
(SCRATCH / "notes.txt").write_text("not a theorem\n")
(SCRATCH / "recording.json").write_text(json.dumps({
    "format": "layoutalg-gpu-recording/1", "device": {"name": "fuzz"},
    "banks": [{"name": "broadcast", "instruction": "ld.shared.b32", "lane_byte_addresses": [0] * 32,
               "wavefronts": 1}]}))
(SCRATCH / "bad_recording.json").write_text('{"format": "layoutalg-gpu-recording/1", "mma": [{"x": 1}]}')
(SCRATCH / "not_json.json").write_text("{")
# A real kernel (the corpus's padded 32 x 32 transpose: parameters in, out, rows, cols) as the fuzzer's own copy.
(SCRATCH / "kernel.ptx").write_text((ROOT / "tests/data/kernels/transpose_32x32_padded/kernel.ptx").read_text())
(SCRATCH / "kernel.sass").write_text("\n".join(["	code for sm_90", "		Function : nothing", "        /*0000*/  EXIT ;"]))

HUGE = ["9" * 30, str(2**64), str(2**40), "9" * 5000, "-" + "9" * 30]
EDGE = ["", " ", "-1", "0", "1", "nan", "NaN", "inf", "-inf", "1e309", "0x10", "1_000", "١٢", "𝟞𝟜", "e\u0301",
        "\u202eltr", "\x00", "a\x00b", "x" * 20_000, "(" * 5000, ")" * 10, "<" * 3000, "[[[[", "'", '"', "\\",
        "--", "-", "--json", "--help", "%s", "{}", "None", "True", *HUGE]
# Each pool: (valid values, invalid or edge values of that kind).
LAYOUTS = (["(64,64):(64,1)", "Sw<3,3,3> o 0 o (64,64):(64,1)", "(32,32):(32,1)", "(32,32):(33,1)", "(8,8):(8,1)",
            "S<3,3,3> o 0 o (16,64):(64,1)", "((2,4),8):((1,16),2)", "(4,8):(8,1)", "(64,64):(1,64)",
            "Layout<Shape<_16,_64>,Stride<_64,_1>>", "Layout_K_SW128_Atom", "Sm80_SW3_Atom",
            "ComposedLayout<Swizzle<3,4,3>,smem_ptr_flag_bits<16>,Layout<Shape<_16,_64>,Stride<_64,_1>>>",
            "#ttg.linear<{in0 = [[8], [16], [32]], in1 = [[1], [2], [4]]}>", "SW_3_3_3 o 0 o (16, 64):(64, 1)"],
           ["(1048576,1048576):(1048576,1)", "(2,2,2):(1,2,4)", "(8,8):(-1,8)", "(8,8):(0,0)", "(64,64):(100000,1)",
            "Layout<Shape<_8,int>>", "#ttg.linear<{a = [[x]]}>", "(" + "9" * 5000 + "):1", "(0,8):(1,0)",
            "Layout<" + "Shape<" * 500 + "_1", "Sw<1,1,1> o " * 50 + "8:1", "(8,64:(64,1)", "(-8,8):(1,8)",
            "(64,64):(64,3)", "Sw<9,9,9> o 0 o (64,64):(64,1)", "(3,5):(5,1)"])
ATOMS = (["SM80_16x8x16_F32F16F16F32_TN", "SM75_U32x4_LDSM_N", "SM75_U16x8_LDSM_T", "SM90_64x128x16_F32BF16BF16_SS",
          "((4,8),(2,2)):((32,1),(16,8))"], ["SM80_16x8x16_F32F16F16F32_NT", "(32,4):(4,1)", "(1048576,2):(1,0)"])
DTYPES = (["f16", "bf16", "f32", "s8", "u8", "F16", "f64"], ["s4", "e2m1", "half16", "tf33"])
ACCESSES = (["ldmatrix.x4", "ldmatrix.x2.trans", "ldmatrix.x1", "stmatrix.x4", "ld.shared", "ld.shared.v4",
             "st.shared.b32", "ld.shared.v2.b64", "cp.async.cg", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"],
            ["ldmatrix", "ld.shared.v8.b32", "cp.async.ca.8", "cp.async", "ld.global.b32", "mma.sync",
             "cp.async.ca.shared.global, 8", "ld.shared" + " " * 5000 + ",8", "ldmatrix.x3"])
EXTENTS = (["64x64", "32x32", "16x16", "128x64", "48x48", "16,16"],
           ["0x8", "64", "1048576x1048576", "48x40", "2x3x4", "x", "-8x8", "9" * 60 + "x8"])
ARCHES = (["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120", "90", "9.0"], ["sm_75", "sm_1", "gfx90a"])
OPERANDS = (["A", "B", "C", "src", "dst"], ["x", "D"])
BY = (["row", "column"], ["diagonal"])
GLOBAL_LD = (["4096", "72", "64", "128"], ["0", "-64", "1"])
TIMEOUTS = (["5", "0.5"], ["0", "-1"])
NOTATIONS = (["cute", "cpp", "dsl", "pycute", "triton"], ["rust"])
FILTERS = (["LDSM", "SM80", "mma", ""], ["x" * 20_000])
LONG_NAME = "y" * 300  # longer than any file system allows a name to be: never created
PICTURES = [str(SCRATCH / n) for n in ("out.png", "out.svg", "out.tex", "missing_dir/x.png", "a\x00b.svg",
                                       LONG_NAME)] + [""]
THEOREM_PATHS = [str(SCRATCH / n) for n in ("thm_good.py", "thm_broken.py", "thm_syntax.py", "notes.txt",
                                            "no_such_file.py", "no_such_dir", LONG_NAME)] + [str(SCRATCH)]
REPLAYS = [str(SCRATCH / n) for n in ("recording.json", "bad_recording.json", "not_json.json", "notes.txt",
                                      "missing.json", LONG_NAME)] + [str(SCRATCH), ""]


def values(pool: tuple[list[str], list[str]]) -> Any:
    """A valid value 7 times in 10; else an invalid one of its kind, an edge value or hypothesis's own text."""
    valid, invalid = pool
    return st.integers(0, 19).flatmap(lambda k: st.sampled_from(valid) if k < 14 else
                                      st.sampled_from(invalid) if k < 17 else
                                      st.sampled_from(EDGE) if k < 19 else st.text(max_size=40))


KERNEL_FILES = [str(SCRATCH / n) for n in ("kernel.ptx", "kernel.ptx", "kernel.ptx", "notes.txt", "missing.ptx",
                                            LONG_NAME)] + [str(SCRATCH), ""]
# Launch shapes: the valid ones trace in well under a second; the invalid ones pass CUDA's limits, the whole-grid
# bound, or are not numbers.
DIMS = (["1", "2", "4,4", "2,2,1", "32,8", "128", "8x2"], ["0", "1,70000", "100000,100", "2147483648", "1025",
                                                            "32,32,2", "1,1,65", "1,2,3,4", "x", "-1"])
KERNEL_ARGS = (["0=buf", "1=buf", "2=128", "3=128", "2=0x80", "3=64", "2=0", "3=1"],
               ["2=" + "9" * 5000, "9" * 5000 + "=1", "2=0x" + "f" * 40, "2=1e999", "2=nan", "7=1", "x", "=", "2=1,2",
                "0=i64:" + "9" * 5000, "2=" + "1" * 300])
CTAS = (["0", "0,0;1,0", "3,3", "1,2"], ["9", "0;" + "9" * 5000, "a", "0,0,0,0", ";;"])
SMEMS = (["Sw<3,3,3> o _0 o (64,64):(64,1)", "(64,64):(64,1)", "(16,16):(16,1)", "(32,64):(64,1)",
          "(64,64):(72,1)"], ["(4,4):(4,1)", "(64,64):(0,1)", "(" + "9" * 5000 + "):1", "(64,64", "(1048576,1048576):(1048576,1)"])
COPIES = (["ldmatrix.x4", "ldmatrix.x4.trans", "ldmatrix.x2", "ldmatrix.x1.trans", "stmatrix.x4", "movmatrix",
           "SM75_U32x4_LDSM_N"], ["ldmatrix.x3", "ldmatrix", "ld.shared", "x" * 300])
MMAS = (["mma.m16n8k16.f16", "mma.m16n8k8.f16", "mma.m16n8k32.s8", "mma.m16n8k16.bf16", "SM80_16x8x16_F32F16F16F32_TN"],
        ["mma.m99", "mma", "wgmma.m64n8k16"])
FLAG = None
REQUIRED = {"banks": ("--dtype", "--access"), "suggest-swizzle": ("--shape", "--dtype", "--access"),
            "kernel": ("--kernel", "--block", "--arg", "--arg", "--arg"),
            "prove-fragment": ("--copy", "--smem", "--mma", "--operand")}
COMMANDS: dict[str, tuple[Any, dict[str, Any]]] = {
    "show": (values(LAYOUTS), {"--tv": values(ATOMS), "--operand": values(OPERANDS), "--dtype": values(DTYPES),
                               "--tile": values(EXTENTS), "--tile-to": values(EXTENTS), "--formula": FLAG,
                               "--json": FLAG, "--png": st.sampled_from(PICTURES), "--svg": st.sampled_from(PICTURES),
                               "--tikz": st.sampled_from(PICTURES)}),
    "banks": (values(LAYOUTS), {"--dtype": values(DTYPES), "--access": values(ACCESSES), "--tile-to": values(EXTENTS),
                                "--by": values(BY), "--global-ld": values(GLOBAL_LD), "--expect-conflict-free": FLAG,
                                "--detail": FLAG, "--json": FLAG, "--arch": values(ARCHES),
                                "--png": st.sampled_from(PICTURES), "--svg": st.sampled_from(PICTURES)}),
    "suggest-swizzle": (None, {"--shape": values(EXTENTS), "--dtype": values(DTYPES), "--access": values(ACCESSES),
                               "--by": values(BY), "--json": FLAG, "--arch": values(ARCHES)}),
    "convert": (values(LAYOUTS), {"--to": values(NOTATIONS), "--json": FLAG}),
    "atoms": (values(FILTERS), {"--json": FLAG}),
    "prove": (st.sampled_from(THEOREM_PATHS), {"--json": FLAG, "--timeout": values(TIMEOUTS),
                                               "-k": values((["tile"], ["zzz"])), "--cross-check": FLAG, "-v": FLAG}),
    "gpu-check": (None, {"--replay": st.sampled_from(REPLAYS), "--json": FLAG, "--no-banks": FLAG}),
    "kernel": (st.sampled_from(KERNEL_FILES), {
        "--kernel": values((["transpose", "transpose_32x32_padded"], ["nonexistent", ""])), "--grid": values(DIMS),
        "--block": values(DIMS), "--arg": values(KERNEL_ARGS), "--ctas": values(CTAS),
        "--dynamic-smem": values((["0", "1024"], ["-5", "100000000000000000000", "9" * 5000])),
        "--arch": values(ARCHES), "--step-budget": values((["100000", "2000000"], ["0", "-1", "10"])),
        "--sass": st.sampled_from([str(SCRATCH / "kernel.sass"), str(SCRATCH / "missing.sass"), str(SCRATCH)]),
        "--top": values((["1", "5"], ["0", "-3"])), "--json": FLAG,
        "--check-mma": values((["A=0@(32,32):(32,1)"], ["A=9@(4,4):(4,1)", "x", "A=0@" + "(" * 200]))}),
    "prove-fragment": (None, {
        "--copy": values(COPIES), "--smem": values(SMEMS), "--mma": values(MMAS), "--operand": values(OPERANDS),
        "--dtype": values(DTYPES), "--along": values((["col", "row"], ["diag"])), "--tile-to": values(EXTENTS),
        "--source": values(OPERANDS), "--transpose": FLAG, "--timeout": values(TIMEOUTS), "--json": FLAG}),
}


@st.composite
def command_lines(draw: Any) -> list[str]:
    """A subcommand with its positional argument and a random subset of its options, shuffled, sometimes with
    garbage tokens or a missing value; or an entirely random line."""
    if draw(st.integers(0, 19)) == 0:
        return draw(st.lists(st.one_of(st.sampled_from(EDGE + list(COMMANDS)), st.text(max_size=20)), max_size=5))
    name = draw(st.sampled_from(sorted(COMMANDS)))
    positional, options = COMMANDS[name]
    argv = [name]
    if positional is not None and draw(st.integers(0, 9)) > 0:
        argv.append(draw(positional))
    required = [o for o in REQUIRED.get(name, ()) if draw(st.integers(0, 19)) > 0]  # sometimes one is missing
    chosen = required + draw(st.lists(st.sampled_from(sorted(set(options) - set(required))), max_size=3, unique=True))
    chosen = draw(st.permutations(chosen))
    for option in chosen:
        argv.append(option)
        strategy = options[option]
        if strategy is not None and draw(st.integers(0, 29)) > 0:  # sometimes the value is missing
            argv.append(draw(strategy))
    if draw(st.integers(0, 19)) == 0:
        argv.insert(draw(st.integers(1, len(argv))), draw(st.sampled_from(EDGE)))
    if name != "gpu-check" or "--replay" in argv:  # gpu-check without --replay is the no-GPU path: keep it rare
        return argv
    return argv if draw(st.integers(0, 9)) == 0 else argv + ["--replay", str(SCRATCH / "recording.json")]


def run_in_process(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()

    def call() -> int:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return main(argv)

    code, _ = within(CPU_LIMIT, call)
    return code, out.getvalue(), err.getvalue()


def check_outcome(argv: list[str], code: Any, out: str, err: str) -> None:
    shown = repr(argv)[:300]
    assert code in (0, 1, 2, 3), f"{shown}: exit status {code!r}\n{err[-2000:]}"
    assert "Traceback" not in out + err, f"{shown}: traceback\n{err[-3000:]}"
    wants_json = "--json" in argv and not {"-h", "--help"} & set(argv) and argv[:1] != ["--version"]
    payload = None
    if "--json" in argv and out.strip():
        try:
            payload = json.loads(out)
        except ValueError:
            if wants_json:
                pytest.fail(f"{shown}: --json printed something that is not JSON: {out[:300]!r}")
    if code in (2, 3):
        json_error = isinstance(payload, dict) and {"error", "hint"} <= set(payload) and payload["hint"]
        assert json_error or ("error:" in err and "hint:" in err), f"{shown}: error without a hint\n{err[-2000:]}"


@pytest.fixture(autouse=True)
def in_scratch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SCRATCH)  # relative picture paths and prove's '' land in the scratch folder


@seed(SEED)
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate],  # no shrinking: failing lines are short enough to read as found
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(command_lines())
def test_fuzzed_command_lines_exit_cleanly(argv: list[str]) -> None:
    code, out, err = run_in_process(argv)
    LINES_RUN[argv[0] if argv and argv[0] in COMMANDS else "(other)"] += 1
    check_outcome(argv, code, out, err)


def test_zz_cli_totals() -> None:
    """Print (and with LAYOUTALG_FUZZ_REPORT, append to a file) how many fuzzed lines ran, per subcommand; the
    test above stops at the first line that fails, so reaching here means every one exited cleanly."""
    per = ", ".join(f"{name} {n}" for name, n in sorted(LINES_RUN.items()))
    summary = f"fuzz_cli: {sum(LINES_RUN.values())} command lines (seed {SEED}, {CPU_LIMIT:g} s CPU each), 0 failures: {per}"
    print(summary)
    report = os.environ.get("LAYOUTALG_FUZZ_REPORT")
    if report:
        with open(report, "a") as out:
            out.write(summary + "\n")


EDGE_LINES = [
    ["--json"], [], ["--json", "--json"], ["show", "x" * 20_000], ["show", "(" + "9" * 5000 + "):1"],
    ["banks", "(1048576,1048576):(1048576,1)", "--dtype", "f16", "--access", "ldmatrix.x4"],
    ["banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "ld.shared" + " " * 20_000 + "x"],
    ["suggest-swizzle", "--shape", "1048576x1048576", "--dtype", "f16", "--access", "ldmatrix.x4"],
    ["suggest-swizzle", "--shape", "9" * 60 + "x8", "--dtype", "f16", "--access", "ld.shared"],
    ["show", "--tv", "(1048576,1048576):(1,1048576)", "--tile", "16x16"],
    ["show", "Layout<" + "Shape<" * 5000 + "_1" + ">" * 5000 + ">"],
    ["convert", "#ttg.linear<{" + "a" * 20_000 + "}>"],
    ["prove", str(SCRATCH / "thm_broken.py"), "--json"], ["prove", "--timeout", "inf", str(SCRATCH / "thm_good.py")],
    ["gpu-check", "--replay", str(SCRATCH / "bad_recording.json")], ["gpu-check", "--replay", str(SCRATCH)],
    ["atoms", "\udcff"],
]


@pytest.mark.parametrize("argv", EDGE_LINES, ids=[repr(a)[:60] for a in EDGE_LINES])
def test_edge_command_lines_exit_cleanly(argv: list[str]) -> None:
    code, out, err = run_in_process(argv)
    check_outcome(argv, code, out, err)


SUBPROCESS_LINES = [["--json"], ["show", "(8,64:(64,1)"],
                    ["banks", "(1048576,1048576):(1048576,1)", "--dtype", "f16", "--access", "ldmatrix.x4"],
                    ["banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "x" * 20_000, "--json"],
                    ["gpu-check", "--replay", str(SCRATCH / "not_json.json")],
                    ["prove", str(SCRATCH / "thm_syntax.py"), str(SCRATCH / "thm_good.py")]]


@pytest.mark.parametrize("argv", SUBPROCESS_LINES, ids=[repr(a)[:60] for a in SUBPROCESS_LINES])
def test_command_lines_exit_cleanly_as_processes(argv: list[str]) -> None:
    """The console entry point itself (python -m layoutalg), with a wall-clock bound."""
    proc = subprocess.run([sys.executable, "-m", "layoutalg", *argv], capture_output=True, text=True, cwd=SCRATCH,
                          env=dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")),
                          timeout=120)
    check_outcome(argv, proc.returncode, proc.stdout, proc.stderr)
