"""``python -m <package>.doctor``: the command line lives in ``_cli``."""

from __future__ import annotations

import sys

from ._cli import main

sys.exit(main())
