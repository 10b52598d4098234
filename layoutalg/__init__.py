"""layoutalg: CuTe layout algebra, z3 proofs and exact bank-conflict models for CUDA kernel authors.

Layers, lowest first (a layer never imports one above it):
core -> swizzle -> atoms -> prove -> banks -> gpu -> front ends (cli, pytest_plugin, viz).
"""

from layoutalg.core import *  # noqa: F401,F403
from layoutalg.core import Layout, make_layout, slice_and_offset, slice_layout  # noqa: F401
from layoutalg.errors import *  # noqa: F401,F403
from layoutalg.errors import LayoutError  # noqa: F401

__version__ = "0.1.0"
