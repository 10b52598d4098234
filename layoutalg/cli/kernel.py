"""``layoutalg kernel FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--arg NAME=VALUE ...]``.

Traces one launch and prints the per-instruction report (or ``--json``).  Exit status: 0 when
every shared-memory instruction was modelled and nothing was data-dependent, 3 otherwise, 2 on
bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

from layoutalg.cli.common import EXIT_OK, UsageError, emit_json
from layoutalg.core.validate import describe
from layoutalg.errors import KernelError

EXIT_INCOMPLETE = 3


def _dims(text: str, option: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(x) for x in text.replace("x", ",").split(",") if x.strip())
    except ValueError:
        dims = ()
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise UsageError(f"{option} {describe(text)} is not 1 to 3 positive integers", f"e.g. {option} 128 or {option} 32,8")
    return dims


def _ctas(text: str) -> list[tuple[int, ...]]:
    out = []
    for item in text.split(";"):
        try:
            out.append(tuple(int(x) for x in item.replace(" ", "").split(",") if x))
        except ValueError:
            raise UsageError(f"--ctas {describe(text)}: cannot read {describe(item)}", "e.g. --ctas '0,0;1,0' (x,y[,z] per CTA, "
                             "separated by ';')") from None
    return out


def _args(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--arg {describe(item)} is not NAME=VALUE", "e.g. --arg 2=4096 --arg C=buf --arg 0=128,128,64")
        name, value = item.split("=", 1)
        if name.strip() in out:
            raise UsageError(f"--arg {describe(name.strip())} is given twice", "give each parameter once: --arg NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def _cmd_kernel(args: argparse.Namespace) -> int:
    from layoutalg.kernel import trace

    if args.check_mma:
        from layoutalg.cli.kernel_mma import parse_check_mma

        parse_check_mma(args.check_mma)
    from layoutalg.cli.banks import arch_option

    arch = arch_option(args.arch).name
    try:
        result = trace(args.file, kernel=args.kernel, grid=_dims(args.grid, "--grid"),
                       block=_dims(args.block, "--block"), args=_args(args.arg), dynamic_smem=args.dynamic_smem,
                       arch=arch, ctas=_ctas(args.ctas) if args.ctas else None,
                       step_budget=args.step_budget, sass=args.sass)
    except KernelError as exc:
        raise UsageError(_cli_words(str(exc)), _hint(exc)) from exc
    if args.check_mma:
        from layoutalg.cli import kernel_mma

        check, layouts = kernel_mma.run_check(result, args.check_mma, exact_fragments=args.exact_fragments)
        if args.json:
            emit_json({**result.as_dict(), "mma_check": kernel_mma.as_dict(check, layouts)})
        else:
            import sys

            sys.stdout.write(result.report(top=args.top) + "\n" + kernel_mma.text(check, layouts) + "\n")
        return kernel_mma.exit_code(check.verdict)
    if args.json:
        emit_json(result.as_dict())
    else:
        import sys

        sys.stdout.write(result.report(top=args.top) + "\n")
    return EXIT_OK if result.complete else EXIT_INCOMPLETE


_OPTION_NAMES = (("step_budget", "--step-budget"), ("dynamic_smem", "--dynamic-smem"), ("ctas=[(0, 0), (1, 0)]", "--ctas '0,0;1,0'"),
                 ("grid.", "--grid "), ("block.", "--block "), ("grid must", "--grid must"),
                 ("block must", "--block must"))


def _cli_words(message: str) -> str:
    """The library's message with its Python parameter names replaced by this command's option names."""
    for python, option in _OPTION_NAMES:
        message = message.replace(python, option)
    return message


def _hint(exc: KernelError) -> str:
    text = str(exc)
    if "integer literal" in text:
        return "give --arg values as integers of at most 64 bits, e.g. --arg 2=4096 or --arg 2=0x1000"
    if "not given" in text or "parameter" in text:
        return "give every non-pointer parameter with --arg NAME=VALUE (NAME: PTX name or 0-based index)"
    if "kernel" in text and ("matches" in text or "several" in text):
        return "pick one with --kernel NAME (the .entry name or a unique substring of its demangled name)"
    if "whole-grid trace" in text:
        return "trace a few CTAs with --ctas, e.g. --ctas '0,0;1,0'"
    if "CUDA allows" in text:
        return "use --grid X,Y,Z with X < 2^31 and Y, Z <= 65535, and --block of at most 1024 threads (Z <= 64)"
    if "SASS file" in text:
        return "pass --sass FILE, a text file of cuobjdump -sass output of the same build"
    if "PTX file" in text or "no such file" in text:
        return ("give FILE as a .ptx file (nvcc -ptx -lineinfo), a .cu file (nvcc on the PATH) or PTX text, e.g. "
                "layoutalg kernel kernel.ptx --kernel NAME --block 128")
    if "step_budget must" in text:
        return "give --step-budget a positive number of instruction executions (default 2000000)"
    if "outside the grid" in text or "CTA index" in text:
        return "give --ctas as x,y[,z] triples inside --grid, separated by ';', e.g. --ctas '0,0;1,0'"
    if "step budget" in text:
        return "raise --step-budget if the loop is meant to run this long"
    if "shared memory" in text or "dynamic_smem" in text:
        return "check --dynamic-smem BYTES (the launch's dynamic shared memory) and --block"
    return "see layoutalg kernel --help"


def add_kernel_parser(sub: Any) -> None:
    """Register the ``kernel`` subcommand on the parser's subcommand group."""
    import argparse as _argparse

    kernel = sub.add_parser(
        "kernel", help="trace a kernel's PTX and count every shared-memory wavefront",
        description="Interpret one launch of a kernel's PTX (every CTA, or --ctas) and predict, per PTX "
                    "instruction, the shared-memory wavefronts Nsight Compute counts, with the whole-launch counters.",
        epilog="examples:\n"
               "  layoutalg kernel transpose.ptx --kernel transpose_naive --grid 2,2 --block 32,8 --arg 2=64\n"
               "  layoutalg kernel gemm.cu --kernel gemm_device --grid 4,4 --block 128 --arg 0=256,256,64 --json\n"
               "exit status 0 all modelled, 3 something unmodelled or data-dependent, 2 bad input;\n"
               "with --check-mma: 0 proved, 1 refuted, 3 unknown, 2 bad input",
        formatter_class=_argparse.RawDescriptionHelpFormatter,
    )
    kernel.add_argument("file", metavar="FILE", help="PTX (.ptx) or CUDA C++ (.cu, compiled with nvcc -ptx -lineinfo)")
    kernel.add_argument("--kernel", metavar="NAME", help="the .entry name, or a unique substring of its demangled name")
    kernel.add_argument("--grid", default="1", metavar="X[,Y,Z]", help="grid dimensions (default 1)")
    kernel.add_argument("--block", required=True, metavar="X[,Y,Z]", help="block dimensions")
    kernel.add_argument("--arg", action="append", metavar="NAME=VALUE",
                        help="a kernel argument: NAME is the PTX parameter name or its 0-based index; VALUE an "
                             "integer, buf (a symbolic global buffer), or a comma-separated list of 32-bit words "
                             "(elements may be buf or i64:N) filling an aggregate .b8 parameter")
    kernel.add_argument("--dynamic-smem", type=int, default=0, metavar="BYTES", help="dynamic shared memory per CTA")
    kernel.add_argument("--arch", default="sm_90", help="target architecture (default sm_90)")
    kernel.add_argument("--ctas", metavar="X,Y[,Z];...", help="trace only these CTAs (counters cover them only)")
    kernel.add_argument("--step-budget", type=int, default=2_000_000, metavar="N",
                        help="instruction executions allowed before a loop is reported as runaway")
    kernel.add_argument("--sass", metavar="FILE",
                        help="cuobjdump -sass output of the same build: kinds whose SASS shared-memory instructions "
                             "differ from the PTX ones (merged, split) are reported as unmodelled")
    kernel.add_argument("--top", type=int, default=None, metavar="N", help="report only the N worst instructions")
    kernel.add_argument("--check-mma", action="append", metavar="MATRIX=PARAM@LAYOUT",
                        help="prove the mma data flow for this launch: give A=, B= and C= (PARAM: the parameter "
                             "holding the matrix's base pointer, PTX name or 0-based index; LAYOUT: coordinate -> "
                             "element offset, A M x K, B K x N, C M x N); exit 0 proved, 1 refuted, 3 unknown")
    kernel.add_argument("--exact-fragments", action="store_true",
                        help="with --check-mma: hold A's and B's mma fragments to their PTX positions (a claim about "
                             "the fragments; by default an order of k other than the PTX one, the same in A and B, "
                             "passes, since C is still A B)")
    kernel.add_argument("--json", action="store_true", help="machine-readable output")
    kernel.set_defaults(run=_cmd_kernel)
