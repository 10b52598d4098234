"""Core algebra: hierarchical int tuples and CuTe layouts on Python ints. Imports nothing above it."""

from layoutalg.core.int_tuple import (  # noqa: F401
    ceil_div,
    congruent,
    crd2idx,
    depth,
    flatten,
    idx2crd,
    inner_product,
    prefix_product,
    product,
    rank,
    shape_div,
    suffix_product,
    weakly_congruent,
)
from layoutalg.core.layout import Layout, make_layout, slice_and_offset, slice_layout  # noqa: F401
