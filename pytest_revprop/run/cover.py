"""Which items' calls cover a run's (for making calls ahead): the call-cover policy, from
what each method declares and whether the run's protocol lets items share calls, and each
xdist worker's share of it. No pytest here.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_revprop.core.protocols import protocol
from pytest_revprop.core.registry import MethodRegistry, builtin_registry
from pytest_revprop.run.items import ItemSpec


def calls_cover(
    specs: Sequence[ItemSpec], registry: MethodRegistry | None = None
) -> list[ItemSpec]:
    """The specs whose calls include every call of ``specs`` (for making calls ahead).

    From what each method declares (registry.MethodSpec), per case, model and base seed:
    methods of one call group make the same calls at one k (the parallel rules), so one of
    them is kept; a method that another one ``includes`` (``j+h``: the first sample of
    ``reflect`` and of every parallel rule) is dropped; every other method is kept. So it is
    under a protocol that ``shares_calls`` (``teacher``: its turns show every method the same
    conversation); under any other every item is kept (``free``: its later turns show the
    method's own patches).
    """
    registry = registry or builtin_registry()
    first_of_group: dict[tuple[str, str, str, int, int], str] = {}
    included: set[tuple[str, str, str, int]] = set()
    for s in specs:
        method = registry.get(s.method)
        if method.call_group is not None:
            first_of_group.setdefault((s.case, s.model, method.call_group, s.k, s.seed), s.method)
        for name in method.includes:
            included.add((s.case, s.model, name, s.seed))
    kept = []
    for s in specs:
        if not protocol(s.chain).shares_calls:
            kept.append(s)
            continue
        group = registry.get(s.method).call_group
        if group is not None and first_of_group[(s.case, s.model, group, s.k, s.seed)] != s.method:
            continue
        if (s.case, s.model, s.method, s.seed) in included:
            continue
        kept.append(s)
    return kept


def worker_share(
    specs: Sequence[ItemSpec], index: int, count: int, registry: MethodRegistry | None = None
) -> list[ItemSpec]:
    """The specs whose calls xdist worker ``index`` of ``count`` makes ahead: every
    ``count``-th case (cases cost about the same), reduced by ``calls_cover``."""
    cases = list(dict.fromkeys(s.case for s in specs))
    mine = set(cases[index % max(count, 1) :: max(count, 1)])
    return calls_cover([s for s in specs if s.case in mine], registry)


__all__ = ["calls_cover", "worker_share"]
