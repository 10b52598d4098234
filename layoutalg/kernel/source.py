"""Where PTX comes from: text, a ``.ptx`` file, a CUDA C++ file (compiled with nvcc), a Triton kernel;
and which ``.entry`` of a module the user means.

``--kernel`` / ``kernel=`` takes the ``.entry`` name as written, or any substring of its
demangled name (``c++filt`` when on the PATH, else the mangled name itself) that matches
exactly one entry.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.nodes import Function, Module


def load_ptx(ptx: str | os.PathLike[str], arch: str = "sm_90", nvcc_flags: tuple[str, ...] = ()) -> tuple[str, str]:
    """(PTX text, a name for it) from PTX text, a ``.ptx`` path, or a ``.cu`` path (compiled)."""
    if isinstance(ptx, os.PathLike) or (isinstance(ptx, str) and "\n" not in ptx and ".entry" not in ptx):
        path = Path(ptx)
        try:
            found = path.is_file() or path.is_dir()
        except (OSError, ValueError):  # a name too long for the file system, or with a NUL byte
            found = False
        if not found:
            raise KernelError(f"no such file: {describe(str(path))} (pass PTX text, a .ptx file or a .cu file)")
        if path.suffix == ".cu":
            return compile_cuda(path, arch, nvcc_flags), str(path)
        return read_text_file(path, "PTX"), str(path)
    if not isinstance(ptx, str):
        raise KernelError(f"ptx must be PTX text or a path, got {type(ptx).__name__}")
    return ptx, "<ptx>"


def read_text_file(path: str | os.PathLike[str], what: str) -> str:
    """The text of the file at ``path``, or a KernelError saying why it cannot be read (missing, a folder,
    unreadable, not UTF-8 text)."""
    try:
        return Path(path).read_text()
    except FileNotFoundError:
        raise KernelError(f"no such {what} file: {describe(str(path))}") from None
    except IsADirectoryError:
        raise KernelError(f"{describe(str(path))} is a folder, not a {what} file") from None
    except UnicodeDecodeError:
        raise KernelError(f"{describe(str(path))} is not a {what} text file (not UTF-8)") from None
    except (OSError, ValueError) as exc:
        raise KernelError(f"cannot read the {what} file {describe(str(path))}: {exc.__class__.__name__}") from None


def compile_cuda(path: Path, arch: str = "sm_90", flags: tuple[str, ...] = ()) -> str:
    """``nvcc -ptx -lineinfo -arch=<arch>`` of a .cu file; needs nvcc on the PATH."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise KernelError(f"{path} is CUDA C++ but nvcc is not on the PATH; install the nvidia-cuda-nvcc wheel or "
                          "pass the PTX (nvcc -ptx -lineinfo)")
    cc = arch.replace("sm_", "").rstrip("af")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "k.ptx"
        cmd = [nvcc, "-ptx", "-lineinfo", f"-arch=sm_{cc}", "-std=c++17", *flags, str(path), "-o", str(out)]
        try:
            proc = subprocess.run(cmd, capture_output=True)
        except OSError as exc:
            raise KernelError(f"cannot run nvcc ({nvcc}) on {path}: {exc}") from None
        if proc.returncode != 0:  # its message in whatever encoding: bytes that are not UTF-8 show as U+FFFD
            raise KernelError(f"nvcc failed on {path}:\n{_text(proc.stderr).strip()[:2000]}")
        return read_text_file(out, "PTX")


def _text(output: bytes | str | None) -> str:
    """A subprocess's output as text: UTF-8, with bytes that are not shown as U+FFFD (no UnicodeDecodeError)."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    return bytes(output).decode("utf-8", errors="replace")


def from_triton(compiled: Any) -> str:
    """The PTX of a compiled Triton kernel (``compiled.asm['ptx']``), for :func:`layoutalg.kernel.trace`."""
    asm = getattr(compiled, "asm", None)
    if isinstance(asm, dict) and "ptx" in asm:
        return str(asm["ptx"])
    if isinstance(compiled, dict) and "ptx" in compiled:
        return str(compiled["ptx"])
    raise KernelError("expected a compiled Triton kernel (with .asm['ptx']); compile it for a CUDA target first, "
                      "e.g. triton.compile(src, target=GPUTarget('cuda', 80, 32))")


def demangle(names: list[str]) -> dict[str, str]:
    """Mangled -> demangled names (c++filt when available; otherwise each name maps to itself)."""
    return dict(_demangle(tuple(names)))


@lru_cache(maxsize=64)
def _demangle(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple(_run_cxxfilt(list(names)).items())


def _run_cxxfilt(names: list[str]) -> dict[str, str]:
    tool = shutil.which("c++filt")
    if tool is None or not names:
        return {n: n for n in names}
    proc = subprocess.run([tool], input="\n".join(names).encode("utf-8", errors="replace"), capture_output=True)
    lines = _text(proc.stdout).splitlines()
    if proc.returncode != 0 or len(lines) != len(names):
        return {n: n for n in names}
    return dict(zip(names, lines))


def select_entry(module: Module, kernel: str | None) -> Function:
    """The entry named ``kernel`` (exact name, or a substring of exactly one demangled/mangled name)."""
    if kernel is not None and not isinstance(kernel, str):
        raise KernelError(f"the kernel to trace is named by a string, got {describe(kernel)}")
    entries = {n: f for n, f in module.entries.items() if f.defined}
    if not entries:
        raise KernelError("the PTX has no .entry (kernel) with a body")
    if kernel is None:
        if len(entries) == 1:
            return next(iter(entries.values()))
        raise KernelError("the PTX has several kernels; choose one with --kernel NAME: " + _listing(entries))
    if kernel in entries:
        return entries[kernel]
    pretty = demangle(list(entries))
    hits = [n for n in entries if kernel in pretty[n] or kernel in n]
    if len(hits) == 1:
        return entries[hits[0]]
    if not hits:
        raise KernelError(f"no kernel matches {describe(kernel)}; kernels: " + _listing(entries))
    raise KernelError(f"{describe(kernel)} matches {len(hits)} kernels; give a longer substring: " +
                      _listing({h: entries[h] for h in hits}))


def _listing(entries: dict[str, Function]) -> str:
    pretty = demangle(list(entries))
    return "; ".join(f"{n} ({pretty[n][:100]})" if pretty[n] != n else n for n in entries)
