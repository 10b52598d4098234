"""How many operands each instruction takes, as data: the PTX ISA's operand lists (ISA 8.x/9.0), per opcode.

:data:`FORMS` maps a root opcode (``ld`` of ``ld.shared.v4.b32``) to its forms, each
``(modifiers, operand list)``; the first form whose modifiers all appear in the mnemonic, in their order
(``cvt``'s ``f16x2 f32``: the destination type first), applies (no modifiers: the default).  An operand
list is written as the ISA writes it: names separated by commas, an optional operand as ``{, name}``,
``...`` for any number more.  A vector (``{%r1, %r2}``), an address (``[a]``, ``[tmap, {x, y}]``) and a
predicate pair (``p|q``) are one operand each.

:func:`check_operand_count` refuses, with a :class:`KernelError` naming the line, an instruction with fewer
or more operands than its form takes.  The decoder applies it to every instruction it hands to a builder
(:func:`layoutalg.kernel.interp.program.build`): no instruction is traced with an operand ignored or
missing, and a builder that trips over a missing operand is reported as the wrong operand count it is.
"""

from __future__ import annotations

import re
from functools import cache

from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.nodes import Instruction
from layoutalg.kernel.ptx.operands import split_top

Form = tuple[tuple[str, ...], str]


def _forms(*forms: tuple[str, str]) -> tuple[Form, ...]:
    return tuple((tuple(m.split()), sig) for m, sig in forms)


def _same(sig: str, *roots: str) -> dict[str, tuple[Form, ...]]:
    return {r: _forms(("", sig)) for r in roots}


_HINT = "L2::cache_hint"
_COMBINED = ("and", "or", "xor")  # setp/set's predicate-combining forms take the predicate c

FORMS: dict[str, tuple[Form, ...]] = {
    # integer and float arithmetic, logic, bit manipulation
    **_same("d, a", "abs", "neg", "not", "cnot", "popc", "clz", "brev", "bfind", "rcp", "sqrt", "rsqrt", "ex2",
            "lg2", "sin", "cos", "tanh", "mov", "cvta", "isspacep", "getctarank", "istypep", "movmatrix"),
    **_same("d, a, b", "add", "sub", "addc", "subc", "mul", "mul24", "div", "rem", "and", "or", "xor", "shl", "shr",
            "copysign", "bmsk", "szext", "mapa"),
    **_same("d, a, b, c", "mad", "mad24", "sad", "fma", "shf", "bfe", "prmt", "dp4a", "dp2a", "selp", "slct"),
    "min": _forms(("", "d, a, b{, c}")),  # ISA 8.8: the three-input f32 / f16x2 forms
    "max": _forms(("", "d, a, b{, c}")),
    "bfi": _forms(("", "f, a, b, c, d")),
    "lop3": _forms(("", "d, a, b, c, immLut{, q}")),  # lop3.BoolOp.b32 d|p, a, b, c, immLut, q
    "testp": _forms(("", "p, a")),
    "setp": _forms(*((op, "p, a, b, c") for op in _COMBINED), ("", "p, a, b")),
    "set": _forms(*((op, "d, a, b, c") for op in _COMBINED), ("", "d, a, b")),
    # a pair packed from two f32 sources (cvt.rn.f16x2.f32 d, a, b); cvt.rs rounds with random bits
    "cvt": _forms(("rs", "d, a{, b}, rbits"), ("pack", "d, a, b, c"),
                  *((f"{pair} f32", "d, a, b") for pair in ("f16x2", "bf16x2", "e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2",
                                                            "e3m2x2", "ue8m0x2")),
                  ("", "d, a")),
    # memory
    # (the cache-policy operand comes with .L2::cache_hint only)
    "ld": _forms((_HINT, "d, [a]{, cache-policy}"), ("", "d, [a]")),
    "ldu": _forms(("", "d, [a]")),
    "st": _forms(("async", "[a], b, [mbar]"), ("bulk", "[a], size, initval"), (_HINT, "[a], b{, cache-policy}"),
                 ("", "[a], b")),
    "ldmatrix": _forms(("", "d, [a]")),
    "stmatrix": _forms(("", "[p], r")),
    "atom": _forms((f"cas {_HINT}", "d, [a], b, c{, cache-policy}"), ("cas", "d, [a], b, c"),
                   (_HINT, "d, [a], b{, cache-policy}"), ("", "d, [a], b")),
    "red": _forms(("async", "[a], b, [mbar]"), (_HINT, "[a], b{, cache-policy}"), ("", "[a], b")),
    "cp": _forms(("commit_group", ""), ("wait_all", ""), ("wait_group", "n"),
                 # bulk copies and reductions (TMA): a load into shared memory completes on an mbarrier
                 ("prefetch tensor", "[tensorMap, coords]{, im2colInfo}{, cache-policy}"),
                 ("prefetch", "[src], size{, cache-policy}"),
                 ("tensor mbarrier::complete_tx::bytes",
                  "[dst], [tensorMap, coords], [mbar]{, im2colInfo}{, ctaMask}{, cache-policy}"),
                 ("tensor", "[tensorMap, coords], [src]{, cache-policy}"),
                 ("bulk mbarrier::complete_tx::bytes", "[dst], [src], size, [mbar]{, ctaMask}{, cache-policy}"),
                 ("bulk", "[dst], [src], size{, byteMask}{, cache-policy}"),
                 ("mbarrier arrive", "[a]"),
                 ("", "[dst], [src], cp-size{, src-size}{, cache-policy}")),
    "mbarrier": _forms(("try_wait", "waitComplete, [a], state{, suspendTimeHint}"),
                       ("test_wait", "waitComplete, [a], state"),
                       ("arrive", "state, [a]{, count}"), ("arrive_drop", "state, [a]{, count}"),
                       ("inval", "[a]"), ("init", "[a], count"), ("expect_tx", "[a], txCount"),
                       ("complete_tx", "[a], txCount"), ("pending_count", "count, state"),
                       ("", "{, a}{, b}{, c}{, d}")),
    "prefetch": _forms(("", "[a]")),
    "prefetchu": _forms(("", "[a]")),
    "discard": _forms(("", "[a], size")),
    "applypriority": _forms(("", "[a], size")),
    "createpolicy": _forms(("", "cache-policy{, a}{, b}{, c}")),  # .fractional{, fraction}; .range 3 more; .cvt 1
    "tensormap": _forms(("replace", "[addr], a{, new_val}"), ("cp_fenceproxy", "[dst], [src], size"), ("", "...")),
    # warp-level
    "shfl": _forms(("sync", "d, a, b, c, membermask"), ("", "d, a, b, c")),  # d may be the pair d|p
    "vote": _forms(("sync", "d, a, membermask"), ("", "d, a")),
    "activemask": _forms(("", "d")),
    "elect": _forms(("", "d, membermask")),
    "match": _forms(("", "d, a, membermask")),
    "redux": _forms(("", "d, a, membermask")),
    # tensor cores
    "mma": _forms(("sp", "d, a, b, c, e, f"), ("sp::ordered_metadata", "d, a, b, c, e, f"),
                  ("block_scale", "d, a, b, c, scale-a, ids-a, scale-b, ids-b"), ("", "d, a, b, c")),
    "wmma": _forms(("load", "r, [p]{, stride}"), ("store", "[p], r{, stride}"), ("", "d, a, b, c")),
    "wgmma": _forms(("fence", ""), ("commit_group", ""), ("wait_group", "n"),
                    ("", "d, a, b, scale-d{, imm-scale-a}{, imm-scale-b}{, imm-trans-a}{, imm-trans-b}{, sp-meta}"
                         "{, sp-sel}")),
    "tcgen05": _forms(("fence::before_thread_sync", ""), ("fence::after_thread_sync", ""), ("wait::ld", ""),
                      ("wait::st", ""), ("relinquish_alloc_permit", ""), ("alloc", "[dst], nCols"),
                      ("dealloc", "taddr, nCols"), ("ld", "r, [taddr]{, immHalfSplitoff}"),
                      ("st", "[taddr]{, immHalfSplitoff}, r"), ("commit", "[mbar]{, ctaMask}"), ("shift", "[taddr]"),
                      ("cp", "[taddr], s-desc"), ("", "...")),  # tcgen05.mma: several operand lists
    # control flow and synchronisation
    "bra": _forms(("", "tgt")),
    "brx": _forms(("", "index, tlist")),
    "call": _forms(("", "func, ...")),  # call (ret), func, (params){, prototype}
    **_same("", "ret", "exit", "trap", "brkpt", "membar", "griddepcontrol"),
    "bar": _forms(("red", "d, a{, b}, c"), ("warp", "membermask"), ("arrive", "a, b"), ("", "a{, b}")),
    "barrier": _forms(("cluster", ""), ("red", "d, a{, b}, c"), ("arrive", "a, b"), ("", "a{, b}")),
    "fence": _forms(("tensormap::generic acquire", "[a], size"), ("", "")),
    "nanosleep": _forms(("", "t")),
    "setmaxnreg": _forms(("", "imm-reg-count")),
    "pmevent": _forms(("", "a")),
    # texture and surface instructions (results unknown)
    "tex": _forms(("", "d, [a]{, e}{, f}{, g}{, h}")),
    "tld4": _forms(("", "d, [a]{, e}{, f}")),
    "txq": _forms(("", "d, [a]{, lod}")),
    "suq": _forms(("", "d, [a]")),
    "suld": _forms(("", "d, [a]")),
    "sust": _forms(("", "[a], b")),
    "sured": _forms(("", "[a], b")),
}


@cache
def operand_range(signature: str) -> tuple[int, int | None]:
    """(fewest, most) operands of an operand list (``most`` None: no limit): ``d, [a]{, cache-policy}`` -> (2, 3)."""
    optional = re.findall(r"\{,\s*[^{}]*\}", signature)
    required = re.sub(r"\{,\s*[^{}]*\}", "", signature)
    names = [n for n in split_top(required) if n]
    unbounded = "..." in names
    fewest = len([n for n in names if n != "..."])
    return fewest, None if unbounded else fewest + len(optional)


def form_of(ins: Instruction) -> str | None:
    """The operand list of ``ins``'s form (None: an opcode the table does not list)."""
    forms = FORMS.get(ins.root)
    if forms is None:
        return None
    for modifiers, signature in forms:
        rest = iter(ins.parts[1:])
        if all(m in rest for m in modifiers):  # each in turn, after the one before
            return signature
    return None


def check_operand_count(ins: Instruction) -> None:
    """Refuse ``ins`` if it has fewer or more operands than its PTX ISA form (:data:`FORMS`)."""
    signature = form_of(ins)
    if signature is None:
        return
    fewest, most = operand_range(signature)
    n = len(ins.operands)
    if fewest <= n and (most is None or n <= most):
        return
    if most is None:
        want = f"at least {fewest}"
    elif most == fewest:
        want = str(fewest)
    else:
        want = f"{fewest} to {most}"
    form = f"{ins.root} {signature}".strip() if signature else f"{ins.root} (no operands)"
    missing = "" if n > fewest else f"; operand {n + 1} is missing"
    raise KernelError(f"takes {want} operand{'' if want == '1' else 's'} (PTX ISA: {form}), got {n}{missing}: "
                      f"{ins.text}", ins.line, ins.opcode)


__all__ = ["FORMS", "check_operand_count", "form_of", "operand_range"]
