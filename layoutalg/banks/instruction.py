"""Parse the PTX mnemonic of a warp-wide shared-memory instruction.

Accepted spellings (PTX ISA 8.x, sections "ld", "st", "ldmatrix", "stmatrix",
"cp.async"):

* ``ld.shared{::cta}{.volatile|.relaxed.cta|...}{.v2|.v4}.type`` and the same
  with ``st``; ``type`` one of ``b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16
  s32 s64 f32 f64``.  Only the access width (vector count x type size, 1 to 16
  bytes) matters to the bank model, so ``ld.shared.v2.b64`` and
  ``ld.shared.v4.b32`` are the same access.
* ``ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16`` and
  ``stmatrix`` likewise: matrix ``i`` takes its 8 row addresses (16 bytes each)
  from lanes ``8*i .. 8*i+7``.
  The short spelling ``ldmatrix.x4[.trans]`` (count and ``.trans`` only) means
  the same instruction: ``.m8n8 .b16`` is the only shape there is.
  As in PTX, ``.shared{::cta}`` may be left out (generic addressing), and so may
  ``.sync .aligned .m8n8 .b16`` (the only shape and type there is): the words are
  those :mod:`layoutalg.atoms.short_names` reads for ``prove-fragment``.
* ``cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B|128B|256B}``
  followed by the copy size as in PTX (``cp.async.ca.shared.global, 8``, or
  with the operands, ``cp.async.ca.shared.global [dst], [src], 8;``) or as a
  last word (``cp.async.ca.shared.global.8``); ``.cg`` is 16 bytes.
* CuTe's name of a copy atom of one of these instructions (``SM75_U16x8_LDSM_T``,
  ``SM90_U32x4_STSM_N``, ``SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>``,
  ``UniversalCopy<uint128_t>``): the instruction it issues.
* A PTX line as the compiler writes it: operands after the mnemonic
  (``ld.shared.v4.b32 {%r1, %r2, %r3, %r4}, [%r5];``) are ignored, except
  cp.async's copy size.
* ``atom.shared{::cta}{.sem}{.scope}.op.type`` and ``red`` likewise ("atom", "red"): the forms
  ptxas compiles to one ``ATOMS`` instruction (:data:`ATOMIC_FORMS`: 32-bit integer
  add/min/max/inc/dec/and/or/xor/exch/cas, 64-bit exch/cas).  ``red.shared.add.u32, 1`` (the
  added value as the operand after the comma, as ``atomicAdd(p, 1)`` with its result unused
  compiles) is the form ptxas turns into ``ATOMS.POPC.INC`` (the warp's increments of one word
  merged).  The other atomics (floating-point adds, 64-bit add/min/max/and/or/xor) become a
  compare-and-swap loop whose trip count depends on timing, and are refused.

Short forms, the same in Python and on the command line (:func:`expand_short_form`):
``ldmatrix.x4[.trans]`` / ``stmatrix.x2``; ``cp.async.cg``, ``cp.async.cg.16``, ``cp.async.ca.8``
(the size as the last word; ``.cg`` is always 16); ``ld.shared.v4`` (``.b32`` words), ``ld.b32``
(``.shared`` implied) and, given the element type, ``ld.shared`` / ``st.shared`` (one element).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from layoutalg.atoms.short_names import OPTIONAL_MATRIX_WORDS
from layoutalg.core.dtypes import dtype_bits
from layoutalg.core.validate import describe
from layoutalg.errors import InstructionError, LayoutError

#: The type suffixes of ld/st.shared (PTX ISA); their widths come from the one dtype table.
_LDST_TYPES = ("b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64", "b128")
_TYPE_BYTES = {name: dtype_bits(name) // 8 for name in _LDST_TYPES}
_LDST_QUALIFIERS = {"volatile", "relaxed", "weak", "acquire", "release", "cta", "sys", "gpu", "cluster"}
_MATRIX_COUNTS = {"x1": 1, "x2": 2, "x4": 4}
_CP_ASYNC_WORDS = {"ca", "cg", "global", "l2::cache_hint", "l2::64b", "l2::128b", "l2::256b"}
_CANONICAL_WIDTH = {1: "u8", 2: "u16", 4: "b32", 8: "b64", 16: "v4.b32"}


@dataclass(frozen=True)
class Instruction:
    """One parsed shared-memory instruction.

    ``kind`` is ``"ld"``, ``"st"``, ``"ldmatrix"``, ``"stmatrix"`` or
    ``"cp.async"``; ``access_bytes`` the bytes one lane moves per address (16
    for a matrix row); ``matrices`` the number of 8x8 matrices (0 for the
    others); ``cache`` ``"ca"``/``"cg"`` for cp.async.
    """

    text: str
    kind: str
    access_bytes: int
    matrices: int = 0
    transpose: bool = False
    cache: str = ""
    atomic: str = ""  # atom/red: the operation (add, cas, ...)
    atomic_type: str = ""  # atom/red: the type (u32, b64, ...)
    merged_increment: bool = False  # red.shared.add.u32 of 1: ATOMS.POPC.INC

    @property
    def is_atomic(self) -> bool:
        return self.kind in ("atom", "red")

    @property
    def is_store(self) -> bool:
        """True for instructions that write shared memory."""
        return self.kind in ("st", "stmatrix", "cp.async")

    @property
    def active_lanes(self) -> range:
        """The lanes whose address the instruction uses (PTX: ldmatrix .x1 uses lanes 0-7, .x2 0-15)."""
        if self.matrices:
            return range(8 * self.matrices)
        return range(32)

    @property
    def canonical(self) -> str:
        """One spelling per distinct access, e.g. ``ld.shared.v4.b32`` for ``ld.shared.v2.b64``."""
        if self.kind in ("ld", "st"):
            return f"{self.kind}.shared.{_CANONICAL_WIDTH[self.access_bytes]}"
        if self.kind in ("ldmatrix", "stmatrix"):
            trans = ".trans" if self.transpose else ""
            return f"{self.kind}.sync.aligned.m8n8.x{self.matrices}{trans}.shared.b16"
        if self.is_atomic:
            return f"{self.kind}.shared.{self.atomic}.{self.atomic_type}" + (", 1" if self.merged_increment else "")
        return f"cp.async.{self.cache}.shared.global, {self.access_bytes}"


def expand_short_form(text: str, element_bytes: int | None = None) -> str:
    """The PTX mnemonic a short spelling stands for (see the module docstring); other text comes back unchanged.

    ``element_bytes`` is the element width that ``ld.shared`` / ``st.shared`` without a type move (one element);
    without it those two spellings are refused, naming the fix.
    """
    if not isinstance(text, str):
        raise InstructionError(f"instruction must be a PTX mnemonic string, got {type(text).__name__}")
    text = _by_cute_name(text)
    if "," in text or _size_operand(text)[0] != text.strip().removesuffix(";").strip():
        return text.strip()  # a mnemonic with its operands: parse_instruction reads it
    words = [w for w in text.strip().removesuffix(";").lower().split(".") if w]
    if words[:2] == ["cp", "async"] and "shared" not in words and "shared::cta" not in words:
        cache = words[2] if len(words) > 2 else ""
        size_word = words[3] if len(words) > 3 else "16"
        if len(words) > 4 or not size_word.isdigit():
            raise _fail(text, "short form is cp.async.{ca,cg}[.SIZE], e.g. cp.async.cg or cp.async.ca.8")
        return f"cp.async.{cache}.shared.global" + (f", {size_word}" if cache != "cg" or size_word != "16" else "")
    if words and words[0] in ("ldmatrix", "stmatrix") and words[1:] and set(words[1:]) <= {*_MATRIX_COUNTS, "trans"}:
        count = [w for w in words[1:] if w in _MATRIX_COUNTS]
        trans = ".trans" if "trans" in words else ""
        return f"{words[0]}.sync.aligned.m8n8.{count[0] if len(count) == 1 else '.'.join(count)}{trans}.shared.b16"
    if words and words[0] in ("ld", "st"):
        if {"global", "local", "param", "const", "generic"} & set(words):
            return text.strip()  # another state space: parse_instruction says it is not shared memory
        if "shared" not in words and "shared::cta" not in words:
            words.insert(1, "shared")
        if words[-1] in ("v2", "v4", "v8"):
            words.append("b32")
        if words[-1] in ("shared", "shared::cta"):
            if element_bytes is None:
                raise _fail(text, f"{words[0]}.shared without a type moves one element: give the type "
                                  f"({words[0]}.shared.b32) or the element type")
            if element_bytes not in _CANONICAL_WIDTH:
                raise _fail(text, f"no single {element_bytes}-byte type; give the type, e.g. {words[0]}.shared.b32")
            words.extend(_CANONICAL_WIDTH[element_bytes].split("."))
        return ".".join(words)
    return text.strip()


_MNEMONICS = ("ld", "st", "ldmatrix", "stmatrix", "cp")


def _by_cute_name(text: str) -> str:
    """The PTX of the CuTe copy atom ``text`` names (``SM75_U16x8_LDSM_T``, ``UniversalCopy<uint128_t>``), or
    ``text`` itself when it starts with a PTX mnemonic or names no copy atom (its parse then says what is wrong)."""
    head = (text.strip().split(".", 1)[0].split(None, 1) or [""])[0].lower()
    if not head or head in _MNEMONICS or len(text) > MAX_MNEMONIC_CHARS:
        return text
    from layoutalg.atoms import catalog
    from layoutalg.atoms.copy import CopyAtom

    try:
        found = catalog.get(text.strip())
    except LayoutError:
        return text
    return found.ptx if isinstance(found, CopyAtom) else text


def _fail(text: str, why: str) -> InstructionError:
    return InstructionError(f"instruction {text!r}: {why}")


MAX_MNEMONIC_CHARS = 200
"""The longest instruction text read (the longest PTX mnemonic with every qualifier is under 100)."""


def parse_instruction(text: str) -> Instruction:
    """Parse ``text`` (a PTX mnemonic, see module doc) or raise InstructionError naming the bad part.

    Linear in the length of ``text``, which is refused above :data:`MAX_MNEMONIC_CHARS` characters.
    """
    if not isinstance(text, str):
        raise InstructionError(f"instruction must be a PTX mnemonic string, got {type(text).__name__}")
    if len(text) > MAX_MNEMONIC_CHARS:
        raise InstructionError(f"instruction text of {len(text)} characters: no PTX mnemonic is longer than "
                               f"{MAX_MNEMONIC_CHARS} (e.g. 'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16')")
    return _parse(text)


def _size_operand(raw: str) -> tuple[str, int | None]:
    """(the mnemonic, cp.async's copy size or None) of a PTX line: ``'cp.async.ca.shared.global, 8'`` and
    ``'cp.async.ca.shared.global [dst], [src], 8;'`` -> (``'cp.async.ca.shared.global'``, 8); other operands
    (registers, addresses) are dropped.  A bare operand that is no number leaves the text whole (its parse says
    what is wrong).

    String splits, not a regular expression: one pass, whatever the text.
    """
    text = raw.strip().removesuffix(";").strip()
    cut = min((i for i in (text.find(","), text.find(" "), text.find("\t")) if i >= 0), default=len(text))
    mnemonic, rest = text[:cut], text[cut:].strip()
    if rest.startswith(("[", "{", "%", "_")):  # the operands of a PTX line: cp.async [dst], [src], cp-size{, ...}
        operands = [o.strip() for o in rest.split(",")]
        if mnemonic.startswith("atom.") and operands[0] == "_":  # an atom whose result is dropped is a red
            mnemonic, operands = "red." + mnemonic[len("atom."):], operands[1:]
        if mnemonic.startswith("red.") and len(operands) == 2:  # red [a], b: the added value (1: merged, rule 6)
            size = operands[1]
        else:
            size = operands[2] if operands[0].startswith("[") and len(operands) > 2 else ""
        return mnemonic, int(size) if size.isascii() and size.isdigit() else None
    size = rest.removeprefix(",").strip()
    if not rest.startswith(",") or not (size.isascii() and size.isdigit()):
        return text, None
    return mnemonic, int(size)


@lru_cache(maxsize=256)
def _parse(text: str) -> Instruction:
    raw, size_suffix = _size_operand(expand_short_form(text))
    tokens = [t for t in raw.lower().split(".") if t]
    # 'shared::cta' splits fine; '.L2::128B' style hints are kept as tokens.
    if not tokens:
        raise _fail(text, "empty mnemonic")
    head = tokens[0]
    if head in ("ld", "st"):
        return _parse_ldst(text, head, tokens[1:], size_suffix)
    if head in ("ldmatrix", "stmatrix"):
        return _parse_matrix(text, head, tokens[1:], size_suffix)
    if head == "cp" and len(tokens) > 1 and tokens[1] == "async":
        return _parse_cp_async(text, tokens[2:], size_suffix)
    if head in ("atom", "red"):
        return _parse_atomic(text, head, tokens[1:], size_suffix)
    raise _fail(text, f"unknown mnemonic {describe(head)}; expected ld, st, ldmatrix, stmatrix, cp.async, atom or red"
                      + _did_you_mean(head))


#: SASS names (what Nsight Compute and cuobjdump show) and near-misses, to the PTX mnemonic to write instead.
_SASS_NAMES = {"ldsm": "ldmatrix", "stsm": "stmatrix", "lds": "ld.shared", "sts": "st.shared", "ldgsts": "cp.async",
               "cpasync": "cp.async", "cp_async": "cp.async", "ld_shared": "ld.shared", "st_shared": "st.shared",
               "atoms": "atom.shared", "atomic": "atom.shared"}


def _did_you_mean(head: str) -> str:
    """``; did you mean X?`` for a SASS name or a misspelt mnemonic, or nothing."""
    import difflib

    word = head.split("::")[0].split("<")[0].lower()
    guess = _SASS_NAMES.get(word) or next(iter(difflib.get_close_matches(
        word, ["ld", "st", "ldmatrix", "stmatrix", "cp.async", "atom", "red"], n=1, cutoff=0.6)), None)
    return f"; did you mean {guess}?" if guess else ""


def _take_shared(text: str, rest: list[str]) -> list[str]:
    if "shared" in rest:
        rest = [t for t in rest if t != "shared"]
    elif "shared::cta" in rest:
        rest = [t for t in rest if t != "shared::cta"]
    else:
        raise _fail(text, "not a shared-memory instruction (no .shared state space)")
    return rest


def _parse_ldst(text: str, head: str, rest: list[str], size_suffix: int | None) -> Instruction:
    if size_suffix is not None:
        raise _fail(text, f"{head}.shared takes no size operand")
    rest = _take_shared(text, rest)
    vec = 1
    types = [t for t in rest if t in _TYPE_BYTES]
    vecs = [t for t in rest if t in ("v2", "v4", "v8")]
    unknown = [t for t in rest if t not in _TYPE_BYTES and t not in ("v2", "v4", "v8") and t not in _LDST_QUALIFIERS]
    if unknown:
        raise _fail(text, f"unknown qualifier(s) {unknown}")
    if len(types) != 1:
        raise _fail(text, "needs exactly one type (.b32, .u16, .v4.b32, ...)")
    if len(vecs) > 1:
        raise _fail(text, "more than one vector qualifier")
    if vecs:
        vec = int(vecs[0][1:])
    width = vec * _TYPE_BYTES[types[0]]
    if width > 16:
        raise _fail(text, f"access of {width} bytes per lane; shared-memory ld/st move at most 16")
    return Instruction(text=text, kind=head, access_bytes=width)


def _parse_matrix(text: str, head: str, rest: list[str], size_suffix: int | None) -> Instruction:
    if size_suffix is not None:
        raise _fail(text, f"{head} takes no size operand")
    rest = [t for t in rest if t not in OPTIONAL_MATRIX_WORDS]  # PTX: .shared{::cta} optional; one shape, one type
    shapes = [t for t in rest if t[:1] == "m" and t[1:].replace("n", "", 1).isdigit()]
    if shapes:
        raise _fail(text, f"only the .m8n8 shape of {head} is modelled")
    types = [t for t in rest if t[:1] in "bsuf" and t[1:].isdigit()]
    if types:
        raise _fail(text, f"{head}.m8n8 needs type .b16")
    counts = [t for t in rest if t in _MATRIX_COUNTS]
    if len(counts) != 1:
        raise _fail(text, f"{head} needs exactly one of .x1, .x2, .x4")
    unknown = [t for t in rest if t not in ("trans", *_MATRIX_COUNTS)]
    if unknown:
        raise _fail(text, f"unknown qualifier(s) {unknown}")
    return Instruction(text=text, kind=head, access_bytes=16, matrices=_MATRIX_COUNTS[counts[0]],
                       transpose="trans" in rest)


def _parse_cp_async(text: str, rest: list[str], size_suffix: int | None) -> Instruction:
    if "bulk" in rest:
        raise _fail(text, "cp.async.bulk (TMA) is not a per-lane shared-memory access")
    rest = _take_shared(text, rest)
    if "global" not in rest:
        raise _fail(text, "cp.async must copy from .global")
    sizes = [int(t) for t in rest if t.isascii() and t.isdigit()]  # cp.async.ca.shared.global.8: the size as a word
    if len(sizes) > 1 or (sizes and size_suffix is not None and sizes[0] != size_suffix):
        raise _fail(text, "give the copy size once, e.g. 'cp.async.ca.shared.global, 8'")
    size_suffix = sizes[0] if sizes else size_suffix
    unknown = [t for t in rest if t not in _CP_ASYNC_WORDS and not (t.isascii() and t.isdigit())]
    if unknown:
        raise _fail(text, f"unknown qualifier(s) {unknown}")
    cache = [t for t in rest if t in ("ca", "cg")]
    if len(cache) != 1:
        raise _fail(text, "cp.async needs exactly one of .ca, .cg")
    if cache[0] == "cg":
        if size_suffix not in (None, 16):
            raise _fail(text, "cp.async.cg copies 16 bytes only")
        size = 16
    else:
        if size_suffix is None:
            raise _fail(text, "cp.async.ca needs its copy size, e.g. 'cp.async.ca.shared.global, 8'")
        if size_suffix not in (4, 8, 16):
            raise _fail(text, f"cp.async copy size {size_suffix}; must be 4, 8 or 16")
        size = size_suffix
    return Instruction(text=text, kind="cp.async", access_bytes=size, cache=cache[0])


#: (operation, type) -> bytes, for the shared-memory atomics ptxas compiles to one ATOMS instruction (checked with
#: ptxas 13.0 for sm_90: every other form is a compare-and-swap loop, ATOMS.CAST.SPIN).
ATOMIC_FORMS: dict[tuple[str, str], int] = {
    **{(op, t): 4 for op in ("add", "min", "max") for t in ("u32", "s32")},
    **{(op, "u32"): 4 for op in ("inc", "dec")},
    **{(op, t): 4 for op in ("and", "or", "xor", "exch", "cas") for t in ("b32", "u32", "s32")},
    **{(op, t): 8 for op in ("exch", "cas") for t in ("b64", "u64", "s64")},
}
_ATOMIC_OPS = {"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"}
_ATOMIC_TYPES = {"b16", "b32", "b64", "b128", "u32", "s32", "u64", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32",
                 "f64"}
_ATOMIC_QUALIFIERS = {"relaxed", "acquire", "release", "acq_rel", "cta", "gpu", "sys", "cluster", "noftz"}


def _parse_atomic(text: str, head: str, rest: list[str], size_suffix: int | None) -> Instruction:
    rest = _take_shared(text, rest)
    ops = [t for t in rest if t in _ATOMIC_OPS]
    types = [t for t in rest if t in _ATOMIC_TYPES]
    unknown = [t for t in rest if t not in _ATOMIC_OPS and t not in _ATOMIC_TYPES and t not in _ATOMIC_QUALIFIERS]
    if unknown:
        raise _fail(text, f"unknown qualifier(s) {unknown}")
    if len(ops) != 1 or len(types) != 1:
        raise _fail(text, f"{head} needs exactly one operation (.add, .cas, ...) and one type (.u32, .b64, ...)")
    if head == "red" and ops[0] in ("exch", "cas"):
        raise _fail(text, f"red has no .{ops[0]} (PTX ISA: red.op is add, min, max, inc, dec, and, or, xor)")
    width = ATOMIC_FORMS.get((ops[0], types[0]))
    if width is None:
        raise _fail(text, f"ptxas compiles {head}.shared.{ops[0]}.{types[0]} to a compare-and-swap loop "
                          "(ATOMS.CAST.SPIN) whose trip count depends on timing: not modelled")
    # the operand after the comma is the value (only red.add.u32 of 1 changes the SASS: ATOMS.POPC.INC)
    merged = head == "red" and ops[0] == "add" and types[0] == "u32" and size_suffix == 1
    return Instruction(text=text, kind=head, access_bytes=width, atomic=ops[0], atomic_type=types[0],
                       merged_increment=merged)
