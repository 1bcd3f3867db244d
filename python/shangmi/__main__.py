"""``python -m shangmi`` runs the ``shangmi`` command."""

import sys

from shangmi.cli import main

sys.exit(main())
