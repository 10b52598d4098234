"""Parse a PTX module (as nvcc, Triton and CuTe DSL emit it) into :mod:`.nodes`.

Module scope: ``.version``, ``.target`` (read into ``Module.isa``, :mod:`.target`), ``.address_size``, ``.file``,
variables of ``.global``/``.const``/``.shared`` (``.extern`` included), ``.entry`` and ``.func``
definitions and prototypes (their linkage and definition checked as ptxas checks them, :func:`_declare`);
``.section`` blocks (debug data) are skipped by the lexer.

Function bodies: ``.reg`` declarations (``%r<100>`` ranges, lists), ``.shared``/
``.local``/``.param`` variables, ``.loc`` (with ``inlined_at`` chains), ``.pragma``, ``.extern .func``
prototypes and ``label: .callprototype`` (checked, not traced),
labels, nested ``{ }`` scopes (nvcc's inline asm: registers and labels declared in
a scope are renamed ``name#k`` so they never clash), and instructions with guards
``@%p`` / ``@!%p``.  Anything else raises :class:`KernelError` naming the line.
"""

from __future__ import annotations

import re

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.lexer import Statement, split_statements
from layoutalg.kernel.ptx.nodes import (
    TYPE_BYTES,
    Addr,
    Function,
    Instruction,
    Loc,
    Module,
    Not,
    Operand,
    PredPair,
    Reg,
    Sym,
    Variable,
    Vec,
)
from layoutalg.kernel.ptx.operands import parse_int, parse_operand, split_top
from layoutalg.kernel.ptx.target import Target, parse_platform, parse_version

_SPACES = {".global", ".const", ".shared", ".local", ".param", ".tex"}
_LINKAGE = {".extern", ".visible", ".weak", ".common"}
_FUNCTION_LINKAGE = (".extern", ".visible", ".weak")
_PERF = {"maxntid", "reqntid", "minnctapersm", "maxnctapersm", "maxnreg", "reqnctapercluster", "explicitcluster",
         "maxclusterrank", "noreturn", "pragma", "blocksareclusters"}
_IGNORED_BODY_DIRECTIVES = {".pragma", ".alias"}
_SPECIAL = re.compile(r"^%(tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|gridid|clock|clock64|clock_hi|"
                      r"lanemask_(eq|lt|le|gt|ge)|pm\d+|pm\d+_64|envreg\d+|globaltimer|globaltimer_lo|globaltimer_hi|"
                      r"dynamic_smem_size|total_smem_size|aggr_smem_size|cluster_ctaid|cluster_nctaid|"
                      r"cluster_ctarank|cluster_nctarank|clusterid|nclusterid|is_explicit_cluster|"
                      r"current_graph_exec|reserved_smem_offset_\w+)(\.[xyz])?$")


def is_special_register(name: str) -> bool:
    return bool(_SPECIAL.match(name))


# ----------------------------------------------------------------------------- declarations
def parse_variable(text: str, line: int, default_space: str | None = None) -> list[Variable]:
    """A variable declaration: ``[.extern] .shared .align 16 .b8 smem[1024] [= {...}]`` (several names allowed)."""
    init: tuple[int, ...] | None = None
    if "=" in text:
        text, init_text = text.split("=", 1)
        init = _initializer(init_text, line)
    tokens = text.split()
    space = default_space
    type_ = None
    align = 0
    extern = False
    is_pointer = False
    names: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _SPACES:
            if not is_pointer:  # after ".ptr" a space is the one it points into (ISA: kernel params), not the variable's
                space = tok[1:]
        elif tok in _LINKAGE:
            extern = extern or tok == ".extern"
        elif tok == ".reg":  # a .func parameter or return value passed in a register (ISA "Function declarations")
            space = "reg"
        elif tok == ".align":
            i += 1
            value = parse_int(tokens[i]) if i < len(tokens) else None
            if value is None or value <= 0:
                raise KernelError(f".align needs a positive integer in {describe(text.strip())}", line)
            align = value
        elif tok == ".ptr":
            is_pointer = True
        elif tok.startswith(".") and tok[1:] in TYPE_BYTES:
            type_ = tok[1:]
        elif tok in (".v2", ".v4", ".v8"):
            raise KernelError(f"vector variables ({tok}) are not supported", line)
        elif tok.startswith("."):
            pass  # other attributes
        else:
            names.extend(n for n in " ".join(tokens[i:]).replace(",", " ").split() if n)
            break
        i += 1
    if space is None or type_ is None or not names:
        raise KernelError(f"cannot read declaration {describe(text.strip())}", line)
    out = []
    for raw in names:
        m = re.fullmatch(r"([A-Za-z_$%][\w$]*)(\[(\d*)\])?", raw)
        if not m:
            raise KernelError(f"cannot read declared name {describe(raw)}", line)
        count = 1 if m.group(2) is None else (int(m.group(3)) if m.group(3) else 0)
        if count == 0 and init is not None:
            count = len(init)
        out.append(Variable(m.group(1), space, type_, align or TYPE_BYTES[type_], count, extern, init, is_pointer, line))
    return out


def _initializer(text: str, line: int) -> tuple[int, ...]:
    flat = text.replace("{", " ").replace("}", " ")
    values = []
    for item in flat.split(","):
        item = item.strip()
        if not item:
            continue
        v = parse_int(item)
        if v is None:
            m = re.fullmatch(r"0[fF]([0-9a-fA-F]{8})|0[dD]([0-9a-fA-F]{16})", item)
            if not m:
                raise KernelError(f"initializer element {describe(item)} is not a constant the tracer reads", line)
            v = int(m.group(1) or m.group(2), 16)
        values.append(v)
    return tuple(values)


MAX_REGISTERS = 1 << 20
"""The most registers one function may declare (:func:`_register_names`, :func:`_body_statement`): far above
what compilers emit (nvcc and Triton declare at most some thousands of each type), and a bound on the
names a ``%r<N>`` range makes the parser build."""


def _register_names(text: str, line: int) -> tuple[str, list[str]]:
    """``.reg .b32 %r<100>`` -> ('b32', ['%r0', ..., '%r99']); lists and single names too.  A declaration of
    more than :data:`MAX_REGISTERS` registers is refused before any name is made."""
    tokens = text.split(None, 2)
    if len(tokens) < 3 or not tokens[1].startswith("."):
        raise KernelError(f"cannot read register declaration {describe(text)}", line)
    type_ = tokens[1][1:]
    rest = tokens[2]
    if type_ in ("v2", "v4"):
        raise KernelError("vector registers (.reg .v2/.v4) are not supported", line)
    if type_ not in TYPE_BYTES:
        raise KernelError(f"unknown register type .{type_}", line)
    names: list[str] = []
    for item in rest.split(","):
        item = item.strip()
        m = re.fullmatch(r"(?<![\w$])([A-Za-z_$%][\w$]*)<(\d+)>", item)  # lookbehind: linear under search too
        if m:
            count = int(m.group(2)) if len(m.group(2)) <= 12 else MAX_REGISTERS + 1
            if len(names) + count > MAX_REGISTERS:
                raise KernelError(f"register declaration {describe(item)} declares more than {MAX_REGISTERS} registers "
                                  f"(the most one function may declare)", line, ".reg")
            names.extend(f"{m.group(1)}{k}" for k in range(count))
        elif re.fullmatch(r"(?<![\w$])[A-Za-z_$%][\w$]*", item):
            names.append(item)
        else:
            raise KernelError(f"cannot read register name {describe(item)}", line)
    return type_, names


def _header(text: str, line: int) -> tuple[str, str, list[Variable], list[Variable], dict[str, tuple[int, ...]]]:
    """(kind, name, params, returns, directives) of ``.visible .entry name(...) .maxntid 128`` or a .func."""
    kind = "entry" if ".entry" in text.split("(")[0].split() else "func"
    after = text.split(".entry" if kind == "entry" else ".func", 1)[1].strip()
    returns: list[Variable] = []
    if kind == "func" and after.startswith("("):
        group, after = _paren_group(after, line)
        returns = _params(group, line)
    m = re.match(r"([A-Za-z_$][\w$]*)\s*", after)
    if not m:
        raise KernelError(f"cannot read the function name in {text[:80]!r}", line)
    name = m.group(1)
    after = after[m.end():]
    params: list[Variable] = []
    if after.startswith("("):
        group, after = _paren_group(after, line)
        params = _params(group, line)
    directives: dict[str, tuple[int, ...]] = {}
    for d in re.finditer(r"\.(\w+)\s*([-\d\s,]*)", after):
        key = d.group(1)
        if key not in _PERF:
            raise KernelError(f"unknown function directive .{key}", line)
        directives[key] = tuple(int(x) for x in d.group(2).replace(",", " ").split())
    return kind, name, params, returns, directives


def _paren_group(text: str, line: int) -> tuple[str, str]:
    depth = 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[1:i], text[i + 1:].strip()
    raise KernelError("unbalanced parentheses in a function header", line)


def _params(group: str, line: int) -> list[Variable]:
    out = []
    for item in split_top(group):
        if item:
            out.extend(parse_variable(item, line, default_space="param"))
    return out


# ----------------------------------------------------------------------------- module
class _Body:
    """State while reading one function body: scopes, renaming, the current .loc."""

    def __init__(self, fn: Function, module: Module) -> None:
        self.fn = fn
        self.module = module
        self.scopes: list[tuple[int, dict[str, str]]] = [(0, {})]
        self.next_scope = 1
        self.labels_by_scope: dict[tuple[int, str], str] = {}
        self.loc: Loc | None = None
        self.site: Loc | None = None
        self.chain_locs: list[tuple[int, int, int]] = []
        self.parent_of: dict[tuple[int, int, int], tuple[int, int, int] | None] = {}
        self.bare_names: list[set[str]] = [set()]
        self.labelled = False  # the statement before is a label
        for p in fn.params:
            self.scopes[0][1][p.name] = p.name

    @property
    def chain(self) -> tuple[int, ...]:
        return tuple(s for s, _ in reversed(self.scopes))

    def declare(self, name: str, register: bool = True) -> str:
        scope, names = self.scopes[-1]
        unique = name if scope == 0 else f"{name}#{scope}"
        names[name] = unique
        if register and not name.startswith("%"):
            self.bare_names[-1].add(name)
        return unique

    def resolve(self, name: str) -> str | None:
        for _, names in reversed(self.scopes):
            if name in names:
                return names[name]
        return None

    def known_registers(self) -> set[str]:
        """Declared names without '%' (inline-asm registers such as ``p``), visible here."""
        if len(self.bare_names) == 1:
            return self.bare_names[0]
        return set().union(*self.bare_names)


def _loc(body: _Body, text: str, line: int) -> None:
    """Track ``.loc`` chains: nvcc emits ``.loc F L C, function_name N, inlined_at F' L' C'`` where the
    ``inlined_at`` names an entry of the current chain (the call site); the chain is cut after it and the
    new location appended.  A ``.loc`` without ``inlined_at`` starts a new chain.  ``loc`` is the chain's
    innermost entry, ``site`` its outermost (the user's source line)."""
    m = re.match(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)(.*)$", text)
    if not m:
        raise KernelError(f"cannot read {describe(text)}", line)
    here = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    im = re.search(r"inlined_at\s+(\d+)\s+(\d+)\s+(\d+)", m.group(4))
    chain = body.chain_locs
    if im is None:
        chain = [here]
    else:
        parent = (int(im.group(1)), int(im.group(2)), int(im.group(3)))
        for k in range(len(chain) - 1, -1, -1):
            if chain[k] == parent:
                chain = chain[: k + 1] + [here]
                break
        else:  # not in the current chain: follow the call sites recorded for earlier .loc lines
            up, seen = [parent], {parent}  # to the outermost recorded caller, however deep; a cycle stops it
            while (nxt := body.parent_of.get(up[-1])) is not None and nxt not in seen:
                seen.add(nxt)
                up.append(nxt)
            chain = list(reversed(up)) + [here]
    body.parent_of[here] = None if im is None else chain[-2]
    body.chain_locs = chain
    files = body.module.files
    body.loc = Loc(files.get(here[0], f"file{here[0]}"), here[1])
    body.site = Loc(files.get(chain[0][0], f"file{chain[0][0]}"), chain[0][1])
    nested = re.findall(r"@\[\s*([^\s:@\[\]]+):(\d+)", m.group(4))
    if im is None and nested:  # Triton: "// standard.py:170:27 @[ standard.py:191:40 @[ tri.py:26:19 ] ]"
        name, ln = nested[-1]
        full = next((f for f in files.values() if f == name or f.endswith("/" + name)), name)
        body.site = Loc(full, int(ln))


def _instruction(body: _Body, text: str, line: int) -> Instruction:
    guard = None
    t = text
    if t.startswith("@"):
        m = re.match(r"@(!?)\s*([%\w$]+)\s+", t)
        if not m:
            raise KernelError(f"cannot read the guard of {describe(text)}", line)
        if (reg := body.resolve(m.group(2))) is None:  # ptxas refuses an undeclared guard, like any register
            raise KernelError(f"guard register {m.group(2)} is not declared", line)
        guard, t = (reg, bool(m.group(1))), t[m.end():]
    m = re.match(r"([A-Za-z_][\w.:]*)\s*(.*)$", t, re.S)
    if not m:
        raise KernelError(f"cannot read instruction {describe(text)}", line)
    opcode, rest = m.group(1), m.group(2).strip()
    known = body.known_registers()
    operands: tuple[Operand, ...] = ()
    if opcode.startswith("call"):
        operands = _call_operands(rest, line, known)
    elif rest:
        operands = tuple(parse_operand(x, line, known) for x in split_top(rest))
    operands = tuple(_rename(body, op, line, opcode) for op in operands)
    parts = tuple(p for p in opcode.split(".") if p)
    return Instruction(opcode, parts, operands, guard, line, body.loc, " ".join(text.split()), body.site)


def _call_operands(rest: str, line: int, known: set[str]) -> tuple[Operand, ...]:
    """``call.uni (ret), func, (a, b);`` -> (Vec(ret), Sym(func), Vec(args)); prototypes are dropped."""
    out: list[Operand] = []
    for item in split_top(rest):
        if item.startswith("(") and item.endswith(")"):
            inner = item[1:-1].strip()
            out.append(Vec(tuple(parse_operand(x, line, known) for x in split_top(inner)) if inner else ()))
        else:
            out.append(parse_operand(item, line, known))
    return tuple(out)


def _rename(body: _Body, op: Operand, line: int, opcode: str) -> Operand:
    if isinstance(op, Reg):
        if is_special_register(op.name):
            return op
        unique = body.resolve(op.name)
        if unique is None:
            raise KernelError(f"register {op.name} is not declared", line, opcode)
        return Reg(unique)
    if isinstance(op, Vec):
        return Vec(tuple(_rename(body, x, line, opcode) for x in op.items))
    if isinstance(op, Addr) and isinstance(op.base, Reg):
        base = _rename(body, op.base, line, opcode)
        assert isinstance(base, Reg)
        return Addr(base, op.offset)
    if isinstance(op, Addr) and isinstance(op.base, Sym):
        unique = body.resolve(op.base.name)
        if unique is not None and unique in body.fn.registers:
            return Addr(Reg(unique), op.offset)
        if unique is not None and unique != op.base.name:
            return Addr(Sym(unique, op.base.offset), op.offset)
        return op
    if isinstance(op, Not):
        inner = _rename(body, op.reg, line, opcode)
        assert isinstance(inner, Reg)
        return Not(inner)
    if isinstance(op, PredPair):
        a, b = _rename(body, op.first, line, opcode), _rename(body, op.second, line, opcode)
        assert isinstance(a, Reg) and isinstance(b, Reg)
        return PredPair(a, b)
    if isinstance(op, Sym):
        unique = body.resolve(op.name)
        if unique is not None and unique in body.fn.registers:  # only "name+k" gets here: bare names are Regs
            raise KernelError(f"register {op.name} cannot take an offset ({op.name}{op.offset:+d})", line, opcode)
        if unique is not None and unique != op.name:
            return Sym(unique, op.offset)
    return op


def _body_statement(body: _Body, st: Statement) -> None:
    text, line = st.text, st.line
    head = text.split(None, 1)[0]
    fn = body.fn
    if head == ".reg":
        type_, names = _register_names(text, line)
        if len(fn.registers) + len(names) > MAX_REGISTERS:
            raise KernelError(f"function {fn.name} declares more than {MAX_REGISTERS} registers (the most one "
                              "function may declare)", line, head)
        for n in names:
            fn.registers[body.declare(n)] = type_
    elif head == ".loc":
        _loc(body, text, line)
    elif ".func" in text.split("(")[0].split():
        _body_prototype(body, st, head)
    elif head == ".callprototype" or ".callprototype" in text.split("(")[0].split():
        _callprototype(body, text, line, head)
    elif head in _LINKAGE and any(s in text.split() for s in _SPACES):
        raise KernelError(f"{head} variable inside a function body: a variable with a linkage directive (.extern, "
                          ".visible, .weak, .common) is declared at module scope (ptxas: syntax error)", line, head)
    elif head in (".shared", ".local", ".param", ".global", ".const"):
        for v in parse_variable(text, line):
            unique = body.declare(v.name, register=False)
            fn.variables.append(Variable(unique, v.space, v.type, v.align, v.count, v.extern, v.initializer,
                                         v.is_pointer, line))
    elif head in _IGNORED_BODY_DIRECTIVES:
        pass
    elif head == ".file":
        _file(body.module, text, line)
    elif head.startswith("."):
        key = head[1:]
        if key in _PERF:
            fn.directives[key] = tuple(int(x) for x in text[len(head):].replace(",", " ").split() if x.isdigit())
        else:
            raise KernelError(f"unknown directive {head} in a function body", line, head)
    else:
        fn.body.append(_instruction(body, text, line))
        fn.scope_of.append(body.chain)


def _signature(fn: Function) -> tuple[object, ...]:
    """What every declaration of one function must agree on: its kind, the state space (``.param`` or
    ``.reg``), type, alignment and array size of each return value and parameter (not their names), and
    ``.noreturn`` (ptxas 13.0: "Inconsistent prototypes of 'f'", "Inconsistent redefinition of variable 'f'")."""
    def shape(vs: list[Variable]) -> tuple[tuple[str, str, int, int], ...]:
        return tuple((v.space, v.type, v.align, v.count) for v in vs)
    return fn.kind, shape(fn.returns), shape(fn.params), "noreturn" in fn.directives


def _function(st: Statement, defined: bool) -> Function:
    """The function a header (``defined``: a definition's) or a prototype declares, with its linkage."""
    kind, name, params, returns, directives = _header(st.text, st.line)
    return Function(name, kind, params, returns, st.line, directives=directives, defined=defined,
                    linkage=_linkage(st, kind))


def _linkage(st: Statement, kind: str) -> str:
    """``visible`` of ``.visible .func f ...``: nothing or one of ``.extern``, ``.visible``, ``.weak`` before
    ``.entry``/``.func`` (PTX ISA "Linkage Directives"; ptxas 13.0: anything else there, ``.common`` or a
    second linkage, is a syntax error near the word after the first one)."""
    words = st.text.split("(")[0].split()
    before = words[:words.index("." + kind)]
    for k, word in enumerate(before):
        if k > 0 or word not in _FUNCTION_LINKAGE:
            near = (before + ["." + kind])[k if word in _FUNCTION_LINKAGE else k + 1]
            raise KernelError(f"{' '.join(before)} .{kind}: a function takes one linkage directive at most, "
                              f".extern, .visible or .weak (ptxas: syntax error near {near})",
                              st.line_at(st.raw.find(near)), word)
    return before[0][1:] if before else ""


def _declared_at(st: Statement, kind: str) -> int:
    """The line ptxas 13.0 names for a declaration that conflicts with another of its name: where it has read
    the whole declaration, that is an ``.entry``'s parameter list's ``)`` (or, without one, the word after its
    name) and a ``.func``'s ``{`` or ``;`` (its ``.noreturn`` belongs to it)."""
    if kind == "func":
        return st.line_at(len(st.raw))
    m = re.search(r"\.entry\s+[^\s(]+\s*", st.raw)
    if m is None:
        return st.line
    return st.line_at(st.raw.index(")", m.end()) if st.raw.startswith("(", m.end()) else m.end())


def _merged_linkage(earlier: str, later: str) -> str | None:
    """The linkage of a function declared ``earlier`` then ``later`` (None: ptxas 13.0 refuses the pair,
    "Inconsistent redefinition"): ``.extern`` agrees only with ``.extern`` (a function this module defines or
    declares as its own is no .extern one); otherwise a declaration without linkage takes the one before it,
    and ``.visible`` or ``.weak`` must repeat it."""
    if "extern" in (earlier, later):
        return earlier if earlier == later else None
    return earlier if later in ("", earlier) else None


def _declare(module: Module, fn: Function, st: Statement) -> None:
    """Record the declaration or definition ``fn`` (read from ``st``), refusing, as ptxas 13.0 does and at the
    line it names (:func:`_declared_at`): an ``.entry`` parameter outside ``.param``; any declaration after
    the name's definition ("Duplicate definition"); one whose signature (:func:`_signature`) or linkage
    (:func:`_merged_linkage`) disagrees with the declarations before it.  A prototype never defined is
    refused at the end of the module (:func:`_check_definitions`)."""
    at, head = _declared_at(st, fn.kind), st.text.split(None, 1)[0]
    if fn.kind == "entry" and (bad := [p.name for p in fn.params if p.space != "param"]):
        raise KernelError(f"entry parameter {bad[0]} must be in the .param state space", at, head)
    earlier = module.entries.get(fn.name) or module.functions.get(fn.name)
    if earlier is not None:
        if earlier.defined:
            raise KernelError(f"{fn.name} is defined in this module (line {earlier.line}): no declaration of it "
                              "may follow its definition (ptxas: duplicate definition)", at, head)
        if _signature(earlier) != _signature(fn):
            raise KernelError(f"{fn.kind} {fn.name} is declared with other parameters, return values or .noreturn "
                              f"than at line {earlier.line} (ptxas: inconsistent prototypes)", at, head)
        if _merged_linkage(earlier.linkage, fn.linkage) is None:
            raise KernelError(f"{fn.name} is declared {_linkage_name(fn.linkage)} here and "
                              f"{_linkage_name(earlier.linkage)} at line {earlier.line} (ptxas: inconsistent "
                              "redefinition)", at, head)
        fn.linkage = earlier.linkage if fn.linkage == "" else fn.linkage
    if fn.defined or earlier is None:
        (module.entries if fn.kind == "entry" else module.functions)[fn.name] = fn


def _linkage_name(linkage: str) -> str:
    return f".{linkage}" if linkage else "without linkage"


def _check_definitions(module: Module) -> None:
    """Refuse a function declared without ``.extern`` that the module never defines (ptxas 13.0: "Unresolved
    extern function", whether it is called or not), naming its first declaration."""
    for fn in [*module.entries.values(), *module.functions.values()]:
        if not fn.defined and fn.linkage != "extern":
            raise KernelError(f"{fn.kind} {fn.name} is declared {_linkage_name(fn.linkage)} but never defined in "
                              "this module: a function defined elsewhere is declared .extern (ptxas: unresolved "
                              "extern function)", fn.line, f".{fn.kind}")


def _body_prototype(body: _Body, st: Statement, head: str) -> None:
    """A function declaration inside a body: ``.extern .func [(returns)] name [(params)] [.noreturn]``, the
    prototype of a function defined elsewhere, which ptxas 13.0 takes as at module scope (calls are not
    traced, so it is only checked and recorded, :func:`_declare`).  ptxas refuses the other forms: without
    ``.extern`` (or with ``.visible``/``.weak``) a body would declare a function of this module it cannot
    define ("Unresolved extern function"), ``.common`` and ``.entry`` are syntax errors, and a prototype takes
    no directive but ``.noreturn``."""
    text, line = st.text, st.line
    if text.split()[:2] != [".extern", ".func"]:
        raise KernelError("a function declared inside a function body must be an .extern .func prototype "
                          f"(ptxas refuses {head} here)", line, head)
    fn = _function(st, defined=False)
    if set(fn.directives) - {"noreturn"}:
        raise KernelError(f"a prototype takes no directive but .noreturn, not .{min(set(fn.directives) - {'noreturn'})}",
                          line, head)
    _declare(body.module, fn, st)


def _callprototype(body: _Body, text: str, line: int, head: str) -> None:
    """``label: .callprototype [(returns)] _ [(params)] [.noreturn]``, the prototype an indirect ``call``
    names (PTX ISA ".callprototype"): ptxas 13.0 refuses it without its label, with a name other than ``_``,
    behind a linkage directive, or with another directive.  Indirect calls are not traced: it is only checked."""
    if head != ".callprototype":
        raise KernelError(f".callprototype takes no {head} before it", line, head)
    if not body.labelled:
        raise KernelError(".callprototype must come right after its label (label: .callprototype ...)", line, head)
    _, name, _, _, directives = _header(".func" + text[len(head):], line)
    if name != "_" or set(directives) - {"noreturn"}:
        raise KernelError(f"a .callprototype is named _ and takes no directive but .noreturn (got {name}"
                          f"{''.join(' .' + d for d in directives)})", line, head)


def _file(module: Module, text: str, line: int) -> None:
    m = re.match(r'\.file\s+(\d+)\s+"([^"]*)"', text)
    if not m:
        raise KernelError(f"cannot read {describe(text)}", line)
    module.files[int(m.group(1))] = m.group(2)


def _read_body(module: Module, fn: Function, statements: list[Statement], start: int) -> int:
    """Read the body that opened just before ``statements[start]``; returns the index after its '}'."""
    body = _Body(fn, module)
    labels_at: list[tuple[tuple[int, str], int]] = []
    i = start
    while i < len(statements):
        st = statements[i]
        if st.kind == "close":
            if len(body.scopes) == 1:
                _resolve_labels(fn, labels_at)
                return i + 1
            body.scopes.pop()
            body.bare_names.pop()
        elif st.kind == "open":
            if st.text:
                raise KernelError(f"unexpected block {st.text[:60]!r} inside function {fn.name}", st.line)
            body.scopes.append((body.next_scope, {}))
            body.bare_names.append(set())
            body.next_scope += 1
        elif st.kind == "label":
            scope = body.scopes[-1][0]
            labels_at.append(((scope, st.text), len(fn.body)))
        else:
            _body_statement(body, st)
        body.labelled = st.kind == "label"
        i += 1
    raise KernelError(f"function {fn.name} is not closed with '}}'", fn.line)


def _resolve_labels(fn: Function, labels_at: list[tuple[tuple[int, str], int]]) -> None:
    by_scope = {key: index for key, index in labels_at}
    for (scope, name), index in labels_at:
        fn.labels[name if scope == 0 else f"{name}#{scope}"] = index
    for k, ins in enumerate(fn.body):
        if ins.root not in ("bra", "brx", "call"):
            continue
        new_ops = []
        changed = False
        for op in ins.operands:
            if isinstance(op, Sym):
                for scope in fn.scope_of[k]:
                    if (scope, op.name) in by_scope:
                        qualified = op.name if scope == 0 else f"{op.name}#{scope}"
                        if qualified != op.name:
                            op = Sym(qualified, op.offset)
                            changed = True
                        break
            new_ops.append(op)
        if changed:
            fn.body[k] = Instruction(ins.opcode, ins.parts, tuple(new_ops), ins.guard, ins.line, ins.loc, ins.text,
                                     ins.site)


def parse_module(text: str) -> Module:
    """Parse a whole PTX file (see the module doc); raises :class:`KernelError` naming the line at fault."""
    if not isinstance(text, str):
        raise KernelError(f"PTX must be text, got {type(text).__name__}")
    statements = split_statements(text)
    module = Module()
    for st in statements:  # .file may come after the functions that use it
        if st.kind == "stmt" and st.text.startswith(".file"):
            _file(module, st.text, st.line)
    i = 0
    while i < len(statements):
        st = statements[i]
        text_ = st.text
        if st.kind == "open":
            if not text_:
                raise KernelError("a '{' block outside any function", st.line)
            fn = _function(st, defined=True)
            _declare(module, fn, st)
            i = _read_body(module, fn, statements, i + 1)
            if fn.linkage == "extern":  # ptxas 13.0 names the body's closing brace
                raise KernelError(f"{fn.kind} {fn.name} is .extern, declared as defined elsewhere, and has a body "
                                  "(ptxas: function definition conflicts with .extern declaration)",
                                  statements[i - 1].line, ".extern")
            continue
        if st.kind == "close":
            raise KernelError("unmatched '}'", st.line)
        if st.kind == "label":
            raise KernelError(f"label {text_} outside any function", st.line)
        head = text_.split(None, 1)[0]
        if head == ".version":
            module.version = text_.split()[1]
            module.isa = Target(module.isa.arch, module.isa.suffix, parse_version(text_, st.line))
        elif head == ".target":
            module.target = text_.split(None, 1)[1].strip()
            module.isa = Target(*parse_platform(text_, st.line), module.isa.version)
        elif head == ".address_size":
            module.address_size = int(text_.split()[1])
            if module.address_size != 64:
                raise KernelError(".address_size 32 is not supported (64-bit addresses only)", st.line, head)
        elif head == ".file":
            _file(module, text_, st.line)
        elif ".entry" in text_.split("(")[0].split() or ".func" in text_.split("(")[0].split():
            _declare(module, _function(st, defined=False), st)
        elif head in _SPACES or head in _LINKAGE:
            module.variables.extend(parse_variable(text_, st.line))
        elif head in (".pragma",):
            pass
        else:
            raise KernelError(f"unknown module-level statement {text_[:60]!r}", st.line, head)
        i += 1
    _check_definitions(module)
    return module
