"""Notebook display for the library's objects, forwarded at call time to the front end that draws them.

Jupyter calls ``_repr_svg_`` / ``_repr_html_`` on a displayed value.  The pictures are drawn by
:mod:`layoutalg.viz.notebook` (layer 7), which a lower layer must not import; :func:`attach_display` gives a
class those two methods, each importing the drawing module only when a notebook asks for a picture (the
sanctioned facade listed in ``tests/test_layering.py``).  A drawing function may return None (too large to
draw): Jupyter then shows the text form.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


def _forward(function: str) -> Callable[[Any], Any]:
    def method(self: Any) -> Any:
        return getattr(importlib.import_module("layoutalg.viz.notebook"), function)(self)

    method.__name__ = function
    method.__doc__ = f"Rich display in notebooks: :func:`layoutalg.viz.notebook.{function}`."
    return method


def attach_display(*classes: type, html: str, svg: str | None = None) -> None:
    """Give each class ``_repr_html_`` (and ``_repr_svg_``) drawn by the named functions of the notebook module."""
    for cls in classes:
        cls._repr_html_ = _forward(html)  # type: ignore[attr-defined]
        if svg is not None:
            cls._repr_svg_ = _forward(svg)  # type: ignore[attr-defined]


__all__ = ["attach_display"]
