"""Record what the GPU gives for f16/bf16 NaN results: driver JIT of PTX through libcuda (ctypes, no CUDA toolkit).

Run on a machine with a GPU: ``python3 tools/probe_half_nan.py``; prints the results as JSON and writes
``$OUT/nan_probe.json`` when OUT is set.  The recording is ``tests/data/h100_half_nan.json``.  Each form runs one
thread per input: the thread loads its f32 input bits and stores the 16-bit result; the ``raw_hi`` forms take the
input's high half as the f16/bf16 operand.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct

INS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0x7FA00000, 0x7FC10000, 0x7FBF0000, 0xFF800001, 0x3F800000]
OPS = {
    "cvt.rn.bf16.f32": "cvt.rn.bf16.f32 %rs1, %f1;",
    "cvt.rn.f16.f32": "cvt.rn.f16.f32 %rs1, %f1;",
    "add.rn.bf16(cvt,1.0)": "cvt.rn.bf16.f32 %rs2, %f1;\n mov.b16 %rs3, 0x3F80;\n add.rn.bf16 %rs1, %rs2, %rs3;",
    "add.rn.bf16(raw_hi,1.0)": "mov.b32 {%rs4, %rs2}, %r1;\n mov.b16 %rs3, 0x3F80;\n add.rn.bf16 %rs1, %rs2, %rs3;",
    "mul.rn.bf16(raw_hi,1.0)": "mov.b32 {%rs4, %rs2}, %r1;\n mov.b16 %rs3, 0x3F80;\n mul.rn.bf16 %rs1, %rs2, %rs3;",
    "add.f16(raw_hi,1.0)": "mov.b32 {%rs4, %rs2}, %r1;\n mov.b16 %rs3, 0x3C00;\n add.f16 %rs1, %rs2, %rs3;",
    "cvt.rn.bf16x2.f32(a,a)": "cvt.rn.bf16x2.f32 %r2, %f1, %f1;\n mov.b32 {%rs1, %rs4}, %r2;",
}
PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
 .reg .b32 %r<4>; .reg .f32 %f<2>; .reg .b16 %rs<6>; .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
 mov.u32 %r3, %tid.x; mul.wide.u32 %rd3, %r3, 4; add.u64 %rd4, %rd1, %rd3;
 ld.global.b32 %r1, [%rd4]; mov.b32 %f1, %r1;
 {body}
 mul.wide.u32 %rd5, %r3, 2; add.u64 %rd6, %rd2, %rd5; st.global.b16 [%rd6], %rs1;
 ret;
}}
"""


def main() -> None:
    cu = ctypes.CDLL("libcuda.so.1")

    def ck(r: int, what: str) -> None:
        if r != 0:
            raise SystemExit(f"{what}: CUDA error {r}")

    out: dict[str, object] = {}
    ck(cu.cuInit(0), "init")
    dev = ctypes.c_int()
    ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "device")
    ctx = ctypes.c_void_p()
    ck(cu.cuCtxCreate_v2(ctypes.byref(ctx), 0, dev), "context")
    n = len(INS)
    for name, body in OPS.items():
        mod = ctypes.c_void_p()
        r = cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(PTX.format(body=body).encode()))
        if r != 0:
            out[name] = f"load error {r}"
            continue
        fn = ctypes.c_void_p()
        ck(cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"k"), "function")
        din, dout = ctypes.c_uint64(), ctypes.c_uint64()
        ck(cu.cuMemAlloc_v2(ctypes.byref(din), 4 * n), "alloc")
        ck(cu.cuMemAlloc_v2(ctypes.byref(dout), 2 * n), "alloc")
        ck(cu.cuMemcpyHtoD_v2(din, struct.pack(f"<{n}I", *INS), 4 * n), "copy in")
        args = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.pointer(din), ctypes.c_void_p),
                                     ctypes.cast(ctypes.pointer(dout), ctypes.c_void_p))
        ck(cu.cuLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, None, args, None), "launch")
        ck(cu.cuCtxSynchronize(), "sync")
        buf = ctypes.create_string_buffer(2 * n)
        ck(cu.cuMemcpyDtoH_v2(buf, dout, 2 * n), "copy out")
        out[name] = {f"{i:#010x}": f"{v:#06x}" for i, v in zip(INS, struct.unpack(f"<{n}H", buf.raw))}
    label = ctypes.create_string_buffer(100)
    cu.cuDeviceGetName(label, 100, dev)
    out["device"] = label.value.decode()
    print(json.dumps(out, indent=1))
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "nan_probe.json"), "w") as f:
            f.write(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
