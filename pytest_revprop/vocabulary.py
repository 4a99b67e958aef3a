"""The protocol's names, their ``Literal`` types, the result record and the exit codes.

Every other module takes these names from here instead of restating them. This module
imports nothing of ours (and nothing outside the standard library), so any module may use it.
See docs/protocol.md for what each name means.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, TypedDict, get_args

# --------------------------------------------------------------------------- methods

MethodName = Literal["j", "h", "j+h", "reflect", "or", "and", "maj", "med", "select"]
METHODS: Final[tuple[MethodName, ...]] = get_args(MethodName)
"""The nine methods of the protocol (the paper's), in the order reports list them."""
DEP_METHOD: Final = "dep"
"""The tenth built-in method (beyond the paper): the dependency map first, then j+h with it."""
BUILTIN_METHODS: Final[tuple[str, ...]] = (*METHODS, DEP_METHOD)
"""Every built-in method, in the order reports list them; registered methods follow by name."""
RevisionContext = Literal["j", "h", "j+h"]
"""What a revision call shows the model: the artifact, the conversation, or both."""
REVISION_CONTEXTS: Final[tuple[RevisionContext, ...]] = get_args(RevisionContext)
SINGLE_CALL_METHODS: Final[tuple[RevisionContext, ...]] = REVISION_CONTEXTS
"""The methods of one revision call, named by its context."""
MergeRule = Literal["or", "and", "maj", "med"]
"""How parallel samples are combined (merge.py)."""
MERGE_RULES: Final[tuple[MergeRule, ...]] = get_args(MergeRule)
"""The parallel methods that combine their samples by a rule (``select`` asks the model)."""
ALL_METHODS: Final = "all"
"""In a list of methods: every registered one (the built-ins, then the others)."""
PAPER_METHODS: Final = "paper"
"""In a list of methods: the paper's nine (``METHODS``)."""
METHOD_SETS: Final[tuple[str, ...]] = (ALL_METHODS, PAPER_METHODS)
"""The names that stand for a set of methods (no method may take them)."""
METHOD_NAME_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$"
"""A method name: letters, digits and ``_ . + -`` (it goes into item ids and option values)."""
BASELINE_METHOD: Final = "j+h"
"""The method every gain, cost multiple and latency multiple is relative to."""

# --------------------------------------------------------------------------- seeds and sizes

PAPER_SEEDS: Final[tuple[int, ...]] = (0, 42, 84, 126, 168)
"""The five base seeds of a run (one run per seed)."""
DEFAULT_K: Final = 5
BENCHMARK_SIZES: Final[tuple[int, ...]] = (10, 50, 100)
"""Leaf counts of the shipped benchmark's three cases per scenario."""

# --------------------------------------------------------------------------- chains

ChainProtocol = Literal["off", "teacher", "free"]
"""How a run treats the follow-ups of its cases (docs/interfaces.md, "Revision chains"): not at
all (``off``, one revision per item), each turn from the canonical document before it
(``teacher``), or each turn from the model's own document after the one before (``free``)."""
CHAIN_PROTOCOLS: Final[tuple[ChainProtocol, ...]] = get_args(ChainProtocol)
CHAIN_OFF: Final = "off"
CHAIN_RECORD_KEYS: Final = ("chain", "turns", "turns_completed", "regressions")
"""The fields a chain item's record adds to a single revision's (docs/interfaces.md)."""

# --------------------------------------------------------------------------- cases

Domain = Literal[
    "travel_itinerary",
    "invoice",
    "shopping_cart",
    "project_schedule",
    "course_plan",
    "data_pipeline",
    "deployment_config",
    "org_access",
    "manufacturing_bom",
]
DOMAINS: Final[tuple[Domain, ...]] = get_args(Domain)
"""The shipped benchmark's domains (user-made case sets may use others)."""
Pattern = Literal[
    "arithmetic", "substitution", "add_remove", "threshold", "temporal", "status_flip"
]
PATTERNS: Final[tuple[Pattern, ...]] = get_args(Pattern)
Split = Literal["dev", "test"]
SPLITS: Final[tuple[Split, ...]] = get_args(Split)
Matcher = Literal["strict", "regex_match", "any", "ref_equal"]
MATCHERS: Final[tuple[Matcher, ...]] = get_args(Matcher)
OpKind = Literal["direct", "cascade"]
"""A gold operation is named by the request (direct) or forced by a dependency (cascade)."""
OP_KINDS: Final[tuple[OpKind, ...]] = get_args(OpKind)
AnnotationStatus = Literal["draft", "annotated", "reviewed", "changed"]
ANNOTATION_STATUSES: Final[tuple[AnnotationStatus, ...]] = get_args(AnnotationStatus)

BENCHMARK_MARKERS: Final[tuple[str, ...]] = (
    *DOMAINS,
    *PATTERNS,
    *SPLITS,
    *(f"size{size}" for size in BENCHMARK_SIZES),
)
"""Markers every run declares, so that `-m` on them never warns (a run adds its own too)."""

# --------------------------------------------------------------------------- outcomes

FailureKind = Literal["miss", "over_edit", "wrong_value"]
"""Where a valid reply went wrong, place by place."""
FAILURE_KINDS: Final[tuple[FailureKind, ...]] = get_args(FailureKind)
OUTCOME_COLUMNS: Final[tuple[str, ...]] = (*FAILURE_KINDS, "invalid")
"""The failure categories reports count: the three kinds plus invalid replies."""
InvalidReason = Literal["no_patch", "not_a_patch", "apply_error"]
"""Why a reply is invalid (scoring)."""
INVALID_REASONS: Final[tuple[InvalidReason, ...]] = get_args(InvalidReason)
ResultError = Literal[
    "no_patch", "not_a_patch", "apply_error", "truncated", "call_failed", "method_failed"
]
"""A result's ``error``: an invalid reply, a reply cut off at the output limit, a call that
failed after its retries, or a method whose code failed (raised, returned something that is
no result, made no call); the last two are infrastructure errors, left out of completion
rates."""
INFRASTRUCTURE_ERRORS: Final[frozenset[str]] = frozenset({"call_failed", "method_failed"})
OutcomeError = Literal["no_patch", "not_a_patch", "apply_error", "truncated"]
"""The errors a method may give as its outcome (the infrastructure errors are the runner's)."""
OUTCOME_ERRORS: Final[tuple[OutcomeError, ...]] = get_args(OutcomeError)

CallRole = Literal["sample", "select", "reflect", "map"]
"""What a model call is for inside a method: a revision sample (its reply is a patch), a
selection among candidates, a reflection round, a dependency map (docs/hooks.md)."""
CALL_ROLES: Final[tuple[CallRole, ...]] = get_args(CallRole)

Transport = Literal["litellm", "direct"]
"""How a call reaches the server: through litellm, or posted directly (self-hosted only)."""
TRANSPORTS: Final[tuple[Transport, ...]] = get_args(Transport)


class FailedCall(TypedDict, total=False):
    """A model call that failed for good (an item's ``failed_call``), in builtin types.

    ``model`` is the litellm model string and ``url`` the API base of the last attempt (None:
    the provider's default); ``attempts`` were made (0: not sent, the provider had refused the
    credentials already); ``retryable`` is False when the failure could not succeed on retry
    (it was then not retried); ``refused``: the provider refused the credentials; ``error``:
    the server's last answer, redacted, on one line; ``role``, ``seed`` and ``round`` (reflect
    rounds only) name the call inside its method."""

    model: str
    url: str | None
    attempts: int
    retryable: bool
    refused: bool
    error: str
    role: CallRole
    seed: int
    round: int | None


# --------------------------------------------------------------------------- records


class ResultRow(TypedDict):
    """One result of results.json: the fields the interface fixes."""

    case: str
    model: str
    method: str
    k: int
    seed: int
    completed: bool
    valid: bool
    error: str | None
    miss: int
    over_edit: int
    wrong_value: int
    cost_usd: float
    latency_s: float
    calls: int
    patch: list[dict[str, Any]] | None


class ResultRecord(ResultRow):
    """One item's record as it travels from the runner to the reports (builtin types only, so
    that it crosses xdist): the result row plus what the reports and the browser need."""

    reason: str | None
    findings: list[dict[str, Any]]
    selection_fallback: bool | None
    map_valid: bool | None
    """dep only: whether the dependency map had a valid edge (else None)."""
    map_edges: int | None
    """dep only: the edges of the checked map."""
    map_dropped: int | None
    """dep only: the map's pointers dropped as not in the artifact."""
    domain: str
    pattern: str
    size: int
    split: str
    request: str
    replies: list[dict[str, Any]]
    failed_call: FailedCall | None
    cascade_recall: float | None
    """Beyond the paper: the share of the gold's required cascade places the reply got right
    (None: the gold has none, or the call failed); 0 for an invalid reply."""
    preservation: float | None
    """Beyond the paper: one minus the share of the artifact's places outside every gold path
    that the reply changed (None: there are none, or the call failed); 0 for an invalid reply."""


class SummaryRow(TypedDict):
    """One row of results.json's ``summary``: one (model, method, k) (docs/interfaces.md).
    ``completion_rate`` and ``completion_std`` are None when no item of it has a result
    (every one an infrastructure error)."""

    model: str
    method: str
    k: int
    n_cases: int
    runs: int
    completion_rate: float | None
    completion_std: float | None
    miss: int
    over_edit: int
    wrong_value: int
    invalid: int
    cost_usd: float
    latency_s: float
    calls: int
    n_items: int
    errors: int
    truncated: int
    selection_fallbacks: int
    completion_by_seed: dict[str, float]
    invalid_by_reason: dict[str, int]
    """``invalid`` split by the results' ``error`` (``no_patch``, ``not_a_patch``,
    ``apply_error``, ``truncated``), only the reasons that occur."""


ITEM_KEY_FIELDS: Final[tuple[str, ...]] = ("case", "model", "method", "k", "seed")
"""The fields of a record that name its item."""
ItemKey = tuple[str, str, str, int, int]
"""An item's key: its ``ITEM_KEY_FIELDS`` in order."""


def item_key(record: Mapping[str, Any]) -> ItemKey:
    """The key of the item that ``record`` (a result record, or any mapping with the
    ``ITEM_KEY_FIELDS``) names: how every part of a run tells one item from another."""
    return (record["case"], record["model"], record["method"], record["k"], record["seed"])


VERDICT_FIELDS: Final[tuple[str, ...]] = ("completed", "valid", "error")
"""Whether a sample completed, whether its reply was valid, and its error."""
SCORE_FIELDS: Final[tuple[str, ...]] = (*VERDICT_FIELDS, *FAILURE_KINDS)
"""What scoring says of a reply (``revprop score``'s output)."""
USAGE_FIELDS: Final[tuple[str, ...]] = ("cost_usd", "latency_s", "calls")
OUTCOME_FIELDS: Final[tuple[str, ...]] = (*SCORE_FIELDS, *USAGE_FIELDS)
"""An item's outcome: its score and its usage (JUnit properties, the outcome table)."""
FIXED_RESULT_KEYS: Final[tuple[str, ...]] = tuple(ResultRow.__annotations__)
"""The keys of a result row that the interface fixes, in the order results.json writes them."""
SAMPLE_ONLY_KEYS: Final[tuple[str, ...]] = ("request", "replies", "failed_call")
"""Record keys that go to samples.jsonl but not to results.json."""
RESULT_KEYS: Final[tuple[str, ...]] = tuple(
    key for key in ResultRecord.__annotations__ if key not in SAMPLE_ONLY_KEYS
)
"""The keys of a results.json row: the fixed ones, then the project's additions."""

# --------------------------------------------------------------------------- the gate

GateMetric = Literal["completion", "pass_all_seeds", "chain"]
"""What the baseline gate compares per (model, method, k): the completion rate over samples
(the paper's, paired by case and seed), pass^S (paired by case: a case passes when it
completes at every seed both runs share), or, in a chain run, chain completion (paired by case
and seed: a chain passes when every turn completed)."""
GATE_METRICS: Final[tuple[GateMetric, ...]] = get_args(GateMetric)

# --------------------------------------------------------------------------- exit codes

REGRESSION_EXIT: Final = 6
"""Exit status of a run whose results regress against the baseline: the plugin's gate and
``revprop compare --fail-on-regression`` both use it."""
CUT_EXIT: Final = 8
"""The bit a run cut short by its spending ceiling (``--revprop-max-cost``) ORs into its exit
status: a cut run never exits 0 (0 -> 8, 1 -> 9, a regression's 6 -> 14)."""
USAGE_EXIT: Final = 2
"""Exit status of a `revprop` command given unusable input (a one-line error)."""
PYTEST_USAGE_EXIT: Final = 4
"""pytest's usage error (``pytest.ExitCode.USAGE_ERROR``): a run stopped by a one-line error,
or a baseline gate that could compare nothing."""
PYTEST_UNFINISHED_EXITS: Final[frozenset[int]] = frozenset({2, 3, 4, 5})
"""pytest's interrupted, internal error, usage error and no-tests statuses: the run itself did
not go as asked, and the gate's verdict never replaces them."""
