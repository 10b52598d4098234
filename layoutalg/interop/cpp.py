"""CuTe C++ type strings: the reader lives in the swizzle layer (:mod:`layoutalg.swizzle.cpp`), so every layer that
reads layout text reads them; this module keeps the interop name."""

from layoutalg.swizzle.cpp import ATOM_NAME, MAX_DIGITS, MAX_NESTING, element_swizzle_base, from_cpp, to_cpp

__all__ = ["ATOM_NAME", "MAX_DIGITS", "MAX_NESTING", "element_swizzle_base", "from_cpp", "to_cpp"]
