"""PTX front end: :func:`parse_module` turns PTX text into :mod:`.nodes` data."""

from layoutalg.kernel.ptx.nodes import Function, Instruction, Loc, Module, Variable
from layoutalg.kernel.ptx.parser import parse_module

__all__ = ["parse_module", "Module", "Function", "Instruction", "Variable", "Loc"]
