"""Raw hardware recordings: what the real instructions do, stated without any model.

Every experiment here depends only on PTX ISA syntax.  It chooses inputs
(shared-memory images, lane addresses, register contents), runs the
instruction, and stores the inputs with what came back.  Comparing with
layoutalg's models is :mod:`layoutalg.gpu.replay`'s job, on a CPU, later.

Conventions (also written into each recording under ``"conventions"``):
  * shared memory is a 16 KiB, 1024-byte-aligned dynamic buffer of 16-bit
    units; ``lane_byte_addresses`` are byte offsets into it;
  * ldmatrix / ld.shared images hold ``image[h] = h`` (unit index), so each
    16-bit value read back names the unit it came from;
  * stmatrix register ``i`` of lane ``l`` holds the 16-bit codes
    ``l*8 + 2*i + 1`` (low half) and ``l*8 + 2*i + 2`` (high half) over a zero
    image; ``smem_writes`` lists ``[unit_index, value]`` of every nonzero unit;
  * mma one-hot runs: see :func:`record_mma`.
"""

from __future__ import annotations

from typing import Any, Callable

from layoutalg.errors import InstructionError
from layoutalg.gpu import codegen
from layoutalg.gpu.encoding import DIGIT_BASE, decode, encode, pack
from layoutalg.gpu.suite import (
    CP_ASYNC_FORMS,
    HALVES,
    LD_ST_FORMS,
    MATRIX_FORMS,
    MMA_VARIANTS,
    MOVMATRIX_PTX,
    SMEM_BYTES,
    MmaVariant,
    ldmatrix_ptx,
    stmatrix_ptx,
    swizzle,
)


def _rng(seed: int) -> Any:
    import numpy as np

    return np.random.default_rng(seed)


def matrix_address_patterns(num: int, allow_duplicates: bool, seed: int) -> list[tuple[str, list[int]]]:
    """Named lane byte-address patterns (16-byte aligned rows) for ldmatrix/stmatrix."""
    lanes = range(32)
    pats = [
        ("contiguous", [16 * lane for lane in lanes]),
        ("pitch128", [128 * lane for lane in lanes]),
        ("pitch144", [144 * lane for lane in lanes]),
        ("sw333_64col_f16", [2 * swizzle(3, 3, 3, (lane % 16) * 64 + 8 * (lane // 16)) for lane in lanes]),
        ("sw333_kblock", [2 * swizzle(3, 3, 3, (lane % 8) * 64 + 8 * (lane // 8)) for lane in lanes]),
    ]
    rng = _rng(seed)
    rows = rng.choice(SMEM_BYTES // 16, size=32, replace=False)
    pats.append(("random_distinct", [int(16 * r) for r in rows]))
    if allow_duplicates:
        rows = rng.choice(8, size=32) * 37 + 3
        pats.append(("random_duplicates", [int(16 * r) for r in rows]))
    return pats


def check_row_addresses(addresses: list[int], row_bytes: int = 16) -> None:
    """Refuse addresses that would fault on the GPU (misaligned or out of the buffer)."""
    if len(addresses) != 32:
        raise InstructionError(f"need 32 lane addresses, got {len(addresses)}")
    for lane, a in enumerate(addresses):
        if a % row_bytes or a < 0 or a + row_bytes > SMEM_BYTES:
            raise InstructionError(
                f"lane {lane}: byte address {a} is not a {row_bytes}-byte aligned offset inside {SMEM_BYTES} bytes")


def _kernels() -> list[tuple[str, str]]:
    ks = [codegen.ldmatrix_kernel(n, t) for n, t in MATRIX_FORMS]
    ks += [codegen.stmatrix_kernel(n, t) for n, t in MATRIX_FORMS]
    ks.append(codegen.movmatrix_kernel())
    ks += [codegen.mma_kernel(v) for v in MMA_VARIANTS]
    ks += [codegen.cp_async_kernel(n, c) for n, c in CP_ASYNC_FORMS]
    ks += [codegen.ld_shared_kernel(s) for s, _ in LD_ST_FORMS]
    ks += [codegen.st_shared_kernel(s) for s, _ in LD_ST_FORMS]
    ks += [codegen.scheme_kernel(t) for t in (False, True)]
    ks += [codegen.stsm_epilogue_kernel(t) for t in (False, True)]
    ks += [codegen.movmatrix_b_kernel(m) for m in (True, False)]
    ks += [codegen.fa2_p_reuse_kernel(), codegen.cp_async_tile_kernel()]
    return ks


class Recorder:
    """Compiles the suite's kernels (all at once with ``eager``, else each on first use) and runs experiments.

    Each experiment method returns JSON-ready dicts.  A kernel the compiler
    rejects (an instruction this GPU lacks) fails only the experiments that use it.
    """

    def __init__(self, eager: bool = False) -> None:
        self.sources = dict(_kernels())
        self.k: dict[str, Any] = {}
        self.errors: dict[str, str] = {}
        if eager:
            self._compile(list(self.sources))

    def _compile(self, names: list[str]) -> None:
        from layoutalg.gpu.runner import compile_kernels

        try:
            self.k.update(compile_kernels([(n, self.sources[n]) for n in names]))
        except Exception as exc:
            if len(names) == 1:
                self.errors[names[0]] = f"{type(exc).__name__}: {exc}"
                return
            for n in names:
                self._compile([n])

    def _run(self, name: str, grid: int, args: list[Any], outputs: list[int], smem: int = SMEM_BYTES,
             threads: int = 32) -> list[Any]:
        from layoutalg.gpu.runner import launch

        if name not in self.k and name not in self.errors:
            self._compile([name])
        if name in self.errors:
            raise InstructionError(f"kernel {name} does not compile for this GPU: {self.errors[name][:2000]}")
        return launch(self.k[name], grid, args, outputs, smem, threads)

    def pipeline(self, case: dict[str, Any]) -> dict[str, Any]:
        """Run one end-to-end scheme of :func:`pipeline_cases`; adds ``ran`` and the raw result."""
        import numpy as np

        from layoutalg.gpu.wgmma import _pack

        out = {k: v for k, v in case.items() if k != "image"}
        addr_keys = [k for k in case if k.endswith("_lane_byte_addresses")]
        row = 16
        problems = []
        for key in addr_keys:
            try:
                check_row_addresses(case[key], row)
            except InstructionError as exc:
                problems.append(f"{key}: {exc}")
        if case["kind"] == "cp_async_tile":
            bad = [i for i, d in enumerate(case["dst_byte_offsets"]) if d % 16 or not 0 <= d <= SMEM_BYTES - 16]
            if bad:
                problems.append(f"cp.async destination {case['dst_byte_offsets'][bad[0]]} (copy {bad[0]}) is not "
                                f"16-byte aligned inside the buffer")
        if problems:
            out.update({"ran": False, "not_run_because": problems})
            return out
        kind = case["kind"]
        if kind == "cp_async_tile":
            gsrc = np.arange(HALVES, dtype=np.uint16).view(np.uint8)
            smem = np.zeros((1, HALVES), dtype=np.uint16)
            (smem,) = self._run("scheme_cp_async_tile", 1,
                                [gsrc, np.array(case["src_byte_offsets"], dtype=np.uint32),
                                 np.array(case["dst_byte_offsets"], dtype=np.uint32), case["iters"], smem, HALVES],
                                [4], threads=128)
            out.update({"ran": True, "smem": _pack(smem.reshape(-1, 1), 1)})
            return out
        image = np.array(case["image"], dtype=np.float16).view(np.uint16)[None, :]
        addrs = [np.array([case[k]], dtype=np.uint32) for k in addr_keys]
        if kind == "stsm_epilogue":
            from layoutalg.gpu.schemes import C_BASE, C_PITCH

            smem = np.zeros((1, HALVES), dtype=np.uint16)
            (smem,) = self._run("scheme_stsm_epilogue" + ("_t" if case["trans"] else ""), 1,
                                [image, *addrs, smem, HALVES], [4])
            half = smem.view(np.float16).reshape(-1).astype(np.float64)
            r0, c0 = case["c_origin"]
            block = [[float(half[C_BASE + (r0 + r) * C_PITCH + c0 + c]) for c in range(16)] for r in range(16)]
            written = int(np.count_nonzero(smem[0, C_BASE:]))
            out.update({"ran": True, "c_block": block, "c_region_nonzero_units": written,
                        "smem_c_region": _pack(smem[0, C_BASE:].reshape(-1, 1), 1)})
            return out
        if kind == "movmatrix_b":
            name = "scheme_movmatrix_b" + ("" if case["movmatrix"] else "_none")
        else:
            name = "scheme_fa2_p_reuse"
        d = np.zeros((1, 32, 4), dtype=np.float32)
        (d,) = self._run(name, 1, [image, *addrs, d, HALVES], [4])
        out.update({"ran": True, "d": d[0].tolist()})
        return out

    # -- ldmatrix -----------------------------------------------------------
    def ldmatrix(self, num: int, trans: bool, cases: list[tuple[str, list[int]]],
                 image: Any = None) -> list[dict[str, Any]]:
        import numpy as np

        for _, addrs in cases:
            check_row_addresses(addrs)
        img = np.arange(HALVES, dtype=np.uint16) if image is None else np.asarray(image, dtype=np.uint16)
        images = np.tile(img, (len(cases), 1))
        lane_addr = np.array([a for _, a in cases], dtype=np.uint32)
        regs = np.zeros((len(cases), 32, num), dtype=np.uint32)
        bases = np.zeros(len(cases), dtype=np.uint32)
        regs, bases = self._run(f"ldsm_x{num}{'_t' if trans else ''}", len(cases),
                                [images, lane_addr, regs, bases, HALVES], [2, 3])
        return [{"instruction": ldmatrix_ptx(num, trans), "pattern": name, "lane_byte_addresses": addrs,
                 "smem_base_mod_1024": int(bases[i]) % 1024, "image": "index" if image is None else "custom",
                 "regs": regs[i].tolist()} for i, (name, addrs) in enumerate(cases)]

    # -- stmatrix -----------------------------------------------------------
    def stmatrix(self, num: int, trans: bool, cases: list[tuple[str, list[int]]]) -> list[dict[str, Any]]:
        import numpy as np

        for _, addrs in cases:
            check_row_addresses(addrs)
        lane = np.arange(32, dtype=np.uint32)[:, None]
        reg = np.arange(num, dtype=np.uint32)[None, :]
        words = ((lane * 8 + 2 * reg + 1) | ((lane * 8 + 2 * reg + 2) << 16)).astype(np.uint32)
        words = np.tile(words, (len(cases), 1, 1))
        images = np.zeros((len(cases), HALVES), dtype=np.uint16)
        lane_addr = np.array([a for _, a in cases], dtype=np.uint32)
        out = np.zeros((len(cases), HALVES), dtype=np.uint16)
        (out,) = self._run(f"stsm_x{num}{'_t' if trans else ''}", len(cases),
                           [images, lane_addr, words, out, HALVES], [3])
        res = []
        for i, (name, addrs) in enumerate(cases):
            nz = np.nonzero(out[i])[0]
            res.append({"instruction": stmatrix_ptx(num, trans), "pattern": name, "lane_byte_addresses": addrs,
                        "smem_writes": [[int(h), int(out[i][h])] for h in nz]})
        return res

    # -- movmatrix ----------------------------------------------------------
    def movmatrix(self) -> list[dict[str, Any]]:
        import numpy as np

        lane = np.arange(32, dtype=np.uint32)
        words = ((2 * lane + 1) | ((2 * lane + 2) << 16)).astype(np.uint32)
        out = np.zeros(32, dtype=np.uint32)
        (out,) = self._run("movmatrix_t", 1, [words, out], [1], smem=0)
        return [{"instruction": MOVMATRIX_PTX, "pattern": "codes 2*lane+1 (low), 2*lane+2 (high)",
                 "in_regs": words.tolist(), "out_regs": out.tolist()}]

    # -- mma ------------------------------------------------------------------
    def mma(self, v: MmaVariant) -> dict[str, Any]:
        """One-hot runs of one mma variant.

        *A runs*: for each A slot ``a`` and digit ``d``: A is one-hot at ``a``
        (value 1), every B slot ``b`` holds ``digit_d(b) + 1`` in base
        ``base`` (so every value is exact), C is zero.  A D slot is *reached*
        when it comes back nonzero; from the digits of its value, the B slot
        that multiplied A slot ``a`` into it.  ``triples`` lists
        ``[a_slot, b_slot, d_slot]``.
        *C runs*: C one-hot at ``c`` (value 1), A = B = 0: ``c_to_d`` lists
        ``[c_slot, d_slot]`` for every nonzero D slot.
        ``anomalies`` lists anything that does not decode (non-integers,
        digits out of range, a reach set that changes between digits).
        """
        import numpy as np

        ea, eb, ec, ed = (v.elems_per_lane(op) for op in "abcd")
        n_a, n_b, n_c = 32 * ea, 32 * eb, 32 * ec
        base = DIGIT_BASE[v.b_type]
        digits = 1
        while base ** digits < n_b:
            digits += 1
        runs = n_a * digits
        a_vals = np.zeros((runs, n_a), dtype=np.int64)
        a_vals[np.arange(runs), np.repeat(np.arange(n_a), digits)] = 1
        b_ids = np.arange(n_b)
        b_vals = np.stack([(b_ids // base ** d) % base + 1 for d in range(digits)])  # (digits, n_b)
        b_vals = np.tile(b_vals, (n_a, 1))
        a_units = pack(encode(a_vals, v.a_type).reshape(runs, 32, ea), v.a_type)
        b_units = pack(encode(b_vals, v.b_type).reshape(runs, 32, eb), v.b_type)
        c_units = pack(encode(np.zeros((runs, n_c), dtype=np.int64), v.c_type).reshape(runs, 32, ec), v.c_type)
        d_units = np.zeros((runs, 32, v.units("d")), dtype=np.uint64 if v.d_type == "f64" else np.uint32)
        name = "mma_" + v.name()
        (d_out,) = self._run(name, runs, [a_units, b_units, c_units, d_units], [3], smem=0)
        vals = decode(d_out, v.d_type, ed).reshape(n_a, digits, 32 * ed)
        anomalies: list[str] = []
        triples: list[list[int]] = []
        reached = vals != 0
        same = (reached == reached[:, :1, :]).all(axis=1)
        if not same.all():
            anomalies.append(f"reach set differs between digits at {int((~same).sum())} (a, d) pairs")
        if not np.all(vals == np.round(vals)):
            anomalies.append("non-integer D values")
        ids = np.zeros((n_a, 32 * ed), dtype=np.int64)
        for d in range(digits):
            dig = np.round(vals[:, d, :]).astype(np.int64) - 1
            bad = reached[:, d, :] & ((dig < 0) | (dig >= base))
            if bad.any():
                anomalies.append(f"digit {d} out of range at {int(bad.sum())} places")
            ids += np.where(reached[:, d, :], dig, 0) * base ** d
        a_idx, d_idx = np.nonzero(reached[:, 0, :])
        triples = np.stack([a_idx, ids[a_idx, d_idx], d_idx], axis=1).tolist()  # a-major order
        # C runs.
        c_vals = np.eye(n_c, dtype=np.int64)
        zeros_a = pack(encode(np.zeros((n_c, n_a), dtype=np.int64), v.a_type).reshape(n_c, 32, ea), v.a_type)
        zeros_b = pack(encode(np.zeros((n_c, n_b), dtype=np.int64), v.b_type).reshape(n_c, 32, eb), v.b_type)
        c_units = pack(encode(c_vals, v.c_type).reshape(n_c, 32, ec), v.c_type)
        d_units = np.zeros((n_c, 32, v.units("d")), dtype=np.uint64 if v.d_type == "f64" else np.uint32)
        (d_out,) = self._run(name, n_c, [zeros_a, zeros_b, c_units, d_units], [3], smem=0)
        cvals = decode(d_out, v.d_type, ed).reshape(n_c, 32 * ed)
        if not np.all((cvals == 0) | (cvals == 1)):
            anomalies.append("C runs: D values other than 0 and 1")
        c_idx, dd_idx = np.nonzero(cvals)
        return {"instruction": v.ptx, "shape": v.shape, "types": {op: v.elem_type(op) for op in "abcd"},
                "elems_per_lane": {op: v.elems_per_lane(op) for op in "abcd"}, "digit_base": base,
                "digits": digits, "triples": pack_triples(triples),
                "c_to_d": np.stack([c_idx, dd_idx], axis=1).tolist(), "anomalies": anomalies}

    # -- cp.async -------------------------------------------------------------
    def cp_async(self, nbytes: int, cache: str, cases: list[tuple[str, list[int], list[int]]]) -> list[dict[str, Any]]:
        """Global source holds ``unit[h] = h`` (16-bit, 64 KiB); smem image is 0xFFFF."""
        import numpy as np

        for _, src, dst in cases:
            check_row_addresses(dst, nbytes)
            if any(s % nbytes or s < 0 or s + nbytes > 65536 for s in src):
                raise InstructionError("cp.async source offsets must be aligned and inside the 64 KiB source")
        gsrc = np.arange(32768, dtype=np.uint16).view(np.uint8)
        images = np.full((len(cases), HALVES), 0xFFFF, dtype=np.uint16)
        lane_src = np.array([s for _, s, _ in cases], dtype=np.uint32)
        lane_dst = np.array([d for _, _, d in cases], dtype=np.uint32)
        out = np.zeros((len(cases), HALVES), dtype=np.uint16)
        (out,) = self._run(f"cp_async_{cache}_{nbytes}", len(cases), [images, gsrc, lane_src, lane_dst, out, HALVES],
                           [4])
        res = []
        for i, (name, src, dst) in enumerate(cases):
            nz = np.nonzero(out[i] != 0xFFFF)[0]
            res.append({"instruction": f"cp.async.{cache}.shared.global", "bytes": nbytes, "pattern": name,
                        "lane_src_byte_offsets": src, "lane_byte_addresses": dst,
                        "smem_writes": [[int(h), int(out[i][h])] for h in nz]})
        return res

    # -- ld.shared / st.shared -----------------------------------------------
    def ld_shared(self, suffix: str, nbytes: int, cases: list[tuple[str, list[int]]]) -> list[dict[str, Any]]:
        import numpy as np

        for _, addrs in cases:
            check_row_addresses(addrs, nbytes)
        images = np.tile(np.arange(HALVES, dtype=np.uint16), (len(cases), 1))
        lane_addr = np.array([a for _, a in cases], dtype=np.uint32)
        regs = np.zeros((len(cases), 32, 4), dtype=np.uint64)
        (regs,) = self._run("ld_shared_" + suffix.replace(".", "_"), len(cases),
                            [images, lane_addr, regs, HALVES], [2])
        return [{"instruction": f"ld.shared.{suffix}", "bytes": nbytes, "pattern": name, "lane_byte_addresses": a,
                 "regs": [[int(x) for x in row] for row in regs[i]]} for i, (name, a) in enumerate(cases)]

    def st_shared(self, suffix: str, nbytes: int, cases: list[tuple[str, list[int]]]) -> list[dict[str, Any]]:
        """Lane ``l`` stores bytes ``(l*16 + j) % 251 + 1`` (j = 0..nbytes-1, little-endian registers)."""
        import numpy as np

        for _, addrs in cases:
            check_row_addresses(addrs, nbytes)
        data = st_shared_bytes(nbytes)  # (32, nbytes) uint8
        unit_bytes = 8 if suffix == "b64" else min(4, nbytes)
        units = np.zeros((32, 4), dtype=np.uint64)
        for u in range(nbytes // unit_bytes):
            for j in range(unit_bytes):
                units[:, u] |= data[:, u * unit_bytes + j].astype(np.uint64) << np.uint64(8 * j)
        units = np.tile(units, (len(cases), 1, 1))
        images = np.zeros((len(cases), HALVES), dtype=np.uint16)
        lane_addr = np.array([a for _, a in cases], dtype=np.uint32)
        out = np.zeros((len(cases), HALVES), dtype=np.uint16)
        (out,) = self._run("st_shared_" + suffix.replace(".", "_"), len(cases),
                           [images, lane_addr, units, out, HALVES], [3])
        res = []
        for i, (name, addrs) in enumerate(cases):
            nz = np.nonzero(out[i])[0]
            res.append({"instruction": f"st.shared.{suffix}", "bytes": nbytes, "pattern": name,
                        "lane_byte_addresses": addrs, "smem_writes": [[int(h), int(out[i][h])] for h in nz]})
        return res

    # -- schemes: ldmatrix + mma end to end ------------------------------------
    def scheme(self, case: dict[str, Any]) -> dict[str, Any]:
        """Run one scheme case (see :func:`scheme_cases`): D of ldmatrix A, ldmatrix B, mma."""
        import numpy as np

        out = dict(case)
        problems = []
        for key, row in (("a_lane_byte_addresses", 16), ("b_lane_byte_addresses", 16)):
            try:
                check_row_addresses(case[key], row)
            except InstructionError as exc:
                problems.append(f"{key}: {exc}")
        if problems:
            out.update({"ran": False, "not_run_because": problems, "d": None})
            return out
        image = np.array(case["image"], dtype=np.float16).view(np.uint16)[None, :]
        a_addr = np.array([case["a_lane_byte_addresses"]], dtype=np.uint32)
        b_addr = np.array([case["b_lane_byte_addresses"]], dtype=np.uint32)
        d = np.zeros((1, 32, 4), dtype=np.float32)
        (d,) = self._run("scheme_ldsm_mma" + ("_bt" if case["b_trans"] else ""), 1,
                         [image, a_addr, b_addr, d, HALVES], [3])
        out.update({"ran": True, "d": d[0].tolist()})
        return out


def pack_triples(triples: list[list[int]]) -> str:
    """``[[a, b, d], ...]`` as column-wise differences, zlib, base64 (see :func:`unpack_triples`)."""
    from layoutalg.gpu.wgmma import _pack

    return _pack(triples, 3)


def unpack_triples(packed: Any) -> list[tuple[int, int, int]]:
    """The ``[a_slot, b_slot, d_slot]`` triples of an mma recording (packed string or plain list)."""
    from layoutalg.gpu.wgmma import unpack

    rows = unpack(packed, 3).tolist() if isinstance(packed, str) else packed
    return [(int(a), int(b), int(d)) for a, b, d in rows]


def st_shared_bytes(nbytes: int) -> Any:
    """The bytes lane ``l`` stores in the st.shared experiments: ``(l*16 + j) % 251 + 1``."""
    import numpy as np

    lane = np.arange(32)[:, None]
    j = np.arange(nbytes)[None, :]
    return ((lane * 16 + j) % 251 + 1).astype(np.uint8)


def vector_address_patterns(nbytes: int, seed: int) -> list[tuple[str, list[int]]]:
    """Distinct aligned addresses for plain loads/stores and cp.async destinations."""
    rng = _rng(seed)
    slots = rng.choice(SMEM_BYTES // nbytes, size=32, replace=False)
    pats = [
        ("contiguous", [nbytes * lane for lane in range(32)]),
        ("stride128", [128 * lane for lane in range(32)]),
        ("random_distinct", [int(nbytes * s) for s in slots]),
    ]
    if nbytes == 16:
        pats.append(("sw333_column_16B", [2 * swizzle(3, 3, 3, lane * 64) for lane in range(32)]))
    return pats


def record_all(progress: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Run every experiment of the fragment suite; returns the recording's sections."""
    from layoutalg.gpu.runner import device_info

    rec = Recorder(eager=True)
    out: dict[str, Any] = {"device": device_info()}
    out["ldmatrix"] = []
    out["stmatrix"] = []
    for i, (num, trans) in enumerate(MATRIX_FORMS):
        out["ldmatrix"] += rec.ldmatrix(num, trans, matrix_address_patterns(num, True, 100 + i))
        out["stmatrix"] += rec.stmatrix(num, trans, matrix_address_patterns(num, False, 200 + i))
    progress("ldmatrix/stmatrix done")
    out["movmatrix"] = rec.movmatrix()
    out["mma"] = []
    for v in MMA_VARIANTS:
        try:
            out["mma"].append(rec.mma(v))
        except Exception as exc:  # a variant the device rejects is recorded as such
            out["mma"].append({"instruction": v.ptx, "error": f"{type(exc).__name__}: {exc}"})
    progress("mma done")
    out["cp_async"] = []
    for j, (nbytes, cache) in enumerate(CP_ASYNC_FORMS):
        rng = _rng(300 + j)
        cases = []
        for name, dst in vector_address_patterns(nbytes, 310 + j):
            src = [int(nbytes * s) for s in rng.choice(65536 // nbytes, size=32, replace=False)]
            cases.append((name, src, dst))
        out["cp_async"] += rec.cp_async(nbytes, cache, cases)
    out["ld_shared"] = []
    out["st_shared"] = []
    for j, (suffix, nbytes) in enumerate(LD_ST_FORMS):
        out["ld_shared"] += rec.ld_shared(suffix, nbytes, vector_address_patterns(nbytes, 400 + j))
        out["st_shared"] += rec.st_shared(suffix, nbytes, vector_address_patterns(nbytes, 500 + j))
    progress("cp.async/ld/st done")
    from layoutalg.gpu.schemes import pipeline_cases, scheme_cases

    out["schemes"] = []
    out["scheme_tiles"] = {}
    for case in scheme_cases():
        r = rec.scheme(case)
        del r["image"]
        out["scheme_tiles"][r["scheme"]] = {"a_tile": r.pop("a_tile"), "b_tile": r.pop("b_tile")}
        out["schemes"].append(r)
    out["pipelines"] = [rec.pipeline(c) for c in pipeline_cases()]
    progress("schemes done")
    from layoutalg.gpu.wgmma import record_all_wgmma

    out["wgmma"] = record_all_wgmma(progress)
    return out
