"""Pictures and tables of layouts: :mod:`grid` (the data), :mod:`svg`, :mod:`png`, :mod:`tikz`,
:mod:`heatmap` (bank heat maps) and :mod:`text` (``print_layout``-style tables).

Nothing is imported here, so ``import layoutalg.viz.svg`` stays light; Pillow is
loaded only by :mod:`png` when a PNG is written.
"""
