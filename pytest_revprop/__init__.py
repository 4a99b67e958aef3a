"""pytest-revprop: revision-propagation evaluation (RevPropBench) as a pytest plugin.

The top level is the package's face (``api``, ``hookspecs``, ``vocabulary``, ``errors``); each
layer or family is a subpackage: ``util``, ``llm``, ``core``, ``servers``, ``reporting``,
``run``, ``authoring``, ``testing``, and the two front ends, ``plugin`` (pytest, the only one
that imports it) and ``cli`` (the ``revprop`` command). docs/architecture.md maps every module;
docs/protocol.md, docs/case-format.md and docs/interfaces.md state the rules.

PYTEST_DONT_REWRITE: this file holds no assertion, and a pytest session started inside another
(pytester's in-process runs) finds it imported already; the marker keeps that session from
warning that it cannot rewrite it.
"""

__version__ = "0.1.0"
