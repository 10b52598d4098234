"""Instruction atoms: PTX instructions as data in CuTe's thread-value convention, and tiled partitioning.

``from layoutalg import atoms``; ``atoms.get("SM80_16x8x16_F32F16F16F32_TN")``,
``atoms.mma("m16n8k16", a="f16", b="f16", c="f32")``, ``atoms.ldmatrix(num=4, trans=True)``;
``atoms.wgmma(64, "e4m3", "f32", b="e5m2")``, ``atoms.ldmatrix_b8("m16n16", 2)``;
``atoms.make_tiled_mma``, ``atoms.make_tiled_copy``, ``atoms.make_tiled_copy_A/B/C`` (see :mod:`.tiled`).
"""

from layoutalg.atoms import catalog  # noqa: F401
from layoutalg.atoms.catalog import (  # noqa: F401, I001
    cp_async,
    get,
    ld_shared,
    ldmatrix,
    ldmatrix_b8,
    mma,
    movmatrix,
    names,
    st_shared,
    stmatrix,
    stmatrix_b8,
    wgmma,
)
from layoutalg.atoms.copy import CopyAtom, TypedCopyAtom, movmatrix_coords  # noqa: F401
from layoutalg.atoms.gmma import GmmaAtom, GmmaDescriptor, make_gmma, make_gmma_desc  # noqa: F401
from layoutalg.atoms.mma import MmaAtom  # noqa: F401
from layoutalg.core.display import attach_display as _attach_display
from layoutalg.core.validate import describe as _describe

_attach_display(MmaAtom, GmmaAtom, CopyAtom, TypedCopyAtom, html="atom_html")  # print_latex of each operand


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    # tiled partitioning needs the core algebra; load it on first use
    import importlib

    if name.startswith("__"):
        raise AttributeError(name)
    tiled = importlib.import_module("layoutalg.atoms.tiled")

    if name in tiled.__all__:
        return getattr(tiled, name)
    raise AttributeError(f"module 'layoutalg.atoms' has no attribute {_describe(name)}")
