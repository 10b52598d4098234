"""``python -m layoutalg``: the same as the ``layoutalg`` command."""

import sys

from layoutalg.cli import main

sys.exit(main())
