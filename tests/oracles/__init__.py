"""Reusable oracles for differential tests: CuTe DSL (``cute_dsl``), pycute (``pycute_ref``), plain references (``reference``)."""
