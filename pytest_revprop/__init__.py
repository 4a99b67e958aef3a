"""pytest-revprop: revision-propagation evaluation (RevPropBench) as a pytest plugin.

The core modules (cases, scoring, merge, methods, client, report) never import pytest;
``plugin.py`` is the only pytest glue.
"""

__version__ = "0.1.0"
