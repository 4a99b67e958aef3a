"""pytest-revprop: revision-propagation evaluation (RevPropBench) as a pytest plugin.

The one-job core modules sit flat in this package in the order data flows through them; the
families have a subpackage each (``llm``, ``servers``, ``reporting``, ``authoring``,
``testing``). Only ``plugin`` and ``session`` import pytest. docs/architecture.md maps every
module; docs/protocol.md, docs/case-format.md and docs/interfaces.md state the rules.
"""

__version__ = "0.1.0"
