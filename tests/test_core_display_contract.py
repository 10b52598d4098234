"""Contract of `layoutalg.core.display`: a displayed Layout's notebook methods return what the notebook module
draws for it (an SVG picture and an HTML figure), not None."""

from __future__ import annotations

import layoutalg as la
from layoutalg.viz import notebook


def test_a_layouts_notebook_methods_return_the_notebook_modules_pictures() -> None:
    layout = la.Layout((2, 4), (4, 1))
    svg = layout._repr_svg_()  # type: ignore[attr-defined]
    html = layout._repr_html_()  # type: ignore[attr-defined]
    assert svg == notebook.layout_svg(layout) and svg.lstrip().startswith("<svg")
    assert html == notebook.layout_html(layout) and "<svg" in html
