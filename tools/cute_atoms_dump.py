"""Dump every CuTe C++ atom's traits (through SM90, plus the SM100 b8 ldmatrix/stmatrix) as JSON.

The oracle for ``tests/test_atoms_cute_cpp.py``: CuTe C++ itself, compiled.  The script scans
CUTLASS's trait headers for ``struct MMA_Traits<...>`` / ``struct Copy_Traits<...>``
specialisations, writes one C++ file that instantiates each and prints its ``ThrID``,
``ALayout``/``BLayout``/``CLayout`` (MMA) or ``SrcLayout``/``DstLayout``/``RefLayout`` (copy)
with ``cute::print``, compiles it with ``nvcc`` (host code only, no GPU needed) and writes

    {"source": {...}, "atoms": {name: {"kind", "header", "line", ...layouts as CuTe prints them}},
     "not_dumped": {name: reason}}

Usage (CUTLASS from ``pip install nvidia-cutlass==4.2.0.0``, the ``test`` extra)::

    python tools/cute_atoms_dump.py --out tests/data/cute_atoms.json [--include DIR] [--nvcc nvcc]
    python tools/cute_atoms_dump.py --out tests/data/cute_atoms.json --reuse tests/data/cute_atoms.json  # re-merge only

Atoms added to CUTLASS after 4.2 are merged from ``NEWER`` below, transcribed from the newer
header (path, commit and line recorded with each).

Template atoms are instantiated the way kernels spell them: GMMA f16/bf16 with
``<GMMA::Major::K, GMMA::Major::K>`` (the TV layouts do not depend on the majors), the
tf32/fp8 GMMA with ``<>``; ``UniversalCopy``/``cp.async`` for each unsigned width CuTe's
arch code accepts.  TMA and bulk-copy traits are parameterised by the copy box
(``NumBitsPerTMA``) and listed under ``not_dumped``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HEADERS = [
    "cute/atom/mma_traits.hpp", "cute/atom/mma_traits_sm61.hpp", "cute/atom/mma_traits_sm70.hpp",
    "cute/atom/mma_traits_sm75.hpp", "cute/atom/mma_traits_sm80.hpp", "cute/atom/mma_traits_sm89.hpp",
    "cute/atom/mma_traits_sm90.hpp", "cute/atom/mma_traits_sm90_gmma.hpp", "cute/atom/mma_traits_sm90_gmma_ext.hpp",
    "cute/atom/mma_traits_sm90_gmma_sparse.hpp", "cute/atom/mma_traits_sm90_gmma_sparse_ext.hpp",
    "cute/atom/copy_traits.hpp", "cute/atom/copy_traits_sm50.hpp", "cute/atom/copy_traits_sm75.hpp",
    "cute/atom/copy_traits_sm80.hpp", "cute/atom/copy_traits_sm90.hpp", "cute/atom/copy_traits_sm90_tma.hpp",
    "cute/atom/copy_traits_sm90_im2col.hpp", "cute/atom/copy_traits_sm100.hpp",
]
#: Atoms CUTLASS defines after 4.2 (github.com/NVIDIA/cutlass at the commit given), traits transcribed verbatim.
NEWER = {
    "SM75_16x8x8_F16F16F16F16_TN": {
        "kind": "mma", "header": "include/cute/atom/mma_traits_sm75.hpp", "line": 62,
        "commit": "70fcf17d5fd963d142fffd54e2525e2b84e72637", "shape_mnk": "(_16,_8,_8)", "thr_id": "_32:_1",
        "a": "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", "b": "((_4,_8),_2):((_16,_1),_8)",
        "c": "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", "types": ["f16", "f16", "f16", "f16"],
    },
}
_SPEC = re.compile(r"struct\s+(MMA|Copy)_Traits<\s*([A-Za-z0-9_:]+)\s*(<[^>]*>)?\s*(,[^>{]*)?>")
_UINTS = ["uint8_t", "uint16_t", "uint32_t", "uint64_t", "uint128_t"]


def default_include() -> Path:
    import cutlass_library  # type: ignore[import-not-found]

    return Path(cutlass_library.__file__).parent / "source" / "include"


def scan(include: Path) -> list[tuple[str, str, int, str, str, str]]:
    """(kind, header, line, name, template args or '', extra args or '') of every specialisation."""
    out = []
    for header in HEADERS:
        text = (include / header).read_text().splitlines()
        for lineno, line in enumerate(text, 1):
            m = _SPEC.search(line)
            if m:
                out.append((m.group(1), "include/" + header, lineno, m.group(2), m.group(3) or "", m.group(4) or ""))
    return out


def instances(spec: tuple[str, str, int, str, str, str]) -> list[tuple[str, str] | tuple[str, None, str]]:
    """[(atom name, C++ traits type)] to dump, or [(name, None, reason)] for atoms left out."""
    kind, header, line, name, targs, extra = spec
    if kind == "MMA":
        if "SPARSE" in name:
            return [(name, None, "sparse GMMA: a fourth (metadata E) operand, not modelled")]
        if name == "UniversalFMA":
            return [("UniversalFMA", "MMA_Traits<UniversalFMA<float,float,float,float>>")]
        if "tnspA" in targs:
            return [(name, f"MMA_Traits<{name}<GMMA::Major::K, GMMA::Major::K>>")]
        if "scaleA" in targs:
            return [(name, f"MMA_Traits<{name}<>>")]
        return [(name, f"MMA_Traits<{name}>")]
    if extra or "NumBitsPerTMA" in targs or "::" in name or name in ("SM90_BULK_COPY_AUTO",):
        return [(name, None, "TMA / bulk copy: a one-thread vector of NumBitsPerTMA bits whose meaning is the "
                             "TMA descriptor's box, not a TV layout")]
    if name in ("UniversalCopy",):
        return [(f"UniversalCopy<{u}>", f"Copy_Traits<UniversalCopy<{u}>>") for u in _UINTS]
    if name.startswith("SM80_CP_ASYNC"):
        widths = ["uint128_t"] if "CACHEGLOBAL" in name else ["uint32_t", "uint64_t", "uint128_t"]
        return [(f"{name}<{u}>", f"Copy_Traits<{name}<{u}>>") for u in widths]
    if name == "AutoVectorizingCopyWithAssumedAlignment":
        return [(f"{name}<{b}>", f"Copy_Traits<{name}<{b}>>") for b in (8, 16, 32, 64, 128)]
    if name.startswith("SM100_TMEM") or name.startswith("SM100_UTCCP"):
        return [(name, None, "SM100 tensor-memory copy: addresses TMEM (lane, column), not shared memory")]
    if targs:
        return [(name, None, f"templated on {targs}")]
    return [(name, f"Copy_Traits<{name}>")]


_PRELUDE = r"""
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED 1  // the N values outside {8,16,32,64,96,128,192,256}
#include <cstdio>
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm61.hpp>
#include <cute/atom/mma_traits_sm70.hpp>
#include <cute/atom/mma_traits_sm75.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm89.hpp>
#include <cute/atom/mma_traits_sm90.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/copy_traits_sm50.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm90.hpp>
#include <cute/atom/copy_traits_sm100.hpp>
using namespace cute;

template <class T> const char* tname() {
  if constexpr (is_same_v<T, half_t>) return "f16";
  else if constexpr (is_same_v<T, bfloat16_t>) return "bf16";
  else if constexpr (is_same_v<T, tfloat32_t>) return "tf32";
  else if constexpr (is_same_v<T, float>) return "f32";
  else if constexpr (is_same_v<T, double>) return "f64";
  else if constexpr (is_same_v<T, complex<double>>) return "c64";
  else if constexpr (is_same_v<T, int32_t>) return "s32";
  else if constexpr (is_same_v<T, int16_t>) return "s16";
  else if constexpr (is_same_v<T, int8_t>) return "s8";
  else if constexpr (is_same_v<T, uint8_t>) return "u8";
  else if constexpr (is_same_v<T, int4b_t>) return "s4";
  else if constexpr (is_same_v<T, uint4b_t>) return "u4";
  else if constexpr (is_same_v<T, uint1b_t>) return "b1";
  else if constexpr (is_same_v<T, float_e4m3_t>) return "e4m3";
  else if constexpr (is_same_v<T, float_e5m2_t>) return "e5m2";
  else return "other";
}

static bool first = true;
static void sep() { printf(first ? "\n" : ",\n"); first = false; }

template <class L> void pl(const char* key, L const& l) { printf("\"%s\": \"", key); print(l); printf("\""); }

template <class T> void mma(const char* name, const char* header, int line) {
  sep();
  printf("\"%s\": {\"kind\": \"mma\", \"header\": \"%s\", \"line\": %d, ", name, header, line);
  pl("shape_mnk", typename T::Shape_MNK{}); printf(", ");
  pl("thr_id", typename T::ThrID{}); printf(", ");
  pl("a", typename T::ALayout{}); printf(", ");
  pl("b", typename T::BLayout{}); printf(", ");
  pl("c", typename T::CLayout{}); printf(", ");
  printf("\"types\": [\"%s\", \"%s\", \"%s\", \"%s\"]}", tname<typename T::ValTypeD>(), tname<typename T::ValTypeA>(),
         tname<typename T::ValTypeB>(), tname<typename T::ValTypeC>());
}

template <class T> void cpy(const char* name, const char* header, int line) {
  sep();
  printf("\"%s\": {\"kind\": \"copy\", \"header\": \"%s\", \"line\": %d, ", name, header, line);
  pl("thr_id", typename T::ThrID{}); printf(", ");
  pl("src", typename T::SrcLayout{}); printf(", ");
  pl("dst", typename T::DstLayout{}); printf(", ");
  pl("ref", typename T::RefLayout{}); printf("}");
}
"""


def write_source(specs: list, path: Path) -> dict[str, str]:
    calls, skipped = [], {}
    seen = set()
    for spec in specs:
        kind, header, line = spec[0], spec[1], spec[2]
        for inst in instances(spec):
            if inst[1] is None:
                skipped[inst[0]] = inst[2]  # type: ignore[misc]
                continue
            name, traits = inst[0], inst[1]
            if name in seen:
                continue
            seen.add(name)
            fn = "mma" if kind == "MMA" else "cpy"
            calls.append(f'  {fn}<{traits}>("{name}", "{header}", {line});')
    body = "\n".join(calls)
    path.write_text(_PRELUDE + 'int main() {\n  printf("{");\n' + body + '\n  printf("\\n}\\n");\n}\n')
    return skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--include", default=None, help="CUTLASS include/ directory (default: the pip cutlass_library copy)")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--reuse", default=None, help="take the compiled dump from this JSON instead of compiling")
    args = ap.parse_args(argv)
    if args.reuse:
        doc = json.loads(Path(args.reuse).read_text())
        doc["atoms"] = {k: v for k, v in doc["atoms"].items() if "commit" not in v} | NEWER
        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
        return 0
    include = Path(args.include) if args.include else default_include()
    version = re.findall(r"#define CUTLASS_(MAJOR|MINOR|PATCH) (\d+)", (include / "cutlass/version.h").read_text())
    specs = scan(include)
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "dump.cu", Path(tmp) / "dump"
        skipped = write_source(specs, src)
        subprocess.run([args.nvcc, "-std=c++17", "-O0", f"-I{include}", str(src), "-o", str(exe)], check=True)
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    atoms = json.loads(out)
    nvcc = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    doc = {
        "source": {"cutlass": ".".join(v for _, v in version), "compiler": nvcc,
                   "how": "tools/cute_atoms_dump.py: cute::print of each MMA_Traits/Copy_Traits specialisation"},
        "atoms": atoms | NEWER,
        "not_dumped": dict(sorted(skipped.items())),
    }
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(atoms)} atoms dumped, {len(skipped)} left out -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
