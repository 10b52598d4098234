"""layoutalg: CuTe layout algebra, z3 proofs and exact bank-conflict models for CUDA kernel authors.

Layers, lowest first (a layer never imports one above it; see docs/DESIGN.md):
errors -> core -> swizzle -> atoms -> prove -> banks -> gpu -> front ends (cli, pytest_plugin, viz).

The top level re-exports the algebra of layers 0-2.  The algebra functions
exported here are the generic ones of :mod:`layoutalg.swizzle.generic`: they
accept a plain :class:`Layout` or a swizzled :class:`ComposedLayout`.  Nothing
imported here pulls in z3, numpy or hypothesis.  The upper layers are
sub-packages: ``layoutalg.atoms``, ``layoutalg.prove``, ``layoutalg.banks``,
``layoutalg.gpu`` (CuPy, imported only on request).
"""

from layoutalg.core import (  # PyCuTe's operations (plain layouts and int tuples)
    F2,
    ArithTuple,
    Array,
    E,
    Integer,
    Layout,
    Ptr,
    ScaledBasis,
    StrideLayout,
    SymbolicLayout,
    Tensor,
    TransformAccessor,
    V,
    ceil_div,
    coalesce_z,
    common_coarsening,
    common_refinement,
    compatible,
    complement,
    congruent,
    coordinates,
    copy,
    copy_ref,
    coshape,
    crd2idx,
    dice_,
    filter,
    filter_zeros,
    fold_leaf,
    greatest_common_domain,
    idx2crd,
    in_bounds,
    inner_product,
    is_int,
    is_layout,
    is_static,
    is_tensor,
    is_tuple,
    layout_add,
    leaves,
    lift,
    make_fragment_like,
    make_identity_tensor,
    make_layout,
    make_layout_like,
    make_ordered_layout,
    make_tensor,
    max_common_layout,
    max_common_vector,
    nullspace,
    prefix_product,
    product,
    product_each,
    profile,
    register_integer_type,
    repeat_like,
    replace,
    shape_div,
    shiftl,
    shiftr,
    slice_,
    stride_layout,
    suffix_product,
    symbolic_layout,
    take,
    tiler_to_layout,
    to_cpp,
    transform_apply_leaf,
    transform_leaf,
    unflatten,
    unwrap,
    weak_complement,
    weakly_congruent,
    wrap,
    zip_leaves,
)
from layoutalg.errors import (
    CompositionError,
    CoordinateError,
    InstructionError,
    LayoutError,
    NotInjectiveError,
    NotLinearError,
    ParseError,
    ProofError,
    ShapeError,
)
from layoutalg.swizzle import (
    BitMatrix,
    ComposedLayout,
    Swizzle,
    TritonLinearLayout,
    append,
    blocked_product,
    coalesce,
    composition,
    downcast,
    flat_divide,
    flat_product,
    flatten,
    from_f2,
    group,
    is_f2_linear,
    left_inverse,
    local_partition,
    local_tile,
    logical_divide,
    logical_product,
    make_composed_layout,
    make_swizzle,
    parse_triton,
    prepend,
    raked_product,
    recast,
    right_inverse,
    select,
    slice_and_offset,
    slice_layout,
    tile_to_shape,
    tiled_divide,
    tiled_product,
    to_f2,
    to_str,
    upcast,
    zipped_divide,
    zipped_product,
)
from layoutalg.swizzle.queries import cosize, depth, get, rank, shape, size, stride  # CuTe DSL's free functions

from layoutalg.interop.text import parse  # isort: skip  (the one text reader: C++ types, atoms, prints, Triton)
from layoutalg.interop.triton import from_triton, to_triton  # isort: skip  (Gluon objects in and out)
from layoutalg.interop import as_layout, to_cute_dsl, to_pycute, to_tensor_layouts  # isort: skip  (live objects)

__version__ = "0.1.0"

__all__ = [
    # values
    "Layout", "Swizzle", "ComposedLayout", "make_layout", "make_swizzle", "make_composed_layout",
    # notation
    "parse", "to_str", "to_cpp",
    # CuTe DSL's free functions
    "size", "cosize", "rank", "depth", "shape", "stride", "get",
    # int tuples
    "ceil_div", "congruent", "crd2idx", "flatten", "unflatten", "idx2crd", "inner_product", "prefix_product",
    "product", "shape_div", "suffix_product", "weakly_congruent",
    # algebra
    "coalesce", "filter", "filter_zeros", "composition", "complement", "right_inverse", "left_inverse",
    "max_common_vector", "max_common_layout", "logical_divide", "zipped_divide", "tiled_divide",
    "flat_divide", "logical_product", "zipped_product", "tiled_product", "flat_product",
    "blocked_product", "raked_product", "append", "prepend", "group", "select", "upcast", "downcast",
    "recast", "slice_and_offset", "slice_layout", "local_tile", "local_partition",
    # PyCuTe's operations
    "coalesce_z", "common_coarsening", "common_refinement", "compatible", "depth", "dice_",
    "greatest_common_domain", "layout_add", "leaves", "lift", "make_layout_like", "make_ordered_layout",
    "nullspace", "product_each", "rank", "repeat_like", "slice_", "take", "tile_to_shape",
    "transform_apply_leaf", "transform_leaf", "unwrap", "weak_complement", "wrap",
    "profile", "replace", "zip_leaves", "fold_leaf", "coordinates", "in_bounds",
    "Integer", "register_integer_type", "is_int", "is_static", "is_tuple", "is_layout", "is_tensor", "shiftl",
    "shiftr",
    # basis (E) and GF(2) strides
    "E", "V", "F2", "ArithTuple", "ScaledBasis", "StrideLayout", "stride_layout", "tiler_to_layout", "coshape",
    # tensors
    "Tensor", "make_tensor", "make_identity_tensor", "make_fragment_like", "copy", "copy_ref", "Ptr", "Array",
    "TransformAccessor",
    # symbolic (sympy) shapes and strides
    "SymbolicLayout", "symbolic_layout",
    # GF(2) and Triton
    "BitMatrix", "to_f2", "from_f2", "is_f2_linear", "TritonLinearLayout", "to_triton", "from_triton",
    "parse_triton",
    # other libraries' objects in and out
    "as_layout", "to_cute_dsl", "to_pycute", "to_tensor_layouts",
    # errors
    "LayoutError", "ShapeError", "CoordinateError", "CompositionError", "NotInjectiveError",
    "NotLinearError", "ParseError", "InstructionError", "ProofError",
]


def _formula(self: Layout | ComposedLayout, names: object = None, form: str = "coord") -> object:
    """The layout's index function as a sympy expression (see :func:`layoutalg.prove.index_formula.formula`).

    Attached here, at the top of the package, because the renderer lives in the
    symbolic layer, which the core and swizzle layers may not import.
    """
    from layoutalg.prove.index_formula import formula

    return formula(self, names, form)  # type: ignore[arg-type]


Layout.formula = _formula  # type: ignore[attr-defined]
ComposedLayout.formula = _formula  # type: ignore[attr-defined]

# Pictures in notebooks (print_layout's), drawn by layoutalg.viz.notebook only when a notebook asks.
from layoutalg.core.display import attach_display  # noqa: E402

attach_display(Layout, ComposedLayout, html="layout_html", svg="layout_svg")
