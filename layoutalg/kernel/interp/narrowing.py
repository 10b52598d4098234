"""What ptxas makes of a shared-memory load whose destination is partly unread: the SASS accesses Nsight counts.

ptxas 13.0 (sm_90) narrows a non-volatile ``ld.shared`` to the words its readers use and removes one nothing reads;
``ldmatrix`` is removed when nothing reads it and otherwise kept whole.  Every rule below was read off the SASS of
the 183 kernels ``tools/ptxas_load_narrowing.py`` compiles (``tests/data/ptxas_load_narrowing.json``; the test
``tests/test_kernel_load_narrowing.py`` traces each of them and compares the tracer's accesses with that SASS).
With ``e`` the element size in bytes and ``live`` the elements whose value may be read (:mod:`.liveness`):

1. ``ld.volatile`` is never removed, and a volatile vector of more than 4 bytes is loaded whole; a volatile scalar
   (a ``.b64`` of which one word is read) or ``.v2.u16`` is narrowed as below.
2. nothing live: no access (the load is removed).
3. 1-byte elements (``.v2.u8``, ``.v4.u8``) with one live: the whole access (they share one register).
4. one live element: that element alone (``LDS.U16`` at ``+2i``, ``LDS`` at ``+4i``, ``LDS.64`` at ``+8i``); of a
   64-bit element of which one word is read (an integer ``cvt`` to 32 bits, ``shr`` by 32, ``mov.b64 {lo, hi}``
   with one half unread), that word (``LDS`` at ``+8i`` or ``+8i+4``).
5. more: with ``W`` the 32-bit words the live elements lie in (a 64-bit element both of its words), 4-byte elements
   in two words that are not one aligned pair load each word alone (``{0, 2}`` -> ``LDS +0``, ``LDS +8``); else
   the smallest naturally aligned run of 1, 2 or 4 words covering ``W`` (``{0, 1, 3}`` -> ``LDS.128``; 16-bit
   elements ``{1, 2}`` -> ``LDS.64``).

What this cannot see is listed in ``docs/DESIGN.md`` (Known gaps): a value read only by code ptxas removes as
dead, and 64-bit values narrowed through longer chains of bit operations.
"""

from __future__ import annotations

from collections.abc import Sequence

Part = tuple[int, int]
"""(byte offset from the lane's address, bytes) of one SASS access."""


def narrowed_parts(element_bytes: int, live_words: Sequence[frozenset[int]], volatile: bool) -> tuple[Part, ...]:
    """The SASS accesses of a ``ld.shared`` of ``len(live_words)`` elements of ``element_bytes`` each, where
    ``live_words[i]`` holds the 32-bit words of element ``i`` that may be read (for elements of 4 bytes or fewer
    ``{0}`` or nothing; for 64-bit ones a subset of ``{0, 1}``), by the rules of the module doc."""
    count = len(live_words)
    whole = ((0, element_bytes * count),)
    if volatile and count * element_bytes > 4 and count > 1:
        return whole
    live = [i for i, words in enumerate(live_words) if words]
    if not live:
        return whole if volatile else ()
    if element_bytes == 1:
        return whole
    if len(live) == 1:
        i = live[0]
        words = live_words[i]
        if element_bytes == 8 and len(words) == 1:
            return ((8 * i + 4 * min(words), 4),)
        return ((i * element_bytes, element_bytes),)
    covered = sorted({(i * element_bytes + k) // 4 for i in live for k in range(0, element_bytes, 2)})
    if element_bytes == 4 and len(covered) == 2 and not (covered[0] % 2 == 0 and covered[1] == covered[0] + 1):
        return tuple((4 * w, 4) for w in covered)
    run = 1
    while covered[0] // run != covered[-1] // run:
        run *= 2
    start = covered[0] // run * run
    return ((4 * start, 4 * run),)


UNDECIDED = ("ptxas loads the words read of a .v2 of 64-bit elements one by one or the whole vector, depending on "
             "the code around it (kernel.interp.narrowing): which, and so the cost, is not modelled")


def undecided(element_bytes: int, live_words: Sequence[frozenset[int]], volatile: bool) -> bool:
    """Whether ptxas 13.0's choice for this load depends on its context: a non-volatile ``.v2`` of 64-bit elements,
    both read, neither in full (one ``LDS.128`` alone, two ``LDS`` beside other loads:
    ``tests/data/ptxas_load_narrowing*.json``)."""
    return (element_bytes == 8 and not volatile and len(live_words) == 2
            and all(live_words) and any(len(w) < 2 for w in live_words))


def part_name(offset: int, width: int) -> str:
    """How the trace names a narrowed access: its SASS opcode and offset (``LDS.64 +0x8``).  A narrowed access is
    narrower than its 16-byte maximum (a 16-byte cover is the whole load, recorded without a part)."""
    opcode = {1: "LDS.U8", 2: "LDS.U16", 4: "LDS", 8: "LDS.64"}[width]
    return f"{opcode} +{offset:#x}"
