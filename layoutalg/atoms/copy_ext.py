"""The rest of CuTe's copy atoms with TV layouts: cp.async with zero fill, the SM50 warp-shuffle
2x2 transposes, the auto-vectorizing placeholders, and the SM100 256-bit global loads/stores.

Traits verbatim (in bits) from cute/atom/copy_traits.hpp, copy_traits_sm50.hpp,
copy_traits_sm80.hpp, copy_traits_sm100.hpp (CUTLASS 4.2):

* ``SM80_CP_ASYNC_CACHE{ALWAYS,GLOBAL}_ZFILL<T>``: one thread, ``(1, bits(T)):(0, 1)`` -- the
  cp.async atoms with a source-size operand (``cp.async.{ca,cg}.shared.global [d], [s], n, src_n``);
* ``AutoVectorizingCopyWithAssumedAlignment<B>`` (``DefaultCopy`` is ``<8>``,
  ``AutoVectorizingCopy`` ``<128>``): ``(1,1):(0,0)``, a placeholder CuTe's ``copy``
  replaces by the widest ``UniversalCopy`` the layouts allow;
* ``SM100_{LOAD,STORE}_256bit_CACHE_NOALLOCATION``: ``(1,256):(0,1)``
  (``ld/st.global.L1::no_allocate.v8.f32``);
* ``SM50_Shuffle_U32_2x2Trans_XOR{1,4}``: 32 threads, two 32-bit values each; register
  2x2 transposes between lane pairs ``l, l^1`` (resp. ``l, l^4``) done with ``shfl.sync.bfly``.
  :func:`shuffle_result` states what the instruction sequence (cute/arch/copy_sm50.hpp,
  in-place: ``dst`` aliases ``src``) leaves in each destination register.
"""

from __future__ import annotations

from layoutalg.atoms.copy import CopyAtom
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError

L = Layout
_ONE = Layout(1, 0)  # CuTe's Layout<_1> prints _1:_0
_UINT = {32: "uint32_t", 64: "uint64_t", 128: "uint128_t"}


def _vector(bits: int) -> Layout:
    return L((1, bits), (0, 1))


def shuffle_result(name: str, lane: int, reg: int) -> tuple[int, int]:
    """(source lane, source register) whose 32-bit value lands in ``reg`` of ``lane``.

    XOR1 (lanes ``l``, ``l^1``): even lanes keep ``src0`` and receive the partner's ``src0`` in
    ``dst1``; odd lanes receive the partner's ``src1`` in ``dst0`` and keep ``src1``.
    XOR4 (lanes ``l``, ``l^4``): lanes with bit 2 clear keep ``src0`` and receive the partner's
    ``src0`` in ``dst1``; lanes with bit 2 set receive the partner's ``src1`` in ``dst0``.
    """
    if not 0 <= lane < 32 or reg not in (0, 1):
        raise InstructionError(f"lane in [0, 32) and reg in {{0, 1}}, got ({lane}, {reg})")
    if name == "SM50_Shuffle_U32_2x2Trans_XOR1":
        mask, high = 1, lane & 1
    elif name == "SM50_Shuffle_U32_2x2Trans_XOR4":
        mask, high = 4, (lane >> 2) & 1
    else:
        raise InstructionError(f"{name} is not an SM50 shuffle atom")
    if reg == high:
        return lane, reg  # kept in place
    return lane ^ mask, 1 - reg


def _atoms() -> list[CopyAtom]:
    out = []
    for cache, widths in (("ALWAYS", (32, 64, 128)), ("GLOBAL", (128,))):
        op = "ca" if cache == "ALWAYS" else "cg"
        for bits in widths:
            out.append(CopyAtom(f"SM80_CP_ASYNC_CACHE{cache}_ZFILL<{_UINT[bits]}>",
                                f"cp.async.{op}.shared.global [dst], [src], {bits // 8}, src_size", 80, "cp.async",
                                _ONE, _vector(bits), _vector(bits), _vector(bits), vector_bits=bits))
    zero = L((1, 1), (0, 0))
    for bits in (8, 16, 32, 64, 128):
        out.append(CopyAtom(f"AutoVectorizingCopyWithAssumedAlignment<{bits}>",
                            f"auto-vectorized copy, alignment {bits} bits (placeholder)", 50, "auto", _ONE, zero, zero,
                            zero))
    out.append(CopyAtom("SM100_LOAD_256bit_CACHE_NOALLOCATION", "ld.global.L1::no_allocate.v8.f32", 100, "ld.global",
                        _ONE, _vector(256), _vector(256), _vector(256), vector_bits=256))
    out.append(CopyAtom("SM100_STORE_256bit_CACHE_NOALLOCATION", "st.global.L1::no_allocate.v8.f32", 100,
                        "st.global", _ONE, _vector(256), _vector(256), _vector(256), vector_bits=256))
    src = L((32, 64), (64, 1))
    xor1 = L(((2, 16), (32, 2)), ((32, 128), (1, 64)))
    xor4 = L(((4, 2, 4), (32, 2)), ((64, 32, 512), (1, 256)))
    for name, dst in (("SM50_Shuffle_U32_2x2Trans_XOR1", xor1), ("SM50_Shuffle_U32_2x2Trans_XOR4", xor4)):
        out.append(CopyAtom(name, f"shfl.sync.bfly.b32 x2 (2x2 transpose, lane ^ {name[-1]})", 50, "shfl",
                            Layout(32), src, dst, src))
    return out


COPY_EXT_ATOMS: tuple[CopyAtom, ...] = tuple(_atoms())

#: Aliases CuTe defines with ``using`` (cute/arch/copy.hpp).
COPY_ALIASES = {"DefaultCopy": "AutoVectorizingCopyWithAssumedAlignment<8>",
                "AutoVectorizingCopy": "AutoVectorizingCopyWithAssumedAlignment<128>"}

__all__ = ["COPY_EXT_ATOMS", "COPY_ALIASES", "shuffle_result"]
