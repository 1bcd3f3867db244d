"""``python -m shangmi.cli``: same as the ``shangmi`` command."""

import sys

from shangmi.cli import main

sys.exit(main())
