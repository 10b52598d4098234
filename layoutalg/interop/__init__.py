"""Read and write layouts in the notations and objects of the other CuTe-family tools (front end, layer 7).

One module per library:

* :mod:`~layoutalg.interop.text`: the one reader of layouts as text (``layoutalg.parse``, every CLI LAYOUT);
* :mod:`~layoutalg.interop.cpp`: CuTe C++ type strings (``Layout<Shape<_8,_64>,Stride<_64,_1>>``);
* :mod:`~layoutalg.interop.live`: ``as_layout``, any library's object in;
* :mod:`~layoutalg.interop.pycute`: the legacy ``pycute`` and NVIDIA's PyCuTe;
* :mod:`~layoutalg.interop.tensor_layouts`: ``tensor-layouts``;
* :mod:`~layoutalg.interop.cute_dsl`: CuTe DSL objects (inside ``@cute.jit``) and prints;
* :mod:`~layoutalg.interop.triton`: Gluon layout objects and ``#ttg`` text (over the GF(2) core of
  :mod:`layoutalg.swizzle.triton`); :mod:`~layoutalg.interop.triton_shared` Triton's shared encodings.

Each foreign library is imported only when a function that needs it is called.
"""

from layoutalg.interop.cpp import element_swizzle_base, from_cpp, to_cpp
from layoutalg.interop.cute_dsl import from_cute_dsl, to_cute_dsl, to_dsl_string
from layoutalg.interop.live import as_layout
from layoutalg.interop.pycute import from_pycute, to_pycute
from layoutalg.interop.tensor_layouts import from_tensor_layouts, to_tensor_layouts
from layoutalg.interop.text import from_string, normalise_notation, parse
from layoutalg.interop.triton import from_triton, to_triton, to_triton_text

__all__ = [
    "as_layout",
    "from_tensor_layouts",
    "to_tensor_layouts",
    "parse",
    "from_string",
    "normalise_notation",
    "element_swizzle_base",
    "from_cpp",
    "to_cpp",
    "from_pycute",
    "to_pycute",
    "from_cute_dsl",
    "to_cute_dsl",
    "to_dsl_string",
    "from_triton",
    "to_triton",
    "to_triton_text",
]
