"""Which later instructions may read a register's value, and which of its 32-bit words they read.

ptxas removes or narrows what nothing reads: an ``atom.add.u32`` of 1 whose result is unread becomes the merged
increment (:mod:`.asyncops`), and a shared load whose destination is partly unread loads only the words read, or
nothing (:mod:`.narrowing`).  Both decisions change what Nsight counts, so the tracer must make them as ptxas
does.  The analysis here is conservative in one direction only -- it may call a value read that ptxas finds
dead, never the reverse:

* only an instruction ptxas keeps reads (:meth:`Liveness.useful`: one with an effect, or one whose result a kept
  one reads; an ``add`` whose sum nothing reads is removed, and so reads nothing);
* scanning forward from the defining instruction through its basic block, a mention as a source (or a guard)
  is a read; an unguarded overwrite ends the value; a guarded one does not;
* past the block (a label, a branch, a return or a call), every other mention of the register in the function,
  except as the written operand, is a possible read (no path analysis).

Words read (:meth:`Liveness.words_read`) of a 64-bit register, per reading instruction (ptxas 13.0, recorded in
``tests/data/ptxas_load_narrowing.json``): an integer ``cvt`` to 32 bits or fewer reads its low word; ``shr`` by
an immediate of 32 or more its high word; ``mov.b64 {lo, hi}`` the halves whose register is read; anything else
both words.
"""

from __future__ import annotations

from collections.abc import Sequence

from layoutalg.kernel.ptx.nodes import Addr, Imm, Instruction, Not, PredPair, Reg, TensorAddr, Vec

NO_DESTINATION = frozenset({"st", "red", "bar", "barrier", "bra", "brx", "ret", "exit", "membar", "fence", "cp",
                            "prefetch", "prefetchu", "trap", "call", "stmatrix", "mbarrier", "wmma", "tensormap",
                            "griddepcontrol", "elect", "wgmma", "tcgen05"})
"""Roots whose first operand is not (only) a register they write: an address, a barrier, a target, or ``wgmma``'s
accumulators (read and written).  A mention there is a read."""

_ENDS_BLOCK = ("bra", "ret", "exit", "call", "brx")
PURE = frozenset({"abs", "activemask", "add", "and", "bfe", "bfi", "bfind", "bmsk", "brev", "clz", "cnot", "copysign",
                  "cos", "cvt", "cvta", "div", "dp2a", "dp4a", "ex2", "fma", "getctarank", "isspacep", "ld", "ldmatrix",
                  "ldu", "lg2", "lop3", "mad", "mad24", "mapa", "max", "min", "mov", "mul", "mul24", "neg", "not", "or",
                  "popc", "prmt", "rcp", "rem", "rsqrt", "sad", "selp", "set", "setp", "shf", "shl", "shr", "sin",
                  "slct", "sqrt", "sub", "szext", "tanh", "testp", "xor"})
"""Roots ptxas removes when nothing reads what they write (no other effect): arithmetic, moves, conversions and
non-volatile loads.  Not here, so always kept: stores, atomics, barriers, branches, calls, warp collectives
(``shfl``, ``vote``, ``match``, ``redux``), ``mma`` and anything writing the carry flag (``.cc``)."""
_NARROW_INTS = frozenset({"u8", "s8", "b8", "u16", "s16", "b16", "u32", "s32", "b32"})
_WIDE_INTS = frozenset({"u64", "s64", "b64"})


def register_names(operands: Sequence[object]) -> list[str]:
    """Every register an operand list names (vectors, addresses, tensor coordinates, predicate pairs, negations)."""
    out: list[str] = []
    stack = list(operands)
    while stack:
        x = stack.pop()
        if isinstance(x, Reg):
            out.append(x.name)
        elif isinstance(x, Vec):
            stack.extend(x.items)
        elif isinstance(x, Addr) and isinstance(x.base, Reg):
            out.append(x.base.name)
        elif isinstance(x, TensorAddr):
            stack.extend((x.base, x.coords))
        elif isinstance(x, PredPair):
            out.extend((x.first.name, x.second.name))
        elif isinstance(x, Not):
            out.append(x.reg.name)
    return out


def _writes(ins: Instruction) -> bool:
    return ins.root not in NO_DESTINATION and bool(ins.operands) and isinstance(ins.operands[0], (Reg, Vec))


def _written(ins: Instruction) -> list[str]:
    return register_names(ins.operands[:1]) if _writes(ins) else []


def _pure(ins: Instruction) -> bool:
    return (ins.root in PURE and _writes(ins) and "volatile" not in ins.parts and "cc" not in ins.parts)


def _read(ins: Instruction) -> list[str]:
    names = register_names(ins.operands[1:] if _writes(ins) else ins.operands)
    if ins.guard is not None:
        names.append(ins.guard[0])
    return names


class Liveness:
    """Reads of register values in one function body (``labels``: label -> index of the instruction it marks)."""

    def __init__(self, body: Sequence[Instruction], labels: dict[str, int]) -> None:
        self.body = body
        self._block_starts = frozenset(labels.values())
        self._readers_anywhere: dict[str, tuple[int, ...]] | None = None
        self._useful: frozenset[int] | None = None

    def result_read(self, index: int, name: str) -> bool:
        """Whether the value instruction ``index`` writes to register ``name`` may be read (module doc)."""
        return bool(self.readers(index, name))

    def readers(self, index: int, name: str) -> tuple[int, ...]:
        """Indices of the instructions that may read the value ``index`` writes to ``name`` (module doc): exact
        within the basic block, every reading mention in the function past it."""
        found: list[int] = []
        for j in range(index + 1, len(self.body)):
            if j in self._block_starts:
                break
            ins = self.body[j]
            if name in _read(ins) and j in self.useful():
                found.append(j)
            if _writes(ins) and name in _written(ins) and ins.guard is None:
                return tuple(found)
            if ins.root in _ENDS_BLOCK:
                break
        useful = self.useful()
        anywhere = [j for j in self._anywhere().get(name, ()) if j in useful]
        return tuple(sorted(set(found) | set(anywhere)))  # the defining instruction too: a loop may read it next

    def words_read(self, index: int, name: str) -> frozenset[int]:
        """The 32-bit words (0 low, 1 high) of the 64-bit value ``index`` writes to ``name`` that may be read."""
        words: set[int] = set()
        for j in self.readers(index, name):
            words |= self._words_one_reader(self.body[j], name, j)
            if len(words) == 2:
                break
        return frozenset(words)

    def _words_one_reader(self, ins: Instruction, name: str, index: int) -> set[int]:
        ops = ins.operands
        src = ops[1:] if _writes(ins) else ops
        only_source = len(src) >= 1 and src[0] == Reg(name) and name not in register_names(src[1:]) \
            and (ins.guard is None or ins.guard[0] != name)
        if not only_source:
            return {0, 1}
        parts = ins.parts
        if (ins.root == "cvt" and len(parts) >= 3 and parts[-2] in _NARROW_INTS and parts[-1] in _WIDE_INTS
                and "sat" not in parts):  # a saturating cvt compares the whole value
            return {0}
        if ins.root == "shr" and len(ops) == 3 and isinstance(ops[2], Imm) and ops[2].value >= 32:
            return {1}
        if ins.root == "mov" and isinstance(ops[0], Vec) and len(ops[0].items) == 2:
            halves = set()
            for word, item in enumerate(ops[0].items):
                if isinstance(item, Reg) and self.result_read(index, item.name):
                    halves.add(word)
            return halves
        return {0, 1}

    def useful(self) -> frozenset[int]:
        """Indices of the instructions ptxas keeps: every one with an effect besides its result (not :data:`PURE`,
        a volatile load, a carry-flag writer), and every pure one whose result a kept one may read: the definitions
        of each register a kept instruction reads that reach it -- the nearest one before it in its basic block
        (and those before a guarded one), or, where none is there, every definition of the register in the
        function (no path analysis), so a kept set never misses an instruction ptxas keeps."""
        if self._useful is None:
            writers: dict[str, list[int]] = {}
            kept: set[int] = set()
            work: list[int] = []
            for j, ins in enumerate(self.body):
                for name in _written(ins):
                    writers.setdefault(name, []).append(j)
                if not _pure(ins):
                    kept.add(j)
                    work.append(j)
            while work:
                j = work.pop()
                for name in set(_read(self.body[j])):
                    for d in self._reaching(j, name, writers):
                        if d not in kept and _pure(self.body[d]):
                            kept.add(d)
                            work.append(d)
            self._useful = frozenset(kept)
        return self._useful

    def _reaching(self, index: int, name: str, writers: dict[str, list[int]]) -> list[int]:
        """The definitions of ``name`` that may reach instruction ``index`` (see :meth:`useful`)."""
        found: list[int] = []
        j = index
        while j > 0 and j not in self._block_starts:
            j -= 1
            ins = self.body[j]
            if ins.root in _ENDS_BLOCK:
                break
            if name in _written(ins):
                found.append(j)
                if ins.guard is None:
                    return found
        return found + writers.get(name, [])

    def _anywhere(self) -> dict[str, tuple[int, ...]]:
        if self._readers_anywhere is None:
            where: dict[str, list[int]] = {}
            for j, ins in enumerate(self.body):
                for name_ in set(_read(ins)):
                    where.setdefault(name_, []).append(j)
            self._readers_anywhere = {k: tuple(v) for k, v in where.items()}
        return self._readers_anywhere
