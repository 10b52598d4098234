"""Interpreter of PTX: values, machine state, instruction semantics."""
