"""Record ptxas's verdicts on PTX the reader must accept or refuse: tests/data/ptxas_reader_verdicts.json.

Run where ptxas is installed: ``python3 tools/ptxas_reader_verdicts.py`` (rewrites the JSON).  Each case is a
whole module with an entry ``k``, compiled with ``ptxas -v -arch=ARCH``; the JSON keeps its return code, the
first error (and the PTX line ptxas names) and the static shared memory ptxas reports (``N bytes smem``).
tests/test_kernel_ptx_ptxas_verdicts.py replays every case through ``layoutalg.kernel.trace``: a module ptxas
refuses must be refused with a KernelError naming the same line; one it accepts must trace.  Items:

* ``extern``: ``.extern`` (any linkage directive) inside a function body; a sized ``.extern .shared`` variable;
* ``tensormap``: forms of ``tensormap.replace`` and ``tensormap.cp_fenceproxy`` (sm_90a);
* ``tensormap_value``: ``tensormap.replace`` field values, in and out of the ISA's ranges (sm_90a; sm_100a and
  sm_103a for the values only later targets take);
* ``tensormap_target``: ``tensormap.replace``, its ``.swizzle_atomicity`` field and the values only later targets
  take (``.elemtype`` 13..15, ``.swizzle_mode`` 4) under other ``.target``/``.version`` pairs (ARCH = the last
  platform of ``.target``), and ``.target`` lists ptxas reads or refuses;
* ``func_decl``: function declarations inside a body (``.extern .func`` prototypes and ``.callprototype``);
* ``func_linkage``: declarations and definitions of one function at module scope (and in a body): linkage
  (none, ``.visible``, ``.weak``, ``.extern``) in either order, a prototype never defined, ``.reg`` against
  ``.param`` parameters, headers over several lines (ptxas names the line where a declaration ends);
* ``pair``: setp's ``p|q`` destination with other than two names;
* ``address_size``: a module without ``.address_size``, and ``.address_size 32``.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "ptxas_reader_verdicts.json"

SMEM_HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
USE = ".visible .entry k(.param .u64 g)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{body}\nret;\n}}\n"


def smem(decls: str, body: str) -> str:
    return SMEM_HEAD + decls + USE.format(body=body)


TM_HEAD = (".version {version}\n.target {target}\n.address_size 64\n.extern .shared .align 128 .b8 smem[];\n"
           ".visible .entry k(.param .u64 g)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\tmov.u32 %r1, smem;\n"
           "\tmov.u64 %rd2, smem;\n\tmov.u32 %r2, %tid.x;\n\tld.param.u64 %rd1, [g];\n\t{line}\n\tret;\n}}\n")


def tm(line: str, target: str = "sm_90a", version: str = "8.5") -> str:
    return TM_HEAD.format(line=line, target=target, version=version)


CP = "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned"
RP = "tensormap.replace.tile"

CASES: list[tuple[str, str, str]] = [  # (item, id, ptx)
    ("extern", "body_extern_shared_unsized",
     smem("", ".extern .shared .align 16 .b8 s[];\nmov.u32 %r0, s;\nst.shared.u32 [s], %r0;")),
    ("extern", "body_extern_shared_sized",
     smem("", ".extern .shared .align 16 .b8 s[128];\nmov.u32 %r0, s;\nst.shared.u32 [s], %r0;")),
    ("extern", "body_visible_shared", smem("", ".visible .shared .align 16 .b8 s[16];\nmov.u32 %r0, s;")),
    ("extern", "body_weak_global", smem("", ".weak .global .align 16 .b8 s[16];\nmov.u64 %rd0, s;")),
    ("extern", "body_common_global", smem("", ".common .global .align 16 .b8 s[16];\nmov.u64 %rd0, s;")),
    ("extern", "body_extern_local", smem("", ".extern .local .align 16 .b8 s[16];\nmov.u64 %rd0, s;")),
    ("extern", "body_extern_func", smem("", ".extern .func f (.param .b32 a);")),
    ("extern", "module_extern_shared_sized",
     smem(".extern .shared .align 16 .b8 s[128];\n", "mov.u32 %r0, s;\nst.shared.u32 [s], %r0;")),
    ("extern", "module_extern_shared_scalar",
     smem(".extern .shared .align 4 .b32 x;\n", "mov.u32 %r0, x;\nst.shared.u32 [x], %r0;")),
    ("extern", "module_extern_sized_between_statics",
     smem(".shared .align 16 .b8 t[64];\n.extern .shared .align 16 .b8 s[128];\n.shared .align 16 .b8 u[16];\n",
          "mov.u32 %r0, t;\nmov.u32 %r1, s;\nmov.u32 %r2, u;\nst.shared.u32 [t], %r1;\nst.shared.u32 [s], %r2;\n"
          "st.shared.u32 [u], %r0;")),
    ("extern", "module_extern_unsized_is_dynamic",
     smem(".shared .align 16 .b8 t[64];\n.extern .shared .align 16 .b8 d[];\n",
          "mov.u32 %r0, t;\nmov.u32 %r1, d;\nst.shared.u32 [t], %r1;")),
    ("pair", "setp_two_names", smem("", ".reg .pred %p<4>;\nsetp.lt.s32 %p1|%p2, %r1, %r2;")),
    ("pair", "setp_three_names", smem("", ".reg .pred %p<4>;\nsetp.lt.s32 %p1|%p2|%p3, %r1, %r2;")),
    ("pair", "setp_empty_second", smem("", ".reg .pred %p<4>;\nsetp.lt.s32 %p1|, %r1, %r2;")),
    ("pair", "setp_empty_first", smem("", ".reg .pred %p<4>;\nsetp.lt.s32 |%p2, %r1, %r2;")),
    ("address_size", "omitted_64_bit_pointers",
     ".version 8.0\n.target sm_90\n.shared .align 4 .b8 s[64];\n" + USE.format(
         body="ld.param.u64 %rd1, [g];\ncvta.to.global.u64 %rd2, %rd1;\nld.global.u32 %r1, [%rd2];\n"
              "mov.u64 %rd3, s;\nst.shared.u32 [%rd3], %r1;")),
    ("address_size", "explicit_32", ".version 8.0\n.target sm_90\n.address_size 32\n" + USE.format(body="")),
]
#: function declarations inside a body (item ``func_decl``): ``.extern .func`` prototypes, the other linkages,
#: prototypes that disagree with another declaration of the name, and ``label: .callprototype``
FN_DEF = ".visible .func f (.param .b32 a)\n{{\nret;\n}}\n"
BODY_PROTO = ".visible .func g (.param .b32 a)\n{{\n{proto}\nret;\n}}\n"
FUNC_DECL_CASES: list[tuple[str, str]] = [  # (id, ptx)
    ("extern_func_returns", smem("", ".extern .func (.param .b32 r) f (.param .b32 a);")),
    ("extern_func_bare", smem("", ".extern .func f;")),
    ("extern_func_noreturn", smem("", ".extern .func f (.param .b32 a) .noreturn;")),
    ("extern_func_noreturn_next_line", smem("", ".extern .func f (.param .b32 a)\n.noreturn;")),
    ("extern_func_array_param", smem("", ".extern .func f (.param .b32 a, .param .align 8 .b8 b[16]);")),
    ("extern_func_twice_other_names", smem("", ".extern .func f (.param .b32 a);\n.extern .func f (.param .b32 b);")),
    ("extern_func_in_nested_scope", smem("", ".extern .func f (.param .b32 a);\n{\n.extern .func f (.param .b32 a);\n}")),
    ("extern_func_as_module_prototype", smem(".extern .func f (.param .b32 a);\n", ".extern .func f (.param .b32 a);")),
    ("extern_func_in_two_bodies", smem("", ".extern .func f (.param .b32 a);")
     + BODY_PROTO.format(proto=".extern .func f (.param .b32 a);")),
    ("plain_func", smem("", ".func f (.param .b32 a);")),
    ("visible_func", smem("", ".visible .func f (.param .b32 a);")),
    ("weak_func", smem("", ".weak .func f (.param .b32 a);")),
    ("common_func", smem("", ".common .func f (.param .b32 a);")),
    ("extern_entry", smem("", ".extern .entry e (.param .b32 a);")),
    ("extern_func_maxntid", smem("", ".extern .func f (.param .b32 a) .maxntid 32;")),
    ("extern_func_unknown_directive", smem("", ".extern .func f (.param .b32 a) .foo;")),
    ("extern_func_bad_name", smem("", ".extern .func 1f (.param .b32 a);")),
    ("extern_func_with_body", smem("", ".extern .func f (.param .b32 a) {\nret;\n}")),
    ("extern_func_other_param_type", smem("", ".extern .func f (.param .b32 a);\n.extern .func f (.param .u32 a);")),
    ("extern_func_other_param_count",
     smem("", ".extern .func f (.param .b32 a);\n.extern .func f (.param .b32 a, .param .b32 b);")),
    ("extern_func_other_alignment",
     smem("", ".extern .func f (.param .align 8 .b8 a[16]);\n.extern .func f (.param .align 4 .b8 a[16]);")),
    ("extern_func_other_array_size",
     smem("", ".extern .func f (.param .align 8 .b8 a[16]);\n.extern .func f (.param .align 8 .b8 a[8]);")),
    ("extern_func_other_return", smem("", ".extern .func (.param .b32 r) f;\n.extern .func (.param .b64 r) f;")),
    ("extern_func_other_noreturn", smem("", ".extern .func f (.param .b32 a);\n.extern .func f (.param .b32 a) .noreturn;")),
    ("extern_func_against_module_prototype", smem(".extern .func f (.param .b32 a);\n", ".extern .func f (.param .b64 a);")),
    ("extern_func_against_later_module_prototype", smem("", ".extern .func f (.param .b32 a);")
     + ".extern .func f (.param .b64 a);\n"),
    ("extern_func_against_other_body", smem("", ".extern .func f (.param .b32 a);")
     + BODY_PROTO.format(proto=".extern .func f (.param .b64 a);")),
    ("extern_func_of_a_defined_function", smem(FN_DEF.format(), ".extern .func f (.param .b32 a);")),
    ("extern_func_of_the_enclosing_entry", smem("", ".extern .func k (.param .b64 g);")),
    ("callprototype", smem("", "prot: .callprototype _ (.param .b32 _);")),
    ("callprototype_returns", smem("", "prot: .callprototype (.param .b32 _) _ (.param .b32 _);")),
    ("callprototype_noreturn", smem("", "prot: .callprototype _ (.param .b32 _) .noreturn;")),
    ("callprototype_bare", smem("", "prot: .callprototype _;")),
    ("callprototype_unlabelled", smem("", ".callprototype _ (.param .b32 _);")),
    ("callprototype_named", smem("", "prot: .callprototype f (.param .b32 _);")),
    ("callprototype_extern", smem("", "prot: .extern .callprototype _ (.param .b32 _);")),
    ("callprototype_unknown_directive", smem("", "prot: .callprototype _ (.param .b32 _) .foo;")),
]
#: module-scope declarations of f (item ``func_linkage``): a prototype ``P`` and a definition ``D`` with
#: a linkage and a parameter list, ``{`` on the line after the header as nvcc writes it
def P(linkage: str, params: str = "(.param .b32 a)") -> str:
    return f"{linkage} .func f {params};\n".lstrip()


def D(linkage: str, params: str = "(.param .b32 a)") -> str:
    return f"{linkage} .func f {params}\n{{\nret;\n}}\n".lstrip()


def EP(linkage: str) -> str:
    return f"{linkage} .entry e (.param .b32 a);\n".lstrip()


def ED(linkage: str) -> str:
    return f"{linkage} .entry e (.param .b32 a)\n{{\nret;\n}}\n".lstrip()


BODY_EXTERN = ".visible .func g ()\n{\n.extern .func f (.param .b32 a);\nret;\n}\n"
FUNC_LINKAGE_CASES: list[tuple[str, str]] = [  # (id, decls before the entry k)
    *[(f"proto_{lk or 'plain'}_never_defined", P(lk and "." + lk)) for lk in ("", "visible", "weak", "extern")],
    *[(f"proto_{a or 'plain'}_then_def_{b or 'plain'}", P(a and "." + a) + D(b and "." + b))
      for a, b in (("", ""), ("visible", ""), ("visible", "visible"), ("weak", ""), ("weak", "weak"), ("", "visible"),
                   ("", "weak"), ("visible", "weak"), ("weak", "visible"), ("extern", ""), ("extern", "visible"),
                   ("extern", "weak"))],
    *[(f"def_{b or 'plain'}_then_proto_{a or 'plain'}", D(b and "." + b) + P(a and "." + a))
      for b, a in (("", ""), ("visible", "visible"), ("visible", "extern"), ("weak", "weak"))],
    ("def_then_def", D("") + D("")),
    ("proto_visible_proto_plain_def_visible", P(".visible") + P("") + D(".visible")),
    ("proto_plain_proto_visible_def_visible", P("") + P(".visible") + D(".visible")),
    ("proto_visible_proto_weak_def_plain", P(".visible") + P(".weak") + D("")),
    ("proto_extern_proto_plain", P(".extern") + P("")),
    ("proto_plain_proto_extern_def_plain", P("") + P(".extern") + D("")),
    ("proto_extern_proto_extern", P(".extern") + P(".extern")),
    ("extern_def", D(".extern")),
    ("proto_extern_then_def_extern", P(".extern") + D(".extern")),
    ("entry_proto_plain_never_defined", EP("")),
    ("entry_proto_visible_never_defined", EP(".visible")),
    ("entry_proto_extern_never_defined", EP(".extern")),
    ("entry_proto_plain_then_def_plain", EP("") + ED("")),
    ("entry_proto_visible_then_def_plain", EP(".visible") + ED("")),
    ("entry_proto_plain_then_def_visible", EP("") + ED(".visible")),
    ("entry_proto_extern_then_def_visible", EP(".extern") + ED(".visible")),
    ("entry_def_then_proto_visible", ED(".visible") + EP(".visible")),
    ("entry_def_extern", ED(".extern")),
    ("body_extern_then_def", BODY_EXTERN + D(".visible")),
    ("body_extern_then_module_proto_plain", BODY_EXTERN + P("") + D("")),
    ("body_extern_then_module_proto_extern", BODY_EXTERN + P(".extern")),
    ("module_proto_plain_then_body_extern", P("") + BODY_EXTERN),
    ("proto_reg_then_def_param", P("", "(.reg .b32 a)") + D("", "(.param .b32 a)")),
    ("proto_param_then_def_reg", P("", "(.param .b32 a)") + D("", "(.reg .b32 a)")),
    ("proto_reg_then_def_reg", P("", "(.reg .b32 a)") + D("", "(.reg .b32 a)")),
    ("proto_reg_u32_then_def_reg_b32", P("", "(.reg .u32 a)") + D("", "(.reg .b32 a)")),
    ("extern_reg_then_extern_param", P(".extern", "(.reg .b32 a)") + P(".extern", "(.param .b32 a)")),
    ("extern_param_then_extern_reg", P(".extern", "(.param .b32 a)") + P(".extern", "(.reg .b32 a)")),
    ("proto_reg_return_then_def_param_return", ".func (.reg .b32 r) f;\n.func (.param .b32 r) f\n{\nret;\n}\n"),
    ("module_extern_param_then_body_extern_reg",
     P(".extern") + ".visible .func g ()\n{\n.extern .func f (.reg .b32 a);\nret;\n}\n"),
    ("def_reg_params", D(".visible", "(.reg .b32 a, .reg .b64 b)")),
    ("entry_reg_param", ".visible .entry e (.reg .b32 a)\n{\nret;\n}\n"),
    ("entry_reg_param_multiline", ".visible .entry e (\n.param .b32 b,\n.reg .b32 a\n)\n{\nret;\n}\n"),
    ("proto_b32_then_def_b64", P("", "(.param .b32 a)") + D("", "(.param .b64 a)")),
    ("proto_then_def_b64_multiline", P("") + ".func f (\n.param .b64 a\n)\n{\nret;\n}\n"),
    ("proto_then_def_visible_multiline", P("") + ".visible .func f (\n.param .b32 a\n)\n\n{\nret;\n}\n"),
    ("proto_then_def_noreturn_next_line", P("") + ".func f (\n.param .b32 a\n)\n.noreturn\n{\nret;\n}\n"),
    ("def_then_proto_multiline", D("") + ".func f (\n.param .b32 a\n)\n;\n"),
    ("entry_proto_then_def_visible_multiline", EP("") + ".visible .entry e (\n.param .b32 a\n)\n{\nret;\n}\n"),
    ("entry_proto_then_def_maxntid_next_line", EP("") + ".visible .entry e (.param .b32 a)\n.maxntid 32\n{\nret;\n}\n"),
    ("entry_no_params_proto_then_def_directive_next_line", ".entry e;\n.visible .entry e\n.maxntid 32\n{\nret;\n}\n"),
    ("entry_no_params_proto_then_def_brace_later", ".entry e;\n.visible .entry e\n\n{\nret;\n}\n"),
    ("entry_def_then_def_multiline", ED("") + ".entry e (\n.param .b32 a\n)\n{\nret;\n}\n"),
    ("proto_then_def_block_comment", P("") + ".visible .func f (.param .b32 a) /* a\ncomment */\n{\nret;\n}\n"),
    ("common_func_proto", ".common .func f (.param .b32 a);\n"),
    ("visible_weak_proto", ".visible .weak .func f (.param .b32 a);\n" + D("")),
]
REPLACE_LINES = [
    f"{RP}.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    f"{RP}.shared::cta.global_address.b1024.b64 [%r1], %rd1;",
    "tensormap.replace.b64.shared::cta.global_address.b1024.tile [%r1], %rd1;",
    f"{RP}.global_address [%r1], %rd1;",
    f"{RP}.global_address.b1024.b64 [%rd2], %rd1;",
    f"{RP}.global_address.global.b1024.b64 [%rd1], %rd1;",
    f"{RP}.global_address.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.global_address.shared::cta.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.b1024 [%r1], %rd1;",
    "tensormap.replace.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    "tensormap.replace.im2col.rank.shared::cta.b1024.b32 [%r1], 1;",
    f"{RP}.global_address.shared::cluster.b1024.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared.b1024.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.global.b1024.b64 [%r1], %rd1;",
    f"{RP}.global_address.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    f"{RP}.tile.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.b1024.b64.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.b1024.u64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.foo.b1024.b64 [%r1], %rd1;",
    f"{RP}.b1024.b64 [%r1], %rd1;",
    "tensormap.replace [%r1], 1;",
    f"{RP} [%r1], 1;",
    f"{RP}.global_address.shared::cta.b1024.b64 [%r1];",
    f"{RP}.global_address.shared::cta.b1024.b64 [%r1], %rd1, %rd1;",
    f"{RP}.global_address.shared::cta.b1024.b64 [%r1], 4096;",
    f"{RP}.rank.shared::cta.b1024.b32 [%r1], 1;",
    f"{RP}.rank.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.rank.shared::cta.b1024.b64 [%r1], 1;",
    f"{RP}.rank.shared::cta.b1024.b32 [%r1], 0, 1;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], 0, 8;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], 4, 8;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], 5, 8;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], 8;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], %r2, 8;",
    f"{RP}.box_dim.shared::cta.b1024.b64 [%r1], 0, 8;",
    f"{RP}.global_dim.shared::cta.b1024.b32 [%r1], 0, %r2;",
    f"{RP}.global_dim.shared::cta.b1024.b64 [%r1], 0, 8;",
    f"{RP}.global_stride.shared::cta.b1024.b64 [%r1], 0, 64;",
    f"{RP}.global_stride.shared::cta.b1024.b64 [%r1], 4, %rd1;",
    f"{RP}.global_stride.shared::cta.b1024.b32 [%r1], 0, 64;",
    f"{RP}.element_stride.shared::cta.b1024.b32 [%r1], 0, 1;",
    f"{RP}.element_stride.shared::cta.b1024.b64 [%r1], 0, 1;",
    f"{RP}.elemtype.shared::cta.b1024.b32 [%r1], 1;",
    f"{RP}.elemtype.shared::cta.b1024.b64 [%r1], 1;",
    f"{RP}.elemtype.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.interleave_layout.shared::cta.b1024.b32 [%r1], 0;",
    f"{RP}.interleave_layout.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.swizzle_mode.shared::cta.b1024.b32 [%r1], 1;",
    f"{RP}.swizzle_mode.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.fill_mode.shared::cta.b1024.b32 [%r1], 0;",
    f"{RP}.fill_mode.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.swizzle_atomicity.shared::cta.b1024.b32 [%r1], 0;",
]
COPY_LINES = [
    f"{CP} [%rd1], [%r1], 128;",
    f"{CP} [%rd1], [%rd2], 128;",
    f"{CP} [%rd1], [%r1], 0x80;",
    f"{CP} [%rd1], [%r1], 64;",
    f"{CP} [%rd1], [%r1], %r2;",
    f"{CP} [%rd1], [%r1];",
    f"{CP}.aligned [%rd1], [%r1], 128;",
    f"{CP}.foo [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.shared::cta.global.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cluster.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.acquire.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.cta.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.sync.aligned.global.shared::cta.tensormap::generic.release.gpu [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy [%rd1], [%r1], 128;",
]

#: tensormap.replace field values (PTX ISA table "Tensormap new_val validity"): (line, target, PTX version);
#: the .field3 fields' bounds on sm_90a, values valid only on later targets, and the fields without a range
S90, S100, S103 = ("sm_90a", "8.5"), ("sm_100a", "8.7"), ("sm_103a", "8.8")
VALUE_LINES: list[tuple[str, tuple[str, str]]] = [
    *[(f"{RP}.elemtype.shared::cta.b1024.b32 [%r1], {v};", S90) for v in ("12", "0xC", "13", "015", "16", "-1")],
    *[(f"{RP}.elemtype.shared::cta.b1024.b32 [%r1], {v};", S100) for v in ("13", "15", "16")],
    *[(f"{RP}.interleave_layout.shared::cta.b1024.b32 [%r1], {v};", S90) for v in ("2", "3", "-1")],
    *[(f"{RP}.swizzle_mode.shared::cta.b1024.b32 [%r1], {v};", S90) for v in ("3", "4", "5", "-1")],
    (f"{RP}.swizzle_mode.shared::cta.b1024.b32 [%r1], 4;", S103),
    (f"{RP}.swizzle_mode.shared::cta.b1024.b32 [%r1], 5;", S103),
    *[(f"{RP}.fill_mode.shared::cta.b1024.b32 [%r1], {v};", S90) for v in ("1", "2", "-1")],
    *[(f"{RP}.swizzle_atomicity.shared::cta.b1024.b32 [%r1], {v};", S100) for v in ("3", "4", "-1")],
    *[(f"{RP}.rank.shared::cta.b1024.b32 [%r1], {v};", S90) for v in ("4", "5", "-1", "4294967296")],
    *[(f"{RP}.{f}.shared::cta.b1024.{t} [%r1], {o}, {v};", S90)
      for f, t in (("box_dim", "b32"), ("global_dim", "b32"), ("element_stride", "b32"), ("global_stride", "b64"))
      for o, v in (("0", "257"), ("-1", "1"), ("5", "1"))],
    (f"{RP}.element_stride.shared::cta.b1024.b32 [%r1], 0, 9;", S90),
    (f"{RP}.global_address.shared::cta.b1024.b64 [%r1], -1;", S90),
    (f"{RP}.elemtype.shared::cta.b1024.b32 [%r1], 0f3F800000;", S90),
]


#: tensormap.replace under other targets and versions (item ``tensormap_target``): (line, target, PTX version),
#: every pair one ptxas 13.0 knows (PTX ISA ".target": sm_100a from 8.6, sm_120a 8.7, sm_10xf/sm_103a/sm_121 8.8,
#: sm_110 9.0)
TARGET_LINES: list[tuple[str, str, str]] = [
    *[(f"{RP}.global_address.shared::cta.b1024.b64 [%r1], %rd1;", t, v)
      for t, v in (("sm_90", "8.5"), ("sm_90a", "8.2"), ("sm_90a", "8.3"), ("sm_100", "8.6"), ("sm_100a", "8.6"),
                   ("sm_100f", "8.8"), ("sm_103", "8.8"), ("sm_103a", "8.8"), ("sm_103f", "8.8"), ("sm_110a", "9.0"),
                   ("sm_110f", "9.0"), ("sm_120", "8.7"), ("sm_120a", "8.7"), ("sm_120f", "8.8"), ("sm_121a", "8.8"),
                   ("sm_121f", "8.8"), ("sm_90a, texmode_independent", "8.5"), ("sm_90a, sm_90", "8.5"),
                   ("sm_90, sm_90a", "8.5"), ("texmode_independent", "8.5"), ("sm_90a, foo", "8.5"),
                   ("sm_90a texmode_independent", "8.5"), ("sm_90a, map_f64_to_f32", "8.5"))],
    *[(f"{RP}.elemtype.shared::cta.b1024.b32 [%r1], {v};", t, ver)
      for v, t, ver in (("13", "sm_90a", "8.7"), ("15", "sm_90a", "9.0"), ("13", "sm_100a", "8.6"),
                        ("14", "sm_100a", "8.7"), ("13", "sm_100f", "8.8"), ("15", "sm_103a", "8.8"),
                        ("14", "sm_103f", "8.8"), ("13", "sm_110f", "9.0"), ("15", "sm_120a", "8.7"),
                        ("13", "sm_121f", "8.8"), ("16", "sm_100a", "8.7"), ("12", "sm_100a", "8.6"))],
    *[(f"{RP}.swizzle_mode.shared::cta.b1024.b32 [%r1], {v};", t, ver)
      for v, t, ver in (("4", "sm_103a", "9.0"), ("4", "sm_103f", "8.8"), ("4", "sm_100a", "8.8"),
                        ("4", "sm_100a", "8.7"), ("4", "sm_120a", "8.8"), ("4", "sm_90a", "8.8"), ("4", "sm_90a", "8.5"),
                        ("5", "sm_103a", "8.8"), ("3", "sm_103a", "8.8"))],
    *[(f"{RP}.swizzle_atomicity.shared::cta.b1024.b32 [%r1], 1;", t, ver)
      for t, ver in (("sm_90a", "8.6"), ("sm_90a", "8.5"), ("sm_100f", "8.8"), ("sm_120a", "8.7"), ("sm_103f", "8.8"))],
]


def all_cases() -> list[tuple[str, str, str, str]]:
    """(item, id, arch, ptx) of every case."""
    out = [(item, cid, "sm_90", ptx) for item, cid, ptx in CASES]
    out += [("func_decl", cid, "sm_90", ptx) for cid, ptx in FUNC_DECL_CASES]
    out += [("func_linkage", cid, "sm_90", smem(decls, "")) for cid, decls in FUNC_LINKAGE_CASES]
    for k, line in enumerate(REPLACE_LINES + COPY_LINES):
        target, version = ("sm_100a", "8.6") if "swizzle_atomicity" in line else ("sm_90a", "8.5")
        out.append(("tensormap", f"tensormap_{k:02d}", target, tm(line, target, version)))
    for k, (line, (target, version)) in enumerate(VALUE_LINES):
        out.append(("tensormap_value", f"tensormap_value_{k:02d}", target, tm(line, target, version)))
    for k, (line, target, version) in enumerate(TARGET_LINES):
        arch = (re.findall(r"sm_\d+[af]?", target) or ["sm_90a"])[-1]  # ptxas takes the last platform listed
        out.append(("tensormap_target", f"tensormap_target_{k:02d}", arch, tm(line, target, version)))
    return out


def run_ptxas(ptx: str, arch: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "case.ptx"
        src.write_text(ptx)
        r = subprocess.run(["ptxas", "-v", f"-arch={arch}", str(src), "-o", str(Path(d) / "case.cubin")],
                           capture_output=True, text=True, check=False)
    errors = [ln for ln in r.stderr.splitlines() if re.search(r"\b(error|fatal)\b", ln)]
    first = errors[0].replace(str(src), "case.ptx") if errors else ""
    line = re.search(r"case\.ptx, line (\d+)", first)
    smem_bytes = re.search(r"(\d+) bytes smem", r.stderr)
    return {"ptxas_rc": r.returncode, "ptxas_error": first, "ptxas_error_line": int(line.group(1)) if line else None,
            "smem_bytes": int(smem_bytes.group(1)) if smem_bytes and r.returncode == 0 else None}


def main() -> None:
    version = subprocess.run(["ptxas", "--version"], capture_output=True, text=True, check=True).stdout
    cases = []
    for item, cid, arch, ptx in all_cases():
        cases.append({"item": item, "id": cid, "arch": arch, "ptx": ptx, **run_ptxas(ptx, arch)})
    meta = {"ptxas": version.strip().splitlines()[-1], "command": "ptxas -v -arch=ARCH case.ptx -o case.cubin",
            "generated_by": "tools/ptxas_reader_verdicts.py"}
    OUT.write_text(json.dumps({"meta": meta, "cases": cases}, indent=1) + "\n")
    print(f"{len(cases)} cases, {sum(c['ptxas_rc'] != 0 for c in cases)} refused by ptxas -> {OUT}")


if __name__ == "__main__":
    main()
