"""``python -m bizsim.cli``: the ``bizsim`` command."""

import sys

from .main import main

sys.exit(main())
