"""`python -m bot`: the `runai-why` command line (how a supervisor starts its processes)."""

import sys

from bot.app.cli import main

sys.exit(main())
