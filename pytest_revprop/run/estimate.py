"""The estimate of a run before its first call (``--revprop-plan``): what it needs, what the
cache holds, what is left to send, and what that may cost and take. No request is sent, no
server started.

The estimate runs every method of the run the way the runner does (``calls_cover``'s specs,
through ``items.run_item``), but with an Ask that never reaches a server: a call the response
cache answers gets its cached reply, so the method goes on exactly as in the run; any other
call is noted as one to send and answered by a stand-in. What a method asks after a stand-in
depends on replies that do not exist yet, so the estimate runs twice: once with stand-ins that
lead to every call a method can make (a valid patch, a dependency map with an edge) and once
with stand-ins that lead to the fewest (no patch, no map: ``select`` then asks no selection,
``dep`` falls back to the shared ``j+h`` call). A chain's item runs every turn of its chain
(``run.chains``), so its calls are counted turn by turn; a ``free`` chain's later turns show
the replies at hand (cached, else the stand-ins'). The run's calls to send lie in that range;
methods whose calls do not depend on replies (``j``, ``h``, ``j+h``, ``reflect``, the
parallel rules) give one number.

Input tokens are counted from the rendered prompts with the model's own tokenizer when one is
on this machine (a ``tokenizer.json`` of its ``hf_model`` in the Hugging Face cache, read
offline with the ``tokenizers`` package), else approximated (and said so). Output tokens are
a range: the mean of the model's cached replies, up to its output limit. ``sharding`` counts
the expected calls of each case the same way, with no cache.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib.util
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_revprop.core.cases import Case
from pytest_revprop.core.method_context import Ask, Message
from pytest_revprop.llm.cache import ResponseCache
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import Reply, Request
from pytest_revprop.run.cover import calls_cover
from pytest_revprop.run.items import ItemSpec, RunSettings, item_specs, run_item
from pytest_revprop.util.jsonutil import iter_leaves

Mode = Literal["most", "least"]
CHARS_PER_TOKEN = 4
"""The approximation when no tokenizer is at hand: about four UTF-8 bytes per token."""
TOKENS_PER_MESSAGE = 4
"""Chat-template tokens around each message, added to both ways of counting."""


# ------------------------------------------------------------------------------ the census


@dataclass
class Census:
    """The distinct calls of one model's items: every call the run needs (by cache key),
    the cached replies among them, and the requests left to send."""

    needed: dict[str, Request] = field(default_factory=dict)
    cached: dict[str, Reply] = field(default_factory=dict)
    per_case: dict[str, set[str]] = field(default_factory=dict)

    def to_send(self) -> list[Request]:
        """The requests needed that the cache does not answer."""
        return [request for key, request in self.needed.items() if key not in self.cached]


def _stand_in(purpose: str, case: Case, mode: Mode) -> Reply:
    """The reply a call that is not cached gets in the estimate (see the module's docstring)."""
    if mode == "least":
        return Reply(content="", finish_reason="stop")
    if purpose == "map":
        leaves = [pointer for pointer, _ in iter_leaves(case.artifact) if pointer]
        edge = (
            {leaves[0]: {"depends_on": [leaves[1]], "rule": "planned"}} if len(leaves) > 1 else {}
        )
        return Reply(content=json.dumps(edge), finish_reason="stop")
    if purpose == "select":
        return Reply(content="1", finish_reason="stop")
    return Reply(content="[]", finish_reason="stop")


def _same(ask: Ask, view: Case, turn: int) -> Ask:
    """Every turn's calls counted with the item's case (``census``)."""
    return ask


def census(
    cases: Sequence[Case],
    models: Sequence[ModelConfig],
    settings: RunSettings,
    *,
    specs: Sequence[ItemSpec] | None = None,
    use_cache: bool = True,
    mode: Mode = "most",
) -> dict[str, Census]:
    """The census of each calling model (reference solvers make no calls) over ``specs``
    (default: every item of ``cases``), reading the response cache unless ``use_cache`` is
    False or the run has none."""
    by_id = {case.id: case for case in cases}
    calling = {m.name: m for m in models if m.kind != "reference"}
    specs = item_specs(cases, models, settings) if specs is None else specs
    cover = [s for s in calls_cover(specs, settings.registry) if s.model in calling]
    cache = (
        ResponseCache(settings.cache_dir)
        if use_cache and settings.cache_dir is not None and Path(settings.cache_dir).is_dir()
        else None
    )
    found = {name: Census() for name in calling}
    prompts = settings.prompts.remembering()

    def ask_for(case: Case, model: ModelConfig) -> Ask:
        counted = found[model.name]
        keys = counted.per_case.setdefault(case.id, set())

        async def ask(messages: list[Message], seed: int, purpose: str, priority: int) -> Reply:
            structured = settings.structured and purpose != "map"
            request = Request.for_model(model, messages, seed, structured)
            key = request.cache_key()
            counted.needed.setdefault(key, request)
            keys.add(key)
            reply = counted.cached.get(key)
            if reply is None and cache is not None:
                reply = cache.read(key)
                if reply is not None:
                    reply.cost_usd = model.cost_usd(reply.input_tokens, reply.output_tokens)
                    counted.cached[key] = reply
            return reply if reply is not None else _stand_in(purpose, case, mode)

        return ask

    async def run_all() -> None:
        for spec in cover:  # every turn, as the runner runs it (free: on the replies at hand)
            case = by_id[spec.case]
            ask = ask_for(case, calling[spec.model])
            await run_item(case, spec, settings, functools.partial(_same, ask), prompts=prompts)

    asyncio.run(run_all())
    return found


def expected_calls(
    cases: Sequence[Case], models: Sequence[ModelConfig], settings: RunSettings
) -> dict[str, int]:
    """Each case's expected calls (for ``sharding``): the distinct calls its items make with
    no cache, at most, at the run's first seed times its seeds (each seed asks alike); a run
    of reference solvers counts its items instead. Every model asks the same prompts, so one
    model's calls weigh the cases."""
    calling = [m for m in models if m.kind != "reference"]
    if not calling:
        counts: dict[str, int] = dict.fromkeys((c.id for c in cases), 0)
        for spec in item_specs(cases, models, settings):
            counts[spec.case] += 1
        return counts
    one_seed = dataclasses.replace(settings, seeds=list(settings.seeds)[:1])
    found = census(cases, calling[:1], one_seed, use_cache=False)[calling[0].name]
    seeds = len(settings.seeds)
    return {case.id: seeds * len(found.per_case.get(case.id, ())) for case in cases}


# ------------------------------------------------------------------------------ tokens


TokenCounter = Callable[[str], int]


def token_counter(model: ModelConfig) -> tuple[TokenCounter, str]:
    """How to count the tokens of a text for ``model``, and how the count was made: its own
    tokenizer when one is on this machine (never downloaded), else an approximation."""
    path = _local_tokenizer(model.hf_model)
    if path is not None:
        from tokenizers import Tokenizer  # only when a tokenizer file is at hand

        tokenizer = Tokenizer.from_file(str(path))
        return (
            lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids),
            f"counted with {model.hf_model}'s tokenizer",
        )
    return (
        lambda text: math.ceil(len(text.encode("utf-8")) / CHARS_PER_TOKEN),
        f"an approximation (UTF-8 bytes / {CHARS_PER_TOKEN}): no tokenizer of {model.name} "
        "on this machine",
    )


def _local_tokenizer(hf_model: str | None) -> Path | None:
    if not hf_model or importlib.util.find_spec("tokenizers") is None:
        return None
    home = os.environ.get("HF_HOME") or os.path.join(Path.home(), ".cache", "huggingface")
    hub = Path(os.environ.get("HF_HUB_CACHE") or os.path.join(home, "hub"))
    snapshots = hub / ("models--" + hf_model.replace("/", "--")) / "snapshots"
    found = sorted(snapshots.glob("*/tokenizer.json")) if snapshots.is_dir() else []
    return found[-1] if found else None


def prompt_tokens(request: Request, count: TokenCounter) -> int:
    """The tokens of a request's prompt by ``count``, with the chat template's around each message."""
    texts = [content for _, content in request.messages]
    return sum(count(text) for text in texts) + TOKENS_PER_MESSAGE * len(texts)


# ------------------------------------------------------------------------------ the estimate


@dataclass
class ModelEstimate:
    """One model's estimate. ``to_send`` is the most calls left to send, ``to_send_least`` the
    fewest (they differ when calls depend on replies not made yet)."""

    model: str
    items: int
    needed: int
    needed_least: int
    cached: int
    to_send: int
    to_send_least: int
    input_tokens: int
    tokens_how: str
    output_mean: float | None
    output_limit: int
    price_in: float
    price_out: float
    latency_mean: float | None
    concurrency: int

    @property
    def cost_range(self) -> tuple[float, float]:
        """The cost of the calls to send: at the cached mean output (no output when there is
        none) for the fewest calls, and at the output limit for the most."""
        per_call_in = self.input_tokens / self.to_send if self.to_send else 0.0
        low_out = (self.output_mean or 0.0) * self.to_send_least
        low = (per_call_in * self.to_send_least * self.price_in + low_out * self.price_out) / 1e6
        high = (
            self.input_tokens * self.price_in + self.output_limit * self.to_send * self.price_out
        ) / 1e6
        return low, high

    def to_dict(self) -> dict[str, Any]:
        """The estimate as plain data, with its cost range."""
        low, high = self.cost_range
        return {**self.__dict__, "cost_usd_low": low, "cost_usd_high": high}


def estimate_run(
    cases: Sequence[Case],
    models: Sequence[ModelConfig],
    settings: RunSettings,
    specs: Sequence[ItemSpec],
) -> list[ModelEstimate]:
    """The estimate of the items ``specs`` (of ``cases``), model by model, in the run's order."""
    most = census(cases, models, settings, specs=specs)
    least = census(cases, models, settings, specs=specs, mode="least")
    estimates = []
    for model in models:
        items = sum(1 for s in specs if s.model == model.name)
        found = most.get(model.name)
        if found is None:  # a reference solver
            estimates.append(ModelEstimate(model.name, items, 0, 0, 0, 0, 0, 0, "no calls", None, 0,
                                   0.0, 0.0, None, 0))  # fmt: skip
            continue
        fewest = least[model.name]
        count, how = token_counter(model)
        sending = found.to_send()
        replies = list(found.cached.values()) + [
            r for k, r in fewest.cached.items() if k not in found.cached
        ]
        outputs = [r.output_tokens for r in replies if r.output_tokens]
        latencies = [r.latency_s for r in replies if r.latency_s > 0]
        estimates.append(
            ModelEstimate(
                model=model.name,
                items=items,
                needed=len(found.needed),
                needed_least=len(fewest.needed),
                cached=len(found.cached),
                to_send=len(sending),
                to_send_least=len(fewest.to_send()),
                input_tokens=sum(prompt_tokens(r, count) for r in sending),
                tokens_how=how,
                output_mean=sum(outputs) / len(outputs) if outputs else None,
                output_limit=model.max_tokens,
                price_in=model.price_in,
                price_out=model.price_out,
                latency_mean=sum(latencies) / len(latencies) if latencies else None,
                concurrency=min(
                    settings.concurrency, model.max_concurrency or settings.concurrency
                ),
            )
        )
    return estimates


def _range(low: int, high: int) -> str:
    return f"{high:,}" if low == high else f"{low:,} to {high:,}"


def _output_line(p: ModelEstimate) -> str:
    """The output tokens to send, in words: what the cached replies suggest, and the most the
    output limit allows."""
    if p.to_send == 0:
        return "  output tokens to send: none (the cache answers every call)"
    most = f"at most {p.output_limit * p.to_send:,} ({p.output_limit:,} a call, the output limit)"
    if p.output_mean is None:
        return (
            f"  output tokens to send: {most}; no cached reply of this model to say how many less"
        )
    likely = p.output_mean * p.to_send_least
    return (
        f"  output tokens to send: about {likely:,.0f} ({p.output_mean:,.0f} a call, the mean of"
        f" this model's cached replies), {most}"
    )


def estimate_lines(estimates: Sequence[ModelEstimate], *, shard: object = None) -> list[str]:
    """The estimate as the terminal prints it (``shard``: the run's, if any)."""
    where = "" if shard is None else f" of shard {shard}"
    lines = [f"revprop plan{where}: no request sent"]
    for p in estimates:
        if p.tokens_how == "no calls":
            lines.append(f"{p.model}: {p.items:,} items, a reference solver: no calls")
            continue
        lines.append(
            f"{p.model}: {p.items:,} items; calls needed {_range(p.needed_least, p.needed)}, "
            f"answered by the cache {p.cached:,}, to send {_range(p.to_send_least, p.to_send)}"
        )
        if p.to_send_least != p.to_send:
            lines.append(
                f"  {p.to_send - p.to_send_least:,} of the calls to send depend on replies not "
                "made yet (a selection, a call with a dependency map)"
            )
        lines.append(f"  input tokens to send: {p.input_tokens:,} ({p.tokens_how})")
        lines.append(_output_line(p))
        low, high = p.cost_range
        if p.price_in or p.price_out:
            lines.append(
                f"  cost: ${low:,.4f} to ${high:,.4f} at ${p.price_in:g} in / ${p.price_out:g} "
                "out per 1M tokens"
            )
        else:
            lines.append("  cost: unpriced (set [tool.revprop.prices] to see it)")
        if p.latency_mean is None:
            lines.append("  time: unknown (no cached latencies of this model)")
        elif p.to_send:
            seconds = p.latency_mean * math.ceil(p.to_send / max(p.concurrency, 1))
            lines.append(
                f"  time: about {seconds:,.0f} s at {p.concurrency} calls in flight per process "
                f"(cached mean latency {p.latency_mean:.2f} s)"
            )
    sends = sum(p.to_send for p in estimates)
    sends_least = sum(p.to_send_least for p in estimates)
    lines.append(f"total: {_range(sends_least, sends)} calls to send, {total_cost(estimates)}")
    return lines


# ------------------------------------------------------------------------------ the gate's sight


def gate_sight_lines(
    cases: int,
    seeds: int,
    detect: float | None,
    *,
    metric: str = "completion",
    alpha: float | None = None,
) -> list[str]:
    """The plan's lines on what a gate of this run could see (docs/protocol.md, "What the
    gate can see"): the smallest drop its pairs per (model, method, k) detect with 80% power,
    and with ``detect`` (points, ``--revprop-detect``) how many cases and seeds a drop of that
    size needs. No discordance is observed before a run, so both assume that no sample
    improves: the best case, which a real gate can only fall short of (the gate's own line
    quotes the observed discordance). Under ``metric`` ``pass_all_seeds`` a pair is a case."""
    from pytest_revprop.reporting.power import DEFAULT_POWER, detectable_drop
    from pytest_revprop.reporting.sight import counted, detect_need
    from pytest_revprop.reporting.stats import DEFAULT_ALPHA

    alpha = DEFAULT_ALPHA if alpha is None else alpha
    by_case = metric == "pass_all_seeds"
    pairs = cases if by_case else cases * seeds
    best = detectable_drop(pairs, alpha) if pairs else None
    seen = f"a drop of {100 * best:g} points or more" if best is not None else "no drop at all"
    made = counted(cases, "case") + (" (pass^S)" if by_case else f" x {counted(seeds, 'seed')}")
    how = f"{100 * DEFAULT_POWER:.0f}% power, exact McNemar at alpha {alpha:g}"
    lines = [
        f"gate: {made} = {pairs} pairs per (model, method, k) detect at best {seen} "
        f"({how}, if no sample improves)"
    ]
    if detect is not None:
        need = detect_need(detect, cases, 1 if by_case else seeds, alpha)
        if by_case and need.pairs is not None:
            lines.append(
                f"gate: a {detect:g}-point drop of pass^S needs at least {need.pairs} cases "
                "(if no case improves)"
            )
        else:
            lines.append("gate: " + need.words("at least; if no sample improves"))
    return lines


def total_cost(estimates: Sequence[ModelEstimate]) -> str:
    """The estimate's cost in words: a dollar range over the priced models, and the models
    with calls to send and no prices named as unpriced (never a made-up $0)."""
    unpriced = [
        p.model
        for p in estimates
        if p.tokens_how != "no calls" and p.to_send and not (p.price_in or p.price_out)
    ]
    priced = [p for p in estimates if p.model not in unpriced]
    low = sum(p.cost_range[0] for p in priced)
    high = sum(p.cost_range[1] for p in priced)
    if not unpriced:
        return f"${low:,.4f} to ${high:,.4f}"
    names = ", ".join(unpriced)
    if not high:
        verb = "has" if len(unpriced) == 1 else "have"
        return f"cost unpriced ({names} {verb} no prices)"
    return f"${low:,.4f} to ${high:,.4f} plus the unpriced calls of {names}"
