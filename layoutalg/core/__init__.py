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
from layoutalg.core.coalesce_z import coalesce_z  # noqa: F401
from layoutalg.core.common_domain import greatest_common_domain  # noqa: F401
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
from layoutalg.core.htuple_ops import coordinates, fold_leaf, in_bounds, profile, replace, zip_leaves  # noqa: F401
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
    unflatten,
    weakly_congruent,
)
from layoutalg.core.layout import Layout, make_layout, slice_and_offset, slice_layout  # noqa: F401
from layoutalg.core.layout_add import layout_add  # noqa: F401
from layoutalg.core.make_layouts import make_layout_like, make_ordered_layout, tile_to_shape  # noqa: F401
from layoutalg.core.notation import parse, parse_int_tuple, parse_layout, to_cpp  # noqa: F401
from layoutalg.core.nullspace import nullspace  # noqa: F401
from layoutalg.core.predicates import (  # noqa: F401
    Integer,
    is_int,
    is_layout,
    is_static,
    is_tensor,
    is_tuple,
    register_integer_type,
    shiftl,
    shiftr,
)
from layoutalg.core.recast import downcast, recast, recast_layout, upcast  # noqa: F401
from layoutalg.core.recast_ratio import recast_by  # noqa: F401
from layoutalg.core.shape_lattice import common_coarsening, common_refinement, compatible, product_each  # noqa: F401
from layoutalg.core.shape_ops import append, group, prepend, select  # noqa: F401
from layoutalg.core.stride_codomain import coshape  # noqa: F401
from layoutalg.core.stride_layout import StrideLayout, stride_layout  # noqa: F401
from layoutalg.core.stride_layout_ops import tiler_to_layout  # noqa: F401
from layoutalg.core.stride_scalars import (  # noqa: F401
    F2,
    ArithTuple,
    E,
    ScaledBasis,
    V,
    basis_repr,
    is_basis,
    make_basis_like,
    proj,
    unit,
)
from layoutalg.core.symbolic import SymbolicLayout, symbolic_layout  # noqa: F401
from layoutalg.core.tensor import (  # noqa: F401
    CountingEngine,
    Tensor,
    make_fragment_like,
    make_identity_tensor,
    make_tensor,
)
from layoutalg.core.tensor_copy import Array, Ptr, TransformAccessor, copy, copy_ref  # noqa: F401
from layoutalg.core.tuple_ops import (  # noqa: F401
    dice_,
    get,
    leaves,
    lift,
    repeat_like,
    slice_,
    take,
    transform_apply_leaf,
    transform_leaf,
    unwrap,
    wrap,
)
from layoutalg.core.weak_complement import weak_complement  # noqa: F401
