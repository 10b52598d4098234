"""Kernel 3: a Hopper (sm90) wgmma mainloop with 128-byte swizzled smem and an stmatrix epilogue.

The kernel (one warpgroup = 128 threads, bf16 in, fp32 accumulate, CTA tile 64 x 64 x 64):

* A and B tiles live in shared memory K-major with CUTLASS's ``GMMA::Layout_K_SW128_Atom<bf16>``,
  ``ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<16>, Layout<Shape<_8,_64>,Stride<_64,_1>>>``:
  the swizzle acts on the *byte* address (16-byte chunks XOR the row within 8 rows of 128 bytes),
  which on bf16 element indices is ``Sw<3,3,3>``.  Tiled down M: ``((8,8),64):((64,512),1)``.
* ``wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16`` reads them through a shared-memory matrix
  descriptor in 128-byte swizzle mode with stride byte offset (SBO) 1024 (8 rows x 128 bytes); the
  k-th 16-wide K block advances the start address by 32 bytes.
* Epilogue: the fp32 accumulators are converted to bf16 pairs and written to a 64 x 64 bf16 smem C tile
  (same swizzled layout, ready for a TMA store) with ``stmatrix.sync.aligned.m8n8.x4.shared.b16``:
  warp ``w``, n-block ``j``: lane ``l`` points at row ``16 w + l % 8 + 8 ((l / 8) % 2)``, column
  ``16 j + 8 (l / 16)``; register ``r`` holds ``(c[8j+2r], c[8j+2r+1])``.

Run it: ``layoutalg prove examples/hopper_wgmma_sw128_thm.py``.
"""

from __future__ import annotations

from layoutalg.atoms.catalog import stmatrix, wgmma
from layoutalg.atoms.gmma import GmmaDescriptor
from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError
from layoutalg.interop import from_cpp
from layoutalg.prove import bijective_onto, equivalent, fragment_delivers, sym, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

ATOM = from_cpp("ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<16>, Layout<Shape<_8,_64>,Stride<_64,_1>>>")
SMEM = ComposedLayout(ATOM.outer, 0, Layout(((8, 8), 64), ((64, 512), 1)))  # tile_to_shape(atom, (64, 64))
SBO = 1024
WGMMA = wgmma(64, a="bf16", c="f32")  # SM90_64x64x16_F32BF16BF16_SS
STSM = stmatrix(num=4)  # SM90_U32x4_STSM_N

# The descriptor's address function in 128-byte swizzle mode, as a layout on bytes: element (mn, k) of a K-major
# bf16 operand sits at 128 * (mn % 8) + SBO * (mn / 8) + 2 * k before the swizzle (PTX ISA, "Shared Memory Matrix
# Layout", canonical K-major SW128: ((8,m),(T,2k)):((8T,SBO),(1,T)) in 16-byte units, T = 8), and the hardware
# applies Swizzle<3,4,3> to the byte address.
DESCRIPTOR_BYTES = ComposedLayout(Swizzle(3, 4, 3), 0, Layout(((8, 8), 64), ((128, SBO), 2)))


def _descriptor_matches_the_atoms_model() -> None:
    """Guard: the layout above agrees with layoutalg.atoms' descriptor model at every element (enumeration)."""
    desc = GmmaDescriptor(0, 16, SBO, "B128")
    for mn in range(64):
        for k in range(64):
            start = 32 * (k // 16)  # the k-block's descriptor start address
            block = GmmaDescriptor(start, 16, SBO, "B128")
            if block.address("K", mn, k % 16, 16) != DESCRIPTOR_BYTES(mn + 64 * k):
                raise LayoutError(f"descriptor model mismatch at ({mn}, {k}) for {desc}")


@theorem
def sw128_tile_is_what_the_wgmma_descriptor_addresses():
    """For every (mn, k) of the 64 x 64 bf16 tile: 2 * SMEM(mn, k) equals the byte address the SW128 descriptor
    (SBO = 1024, start advanced 32 bytes per 16-wide K block) makes wgmma read."""
    _descriptor_matches_the_atoms_model()
    return [
        bijective_onto(SMEM, 64 * 64, {"mn": 64, "k": 64}),
        equivalent(lambda mn, k: 2 * sym(SMEM)(mn, k), lambda mn, k: sym(DESCRIPTOR_BYTES)(mn, k), {"mn": 64, "k": 64},
                   names=("cutlass_atom_bytes", "descriptor_bytes")),
    ]


@theorem(expect="refuted")
def sm80_style_swizzle_on_bytes_is_not_sw128():
    """A port bug: moving the sm80 swizzle Swizzle<3,3,3> onto the smem pointer unchanged
    (``ComposedLayout<Swizzle<3,3,3>, smem_ptr_flag_bits<16>, ...>``), where CUTLASS's GMMA atoms say
    Swizzle<3,4,3>.  On the pointer it swizzles 8-byte chunks of bytes (Sw<3,2,3> on bf16 indices), which
    no wgmma descriptor mode describes: refuted, with the (mn, k) element whose bytes differ."""
    wrong = from_cpp("ComposedLayout<Swizzle<3,3,3>, smem_ptr_flag_bits<16>, Layout<Shape<_64,_64>,Stride<_64,_1>>>")
    wrong = ComposedLayout(wrong.outer, 0, Layout(((8, 8), 64), ((64, 512), 1)))
    return equivalent(lambda mn, k: 2 * sym(wrong)(mn, k), lambda mn, k: sym(DESCRIPTOR_BYTES)(mn, k),
                      {"mn": 64, "k": 64}, names=("kernel_bytes", "descriptor_bytes"))


@theorem
def stmatrix_epilogue_writes_each_accumulator_where_it_belongs():
    """For every warp w (m_tile), n-block pair j (part), lane, register and half: stmatrix.x4 stores the bf16 of
    accumulator c[8j + 2reg + half] of thread 32w + lane at that element's (row, col) of the swizzled C tile."""
    return fragment_delivers(STSM, SMEM, WGMMA, "C", dtype="bf16",
                             addresses=lambda lane, j: (lane % 8 + 8 * ((lane // 8) % 2), 16 * j + 8 * (lane // 16)))


def epilogue_stores():
    """Every stmatrix.x4 of the epilogue: warp w, n-block j; lane -> the (row, col) of the row it supplies."""
    return Access.from_fn("stmatrix.sync.aligned.m8n8.x4.shared.b16",
                          lambda lane, warp, n_block: (16 * warp + lane % 8 + 8 * ((lane // 8) % 2),
                                                       16 * n_block + 8 * (lane // 16)),
                          warp=4, n_block=4)


@theorem
def stmatrix_epilogue_is_bank_conflict_free():
    """Every stmatrix.x4 of the epilogue costs its ideal 4 wavefronts on the SW128 C tile."""
    return conflict_free(SMEM, epilogue_stores(), "bf16")


@theorem(expect="refuted")
def stmatrix_into_a_plain_row_major_c_tile_conflicts():
    """The same stores into an unswizzled 64 x 64 bf16 C tile (128-byte rows) are 8-way conflicted."""
    return conflict_free(Layout((64, 64), (64, 1)), epilogue_stores(), "bf16")
