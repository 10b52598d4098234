"""``Swizzle(B, M, S)``: CuTe's XOR swizzle of integer offsets (cute/swizzle.hpp).

With ``bit_msk = 2**B - 1``::

    yyy_mask = bit_msk << (M + max(0, S))      # the bits that are read
    zzz_mask = bit_msk << (M - min(0, S))      # the bits they are XORed into
    Sw(x)    = x ^ shiftr(x & yyy_mask, S)     # shiftr by a negative S shifts left

so for ``S > 0`` the ``B`` bits at positions ``[M+S, M+S+B)`` are XORed into
``[M, M+B)``, and for ``S < 0`` the bits at ``[M, M+B)`` are XORed into
``[M-S, M-S+B)``.  Because ``|S| >= B`` the two masks never overlap, so the
swizzle is an involution (``Sw(Sw(x)) == x``) and a bijection of every aligned
block of ``2**(top bit)`` integers; ``Swizzle(0, M, S)`` is the identity.

Negative offsets are swizzled as two's-complement integers, exactly as CuTe's
C++ does for signed offsets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from layoutalg.core.validate import as_int
from layoutalg.errors import LayoutError


def _check_int(value: Any, name: str) -> int:
    return as_int(value, f"Swizzle {name}")


@dataclass(frozen=True)
class Swizzle:
    """CuTe ``Swizzle<B, M, S>``: ``bits`` (B), ``base`` (M) and ``shift`` (S)."""

    bits: int
    base: int
    shift: int
    _yyy: int = field(init=False, repr=False, compare=False, hash=False, default=0)

    def __post_init__(self) -> None:
        b = _check_int(self.bits, "bits (B)")
        m = _check_int(self.base, "base (M)")
        s = _check_int(self.shift, "shift (S)")
        if b < 0:
            raise LayoutError(f"Swizzle bits (B) must be >= 0, got {b}")
        if m < 0:
            raise LayoutError(f"Swizzle base (M) must be >= 0, got {m}")
        if abs(s) < b:
            raise LayoutError(f"Swizzle shift (S) must satisfy |S| >= B, got S={s} with B={b}")
        if b > 64 or m > 4096 or abs(s) > 4096:
            raise LayoutError(f"Swizzle<{b},{m},{s}> is out of the supported range (B <= 64, M, |S| <= 4096)")
        object.__setattr__(self, "bits", b)
        object.__setattr__(self, "base", m)
        object.__setattr__(self, "shift", s)
        object.__setattr__(self, "_yyy", ((1 << b) - 1) << (m + max(0, s)))

    # -- CuTe's masks ------------------------------------------------------
    @property
    def bit_mask(self) -> int:
        return (1 << self.bits) - 1

    @property
    def yyy_mask(self) -> int:
        """The source bits: ``bit_msk << (M + max(0, S))``."""
        return self._yyy

    @property
    def zzz_mask(self) -> int:
        """The destination bits: ``bit_msk << (M - min(0, S))``."""
        return self.bit_mask << (self.base - min(0, self.shift))

    @property
    def swizzle_code(self) -> int:
        """Every bit the swizzle reads or writes (``yyy_mask | zzz_mask``)."""
        return self.yyy_mask | self.zzz_mask

    def is_identity(self) -> bool:
        return self.bits == 0

    def period(self) -> int:
        """Smallest ``2**k`` with ``Sw(x + 2**k) == Sw(x) + 2**k`` for every ``x``: ``2**(top touched bit + 1)``.

        The swizzle therefore permutes every aligned block of ``period()`` offsets (a smaller block may also be
        permuted when ``S > 0``: ``Sw<1,0,1>`` maps ``{2, 3}`` onto itself, yet repeats only every 4 offsets).
        """
        return 1 if self.bits == 0 else 1 << self.swizzle_code.bit_length()

    # -- evaluation --------------------------------------------------------
    def __call__(self, offset: Any) -> Any:
        """``offset ^ shiftr(offset & yyy_mask, S)``; works on ints (numpy integers too) and on numpy int arrays."""
        if type(offset) is not int:
            if hasattr(offset, "dtype") and getattr(offset, "ndim", 0) != 0:
                return self._on_array(offset)
            offset = as_int(offset, "Swizzle offset")
        if self.shift >= 0:
            return offset ^ ((offset & self._yyy) >> self.shift)
        return offset ^ ((offset & self._yyy) << -self.shift)

    def _on_array(self, offsets: Any) -> Any:
        """The swizzle on every element of a numpy integer array.

        The array keeps its dtype where every bit the swizzle touches fits the dtype's value bits (7 for int8,
        8 for uint8, 63 for int64); otherwise it is computed on Python ints (an object array), as numpy cannot
        hold the masks (numpy refuses a Python int out of a dtype's range).
        """
        kind = offsets.dtype.kind
        if kind not in "iuO":
            raise LayoutError(f"Swizzle takes integer offsets, got a numpy array of dtype {offsets.dtype}")
        if self.bits == 0:
            return offsets
        if kind != "O" and self.swizzle_code.bit_length() > offsets.dtype.itemsize * 8 - (kind == "i"):
            offsets = offsets.astype(object)
        try:
            picked = offsets & self._yyy
            moved = picked >> self.shift if self.shift >= 0 else picked << -self.shift
            return offsets ^ moved
        except TypeError:
            raise LayoutError("Swizzle takes integer offsets; the array holds something else") from None

    def apply(self, offset: Any) -> Any:
        return self(offset)

    def inverse(self) -> "Swizzle":
        """A swizzle is its own inverse."""
        return self

    @classmethod
    def from_masks(cls, yyy_mask: int, zzz_mask: int) -> "Swizzle":
        """The swizzle reading the contiguous bits ``yyy_mask`` into the contiguous bits ``zzz_mask``.

        CuTe's ``make_swizzle<Y, Z>`` for the contiguous case; raises LayoutError
        when the masks are not equal-width contiguous runs of bits.
        """
        yyy_mask = as_int(yyy_mask, "yyy_mask")
        zzz_mask = as_int(zzz_mask, "zzz_mask")
        if yyy_mask == 0 and zzz_mask == 0:
            return cls(0, 0, 0)
        runs = []
        for name, mask in (("yyy_mask", yyy_mask), ("zzz_mask", zzz_mask)):
            if mask <= 0:
                raise LayoutError(f"{name} {mask:#x} must be a positive contiguous bit mask")
            low = (mask & -mask).bit_length() - 1
            width = mask.bit_length() - low
            if mask != ((1 << width) - 1) << low:
                raise LayoutError(f"{name} {mask:#x} is not a contiguous run of bits")
            runs.append((low, width))
        (y_low, y_width), (z_low, z_width) = runs
        if y_width != z_width:
            raise LayoutError(f"yyy_mask {yyy_mask:#x} and zzz_mask {zzz_mask:#x} have different widths")
        shift = y_low - z_low
        base = min(y_low, z_low)
        return cls(y_width, base, shift)

    def __str__(self) -> str:
        return f"Sw<{self.bits},{self.base},{self.shift}>"

    def __repr__(self) -> str:
        return f"Swizzle({self.bits}, {self.base}, {self.shift})"


def make_swizzle(bits: int, base: int, shift: int) -> Swizzle:
    """CuTe ``make_swizzle`` / ``Swizzle<B,M,S>{}``."""
    return Swizzle(bits, base, shift)


__all__ = ["Swizzle", "make_swizzle"]
