"""Kernel arguments (``layoutalg.kernel.args``): the parameter block a launch sees, against hand-packed
little-endian bytes (PTX ISA "Kernel Function Parameters": each parameter at its alignment), and the
ArgumentError (a KernelError, so a LayoutError) that names the offending parameter for every malformed value."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from layoutalg.errors import KernelError, LayoutError
from layoutalg.kernel.args import ArgumentError, pack_params
from layoutalg.kernel.ptx.nodes import Variable

BUF0 = 1 << 44  # buffer k's base is (k + 1) * 2**44 (layoutalg.kernel.interp.spaces: one 2**44 window each)


def var(name: str, t: str, count: int = 1, align: int | None = None) -> Variable:
    return Variable(name, "param", t, align or (1 if t == "b8" else {"u16": 2, "f16": 2}.get(t, 4 if t[-2:] == "32" else 8)),
                    count)


def le(v: int, n: int) -> bytes:
    return (v % (1 << (8 * n))).to_bytes(n, "little")


def refused(params: list[Variable], args: dict, *fragments: str) -> str:
    with pytest.raises(ArgumentError) as info:
        pack_params(params, args)
    msg = str(info.value)
    for f in fragments:
        assert f in msg, (f, msg)
    return msg


def test_argument_error_is_a_kernel_error_of_the_layout_error_family() -> None:
    assert issubclass(ArgumentError, KernelError) and issubclass(ArgumentError, LayoutError)


def test_parameters_are_packed_at_their_alignment_in_little_endian() -> None:
    params = [var("n", "u32"), var("p", "u64"), var("h", "u16"), var("s", "b8", 1), var("q", "s32")]
    block = pack_params(params, {"n": 0x01020304, "h": 7, 4: -2})
    assert block.offsets == {"n": 0, "p": 8, "h": 16, "s": 18, "q": 20}
    expected = le(0x01020304, 4) + bytes(4) + le(BUF0, 8) + le(7, 2) + b"\x00" + bytes(1) + le(-2, 4)
    assert block.data == expected
    assert block.buffers == ["p"]  # a 64-bit parameter not given is a fresh buffer
    assert block.values == {"n": str(0x01020304), "p": "buf", "h": "7", "s": "0", "q": "-2"}


def test_each_buf_is_a_distinct_buffer_in_parameter_order() -> None:
    params = [var("a", "u64"), var("b", "u64"), var("c", "b8", 8, align=8)]
    block = pack_params(params, {"a": "buf", "c": "buf"})
    assert block.data == le(BUF0, 8) + le(2 * BUF0, 8) + le(3 * BUF0, 8)
    assert block.buffers == ["a", "b", "c"]


def test_parameters_are_named_by_name_index_numpy_index_or_digit_string() -> None:
    params = [var("a", "u32"), var("b", "u32"), var("c", "u32")]
    block = pack_params(params, {np.int64(0): 1, " 01 ": "2", "c": "0x10"})
    assert block.data == le(1, 4) + le(2, 4) + le(16, 4)


def test_unknown_parameter_names_are_refused_listing_index_and_name() -> None:
    refused([var("a", "u32"), var("b", "u64")], {"zz": 1}, "no kernel parameter", "zz", "0:a, 1:b")
    refused([], {"zz": 1}, "parameters (index:name): none")
    refused([var("a", "u32")], {True: 1}, "no kernel parameter")  # a bool is not an index


def test_parameter_indices_outside_the_kernel_are_refused() -> None:
    params = [var("a", "u32"), var("b", "u32")]
    refused(params, {2: 1}, "out of range", "the kernel has 2 parameters")
    refused(params, {-1: 1}, "out of range")
    refused(params, {"9" * 30: 1}, "out of range")
    assert pack_params(params, {1: 5, 0: 4}).data == le(4, 4) + le(5, 4)


def test_a_parameter_given_by_name_and_by_index_is_refused() -> None:
    refused([var("a", "u32"), var("x", "b8", 3)], {"x": [1], 1: [2]}, "parameter 1 (x, .b8[3]) is given twice")
    refused([var("a", "u32", 2)], {"a": [1], "0": [2]}, "parameter 0 (a, .u32[2]) is given twice")
    refused([var("a", "u32")], {"a": 1, 0: 2}, "parameter 0 (a, .u32) is given twice")


def test_integers_must_fit_the_parameter_signed_or_unsigned() -> None:
    params = [var("a", "u32")]
    assert pack_params(params, {"a": -(1 << 31)}).data == le(1 << 31, 4)
    assert pack_params(params, {"a": (1 << 32) - 1}).data == b"\xff" * 4
    refused(params, {"a": -(1 << 31) - 1}, "parameter 0 (a, .u32)", "does not fit in 4 bytes")
    refused(params, {"a": 1 << 32}, "does not fit in 4 bytes")
    p16 = [var("h", "u16")]
    assert pack_params(p16, {"h": -(1 << 15)}).data == le(1 << 15, 2)
    refused(p16, {"h": 1 << 16}, "does not fit in 2 bytes")
    refused(p16, {"h": -(1 << 15) - 1}, "does not fit in 2 bytes")


def test_floats_are_packed_in_the_parameter_s_float_format() -> None:
    params = [var("f", "f32"), var("d", "f64"), var("h", "f16")]
    block = pack_params(params, {"f": 1.5, "d": "-0.25", "h": 2.0})
    assert block.data == struct.pack("<f", 1.5) + bytes(4) + struct.pack("<d", -0.25) + le(0x4000, 2)
    assert block.values == {"f": "1.5", "d": "-0.25", "h": "2.0"}
    refused([var("a", "u32")], {"a": 1.5}, "parameter 0 (a, .u32): a float value for a .u32 parameter")


def test_unreadable_text_values_are_refused_naming_the_text() -> None:
    refused([var("a", "u32")], {"a": "zebra"}, "cannot read value 'zebra'", "integer, buf, or a comma-separated list")
    refused([var("a", "u32")], {"a": object()}, "parameter 0 (a, .u32): cannot use")
    refused([var("a", "u32")], {"a": True}, "cannot use True")


def test_a_parameter_not_given_is_refused_unless_a_pointer_or_one_byte_aggregate() -> None:
    refused([var("n", "u32")], {}, "parameter 0 (n, .u32) is not given", "--arg n=VALUE or --arg 0=VALUE")
    refused([var("s", "b8", 2)], {}, "parameter 0 (s, .b8[2]) is not given")
    assert pack_params([var("s", "b8", 1)], None).data == b"\x00"


def test_buf_fills_only_an_eight_byte_parameter() -> None:
    refused([var("a", "u32")], {"a": "buf"}, "parameter 0 (a, .u32): buf is a 64-bit pointer", "has 4 bytes")
    assert pack_params([var("a", "s64")], {"a": " buf "}).data == le(BUF0, 8)


def test_an_integer_fills_an_aggregate_of_one_two_four_or_eight_bytes() -> None:
    for n in (1, 2, 4, 8):
        assert pack_params([var("s", "b8", n)], {"s": 3}).data == le(3, n)
    for n in (3, 5, 16):
        refused([var("s", "b8", n)], {"s": 3}, f"an integer fills an aggregate of 1, 2, 4 or 8 bytes; this one has {n}")


def test_a_list_fills_an_aggregate_with_32_bit_words_pointers_and_i64() -> None:
    params = [var("s", "b8", 22, align=8)]
    block = pack_params(params, {"s": "1, buf, i64:-1, 0x0302"})
    assert block.data == le(1, 4) + le(BUF0, 8) + b"\xff" * 8 + b"\x02\x03"
    assert block.values == {"s": "1,buf,i64:-1,0x0302"}
    assert block.buffers == ["s"]


def test_the_last_word_of_a_list_may_be_partial_if_its_excess_bits_are_zero() -> None:
    params = [var("s", "b8", 6)]
    assert pack_params(params, {"s": [0x04030201, 0x0605]}).data == bytes([1, 2, 3, 4, 5, 6])
    refused(params, {"s": [1, 0x10000]}, "the last element 65536 has bits beyond the 2 remaining byte(s)")
    assert pack_params(params, {"s": [1, 0xFFFF]}).data == le(1, 4) + b"\xff\xff"


def test_a_list_must_fill_its_aggregate_exactly() -> None:
    params = [var("s", "b8", 8)]
    refused(params, {"s": [1]}, "the list fills 4 of its 8 bytes")
    refused(params, {"s": [1, 2, 3]}, "more elements than the 8 bytes hold (element 2)")
    assert pack_params(params, {"s": (1, 2)}).data == le(1, 4) + le(2, 4)
    refused([var("a", "u32")], {"a": [1]}, "parameter 0 (a, .u32): a list fills an aggregate .b8 parameter, not a .u32")


def test_malformed_list_elements_are_refused_naming_their_position() -> None:
    params = [var("s", "b8", 8)]
    refused(params, {"s": "1,x"}, "element 1 'x' is not an integer, buf or i64:N")
    refused(params, {"s": "i64:q"}, "element 0 'i64:q' is not i64:<integer>")
    refused(params, {"s": [1, 2.5]}, "element 1 2.5 is not an integer, 'buf' or 'i64:N'")
    refused(params, {"s": [True, 1]}, "element 0 True is not an integer")
    refused(params, {"s": [1, 1 << 32]}, "element 1", "does not fit in 4 bytes")
    refused(params, {"s": ["i64:" + str(1 << 64)]}, "element 0", "does not fit in 8 bytes")
    assert pack_params(params, {"s": "i64:0x0807060504030201"}).data == bytes(range(1, 9))


def test_a_list_may_end_with_a_one_byte_partial_word() -> None:
    params = [var("s", "b8", 5)]
    assert pack_params(params, {"s": [0x04030201, 0x05]}).data == bytes([1, 2, 3, 4, 5])
    refused(params, {"s": [1, 0x100]}, "the last element 256 has bits beyond the 1 remaining byte(s)")


def test_a_list_may_end_with_a_three_byte_partial_word() -> None:
    params = [var("s", "b8", 7)]
    assert pack_params(params, {"s": [0x04030201, 0x070605]}).data == bytes([1, 2, 3, 4, 5, 6, 7])
    refused(params, {"s": [1, 0x1000000]}, "the last element 16777216 has bits beyond the 3 remaining byte(s)")
