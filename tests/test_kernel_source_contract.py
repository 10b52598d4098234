"""Where PTX comes from and which kernel is meant (``layoutalg.kernel.source``): PTX text, files (missing, a
folder, not UTF-8, unreadable), a ``.cu`` through ``nvcc -ptx -lineinfo -arch=sm_XY`` (stand-in nvcc and
c++filt scripts on the PATH play the tools), Triton's ``asm['ptx']``, and ``--kernel`` matching by exact name or
a substring of exactly one demangled name; every refusal is a KernelError saying what was wrong."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from layoutalg.errors import KernelError, LayoutError
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.source import compile_cuda, demangle, from_triton, load_ptx, read_text_file, select_entry

PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"


def entries(*names: str) -> str:
    body = "".join(f".visible .entry {n}()\n{{\nret;\n}}\n" for n in names)
    return ".version 8.0\n.target sm_90\n.address_size 64\n" + body


def tool(folder: Path, name: str, script: str) -> None:
    p = folder / name
    p.write_text("#!/bin/sh\n" + script)
    p.chmod(0o755)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding only the stand-in tools a test writes (plus sh's own tools)."""
    d = tmp_path / "bin"
    d.mkdir()
    monkeypatch.setenv("PATH", str(d))
    for t in ("cat", "tr", "printf", "echo"):
        for root in ("/bin", "/usr/bin"):
            if os.path.exists(f"{root}/{t}"):
                (d / t).symlink_to(f"{root}/{t}")
                break
    return d


def refused(match: str, fn: object, *args: object) -> None:
    with pytest.raises(KernelError, match=match) as info:
        fn(*args)  # type: ignore[operator]
    assert isinstance(info.value, LayoutError)


def test_ptx_text_is_used_as_is() -> None:
    assert load_ptx(PTX) == (PTX, "<ptx>")
    one_line = ".visible .entry k() { ret; }"
    assert load_ptx(one_line) == (one_line, "<ptx>")


def test_a_ptx_file_is_read_by_path_or_path_like(tmp_path: Path) -> None:
    f = tmp_path / "k.ptx"
    f.write_text(PTX)
    assert load_ptx(str(f)) == (PTX, str(f)) and load_ptx(f) == (PTX, str(f))


def test_missing_files_and_impossible_names_are_refused(tmp_path: Path) -> None:
    refused("no such file: .*nothere.ptx.*pass PTX text, a .ptx file or a .cu file", load_ptx, str(tmp_path / "nothere.ptx"))
    refused("no such file", load_ptx, "bad\x00name.ptx")
    refused("no such file", load_ptx, "x" * 5000)


def test_values_that_are_neither_text_nor_a_path_are_refused() -> None:
    refused("ptx must be PTX text or a path, got bytes", load_ptx, b".entry k")
    refused("ptx must be PTX text or a path, got int", load_ptx, 7)


def test_unreadable_files_are_refused_saying_why(tmp_path: Path) -> None:
    refused("is a folder, not a PTX file", load_ptx, str(tmp_path))
    bad = tmp_path / "bad.ptx"
    bad.write_bytes(b"\xff\xfe\x00bad")
    refused("is not a PTX text file \\(not UTF-8\\)", load_ptx, str(bad))
    refused("no such SASS file", read_text_file, tmp_path / "gone.sass", "SASS")
    refused("cannot read the SASS file .*: OSError", read_text_file, "y" * 5000, "SASS")
    ok = tmp_path / "ok.txt"
    ok.write_text("hi")
    assert read_text_file(str(ok), "X") == "hi"


def test_a_cu_file_needs_nvcc_on_the_path(tmp_path: Path, bin_dir: Path) -> None:
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k() {}\n")
    refused("k.cu is CUDA C\\+\\+ but nvcc is not on the PATH", load_ptx, str(cu))


def test_a_cu_file_is_compiled_with_lineinfo_for_the_arch_and_the_user_flags(tmp_path: Path, bin_dir: Path) -> None:
    # the stand-in nvcc writes its own arguments into the -o file: the PTX it "compiled"
    tool(bin_dir, "nvcc", 'for a; do last="$a"; done\nprintf "%s\\n" "$@" > "$last"\n')
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k() {}\n")
    text, name = load_ptx(str(cu), "sm_90a", ("-O3", "-DX=1"))
    args = text.split()
    assert name == str(cu)
    assert args[:4] == ["-ptx", "-lineinfo", "-arch=sm_90", "-std=c++17"] and args[4:7] == ["-O3", "-DX=1", str(cu)]
    assert args[7] == "-o"
    assert compile_cuda(cu, "sm_100f").split()[2] == "-arch=sm_100"


def test_nvcc_errors_are_reported_with_its_message(tmp_path: Path, bin_dir: Path) -> None:
    tool(bin_dir, "nvcc", 'echo "k.cu(1): error: expected a ;" >&2\nexit 1\n')
    cu = tmp_path / "k.cu"
    cu.write_text("oops\n")
    refused("nvcc failed on .*k.cu:\nk.cu\\(1\\): error: expected a ;", load_ptx, str(cu))


def test_a_long_nvcc_error_is_cut_to_its_first_2000_characters(tmp_path: Path, bin_dir: Path) -> None:
    tool(bin_dir, "nvcc", 'printf "%03000d" 0 | tr 0 e >&2\nprintf "TAIL" >&2\nexit 1\n')
    cu = tmp_path / "k.cu"
    cu.write_text("oops\n")
    with pytest.raises(KernelError) as info:
        load_ptx(str(cu))
    assert str(info.value).split("\n", 1)[1] == "e" * 2000


def test_triton_ptx_comes_from_asm_or_a_dict() -> None:
    class Compiled:
        asm = {"ptx": PTX, "ttir": "..."}

    assert from_triton(Compiled()) == PTX and from_triton({"ptx": PTX}) == PTX
    refused("expected a compiled Triton kernel \\(with .asm\\['ptx'\\]\\)", from_triton, {"ttir": "x"})
    refused("expected a compiled Triton kernel", from_triton, object())


def test_demangle_uses_cxxfilt_and_falls_back_to_the_names(bin_dir: Path) -> None:
    assert demangle(["_Zplain_a"]) == {"_Zplain_a": "_Zplain_a"}  # no c++filt on the PATH
    tool(bin_dir, "c++filt", "tr a-z A-Z\n")
    assert demangle(["_Zup_b", "_Zup_c"]) == {"_Zup_b": "_ZUP_B", "_Zup_c": "_ZUP_C"}
    assert demangle([]) == {}


def test_a_failing_or_miscounting_cxxfilt_is_not_trusted(bin_dir: Path) -> None:
    tool(bin_dir, "c++filt", "tr a-z A-Z\nexit 3\n")
    assert demangle(["_Zfail_d"]) == {"_Zfail_d": "_Zfail_d"}
    tool(bin_dir, "c++filt", "cat\necho\necho extra\n")
    assert demangle(["_Zcount_e"]) == {"_Zcount_e": "_Zcount_e"}


def test_the_only_kernel_is_chosen_without_a_name() -> None:
    module = parse_module(entries("only"))
    assert select_entry(module, None).name == "only"
    refused("no kernel matches 'other'; kernels: only", select_entry, module, "other")


def test_kernels_are_chosen_by_exact_name_or_a_unique_substring() -> None:
    module = parse_module(entries("gemm_tile", "gemm", "softmax"))
    assert select_entry(module, "gemm").name == "gemm"  # exact beats the substring of gemm_tile
    assert select_entry(module, "tile").name == "gemm_tile"
    assert select_entry(module, "max").name == "softmax"
    refused("the PTX has several kernels; choose one with --kernel NAME: gemm_tile; gemm; softmax", select_entry,
            module, None)
    refused("'gem' matches 2 kernels; give a longer substring: gemm_tile; gemm", select_entry, module, "gem")


def test_substrings_match_the_demangled_name_and_listings_show_it(bin_dir: Path) -> None:
    tool(bin_dir, "c++filt", "tr a-z A-Z\n")
    module = parse_module(entries("_Zxa_one", "_Zxa_two"))
    assert select_entry(module, "ONE").name == "_Zxa_one"
    refused(r"several kernels; choose one with --kernel NAME: _Zxa_one \(_ZXA_ONE\); _Zxa_two \(_ZXA_TWO\)",
            select_entry, module, None)


def test_listings_cut_a_demangled_name_to_100_characters(bin_dir: Path) -> None:
    tool(bin_dir, "c++filt", "tr a-z A-Z\n")
    long_a, long_b = "_Zl" + "a" * 150, "_Zl" + "b" * 150
    with pytest.raises(KernelError) as info:
        select_entry(parse_module(entries(long_a, long_b)), None)
    assert f"{long_a} (_ZL{'A' * 97}); {long_b} (_ZL{'B' * 97})" in str(info.value)


def test_a_module_without_a_defined_entry_is_refused() -> None:
    module = parse_module(PTX)
    module.entries["k"] = dataclasses.replace(module.entries["k"], defined=False)
    refused("the PTX has no .entry \\(kernel\\) with a body", select_entry, module, None)
    refused("the PTX has no .entry", select_entry, parse_module(".version 8.0\n.target sm_90\n.address_size 64\n"),
            "k")
