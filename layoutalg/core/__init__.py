"""Core algebra: hierarchical int tuples and CuTe layouts on Python ints. Imports nothing above it.

The int-tuple helpers exported here are the validating ones of
:mod:`layoutalg.core.int_tuple_api`; the algebra itself uses the unchecked
:mod:`layoutalg.core.int_tuple`.
"""

from layoutalg.core.algebra import (  # noqa: F401
    coalesce,
    complement,
    composition,
    filter,
    filter_zeros,
    left_inverse,
    max_common_layout,
    max_common_vector,
    right_inverse,
)
from layoutalg.core.divide_product import (  # noqa: F401
    blocked_product,
    flat_divide,
    flat_product,
    logical_divide,
    logical_product,
    raked_product,
    tiled_divide,
    tiled_product,
    zipped_divide,
    zipped_product,
)
from layoutalg.core.int_tuple_api import (  # noqa: F401
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
from layoutalg.core.notation import parse, parse_int_tuple, parse_layout, to_cpp  # noqa: F401
from layoutalg.core.recast import downcast, recast, recast_layout, upcast  # noqa: F401
from layoutalg.core.shape_ops import append, group, prepend, select  # noqa: F401
