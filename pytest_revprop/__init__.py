"""pytest-revprop: revision-propagation evaluation (RevPropBench) as a pytest plugin.

The one-job core modules sit flat in this package in the order data flows through them; the
families have a subpackage each (``llm``, ``servers``, ``reporting``, ``authoring``,
``testing``); the pytest glue is the ``plugin`` package, the only one that imports pytest.
docs/architecture.md maps every module; docs/protocol.md, docs/case-format.md and docs/interfaces.md state the rules.
"""

__version__ = "0.1.0"
