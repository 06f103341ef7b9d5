"""``python -m ui.cli`` is the same as ``fujikoro``."""

import sys

from ui.cli.main import main

sys.exit(main())
