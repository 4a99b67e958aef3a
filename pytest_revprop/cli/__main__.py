"""``python -m pytest_revprop.cli``: the ``revprop`` command without its script."""

import sys

from pytest_revprop.cli import main

sys.exit(main())
