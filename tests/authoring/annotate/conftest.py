"""What the browser tests of revprop annotate share: ``server``, one ``revprop annotate`` (the
``gold`` model) on the test's own ``folder``, which each module's ``folder`` fixture fills."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.annotate_helpers import AnnotateProcess


@pytest.fixture
def server(folder: Path, tmp_path: Path) -> Iterator[AnnotateProcess]:
    """A server on the module's ``folder``, started in the test's own temporary folder."""
    with AnnotateProcess([str(folder), "--port", "0", "--model", "gold"], cwd=tmp_path) as srv:
        yield srv
