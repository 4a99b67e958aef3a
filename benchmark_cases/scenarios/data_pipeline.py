"""data_pipeline: a data engineer plans batch pipelines (volumes, costs, stages, rollouts).

Six scenarios, one per propagation pattern. Every rule the gold depends on is stated by the
user in the conversation; ``compute`` applies those rules, so the gold is the diff of the
artifact before and after the edited input. Every scenario also declares the space its inputs
are drawn from and its moves, so it generates fresh instances and long chains.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

from pytest_revprop.authoring.helpers import add_days, dollars, money
from pytest_revprop.authoring.scenario import (
    Draw,
    Move,
    Revision,
    Scenario,
    Turn,
    regex,
    shipped_params,
)

DOMAIN = "data_pipeline"


def _clock(start: str, minutes: int) -> str:
    """``_clock("23:30", 45) == "00:15"`` (wall-clock time, wrapping at midnight)."""
    hours, mins = (int(x) for x in start.split(":"))
    total = (hours * 60 + mins + minutes) % (24 * 60)
    return f"{total // 60:02d}:{total % 60:02d}"


# =========================================================================== pipeline-raw-volume-costs
# Arithmetic: the daily raw volume feeds clean volume, retained storage, workers, and every cost line.

COMPUTE_USD_PER_RAW_GB = 0.5
STORAGE_USD_PER_GB_MONTH = 0.02
DAYS_PER_MONTH = 30
RETENTION_DAYS = 90
GB_PER_WORKER = 40
EVENTS_PER_GB = 2_000_000
PIPELINE_BUDGET_USD = 3000
TEAM_BUDGET_USD = 4000
MOBILE_RAW_GB = 48


def _volume_costs(
    raw_gb: int,
    retention_days: int = RETENTION_DAYS,
    clean_pct: int = 75,
    rate: float = COMPUTE_USD_PER_RAW_GB,
) -> dict[str, Any]:
    """The cost chain the user states: clean is 75% of raw, 90 days of clean output are kept
    (the follow-ups change the share and the days for clickstream only)."""
    clean = raw_gb * clean_pct // 100
    retained = clean * retention_days
    per_day = money(raw_gb * rate)
    per_month = money(per_day * DAYS_PER_MONTH)
    storage = money(retained * STORAGE_USD_PER_GB_MONTH)
    return {
        "clean": clean,
        "retained": retained,
        "compute_per_day": per_day,
        "compute_per_month": per_month,
        "storage": storage,
        "total": money(per_month + storage),
    }


DROP_WORDS = {75: "a quarter", 80: "a fifth", 70: "30%", 90: "a tenth"}
"""What cleaning throws away, in the user's words, for each clean share."""


def _whole_clean(raw_gb: int, clean_pct: int) -> bool:
    """Whether clean (``clean_pct`` of ``raw_gb``) and aggregate (a tenth of clean) volumes are
    whole GB: no rounding the conversation does not state."""
    return raw_gb * clean_pct % 100 == 0 and raw_gb * clean_pct // 100 % 10 == 0


def volume_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The plan's inputs: clickstream's raw volume, clean share, retention and compute rate, the
    pipeline budget, and the team's other pipelines (name, raw GB, clean share, days, rate),
    mobile-events under the same rules to start with."""
    pct = d.pick([75, 80, 70, 90])
    raw = d.pick([g for g in range(80, 241, 10) if _whole_clean(g, pct)], shipped=120)
    days = d.pick([RETENTION_DAYS, 60, 120, 180])
    mobile = d.pick([g for g in (48, 40, 60, 64, 80) if g * pct % 100 == 0], shipped=MOBILE_RAW_GB)
    return {
        "size": size,
        "raw_gb": raw,
        "retention_days": days,
        "clean_pct": pct,
        "rate": COMPUTE_USD_PER_RAW_GB,
        "budget": d.pick([PIPELINE_BUDGET_USD, 2800, 3200, 3500]),
        "others": [["mobile-events", mobile, pct, days, COMPUTE_USD_PER_RAW_GB]],
    }


volume_params = shipped_params(volume_inputs)


def _other_row(name: str, raw: int, pct: int, days: int, rate: float) -> dict[str, Any]:
    c = _volume_costs(raw, days, pct, rate)
    return {
        "name": name,
        "raw_gb_per_day": raw,
        "clean_gb_per_day": c["clean"],
        "compute_per_month_usd": c["compute_per_month"],
        "storage_per_month_usd": c["storage"],
        "total_per_month_usd": c["total"],
    }


def volume_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, raw, budget = p["size"], p["raw_gb"], p["budget"]
    c = _volume_costs(raw, p["retention_days"], p["clean_pct"], p["rate"])
    aggregated = c["clean"] // 10
    pipeline: dict[str, Any] = {
        "name": "clickstream-nightly",
        "owner": "data-platform",
        "schedule": "0 2 * * *",
    }
    volume: dict[str, Any] = {"raw_gb_per_day": raw, "clean_gb_per_day": c["clean"]}
    cost: dict[str, Any] = {
        "compute_per_day_usd": c["compute_per_day"],
        "compute_per_month_usd": c["compute_per_month"],
        "storage_per_month_usd": c["storage"],
        "total_per_month_usd": c["total"],
    }
    artifact: dict[str, Any] = {
        "pipeline": pipeline,
        "volume": volume,
        "retention_days": p["retention_days"],
        "cost": cost,
    }
    if size == 10:
        return artifact
    pipeline.update(
        timezone="UTC",
        source_uri="s3://acme-raw/clickstream/",
        destination_table="analytics.clickstream_daily",
        description=f"Nightly clickstream ETL, about {raw} GB of raw events per day",
    )
    if size >= 100:
        volume["events_per_day"] = raw * EVENTS_PER_GB
    volume.update(aggregated_gb_per_day=aggregated, retained_gb=c["retained"])
    artifact["compute"] = {
        "worker_type": "m5.2xlarge",
        "gb_per_worker": GB_PER_WORKER,
        "workers": math.ceil(raw / GB_PER_WORKER),
    }
    artifact["pricing"] = {
        "compute_usd_per_raw_gb": p["rate"],
        "storage_usd_per_gb_month": STORAGE_USD_PER_GB_MONTH,
        "days_per_month": DAYS_PER_MONTH,
    }
    cost.update(
        monthly_budget_usd=budget,
        budget_headroom_usd=money(budget - c["total"]),
    )
    stages = [
        ("extract", "spark", raw, 45),
        ("clean", "spark", raw, 60),
        ("aggregate", "spark", c["clean"], 30),
        ("load", "warehouse-copy", aggregated, 20),
    ]
    if size == 50:
        artifact["stages"] = [
            {"name": n, "engine": e, "timeout_minutes": t} for n, e, _, t in stages
        ]
    else:
        artifact["stages"] = [
            {"name": n, "engine": e, "input_gb": g, "timeout_minutes": t} for n, e, g, t in stages
        ]
    artifact["alerts"] = {
        "channel": "#clickstream-alerts",
        "page_on_failure": True,
        "min_events_per_day": 150_000_000,
        "max_null_pct": 2,
    }
    artifact["backfill"] = {
        "start_date": "2024-10-01",
        "end_date": "2024-10-20",
        "total_raw_gb": 2750,
        "one_time_cost_usd": money(2750 * COMPUTE_USD_PER_RAW_GB),
    }
    artifact["retries"] = {"max_attempts": 3, "backoff_minutes": 10}
    artifact["tags"] = ["clickstream", "nightly", "tier-2", "web"]
    if size == 50:
        return artifact
    others = [_other_row(*row) for row in p["others"]]
    team_total = money(c["total"] + sum(o["total_per_month_usd"] for o in others))
    artifact["team"] = {
        "name": "web-analytics",
        "other_pipelines": others,
        "total_per_month_usd": team_total,
        "monthly_budget_usd": TEAM_BUDGET_USD,
        "budget_headroom_usd": money(TEAM_BUDGET_USD - team_total),
    }
    artifact["sla"] = {"land_by": "06:00", "page_if_late": True, "rotation": "data-oncall"}
    artifact["quality_checks"] = [
        {"name": "no_null_session_id", "max_failures": 0},
        {"name": "schema_drift", "max_failures": 0},
        {"name": "duplicate_events", "max_failures": 1000},
    ]
    artifact["owners"] = [
        {"name": "Priya Nair", "role": "tech lead"},
        {"name": "Tom Becker", "role": "on-call"},
    ]
    artifact["storage"] = {
        "bucket": "acme-clean-clickstream",
        "format": "parquet",
        "partitioned_by": "event_date",
        "compression": "zstd",
    }
    artifact["lineage"] = {
        "upstream": ["web-frontend-events"],
        "downstream": ["marketing-attribution", "exec-dashboard"],
    }
    artifact["dashboards"] = [
        {"name": "Clickstream Volume", "refresh_minutes": 60},
        {"name": "Pipeline Costs", "refresh_minutes": 1440},
    ]
    artifact["access"] = {"readers": "analytics-all", "writers": "data-platform"}
    artifact["cost_center"] = "CC-4410"
    artifact["data_contract"] = {
        "producer": "web-frontend",
        "version": "3.2",
        "pii_columns": ["ip_address", "user_agent"],
    }
    artifact["notifications"] = {
        "on_success": False,
        "on_failure": True,
        "digest_channel": "#data-digest",
    }
    artifact["last_reviewed"] = "2025-01-15"
    return artifact


def volume_conversation(p: dict[str, Any]) -> list[Turn]:
    size, raw, pct, days = p["size"], p["raw_gb"], p["clean_pct"], p["retention_days"]
    drop = DROP_WORDS[pct]
    mobile = _other_row(*p["others"][0])
    if size == 10:
        return [
            (
                "I'm setting up the nightly clickstream job for the data-platform team. Call it "
                "clickstream-nightly and run it at 2am every night.",
                ["/pipeline"],
            ),
            (
                f"We pull in about {raw} GB of raw clickstream a day. Cleaning throws away roughly {drop} "
                f"of it, so the clean output is {pct}% of the raw volume.",
                ["/volume"],
            ),
            (f"We keep the clean output for {days} days.", ["/retention_days"]),
            (
                "Now a monthly cost estimate, to the cent. Compute is billed at $0.50 per GB of raw input "
                "per day, and a month is 30 days. Storage is $0.02 per GB per month on everything we retain, "
                f"i.e. {days} days' worth of clean output. Then the monthly total of compute plus storage.",
                ["/cost"],
            ),
        ]
    turns: list[Turn] = [
        (
            "I'm setting up the nightly clickstream job for the data-platform team: clickstream-nightly, "
            "2am UTC every night, reading s3://acme-raw/clickstream/ and writing to "
            "analytics.clickstream_daily.",
            [
                "/pipeline/name",
                "/pipeline/owner",
                "/pipeline/schedule",
                "/pipeline/timezone",
                "/pipeline/source_uri",
                "/pipeline/destination_table",
            ],
        ),
        (
            f"Volume: about {raw} GB of raw clickstream lands every day. Cleaning drops roughly {drop}, "
            f"so clean output is {pct}% of raw, and the aggregate step shrinks the clean data to a tenth.",
            ["/volume/raw_gb_per_day", "/volume/clean_gb_per_day", "/volume/aggregated_gb_per_day"],
        ),
    ]
    if size >= 100:
        turns.append(
            (
                "The frontend team says a GB of raw clickstream is about 2 million events; note "
                "the expected events per day.",
                ["/volume/events_per_day"],
            )
        )
    turns += [
        (
            f"Keep {days} days of clean output, and note how many GB that means we're holding.",
            ["/retention_days", "/volume/retained_gb"],
        ),
        (
            "Write a one-line catalog description that mentions the daily raw volume.",
            ["/pipeline/description"],
        ),
        ("Compute: m5.2xlarge workers, one worker per 40 GB of raw input.", ["/compute"]),
    ]
    stages_text = (
        "The stages are extract (spark, 45-minute timeout), clean (spark, 60), aggregate "
        "(spark, 30) and load (warehouse-copy, 20)."
    )
    if size >= 100:
        stages_text += (
            " Record each stage's input size too: extract and clean read the raw data, "
            "aggregate reads the clean output, and load reads the aggregate output."
        )
    turns += [
        (stages_text, ["/stages"]),
        (
            "Our rate card: compute is $0.50 per GB of raw input, storage $0.02 per GB-month, and we count "
            "a month as 30 days.",
            ["/pricing"],
        ),
        (
            "Cost estimate to the cent, please: compute per day and per month, monthly storage for "
            "everything retained, and the monthly total (compute plus storage). Our budget for this "
            f"pipeline is {dollars(p['budget'])} a month; show the headroom left under it.",
            ["/cost"],
        ),
        (
            "Alerting: post to #clickstream-alerts and page on failure. Also alert if fewer than 150 "
            "million events arrive in a day or more than 2% of rows have nulls.",
            ["/alerts"],
        ),
        (
            "We're also backfilling 2024-10-01 to 2024-10-20 once. That history is a fixed 2,750 GB that "
            "has already landed; price it at the same $0.50 per GB as a one-time cost.",
            ["/backfill"],
        ),
        (
            "Retry failed runs up to 3 times, 10 minutes apart, and tag it clickstream, nightly, tier-2, web.",
            ["/retries", "/tags"],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "This rolls up into the web-analytics team budget. The team's other pipeline is mobile-events: "
            f"{mobile['raw_gb_per_day']} GB raw a day, same rules and rates, so "
            f"{mobile['clean_gb_per_day']} GB clean, ${mobile['compute_per_month_usd']:,.2f} compute and "
            f"${mobile['storage_per_month_usd']:,.2f} storage, ${mobile['total_per_month_usd']:,.2f} a "
            "month. Show the team's monthly total across both pipelines and the headroom under the "
            "$4,000 team budget.",
            ["/team"],
        ),
        ("The data has to land by 06:00; if it's late, page the data-oncall rotation.", ["/sla"]),
        (
            "Quality checks: no null session ids and no schema drift (zero failures allowed), and at most "
            "1,000 duplicate events per run.",
            ["/quality_checks"],
        ),
        ("Owners are Priya Nair (tech lead) and Tom Becker (on-call).", ["/owners"]),
        (
            "Clean data goes to the acme-clean-clickstream bucket as parquet, partitioned by event_date, "
            "zstd compressed.",
            ["/storage"],
        ),
        (
            "Lineage: it reads web-frontend-events and feeds marketing-attribution and exec-dashboard.",
            ["/lineage"],
        ),
        (
            "Two dashboards: Clickstream Volume refreshing hourly and Pipeline Costs refreshing daily "
            "(1,440 minutes). Everyone in analytics-all can read; only data-platform writes. Bill it to "
            "cost center CC-4410.",
            ["/dashboards", "/access", "/cost_center"],
        ),
        (
            "The input follows the web-frontend data contract v3.2; ip_address and user_agent are PII. "
            "Notify on failures only, with a daily digest in #data-digest. Last design review was 2025-01-15.",
            ["/data_contract", "/notifications", "/last_reviewed"],
        ),
    ]
    return turns


def volume_revision(p: dict[str, Any]) -> Revision:
    overrides = {}
    if p["size"] >= 50:
        overrides["/pipeline/description"] = regex(r"(?i)\b160\s*GB\b")
    return Revision(
        request="Turns out the raw clickstream feed is closer to 160 GB a day, not 120. Please update the plan.",
        mutate=lambda q: q.update(raw_gb=160),
        direct="/volume/raw_gb_per_day",
        overrides=overrides,
    )


def volume_followups(p: dict[str, Any]) -> list[Revision]:
    overrides = {}
    if p["size"] >= 50:
        overrides["/pipeline/description"] = regex(r"(?i)\b140\s*GB\b")
    return [
        Revision(
            request="Correction: 160 GB was a peak day. The typical day is 140 GB of raw clickstream, "
            "so plan on 140.",
            mutate=lambda q: q.update(raw_gb=140),
            direct="/volume/raw_gb_per_day",
            overrides=overrides,
            theme="The raw volume revised again (160 to 140 GB) recomputes clean volume, storage and costs",
            pattern="arithmetic",
        ),
        Revision(
            request="Compliance only needs 60 days of clean clickstream output, not 90. Cut retention to 60 days.",
            mutate=lambda q: q.update(retention_days=60),
            direct="/retention_days",
            theme="Shorter retention shrinks the retained volume, the storage cost and the monthly total",
            pattern="arithmetic",
        ),
        Revision(
            request="The new bot filter throws away more of the feed: clickstream's clean output is now 60% "
            "of the raw volume instead of 75%.",
            mutate=lambda q: q.update(clean_pct=60),
            direct="/volume/clean_gb_per_day",
            theme="A lower clean share shrinks the clean, aggregated and retained volumes and the storage cost",
            pattern="arithmetic",
        ),
        Revision(
            request="Legal overruled compliance: we have to keep the clean output for the full 90 days again.",
            mutate=lambda q: q.update(retention_days=90),
            direct="/retention_days",
            theme="Retention goes back from 60 to 90 days, so the retained volume and storage cost grow again",
            pattern="arithmetic",
        ),
    ]


# moves of pipeline-raw-volume-costs: clickstream's raw volume, retention, clean share or compute
# rate changes (the backfill and the team's other pipelines keep theirs), and (size 100, which
# rolls the team up) a pipeline joins or leaves the team's roll-up


def _rerow(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [
        g for g in range(80, 301, 10) if g != p["raw_gb"] and _whole_clean(g, p["clean_pct"])
    ]
    if not options:
        return None
    raw = d.pick(options)
    overrides = {}
    if p["size"] >= 50:
        overrides["/pipeline/description"] = regex(rf"(?i)\b{raw}\s*GB\b")
    return Revision(
        request=d.pick(
            [
                f"Turns out the raw clickstream feed is closer to {raw} GB a day, not {p['raw_gb']}. "
                "Please update the plan.",
                f"Plan on {raw} GB of raw clickstream a day from now on.",
            ]
        ),
        mutate=lambda q: q.update(raw_gb=raw),
        direct="/volume/raw_gb_per_day",
        overrides=overrides,
        theme=f"The raw volume at {raw} GB recomputes clean volume, storage and every cost line",
    )


def _retain(p: dict[str, Any], d: Draw) -> Revision:
    days = d.pick([n for n in (30, 45, 60, 90, 120, 180, 365) if n != p["retention_days"]])
    return Revision(
        request=f"Keep clickstream's clean output for {days} days instead of {p['retention_days']}.",
        mutate=lambda q: q.update(retention_days=days),
        direct="/retention_days",
        theme=f"{days} days of retention change the retained volume, the storage cost and the total",
    )


def _clean_share(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [
        n for n in (60, 70, 75, 80, 90) if n != p["clean_pct"] and _whole_clean(p["raw_gb"], n)
    ]
    if not options:
        return None
    pct = d.pick(options)
    return Revision(
        request=f"The cleaning rules changed: clickstream's clean output is now {pct}% of the raw "
        f"volume instead of {p['clean_pct']}%.",
        mutate=lambda q: q.update(clean_pct=pct),
        direct="/volume/clean_gb_per_day",
        theme=f"A clean share of {pct}% changes the clean, aggregated and retained volumes and storage",
    )


def _compute_rate(p: dict[str, Any], d: Draw) -> Revision:
    rate = d.pick([r for r in (0.4, 0.45, 0.55, 0.6, 0.65) if r != p["rate"]])
    request = (
        f"Compute for clickstream-nightly is billed at ${rate:.2f} per GB of raw input from now on."
    )
    if p["size"] >= 50:
        request += " The backfill's one-time cost stays as quoted"
        request += ", and the team's other pipelines keep their rates." if p["size"] >= 100 else "."
    return Revision(
        request=request,
        mutate=lambda q: q.update(rate=rate),
        direct="/cost/compute_per_day_usd"
        if p["size"] == 10
        else "/pricing/compute_usd_per_raw_gb",
        theme=f"Compute at ${rate:.2f} per raw GB changes the daily, monthly and total cost",
    )


TEAM_PIPELINES = ["app-logs", "email-events", "ads-impressions", "search-queries"]


def _add_pipeline(p: dict[str, Any], d: Draw) -> Revision | None:
    taken = {row[0] for row in p["others"]}
    free = [n for n in TEAM_PIPELINES if n not in taken]
    if not free:
        return None
    name = d.pick(free)
    pct = d.pick([75, 80, 90])
    raw = d.pick([g for g in range(20, 101, 4) if g * pct % 100 == 0])
    days = d.pick([30, 60, 90])
    row = [name, raw, pct, days, COMPUTE_USD_PER_RAW_GB]
    return Revision(
        request=f"Add {name} to the web-analytics roll-up, listed last: {raw} GB raw a day, clean "
        f"output {pct}% of raw, kept {days} days, at $0.50 per raw GB of compute a day and $0.02 per "
        "GB-month of storage.",
        mutate=lambda q: q["others"].append(row),
        direct=f"/team/other_pipelines/{len(p['others'])}",
        theme=f"{name} joins the team roll-up: the team total and headroom follow",
    )


def _drop_pipeline(p: dict[str, Any], d: Draw) -> Revision | None:
    if not p["others"]:
        return None
    i = d.pick(range(len(p["others"])))
    name = p["others"][i][0]

    def mutate(q: dict[str, Any]) -> None:
        del q["others"][i]

    return Revision(
        request=f"{name} is being shut down; take it out of the web-analytics roll-up.",
        mutate=mutate,
        direct=f"/team/other_pipelines/{i}",
        theme=f"{name} leaves the team roll-up: the team total and headroom follow",
    )


VOLUME_MOVES = [
    Move("raw", "arithmetic", _rerow),
    Move("retention", "arithmetic", _retain),
    Move("clean-share", "arithmetic", _clean_share),
    Move("compute-rate", "arithmetic", _compute_rate, opens=False),
    Move("add-pipeline", "add_remove", _add_pipeline, when=lambda p: p["size"] >= 100, opens=False),
    Move(
        "drop-pipeline", "add_remove", _drop_pipeline, when=lambda p: p["size"] >= 100, opens=False
    ),
]


# =========================================================================== pipeline-warehouse-swap
# Substitution: the destination changes; its catalog profile is copied in and every stage,
# check and table that follows the destination picks up the new values.

DESTINATIONS: dict[str, dict[str, Any]] = {
    "bq-analytics": {
        "name": "bq-analytics",
        "engine": "bigquery",
        "region": "europe-west4",
        "load_mode": "append",
        "file_format": "avro",
        "credentials_secret": "bq-loader-sa",
        "max_batch_mb": 500,
        "staging_uri": "gs://acme-staging-bq/",
    },
    "sf-analytics": {
        "name": "sf-analytics",
        "engine": "snowflake",
        "region": "eu-central-1",
        "load_mode": "merge",
        "file_format": "parquet",
        "credentials_secret": "sf-loader-credentials",
        "max_batch_mb": 250,
        "staging_uri": "s3://acme-staging-sf/",
    },
    "dbx-analytics": {
        "name": "dbx-analytics",
        "engine": "databricks",
        "region": "eu-west-1",
        "load_mode": "merge",
        "file_format": "parquet",
        "credentials_secret": "dbx-loader-token",
        "max_batch_mb": 1000,
        "staging_uri": "s3://acme-staging-dbx/",
    },
}
SF_EUW1_UPDATE: dict[str, Any] = {
    "region": "eu-west-1",
    "credentials_secret": "sf-loader-credentials-euw1",
    "staging_uri": "s3://acme-staging-sf-euw1/",
}
"""The follow-up's profile update: Snowflake moved the sf-analytics account to Ireland."""
ENGINE_LABELS = {"bigquery": "BigQuery", "snowflake": "Snowflake", "databricks": "Databricks"}
SMALL_PROFILE = ("name", "engine", "region", "load_mode", "file_format", "credentials_secret")
FULL_PROFILE = (*SMALL_PROFILE, "max_batch_mb", "staging_uri")


def _destination(name: str, updates: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The catalog profile of ``name``, with any profile update the user has since attached."""
    return {**DESTINATIONS[name], **(updates or {}).get(name, {})}


def _profile(
    name: str, size: int, updates: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    keys = SMALL_PROFILE if size == 10 else FULL_PROFILE
    dest = _destination(name, updates)
    return {k: dest[k] for k in keys}


FORMAT_LABELS = {"avro": "Avro", "parquet": "Parquet"}
SYNC_PEOPLE = [
    ("Maya Chen", "Luis Ortega"),
    ("Aisha Bello", "Tom Varga"),
    ("Elena Popescu", "Kwame Mensah"),
    ("Sara Lindgren", "Diego Alvarez"),
]


def warehouse_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The sync's inputs: where it loads (``home``: the destination it starts on, where the other
    pipelines stay), profile updates the user attached since (``profile_updates``), the
    destination it left last (``previous``), how often it runs, and the people."""
    home = d.pick(list(DESTINATIONS))
    return {
        "size": size,
        "destination": home,
        "profile_updates": {},
        "home": home,
        "previous": None,
        "every": d.pick([30, 15, 20, 10]),
        "people": list(d.pick(SYNC_PEOPLE)),
    }


warehouse_params = shipped_params(warehouse_inputs)


def warehouse_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    dest = _destination(p["destination"], p["profile_updates"])
    if size == 10:
        return {
            "pipeline": {"name": "orders-sync", "schedule": f"*/{p['every']} * * * *"},
            "source": {"system": "postgres", "table": "public.orders"},
            "destination": _profile(p["destination"], size, p["profile_updates"]),
        }
    source: dict[str, Any] = {
        "system": "postgres",
        "host": "orders-db.internal",
        "port": 5432,
        "database": "shop",
    }
    if size == 50:
        source["table"] = "public.orders"
    source["replication_slot"] = "orders_sync_slot"
    artifact: dict[str, Any] = {
        "pipeline": {
            "name": "orders-sync",
            "owner": "commerce-data",
            "schedule": f"*/{p['every']} * * * *",
            "timezone": "UTC",
            "description": f"Syncs Postgres orders into {ENGINE_LABELS[dest['engine']]} ({dest['name']}) "
            f"every {p['every']} minutes",
        },
        "source": source,
        "destination": _profile(p["destination"], size, p["profile_updates"]),
    }
    if size >= 100:
        source.update(ssl_mode="require", read_replica=True)
        artifact["tables"] = [
            {
                "source_table": f"public.{t}",
                "target_table": f"sales.{t}",
                "load_mode": dest["load_mode"],
            }
            for t in ("orders", "order_items", "refunds")
        ]
    artifact["stages"] = [
        {
            "name": "export",
            "file_format": dest["file_format"],
            "compression": "snappy",
            "output_uri": dest["staging_uri"] + "orders/",
        },
        {
            "name": "load",
            "mode": dest["load_mode"],
            "batch_mb": dest["max_batch_mb"],
            "region": dest["region"],
        },
    ]
    checks: list[dict[str, Any]] = [
        {"name": "row_count_match", "runs_on": dest["name"], "tolerance_pct": 0.5},
        {"name": "unique_order_id", "runs_on": dest["name"], "tolerance_pct": 0},
        {"name": "freshness", "runs_on": dest["name"], "max_lag_minutes": 45},
    ]
    if size >= 100:
        checks += [
            {"name": "no_negative_totals", "runs_on": dest["name"], "tolerance_pct": 0},
            {"name": "refunds_link_to_orders", "runs_on": dest["name"], "tolerance_pct": 0.1},
        ]
    artifact["quality_checks"] = checks
    artifact["archive"] = {
        "uri": "gs://acme-archive/orders/",
        "file_format": "avro",
        "retention_days": 365,
    }
    artifact["alerts"] = {
        "channel": "#orders-sync",
        "page_on_failure": True,
        "owner_email": "commerce-data@acme.io",
    }
    artifact["runtime"] = {"retries": 3, "timeout_minutes": 20, "concurrency": 1}
    artifact["monitoring"] = {"dashboard": "orders-sync-health", "freshness_slo_minutes": 45}
    artifact["tags"] = ["orders", "finance", "pii"]
    if size == 50:
        return artifact
    artifact["lineage"] = {"upstream": "pg-shop", "downstream": dest["name"]}
    artifact["other_pipelines"] = [
        {"name": "inventory-sync", "destination": p["home"], "schedule": "0 * * * *"},
        {"name": "customers-sync", "destination": p["home"], "schedule": "0 */6 * * *"},
    ]
    artifact["pii_columns"] = ["customer_email", "shipping_address", "phone"]
    artifact["schema_changes"] = {"on_new_column": "add", "on_dropped_column": "alert"}
    artifact["cost"] = {"monthly_budget_usd": 400, "cost_center": "CC-3120"}
    artifact["owners"] = [
        {"name": p["people"][0], "role": "tech lead"},
        {"name": p["people"][1], "role": "on-call"},
    ]
    artifact["maintenance"] = {"window": "Sun 03:00-04:00", "pause_during_window": True}
    artifact["backfill"] = {"from": "2023-01-01", "status": "done", "rows": 48_200_000}
    artifact["sla"] = {"tier": "silver", "land_within_minutes": 45}
    artifact["runbook_url"] = "https://wiki.acme.io/data/orders-sync"
    artifact["on_call"] = "commerce-data-oncall"
    artifact["data_retention"] = {"raw_days": 30, "staging_cleanup_days": 3}
    artifact["access"] = {"readers": "finance-analysts", "writers": "commerce-data"}
    artifact["review"] = {"last_reviewed": "2025-02-03", "reviewer": p["people"][0]}
    return artifact


def warehouse_conversation(p: dict[str, Any]) -> list[Turn]:
    size, every = p["size"], p["every"]
    dest = _destination(p["destination"], p["profile_updates"])
    label, fmt = ENGINE_LABELS[dest["engine"]], FORMAT_LABELS[dest["file_format"]]
    lead, on_call = p["people"]
    if size == 10:
        return [
            (
                "Let's set up orders-sync: it copies the public.orders table out of our Postgres database "
                f"every {every} minutes.",
                ["/pipeline", "/source"],
            ),
            (
                f"It lands in our {dest['name']} destination. Copy that destination's catalog profile in so "
                f"the loader has everything it needs: {label} engine, region {dest['region']}, "
                f"{'append-only' if dest['load_mode'] == 'append' else dest['load_mode']} loads, {fmt} "
                f"files, and it authenticates with the {dest['credentials_secret']} secret.",
                ["/destination"],
            ),
        ]
    source_text = (
        f"New pipeline for commerce-data: orders-sync, copying Postgres orders every {every} minutes "
        "(UTC). The source is the shop database on orders-db.internal, port 5432"
    )
    if size == 50:
        source_text += ", table public.orders, read through the replication slot orders_sync_slot."
    else:
        source_text += (
            ", read through the replication slot orders_sync_slot from the read replica, "
            "with SSL required."
        )
    turns: list[Turn] = [
        (
            source_text,
            [
                "/pipeline/name",
                "/pipeline/owner",
                "/pipeline/schedule",
                "/pipeline/timezone",
                "/source",
            ],
        ),
        (
            f"It lands in {dest['name']}. Copy that destination's catalog profile in: engine "
            f"{dest['engine']}, region {dest['region']}, {dest['load_mode']} loads, {fmt} files, the "
            f"{dest['credentials_secret']} secret for credentials, a {dest['max_batch_mb']} MB max "
            f"batch, and its staging area {dest['staging_uri']}.",
            ["/destination"],
        ),
        (
            "Give it a one-line description: what it syncs, into which warehouse, and how often.",
            ["/pipeline/description"],
        ),
    ]
    if size >= 100:
        turns.append(
            (
                "Three tables come across: orders, order_items and refunds, from the public schema into the "
                "sales schema under the same names. Every table loads with the destination's load mode.",
                ["/tables"],
            )
        )
    checks = (
        "row counts must match within 0.5%, order ids must be unique (zero tolerance), and data may "
        "lag at most 45 minutes"
    )
    if size >= 100:
        checks += (
            "; also no negative order totals (zero tolerance) and at most 0.1% of refunds without a "
            "matching order"
        )
    turns += [
        (
            "Two stages. Export writes snappy-compressed files in whatever format the destination loads, "
            "into the destination's staging area under orders/. Load uses the destination's load mode and "
            "max batch size, and runs in the destination's region.",
            ["/stages"],
        ),
        (f"Quality checks all run against the destination: {checks}.", ["/quality_checks"]),
        (
            "Separately we archive a copy to gs://acme-archive/orders/ as Avro for 365 days. The archive "
            "stays on GCS and in Avro whichever warehouse we load into.",
            ["/archive"],
        ),
        (
            "Alerts go to #orders-sync with paging on failure, owner commerce-data@acme.io. Retry 3 times, "
            "20-minute timeout, one run at a time.",
            ["/alerts", "/runtime"],
        ),
        (
            "Dashboard is orders-sync-health with a 45-minute freshness SLO; tag it orders, finance, pii.",
            ["/monitoring", "/tags"],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        ("For lineage: upstream is pg-shop, downstream is wherever we load.", ["/lineage"]),
        (
            "For context, inventory-sync (hourly) and customers-sync (every 6 hours) also load into "
            f"{p['home']}, and they stay there until Q3 whatever we do with orders.",
            ["/other_pipelines"],
        ),
        (
            "PII columns are customer_email, shipping_address and phone. New source columns get added "
            "automatically; dropped ones raise an alert.",
            ["/pii_columns", "/schema_changes"],
        ),
        (
            f"Budget is $400 a month on cost center CC-3120. Owners: {lead} (tech lead) and {on_call} "
            "(on-call), on the commerce-data-oncall rotation.",
            ["/cost", "/owners", "/on_call"],
        ),
        (
            "Pause during the Sunday 03:00-04:00 maintenance window. The history backfill from 2023-01-01 is "
            "done: 48.2 million rows.",
            ["/maintenance", "/backfill"],
        ),
        (
            "Silver SLA, landing within 45 minutes; runbook at https://wiki.acme.io/data/orders-sync.",
            ["/sla", "/runbook_url"],
        ),
        (
            "Keep raw extracts 30 days and clean the staging files after 3 days. finance-analysts can read, "
            f"commerce-data writes. {lead.split()[0]} reviewed the design on 2025-02-03.",
            ["/data_retention", "/access", "/review"],
        ),
    ]
    return turns


def warehouse_revision(p: dict[str, Any]) -> Revision:
    overrides = {}
    if p["size"] >= 50:
        overrides["/pipeline/description"] = regex(
            r"(?i)^(?!.*(bigquery|bq-analytics)).*(snowflake|sf-analytics)"
        )
    return Revision(
        request="We're moving warehouses: point orders-sync at sf-analytics instead of bq-analytics. "
        "Its catalog profile is attached.",
        mutate=lambda q: q.update(destination="sf-analytics"),
        direct="/destination/name",
        overrides=overrides,
        reference=_profile("sf-analytics", p["size"]),
    )


def _description_names(engine: str, dest: str) -> dict[str, Any]:
    """The description must name the new warehouse and none of the others."""
    others = sorted(
        {n for n in DESTINATIONS if n != dest}
        | {ENGINE_LABELS[d["engine"]].lower() for n, d in DESTINATIONS.items() if n != dest}
    )
    return {"/pipeline/description": regex(rf"(?i)^(?!.*({'|'.join(others)})).*({engine}|{dest})")}


def warehouse_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    sf_updated = _profile("sf-analytics", size, {"sf-analytics": SF_EUW1_UPDATE})

    def sf_moves(q: dict[str, Any]) -> None:
        q["profile_updates"]["sf-analytics"] = dict(SF_EUW1_UPDATE)

    return [
        Revision(
            request="Snowflake has migrated our sf-analytics account to eu-west-1 (Ireland). The updated "
            "catalog profile is attached.",
            mutate=sf_moves,
            direct="/destination/region",
            reference=sf_updated,
            theme="The new destination's profile update (region, secret, staging area) reaches the loader, "
            "stages and paths",
            pattern="substitution",
        ),
        Revision(
            request="Finance won't sign the Snowflake contract this year. Point orders-sync back at "
            "bq-analytics, with the profile we started from.",
            mutate=lambda q: q.update(destination="bq-analytics"),
            direct="/destination/name",
            overrides=_description_names("bigquery", "bq-analytics") if size >= 50 else {},
            theme="Undoing the warehouse move restores the BigQuery profile everywhere the destination reaches",
            pattern="substitution",
        ),
        Revision(
            request="Leadership has picked Databricks instead: point orders-sync at dbx-analytics. Its catalog "
            "profile is attached.",
            mutate=lambda q: q.update(destination="dbx-analytics"),
            direct="/destination/name",
            overrides=_description_names("databricks", "dbx-analytics") if size >= 50 else {},
            reference=_profile("dbx-analytics", size),
            theme="A third destination replaces the profile, load mode, format, batch size and staging area "
            "everywhere",
            pattern="substitution",
        ),
    ]


# moves of pipeline-warehouse-swap: orders-sync moves to another destination (its catalog profile
# attached) or back to the one it left, the current destination's account moves region or its
# loads change mode and format (the updated profile attached), and (sizes 50 and 100, where the
# description says how often) the sync runs at another interval

REGION_MOVES: dict[str, list[tuple[str, str, str]]] = {
    # destination: (region, staging area, secret suffix) it may move to; "" = its catalog secret
    "bq-analytics": [
        ("europe-west4", "gs://acme-staging-bq/", ""),
        ("europe-west3", "gs://acme-staging-bq-euw3/", "-euw3"),
        ("us-central1", "gs://acme-staging-bq-usc1/", "-usc1"),
    ],
    "sf-analytics": [
        ("eu-central-1", "s3://acme-staging-sf/", ""),
        ("eu-west-1", "s3://acme-staging-sf-euw1/", "-euw1"),
        ("us-east-1", "s3://acme-staging-sf-use1/", "-use1"),
    ],
    "dbx-analytics": [
        ("eu-west-1", "s3://acme-staging-dbx/", ""),
        ("eu-north-1", "s3://acme-staging-dbx-eun1/", "-eun1"),
        ("us-east-1", "s3://acme-staging-dbx-use1/", "-use1"),
    ],
}
VENDORS = {"bigquery": "Google", "snowflake": "Snowflake", "databricks": "Databricks"}


def _swap_to(p: dict[str, Any], target: str, request: str, theme: str, back: bool) -> Revision:
    """Point the sync at ``target``; after a swap back there is no move left to undo."""
    size = p["size"]
    dest = _destination(target, p["profile_updates"])
    overrides = {}
    if size >= 50:
        overrides = _description_names(ENGINE_LABELS[dest["engine"]].lower(), target)

    def mutate(q: dict[str, Any]) -> None:
        q["previous"] = None if back else q["destination"]
        q["destination"] = target

    return Revision(
        request=request,
        mutate=mutate,
        direct="/destination/name",
        overrides=overrides,
        reference=_profile(target, size, p["profile_updates"]),
        theme=theme,
    )


def _swap(p: dict[str, Any], d: Draw) -> Revision:
    target = d.pick([n for n in DESTINATIONS if n not in (p["destination"], p["previous"])])
    why = d.pick(
        ["We're moving warehouses", "Leadership picked a new warehouse", "After the cost review"]
    )
    return _swap_to(
        p,
        target,
        f"{why}: point orders-sync at {target} instead of {p['destination']}. Its catalog profile "
        "is attached.",
        f"The destination becomes {target}: its profile reaches the loader, stages, checks and paths",
        back=False,
    )


def _swap_back(p: dict[str, Any], d: Draw) -> Revision:
    target = p["previous"]
    return _swap_to(
        p,
        target,
        f"The move to {p['destination']} is off. Point orders-sync back at {target}, with its catalog "
        "profile as attached.",
        f"Undoing the move restores {target}'s profile everywhere the destination reaches",
        back=True,
    )


def _profile_update(
    p: dict[str, Any], update: dict[str, Any], request: str, direct: str, theme: str
) -> Revision:
    """The current destination's catalog profile changes by ``update`` (the new profile attached)."""
    name = p["destination"]

    def mutate(q: dict[str, Any]) -> None:
        q["profile_updates"].setdefault(name, {}).update(update)

    updated = {name: {**p["profile_updates"].get(name, {}), **update}}
    return Revision(
        request=f"{request} The updated catalog profile is attached.",
        mutate=mutate,
        direct=direct,
        reference=_profile(name, p["size"], updated),
        theme=theme,
    )


def _region_move(p: dict[str, Any], d: Draw) -> Revision:
    name = p["destination"]
    dest = _destination(name, p["profile_updates"])
    region, staging, suffix = d.pick([r for r in REGION_MOVES[name] if r[0] != dest["region"]])
    update = {
        "region": region,
        "credentials_secret": DESTINATIONS[name]["credentials_secret"] + suffix,
        "staging_uri": staging,
    }
    return _profile_update(
        p,
        update,
        f"{VENDORS[dest['engine']]} has moved our {name} account to {region}.",
        "/destination/region",
        f"{name} moves to {region}: region, secret and staging area reach the loader and paths",
    )


def _load_change(p: dict[str, Any], d: Draw) -> Revision:
    name = p["destination"]
    dest = _destination(name, p["profile_updates"])
    mode = "merge" if dest["load_mode"] == "append" else "append"
    fmt = "parquet" if dest["file_format"] == "avro" else "avro"
    return _profile_update(
        p,
        {"load_mode": mode, "file_format": fmt},
        f"The {name} profile now loads in {mode} mode from {FORMAT_LABELS[fmt]} files.",
        "/destination/load_mode",
        f"{name} loads by {mode} from {fmt}: the stages and tables that follow it change",
    )


def _interval(p: dict[str, Any], d: Draw) -> Revision:
    every = d.pick([n for n in (10, 15, 20, 30) if n != p["every"]])
    return Revision(
        request=f"Run orders-sync every {every} minutes instead of every {p['every']}.",
        mutate=lambda q: q.update(every=every),
        direct="/pipeline/schedule",
        overrides={"/pipeline/description": regex(rf"(?i)\b{every}[ -]*min")},
        theme=f"orders-sync every {every} minutes: the schedule and the description follow",
    )


WAREHOUSE_MOVES = [
    Move("swap", "substitution", _swap),
    Move(
        "swap-back",
        "substitution",
        _swap_back,
        when=lambda p: p["previous"] is not None,
    ),
    Move("region-move", "substitution", _region_move),
    Move("load-change", "substitution", _load_change),
    Move("interval", "temporal", _interval, when=lambda p: p["size"] >= 50, opens=False),
]


# =========================================================================== pipeline-drop-dedupe-stage
# Add/remove: a stage is removed from a strictly sequential run; the next stage relinks to the
# removed stage's predecessor, later stages start earlier, and the run summary shrinks.

STAGE_CATALOG: dict[str, tuple[int, str]] = {
    "extract": (30, "events_raw"),
    "validate": (15, "events_validated"),
    "dedupe": (20, "events_deduped"),
    "sessionize": (25, "events_sessions"),
    "enrich": (25, "events_enriched"),
    "aggregate": (15, "events_daily_agg"),
    "load": (10, "analytics.events_daily"),
    "mask_pii": (5, "events_masked"),
    "bot_filter": (10, "events_filtered"),
    "geo_lookup": (10, "events_geo"),
}
STAGE_PLANS: dict[int, tuple[str, ...]] = {
    10: ("extract", "dedupe", "load"),
    50: ("extract", "validate", "dedupe", "enrich", "load"),
    100: ("extract", "validate", "dedupe", "sessionize", "enrich", "aggregate", "load"),
}
RUN_START = "01:00"


def dedupe_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The run's inputs: its stages in order, the kickoff time, and each stage's minutes where
    they differ from the catalog (``minutes``)."""
    minutes = {}
    for name in STAGE_PLANS[100]:
        usual = STAGE_CATALOG[name][0]
        drawn = d.pick([usual, usual + 5, usual + 10, max(5, usual - 5)], shipped=usual)
        if drawn != usual:
            minutes[name] = drawn
    return {
        "size": size,
        "stages": list(STAGE_PLANS[size]),
        "start": d.pick([RUN_START, "00:30", "01:30", "02:00", "00:45"]),
        "minutes": minutes,
    }


dedupe_params = shipped_params(dedupe_inputs)


def _minutes(p: dict[str, Any], name: str) -> int:
    """How long stage ``name`` takes, as the inputs leave it."""
    return int(p["minutes"].get(name, STAGE_CATALOG[name][0]))


def _stage_rows(
    names: list[str], size: int, start: str = RUN_START, durations: dict[str, int] | None = None
) -> tuple[list[dict[str, Any]], int]:
    rows: list[dict[str, Any]] = []
    elapsed = 0
    for i, name in enumerate(names):
        minutes, output = STAGE_CATALOG[name]
        minutes = (durations or {}).get(name, minutes)
        if size == 10:
            rows.append({"name": name, "minutes": minutes})
        else:
            row: dict[str, Any] = {
                "name": name,
                "depends_on": names[i - 1] if i else None,
                "minutes": minutes,
                "starts_at": _clock(start, elapsed),
            }
            if size >= 100:
                row["ends_at"] = _clock(start, elapsed + minutes)
            row["output"] = output
            rows.append(row)
        elapsed += minutes
    return rows, elapsed


def dedupe_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, start = p["size"], p["start"]
    stages, total = _stage_rows(p["stages"], size, start, p["minutes"])
    finish = _clock(start, total)
    if size == 10:
        return {
            "pipeline": "events-daily",
            "starts_at": start,
            "stages": stages,
            "total_minutes": total,
            "finishes_at": finish,
        }
    artifact: dict[str, Any] = {
        "pipeline": {
            "name": "events-daily",
            "owner": "growth-data",
            "timezone": "UTC",
            "starts_at": start,
        },
        "stages": stages,
        "summary": {"stage_count": len(stages), "total_minutes": total, "finishes_at": finish},
        "source": {"bucket": "acme-events-raw", "prefix": "daily/", "format": "ndjson"},
        "destination": {"table": "analytics.events_daily", "write_mode": "overwrite_partition"},
        "reporting": {"dashboard": "Daily Events", "refresh_starts_at": _clock(finish, 30)},
        "sla": {"must_finish_by": "06:00", "page_if_late": True},
        "alerts": {"channel": "#events-pipeline", "email": "data-oncall@acme.io"},
        "weekly_rollup": {"name": "events-weekly-rollup", "runs": "Sunday 04:00", "minutes": 45},
        "tags": ["events", "daily", "tier-1", "batch"],
    }
    if size == 50:
        return artifact
    artifact["partner_export"] = {
        "name": "partner-feed",
        "starts_at": _clock(finish, 15),
        "target": "s3://partner-drop/events/",
    }
    artifact["owners"] = [
        {"name": "Aiko Tanaka", "role": "tech lead"},
        {"name": "Sam Okafor", "role": "on-call"},
    ]
    artifact["cost"] = {"monthly_budget_usd": 900, "cost_center": "CC-2207"}
    artifact["storage"] = {
        "bucket": "acme-events-clean",
        "format": "parquet",
        "partitioned_by": "event_date",
        "retention_days": 180,
    }
    artifact["data_contract"] = {"producer": "app-backend", "version": "5.1"}
    artifact["dashboards"] = [
        {"name": "Events Freshness", "refresh_minutes": 15},
        {"name": "Pipeline Runtime", "refresh_minutes": 60},
    ]
    artifact["on_call"] = {"rotation": "growth-data-oncall", "escalation": "data-platform-leads"}
    artifact["access"] = {"readers": "growth-all", "writers": "growth-data"}
    artifact["runbook_url"] = "https://wiki.acme.io/data/events-daily"
    artifact["last_reviewed"] = "2025-01-28"
    artifact["lineage"] = {
        "upstream": ["app-backend-events"],
        "downstream": ["growth-dashboard", "ml-features"],
    }
    artifact["compute"] = {"cluster": "etl-shared", "workers": 4, "worker_type": "r5.xlarge"}
    artifact["retry"] = {"max_attempts": 2, "backoff_minutes": 5}
    return artifact


def _stage_sentence(p: dict[str, Any], with_output: bool) -> str:
    parts = []
    for name in p["stages"]:
        minutes, output = _minutes(p, name), STAGE_CATALOG[name][1]
        parts.append(
            f"{name} ({minutes} min, writes {output})"
            if with_output
            else f"{name} ({minutes} minutes)"
        )
    return ", then ".join(parts)


def dedupe_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    start = p["start"]
    if size == 10:
        return [
            (
                f"New daily job called events-daily. It kicks off at {start}.",
                ["/pipeline", "/starts_at"],
            ),
            (
                f"Three steps, strictly one after another: {_stage_sentence(p, False)}.",
                ["/stages"],
            ),
            (
                "Add up the total run time and tell me when it finishes. Each step starts the moment the "
                "previous one ends.",
                ["/total_minutes", "/finishes_at"],
            ),
        ]
    stage_text = (
        f"The stages run strictly in sequence: {_stage_sentence(p, True)}. Each stage waits "
        "on the one before it and starts the moment that one finishes; for each stage note what it "
        "waits on and its start time"
    )
    stage_text += " (and end time)." if size >= 100 else "."
    turns: list[Turn] = [
        (
            f"New daily job for growth-data: events-daily, kicking off at {start} UTC.",
            ["/pipeline"],
        ),
        (stage_text, ["/stages"]),
        ("Summarise the run: number of stages, total minutes, and when it finishes.", ["/summary"]),
        (
            "It reads newline-delimited event files from acme-events-raw under daily/ and overwrites the day's "
            "partition of analytics.events_daily.",
            ["/source", "/destination"],
        ),
        (
            "The Daily Events dashboard refresh starts 30 minutes after the pipeline finishes.",
            ["/reporting"],
        ),
        (
            "Hard SLA: it must be done by 06:00, page us if it's late. Alerts go to #events-pipeline and "
            "data-oncall@acme.io.",
            ["/sla", "/alerts"],
        ),
        (
            "There's also events-weekly-rollup, Sundays at 04:00, 45 minutes; it's scheduled on its own. "
            "Tags: events, daily, tier-1, batch.",
            ["/weekly_rollup", "/tags"],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "The partner-feed export to s3://partner-drop/events/ starts 15 minutes after the pipeline finishes.",
            ["/partner_export"],
        ),
        (
            "Owners: Aiko Tanaka (tech lead) and Sam Okafor (on-call). Budget $900 a month on CC-2207.",
            ["/owners", "/cost"],
        ),
        (
            "Clean output lives in acme-events-clean as parquet partitioned by event_date, kept 180 days. "
            "Producer contract: app-backend v5.1.",
            ["/storage", "/data_contract"],
        ),
        (
            "Dashboards: Events Freshness every 15 minutes and Pipeline Runtime hourly.",
            ["/dashboards"],
        ),
        (
            "On-call is growth-data-oncall, escalating to data-platform-leads. growth-all reads, growth-data "
            "writes.",
            ["/on_call", "/access"],
        ),
        (
            "Runbook: https://wiki.acme.io/data/events-daily, last reviewed 2025-01-28. It reads "
            "app-backend-events and feeds growth-dashboard and ml-features.",
            ["/runbook_url", "/last_reviewed", "/lineage"],
        ),
        (
            "Run it on the etl-shared cluster with 4 r5.xlarge workers; retry twice, 5 minutes apart.",
            ["/compute", "/retry"],
        ),
    ]
    return turns


def dedupe_revision(p: dict[str, Any]) -> Revision:
    index = STAGE_PLANS[p["size"]].index("dedupe")
    return Revision(
        request="The upstream team now ships deduplicated events, so drop the dedupe stage from events-daily.",
        mutate=lambda q: q.update(stages=[s for s in q["stages"] if s != "dedupe"]),
        direct=f"/stages/{index}",
    )


def dedupe_followups(p: dict[str, Any]) -> list[Revision]:
    plan = list(STAGE_PLANS[p["size"]])
    dedupe_at = plan.index("dedupe")
    after_drop = [s for s in plan if s != "dedupe"]
    mask_at = after_drop.index("load")  # inserted right before load
    with_mask = [*after_drop[:mask_at], "mask_pii", *after_drop[mask_at:]]
    restored = [*with_mask[:dedupe_at], "dedupe", *with_mask[dedupe_at:]]

    def add_mask(q: dict[str, Any]) -> None:
        at = q["stages"].index("load")
        q["stages"].insert(at, "mask_pii")

    def restore_dedupe(q: dict[str, Any]) -> None:
        q["stages"].insert(q["stages"].index(plan[dedupe_at - 1]) + 1, "dedupe")

    start = "/starts_at" if p["size"] == 10 else "/pipeline/starts_at"
    return [
        Revision(
            request="Legal wants PII masked before anything is loaded: add a mask_pii stage (5 minutes"
            + (")" if p["size"] == 10 else ", writes events_masked)")
            + " right before load.",
            mutate=add_mask,
            direct=f"/stages/{mask_at}",
            theme="A stage inserted before the last one relinks load and pushes every later time and the "
            "finish back",
            pattern="add_remove",
        ),
        Revision(
            request="The upstream dedup turned out to be unreliable. Put the dedupe stage back exactly where "
            "it was, 20 minutes as before.",
            mutate=restore_dedupe,
            direct=f"/stages/{dedupe_at}",
            theme="Putting back the removed stage relinks its successor and pushes every later time and the "
            "finish back again",
            pattern="add_remove",
        ),
        Revision(
            request="mask_pii is slower than we thought: it takes 15 minutes, not 5.",
            mutate=lambda q: q["minutes"].update(mask_pii=15),
            direct=f"/stages/{restored.index('mask_pii')}/minutes",
            theme="The just-added stage takes longer, so load, the total, the finish and what follows move later",
            pattern="arithmetic",
        ),
        Revision(
            request="Kick the whole run off at 00:30 instead of 01:00.",
            mutate=lambda q: q.update(start="00:30"),
            direct=start,
            theme="An earlier kickoff moves every stage time, the finish and everything timed after it",
            pattern="temporal",
        ),
    ]


# moves of pipeline-drop-dedupe-stage: a middle stage is dropped, a stage is added right before
# another one, a stage's minutes change, the kickoff moves


def _drop_stage(p: dict[str, Any], d: Draw) -> Revision | None:
    names = p["stages"]
    # a stage as long as its successor would read as that one renamed: those stay
    middle = [
        n for i, n in enumerate(names[1:-1], 1) if _minutes(p, n) != _minutes(p, names[i + 1])
    ]
    if not middle:
        return None
    name = d.pick(middle)
    i = p["stages"].index(name)
    why = d.pick(
        [
            "the upstream team now handles it",
            "it no longer changes anything downstream",
            "we're moving that logic into the warehouse",
        ]
    )
    return Revision(
        request=f"Drop the {name} stage from events-daily; {why}.",
        mutate=lambda q: q["stages"].remove(name),
        direct=f"/stages/{i}",
        theme=f"Removing {name} relinks its successor and pulls every later time earlier",
    )


def _add_stage(p: dict[str, Any], d: Draw) -> Revision | None:
    free = [n for n in STAGE_CATALOG if n not in p["stages"] and n not in ("extract", "load")]
    if not free:
        return None
    name = d.pick(free)
    before = d.pick(p["stages"][1:])
    at = p["stages"].index(before)
    # a length of its own, so the new row is not mistaken for the one it precedes
    minutes = d.pick([m for m in (5, 10, 15, 20, 25, 30) if m != _minutes(p, before)])
    output = STAGE_CATALOG[name][1]
    what = f"{minutes} minutes" if p["size"] == 10 else f"{minutes} minutes, writes {output}"

    def mutate(q: dict[str, Any]) -> None:
        q["stages"].insert(at, name)
        q["minutes"][name] = minutes

    return Revision(
        request=f"Add {'an' if name[0] in 'aeiou' else 'a'} {name} stage ({what}) to events-daily, "
        f"right before {before}.",
        mutate=mutate,
        direct=f"/stages/{at}",
        theme=f"A {minutes}-minute {name} stage before {before} pushes every later time back",
    )


def _retime(p: dict[str, Any], d: Draw) -> Revision:
    name = d.pick(p["stages"])
    old = _minutes(p, name)
    minutes = d.pick([m for m in range(5, 61, 5) if m != old])
    i = p["stages"].index(name)
    return Revision(
        request=d.pick(
            [
                f"The {name} stage takes {minutes} minutes now, not {old}.",
                f"Re-measured: {name} needs {minutes} minutes per run.",
            ]
        ),
        mutate=lambda q: q["minutes"].update({name: minutes}),
        direct=f"/stages/{i}/minutes",
        theme=f"{name} takes {minutes} minutes: the total, the finish and every later time follow",
    )


def _kickoff(p: dict[str, Any], d: Draw) -> Revision:
    options = [_clock("00:00", m) for m in range(0, 180, 15)]
    start = d.pick([t for t in options if t != p["start"]])
    return Revision(
        request=f"Kick events-daily off at {start} instead of {p['start']}.",
        mutate=lambda q: q.update(start=start),
        direct="/starts_at" if p["size"] == 10 else "/pipeline/starts_at",
        theme=f"Kickoff at {start} moves every stage time, the finish and everything timed after it",
    )


DEDUPE_MOVES = [
    Move("drop-stage", "add_remove", _drop_stage),
    Move("add-stage", "add_remove", _add_stage),
    Move("retime", "arithmetic", _retime),
    Move("kickoff", "temporal", _kickoff),
]


# =========================================================================== pipeline-executor-quota-cap
# Threshold: executors scale with input but are clamped at the cluster quota; once the clamp
# binds, the run gets longer, the quota alert turns on, and everything timed after it slips.

GB_PER_EXECUTOR = 25
MAX_EXECUTORS = 8
EXECUTOR_HOUR_USD = 1.2
RUNS_PER_MONTH = 30


def _spark_job(
    name: str,
    input_gb: int,
    starts_at: str,
    output: str | None,
    quota: int = MAX_EXECUTORS,
    rate: float = EXECUTOR_HOUR_USD,
) -> dict[str, Any]:
    """The user's sizing rule: ceil(input / 25) executors, never above the quota (8 at first)."""
    executors = min(math.ceil(input_gb / GB_PER_EXECUTOR), quota)
    minutes = input_gb * 60 // (executors * GB_PER_EXECUTOR)
    job: dict[str, Any] = {
        "name": name,
        "input_gb": input_gb,
        "executors": executors,
        "runtime_minutes": minutes,
        "starts_at": starts_at,
        "ends_at": _clock(starts_at, minutes),
        "cost_per_run_usd": money(executors * minutes / 60 * rate),
        "quota_alert": executors == quota,
    }
    if output is not None:
        job["output_table"] = output
    return job


OTHER_JOBS_GB = (100, 175, 50)
"""clickstream-rollup, ml-features and crm-export: their inputs, fixed in the conversation."""


def _at_quota(gb: int, quota: int) -> bool:
    return math.ceil(gb / GB_PER_EXECUTOR) >= quota


def _whole_minutes(gb: int, quota: int) -> bool:
    """Whether a job of ``gb`` runs a whole number of minutes under ``quota`` (no rounding
    the conversation does not state)."""
    executors = min(math.ceil(gb / GB_PER_EXECUTOR), quota)
    return gb * 60 % (executors * GB_PER_EXECUTOR) == 0


def _quota_fits(gb: int, quota: int) -> bool:
    """Every job (the main one of ``gb`` and the fixed others) runs whole minutes under ``quota``,
    and none needs exactly the quota (clearly under it, or clamped: no doubt about "pinned")."""
    jobs = (gb, *OTHER_JOBS_GB)
    return all(_whole_minutes(g, quota) and math.ceil(g / GB_PER_EXECUTOR) != quota for g in jobs)


def quota_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The plan's inputs: sessions-transform's input (under the quota to start with), the quota,
    the executor rate and the main job's start."""
    quota = d.pick([MAX_EXECUTORS, 10, 12])
    under = [g for g in range(75, 301, 25) if not _at_quota(g, quota) and _quota_fits(g, quota)]
    return {
        "size": size,
        "input_gb": d.pick(under, shipped=150),
        "max_executors": quota,
        "rate": d.pick([EXECUTOR_HOUR_USD, 1.5, 0.9, 1.35]),
        "start": d.pick(["03:00", "02:30", "03:30"]),
    }


quota_params = shipped_params(quota_inputs)


def quota_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, quota, rate, start = p["size"], p["max_executors"], p["rate"], p["start"]
    if size == 10:
        job = _spark_job("sessions-transform", p["input_gb"], start, None, quota, rate)
        return {
            "job": {
                k: job[k]
                for k in (
                    "name",
                    "input_gb",
                    "executors",
                    "runtime_minutes",
                    "cost_per_run_usd",
                    "quota_alert",
                )
            },
            "cluster": {"name": "spark-shared", "max_executors": quota},
            "schedule": _cron(start),
            "owner": "analytics-eng",
        }
    rollup_gb, features_gb, crm_gb = OTHER_JOBS_GB
    sessions = _spark_job(
        "sessions-transform", p["input_gb"], start, "analytics.sessions", quota, rate
    )
    jobs = [
        _spark_job(
            "clickstream-rollup", rollup_gb, "01:00", "analytics.clickstream_hourly", quota, rate
        )
    ]
    if size >= 100:
        jobs.append(
            _spark_job("ml-features", features_gb, "02:00", "ml.session_features", quota, rate)
        )
    jobs += [
        sessions,
        _spark_job("crm-export", crm_gb, sessions["ends_at"], "crm.session_scores", quota, rate),
    ]
    monthly_cost = money(RUNS_PER_MONTH * sum(j["cost_per_run_usd"] for j in jobs))
    budget = 600 if size == 50 else 900
    artifact: dict[str, Any] = {
        "pipeline": {"name": "sessions-nightly", "owner": "analytics-eng", "timezone": "UTC"},
        "cluster": {
            "name": "spark-shared",
            "max_executors": quota,
            "hourly_rate_usd": rate,
            "jobs_at_quota": sum(j["quota_alert"] for j in jobs),
        },
        "jobs": jobs,
        "monthly": {
            "runs_per_month": RUNS_PER_MONTH,
            "compute_cost_usd": monthly_cost,
            "budget_usd": budget,
        },
        "executor_spec": {"cores": 4, "memory_gb": 16, "spot": False},
        "sla": {"crm_export_deadline": "06:00", "page_if_late": True},
        "alerts": {
            "channel": "#analytics-jobs",
            "quota_alert_recipient": "platform-capacity@acme.io",
        },
        "retry": {"max_attempts": 2, "backoff_minutes": 10},
        "tags": ["sessions", "spark", "nightly", "tier-2"],
    }
    if size == 50:
        return artifact
    crm_end = jobs[-1]["ends_at"]
    artifact["monthly"]["headroom_usd"] = money(budget - monthly_cost)
    artifact["executor_spec"].update(disk_gb=100, instance_family="r6g")
    artifact["alerts"].update(page_on_failure=True, digest_channel="#analytics-digest")
    artifact["dashboard_refresh"] = {"name": "Sessions Overview", "starts_at": _clock(crm_end, 10)}
    artifact["window"] = {"opens": "01:00", "closes_at": max(j["ends_at"] for j in jobs)}
    artifact["owners"] = [
        {"name": "Noor Haddad", "role": "tech lead"},
        {"name": "Felix Braun", "role": "on-call"},
    ]
    artifact["storage"] = {
        "input_bucket": "acme-clean-clickstream",
        "output_format": "delta",
        "retention_days": 365,
    }
    artifact["cost_center"] = "CC-5120"
    artifact["on_call"] = {"rotation": "analytics-eng-oncall", "escalation": "data-platform-leads"}
    artifact["data_quality"] = [
        {"check": "no_null_user_id", "table": "analytics.sessions", "max_failures": 0},
        {"check": "session_length_positive", "table": "analytics.sessions", "max_failures": 0},
        {"check": "scores_in_range", "table": "crm.session_scores", "max_failures": 10},
    ]
    artifact["upstream"] = ["clickstream-nightly", "crm-contacts-sync"]
    artifact["spark_conf"] = {
        "version": "3.5.1",
        "shuffle_partitions": 400,
        "adaptive_execution": True,
    }
    artifact["access"] = {"readers": "analytics-all", "writers": "analytics-eng"}
    artifact["downstream"] = ["crm", "exec-dashboard"]
    artifact["runbook_url"] = "https://wiki.acme.io/data/sessions-nightly"
    artifact["last_reviewed"] = "2025-02-11"
    artifact["maintenance"] = {"window": "Sun 05:00-06:00", "skip_runs": False}
    return artifact


def _sizing_rule(quota: int) -> str:
    return (
        "Sizing rule for every job on the cluster: one executor per 25 GB of input, rounded up, but "
        f"never more than the quota of {quota}. Each executor gets through 25 GB an hour. If a job "
        "ends up pinned at the quota, switch its quota alert on so we know to ask for more."
    )


def _cron(start: str) -> str:
    """``_cron("03:00") == "0 3 * * *"`` (daily at that time)."""
    hours, mins = (int(x) for x in start.split(":"))
    return f"{mins} {hours} * * *"


def quota_conversation(p: dict[str, Any]) -> list[Turn]:
    size, quota, start, gb = p["size"], p["max_executors"], p["start"], p["input_gb"]
    rate = dollars(p["rate"])
    if size == 10:
        return [
            (
                f"I'm sizing the Spark job sessions-transform for analytics-eng. It runs daily at {start} "
                f"on the spark-shared cluster, which allows at most {quota} executors per job.",
                ["/job/name", "/cluster", "/schedule", "/owner"],
            ),
            (f"Each run reads about {gb} GB.", ["/job/input_gb"]),
            (
                _sizing_rule(quota) + " Work out its executors, run time in minutes and the alert.",
                ["/job/executors", "/job/runtime_minutes", "/job/quota_alert"],
            ),
            (
                f"Executors cost {rate} an hour each. What does a run cost, to the cent?",
                ["/job/cost_per_run_usd"],
            ),
        ]
    main = 1 if size == 50 else 2
    others = "clickstream-rollup, 100 GB from 01:00, writing analytics.clickstream_hourly"
    if size >= 100:
        others += "; and ml-features, 175 GB from 02:00, writing ml.session_features"
    turns: list[Turn] = [
        (
            "Planning the sessions-nightly Spark jobs for analytics-eng on the spark-shared cluster, times in "
            f"UTC. The cluster quota is {quota} executors per job and executors cost {rate} an hour.",
            ["/pipeline", "/cluster/name", "/cluster/max_executors", "/cluster/hourly_rate_usd"],
        ),
        (
            _sizing_rule(quota)
            + " Every job records its executors, run time in minutes, start and end time, cost "
            f"per run to the cent, and the alert. The jobs that run before the main one: {others}.",
            [f"/jobs/{i}" for i in range(main)],
        ),
        (
            f"The main one is sessions-transform: about {gb} GB per run, starting at {start}, writing "
            "analytics.sessions.",
            [f"/jobs/{main}"],
        ),
        (
            "crm-export reads 50 GB, writes crm.session_scores, and starts as soon as sessions-transform "
            "finishes.",
            [f"/jobs/{main + 1}"],
        ),
        (
            "On the cluster, keep a count of how many of our jobs sit at the quota.",
            ["/cluster/jobs_at_quota"],
        ),
    ]
    monthly = (
        "Monthly view: 30 runs a month, so compute is 30 times the per-run costs of all the jobs; "
        "the budget is $%s a month" % ("600" if size == 50 else "900")
    )
    monthly += "." if size == 50 else ", and show the headroom left under it."
    turns += [
        (monthly, ["/monthly"]),
        (
            "Executors are 4 cores and 16 GB each, on-demand rather than spot.",
            ["/executor_spec/cores", "/executor_spec/memory_gb", "/executor_spec/spot"],
        ),
        (
            "crm-export has to be done by 06:00 or we page. Job alerts go to #analytics-jobs, and quota alerts "
            "to platform-capacity@acme.io. Retry twice, 10 minutes apart.",
            ["/sla", "/alerts/channel", "/alerts/quota_alert_recipient", "/retry"],
        ),
        ("Tags: sessions, spark, nightly, tier-2.", ["/tags"]),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "The Sessions Overview dashboard refresh starts 10 minutes after crm-export ends. Also note the "
            "nightly window: it opens at 01:00 and closes when the last job ends.",
            ["/dashboard_refresh", "/window"],
        ),
        (
            "Owners: Noor Haddad (tech lead) and Felix Braun (on-call); on-call rotation analytics-eng-oncall, "
            "escalating to data-platform-leads. Cost center CC-5120.",
            ["/owners", "/on_call", "/cost_center"],
        ),
        (
            "Inputs come from acme-clean-clickstream; outputs are Delta tables kept 365 days. Executors get "
            "100 GB disks on the r6g family.",
            ["/storage", "/executor_spec/disk_gb", "/executor_spec/instance_family"],
        ),
        (
            "Data checks: no null user ids and only positive session lengths in analytics.sessions (zero "
            "failures), and at most 10 out-of-range scores in crm.session_scores.",
            ["/data_quality"],
        ),
        (
            "Upstream are clickstream-nightly and crm-contacts-sync; downstream crm and exec-dashboard. Spark "
            "3.5.1 with 400 shuffle partitions and adaptive execution on.",
            ["/upstream", "/downstream", "/spark_conf"],
        ),
        (
            "analytics-all reads, analytics-eng writes. Runbook https://wiki.acme.io/data/sessions-nightly, "
            "last reviewed 2025-02-11. The Sunday 05:00-06:00 maintenance window doesn't skip runs. Page on "
            "any job failure, with a digest in #analytics-digest.",
            [
                "/access",
                "/runbook_url",
                "/last_reviewed",
                "/maintenance",
                "/alerts/page_on_failure",
                "/alerts/digest_channel",
            ],
        ),
    ]
    return turns


def quota_revision(p: dict[str, Any]) -> Revision:
    job = "/job" if p["size"] == 10 else f"/jobs/{1 if p['size'] == 50 else 2}"
    return Revision(
        request="The session data is growing fast: plan sessions-transform for 250 GB per run instead of 150.",
        mutate=lambda q: q.update(input_gb=250),
        direct=f"{job}/input_gb",
    )


def quota_followups(p: dict[str, Any]) -> list[Revision]:
    job = "/job" if p["size"] == 10 else f"/jobs/{1 if p['size'] == 50 else 2}"
    return [
        Revision(
            request="Good news: platform raised our quota on spark-shared to 12 executors per job.",
            mutate=lambda q: q.update(max_executors=12),
            direct="/cluster/max_executors",
            theme="A higher quota lifts the clamp the 250 GB input hit: executors, run time and the quota "
            "alert follow",
            pattern="threshold",
        ),
        Revision(
            request="The session data keeps growing. Plan sessions-transform for 320 GB per run.",
            mutate=lambda q: q.update(input_gb=320),
            direct=f"{job}/input_gb",
            theme="A bigger input crosses even the raised quota, so executors clamp at 12 and the alert comes back",
            pattern="threshold",
        ),
        Revision(
            request="The new bot filter cut the input a lot: plan sessions-transform for 200 GB per run.",
            mutate=lambda q: q.update(input_gb=200),
            direct=f"{job}/input_gb",
            theme="A smaller input drops back under the quota: fewer executors, no quota alert, earlier times",
            pattern="threshold",
        ),
    ]


# moves of pipeline-executor-quota-cap: sessions-transform's input crosses the quota (either way)
# or grows without crossing it, the quota moves past a job's need, the executor rate changes, and
# (sizes 50 and 100, which time the jobs) sessions-transform starts at another time


def _main_job(p: dict[str, Any]) -> str:
    return "/job" if p["size"] == 10 else f"/jobs/{1 if p['size'] == 50 else 2}"


def _regb(p: dict[str, Any], d: Draw, cross: bool, way: int = 0) -> Revision | None:
    """A new input for sessions-transform that crosses the quota or not (``cross``); ``way``
    1 or -1: only larger or smaller ones."""
    quota, old = p["max_executors"], p["input_gb"]
    at = _at_quota(old, quota)
    options = [
        g
        for g in range(50, 401, 25)
        if g != old
        and (_at_quota(g, quota) != at) == cross
        and _quota_fits(g, quota)
        and (g - old) * way >= 0
    ]
    if not options:
        return None
    gb = d.pick(options)
    why = "growing" if gb > old else "shrinking"
    return Revision(
        request=d.pick(
            [
                f"The session data is {why}: plan sessions-transform for {gb} GB per run instead of {old}.",
                f"Re-plan sessions-transform for {gb} GB of input per run.",
            ]
        ),
        mutate=lambda q: q.update(input_gb=gb),
        direct=f"{_main_job(p)}/input_gb",
        theme=f"sessions-transform reads {gb} GB: executors, run time, cost and (when it crosses the "
        "quota) the alert follow",
    )


def _cross_quota(p: dict[str, Any], d: Draw) -> Revision | None:
    return _regb(p, d, cross=True)


def _grow(p: dict[str, Any], d: Draw) -> Revision | None:
    return _regb(p, d, cross=False, way=1)


def _shrink(p: dict[str, Any], d: Draw) -> Revision | None:
    return _regb(p, d, cross=False, way=-1)


def _jobs_gb(p: dict[str, Any]) -> list[int]:
    """The inputs of the jobs this size plans."""
    rollup, features, crm = OTHER_JOBS_GB
    if p["size"] == 10:
        return [p["input_gb"]]
    return [rollup, *([features] if p["size"] >= 100 else []), p["input_gb"], crm]


def _requota(p: dict[str, Any], d: Draw) -> Revision | None:
    old = p["max_executors"]
    alerts = [_at_quota(g, old) for g in _jobs_gb(p)]
    options = [
        n
        for n in range(5, 17)
        if n != old
        and [_at_quota(g, n) for g in _jobs_gb(p)] != alerts
        and _quota_fits(p["input_gb"], n)
    ]
    if not options:
        return None
    quota = d.pick(options)
    verb = "raised" if quota > old else "cut"
    return Revision(
        request=f"Platform {verb} our quota on spark-shared to {quota} executors per job.",
        mutate=lambda q: q.update(max_executors=quota),
        direct="/cluster/max_executors",
        theme=f"A quota of {quota} moves the clamp: executors, run times and quota alerts follow",
    )


def _rerate(p: dict[str, Any], d: Draw) -> Revision:
    rate = d.pick([r for r in (0.9, 1.05, 1.1, 1.2, 1.35, 1.5, 1.65, 1.8) if r != p["rate"]])
    return Revision(
        request=f"Executors now cost {dollars(rate)} an hour each.",
        mutate=lambda q: q.update(rate=rate),
        direct="/cluster/hourly_rate_usd",
        theme=f"At {dollars(rate)} an executor-hour every run cost and the monthly figures follow",
    )


def _restart(p: dict[str, Any], d: Draw) -> Revision:
    options = [_clock("02:00", m) for m in range(0, 121, 15)]
    start = d.pick([t for t in options if t != p["start"]])
    return Revision(
        request=f"Start sessions-transform at {start} instead of {p['start']}.",
        mutate=lambda q: q.update(start=start),
        direct=f"{_main_job(p)}/starts_at",
        theme=f"sessions-transform starts at {start}: its end, crm-export and what is timed after follow",
    )


QUOTA_MOVES = [
    Move("cross-quota", "threshold", _cross_quota),
    Move("requota", "threshold", _requota),
    Move("grow", "arithmetic", _grow),
    Move("shrink", "arithmetic", _shrink),
    Move("rate", "arithmetic", _rerate, when=lambda p: p["size"] >= 50, opens=False),
    Move("restart", "temporal", _restart, when=lambda p: p["size"] >= 50),
]


# =========================================================================== pipeline-cutover-date-shift
# Temporal: the cutover date moves; every date planned relative to it moves by the same number of
# days, while dates the user gave as fixed calendar dates stay.

CUTOVER_OFFSETS: dict[str, int] = {
    "backfill_start": -21,
    "shadow_run_start": -14,
    "schema_freeze": -10,
    "go_no_go": -3,
    "legacy_read_only": 7,
    "legacy_decommission": 30,
}
CUTOVER_DATASETS: list[tuple[str, str, int]] = [
    ("orders", "2023-01-01", 48_200_000),
    ("order_items", "2023-01-01", 131_000_000),
    ("refunds", "2023-06-01", 2_400_000),
    ("payments", "2023-01-01", 51_700_000),
    ("shipments", "2024-01-01", 19_800_000),
]


WEEKS = {7: "a week", 14: "two weeks", 21: "three weeks", 28: "four weeks", 35: "five weeks"}
AUDIT_DATE = "2025-04-01"


def cutover_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The plan's inputs: the cutover (a Monday) and the offsets of the milestones the sizes
    state in whole weeks or days (the others stay as in ``CUTOVER_OFFSETS``)."""
    offsets = dict(CUTOVER_OFFSETS)
    offsets.update(
        backfill_start=-d.pick([21, 28, 35]),
        shadow_run_start=-d.pick([14, 7]),
        legacy_decommission=d.pick([30, 45, 60]),
    )
    return {
        "size": size,
        "cutover": d.date("2025-02-24", "2025-04-14", shipped="2025-03-10", weekdays="0"),
        "offsets": offsets,
        "watch_from": "shadow_run_start",  # the milestone on-call coverage and reconciliation start at
    }


cutover_params = shipped_params(cutover_inputs)


def cutover_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, cut = p["size"], p["cutover"]
    dates = {k: add_days(cut, d) for k, d in p["offsets"].items()}
    watch_from = dates[p["watch_from"]]
    if size == 10:
        return {
            "migration": {
                "name": "orders-etl-migration",
                "owner": "commerce-data",
                "source_system": "legacy-cron",
                "target_system": "airflow",
            },
            "status": "planning",
            "cutover_date": cut,
            "milestones": {
                k: dates[k] for k in ("backfill_start", "shadow_run_start", "legacy_decommission")
            },
            "audit_date": "2025-04-01",
        }
    artifact: dict[str, Any] = {
        "migration": {
            "name": "orders-etl-migration",
            "owner": "commerce-data",
            "source_system": "legacy-cron",
            "target_system": "airflow",
            "status": "planning",
        },
        "cutover_date": cut,
        "milestones": dates,
        "comms": {
            "announcement_date": add_days(cut, -7),
            "channel": "#commerce-data",
            "stakeholders": ["finance-bi", "growth-analytics", "crm-ops"],
        },
        "datasets": [
            {
                "name": n,
                "history_from": f,
                "history_to": add_days(dates["backfill_start"], -1),
                "est_rows": r,
            }
            for n, f, r in CUTOVER_DATASETS[: 3 if size == 50 else 5]
        ],
        "fixed_dates": {
            "quarterly_audit": "2025-04-01",
            "vendor_license_end": "2025-06-30",
            "team_offsite": "2025-03-05",
            "fiscal_close": "2025-03-28",
        },
        "people": {
            "tech_lead": "Maya Chen",
            "migration_owner": "Luis Ortega",
            "approver": "Dana Whitfield",
        },
        "airflow": {"dag_id": "orders_etl_v2", "schedule": "0 2 * * *", "pool": "migration"},
        "legacy": {"host": "cron-etl-01", "script": "/opt/etl/orders.sh", "schedule": "0 2 * * *"},
        "risks": [
            {"risk": "late-arriving rows", "mitigation": "re-run the last 3 days after cutover"},
            {"risk": "timezone drift", "mitigation": "compare daily totals in UTC"},
        ],
        "tags": ["migration", "orders", "airflow", "q1"],
    }
    if size == 50:
        return artifact
    artifact["fixed_dates"]["soc2_evidence_due"] = "2025-05-15"
    artifact["fixed_dates"]["company_holidays"] = ["2025-04-18", "2025-04-21"]
    artifact["milestones"]["consumer_switch"] = add_days(cut, 2)
    artifact["comms"]["reminder_date"] = add_days(cut, -1)
    artifact["airflow"].update(owner_email="commerce-data@acme.io", retries=2)
    artifact["legacy"]["log_path"] = "/var/log/etl/orders.log"
    artifact["risks"].append(
        {"risk": "source rate limits", "mitigation": "cap the backfill at 4 parallel tasks"}
    )
    artifact["checkpoints"] = [
        {"name": "runbook dry run", "date": add_days(cut, -5)},
        {"name": "rollback drill", "date": add_days(cut, -4)},
        {"name": "hypercare ends", "date": add_days(cut, 14)},
        {"name": "final cost review", "date": add_days(cut, 45)},
    ]
    artifact["on_call_coverage"] = {
        "rotation": "commerce-data-oncall",
        "from": watch_from,
        "to": dates["legacy_decommission"],
    }
    artifact["reconciliation"] = {
        "metric": "daily order totals",
        "tolerance_pct": 0.1,
        "report_channel": "#orders-recon",
        "starts": watch_from,
    }
    artifact["budget"] = {"cloud_usd": 4800, "contractor_days": 12, "cost_center": "CC-3120"}
    artifact["environments"] = [
        {"name": "airflow-staging", "url": "https://airflow-stg.acme.io"},
        {"name": "airflow-prod", "url": "https://airflow.acme.io"},
    ]
    artifact["contacts"] = [
        {"team": "finance-bi", "person": "Omar Said"},
        {"team": "crm-ops", "person": "Jia Li"},
        {"team": "growth-analytics", "person": "Ben Adler"},
        {"team": "platform", "person": "Sofia Rossi"},
    ]
    artifact["docs"] = {
        "design": "https://wiki.acme.io/data/orders-v2",
        "runbook": "https://wiki.acme.io/data/orders-v2-runbook",
    }
    return artifact


def cutover_conversation(p: dict[str, Any]) -> list[Turn]:
    size, cut, off = p["size"], p["cutover"], p["offsets"]
    backfill, shadow = -off["backfill_start"], -off["shadow_run_start"]
    decommission = off["legacy_decommission"]
    if size == 10:
        return [
            (
                "We're moving the orders ETL off the legacy cron box onto Airflow. Call the plan "
                "orders-etl-migration, owned by commerce-data, and mark it as planning for now.",
                ["/migration", "/status"],
            ),
            (f"Cutover is Monday {cut}.", ["/cutover_date"]),
            (
                f"Work back from the cutover: the backfill starts {WEEKS[backfill]} before it and the shadow "
                f"run (old and new side by side) {WEEKS[shadow]} before. We decommission the legacy job "
                f"{decommission} days after cutover. "
                "All offsets are calendar days.",
                ["/milestones"],
            ),
            (
                "Finance's quarterly data audit is fixed on 2025-04-01; note it too.",
                ["/audit_date"],
            ),
        ]
    n = 3 if size == 50 else 5
    sets = ", ".join(
        f"{name} (from {start}, about {rows / 1e6:g} million rows)"
        for name, start, rows in CUTOVER_DATASETS[:n]
    )
    turns: list[Turn] = [
        (
            "We're moving the orders ETL off the legacy cron box onto Airflow. Call the plan "
            "orders-etl-migration, owned by commerce-data, status planning.",
            ["/migration"],
        ),
        (f"Cutover day is Monday {cut}.", ["/cutover_date"]),
        (
            f"Milestones, all in calendar days from the cutover: backfill starts {backfill} days before, "
            f"the shadow run {shadow} days before, schema freeze 10 days before, go/no-go 3 days "
            "before. The legacy job goes read-only a week after cutover and is decommissioned "
            f"{decommission} days after."
            + (
                " Consumers switch their dashboards over 2 days after cutover."
                if size >= 100
                else ""
            ),
            ["/milestones"],
        ),
        (
            "Announce it a week before cutover in #commerce-data"
            + (", with a reminder the day before" if size >= 100 else "")
            + "; stakeholders are finance-bi, growth-analytics and crm-ops.",
            ["/comms"],
        ),
        (
            f"Datasets to backfill: {sets}. Each one copies history from its start date through the day "
            "before the backfill begins.",
            ["/datasets"],
        ),
        (
            "Some dates are fixed no matter what: quarterly audit 2025-04-01, vendor license ends 2025-06-30, "
            "team offsite 2025-03-05, fiscal close 2025-03-28.",
            [
                f"/fixed_dates/{k}"
                for k in ("quarterly_audit", "vendor_license_end", "team_offsite", "fiscal_close")
            ],
        ),
        (
            "People: Maya Chen is tech lead, Luis Ortega owns the migration, Dana Whitfield approves.",
            ["/people"],
        ),
        (
            "New side: DAG orders_etl_v2 at 02:00 daily in the migration pool. Old side: /opt/etl/orders.sh on "
            "cron-etl-01, same 02:00 schedule.",
            [f"/airflow/{k}" for k in ("dag_id", "schedule", "pool")]
            + [f"/legacy/{k}" for k in ("host", "script", "schedule")],
        ),
        (
            "Risks: late-arriving rows (re-run the last 3 days after cutover) and timezone drift (compare daily "
            "totals in UTC). Tags: migration, orders, airflow, q1.",
            ["/risks/0", "/risks/1", "/tags"],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "Checkpoints relative to cutover: runbook dry run 5 days before, rollback drill 4 days before, "
            "hypercare ends 14 days after, final cost review 45 days after. SOC2 evidence is due on the fixed "
            "date 2025-05-15.",
            ["/checkpoints", "/fixed_dates/soc2_evidence_due"],
        ),
        (
            "commerce-data-oncall covers the migration from the start of the shadow run until the legacy job "
            "is decommissioned.",
            ["/on_call_coverage"],
        ),
        (
            "Reconcile daily order totals within 0.1%, reporting in #orders-recon, starting when the shadow run "
            "starts. Budget: $4,800 cloud spend and 12 contractor days on CC-3120.",
            ["/reconciliation", "/budget"],
        ),
        (
            "Environments: airflow-staging at https://airflow-stg.acme.io and airflow-prod at "
            "https://airflow.acme.io. Contacts: Omar Said for finance-bi, Jia Li for crm-ops, Ben Adler for "
            "growth-analytics and Sofia Rossi for platform.",
            ["/environments", "/contacts"],
        ),
        (
            "Docs: design at https://wiki.acme.io/data/orders-v2, runbook at "
            "https://wiki.acme.io/data/orders-v2-runbook. No deploys on the company holidays 2025-04-18 and "
            "2025-04-21.",
            ["/docs", "/fixed_dates/company_holidays"],
        ),
        (
            "The DAG should email commerce-data@acme.io and retry twice; the legacy job logs to "
            "/var/log/etl/orders.log. One more risk: source rate limits, so cap the backfill at 4 parallel tasks.",
            ["/airflow/owner_email", "/airflow/retries", "/legacy/log_path", "/risks/2"],
        ),
    ]
    return turns


def cutover_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="The cutover slips two weeks: move it to Monday 2025-03-24.",
        mutate=lambda q: q.update(cutover="2025-03-24"),
        direct="/cutover_date",
    )


def cutover_followups(p: dict[str, Any]) -> list[Revision]:
    return [
        Revision(
            request="Bad news, the vendor needs another week: cutover is now Monday 2025-03-31.",
            mutate=lambda q: q.update(cutover="2025-03-31"),
            direct="/cutover_date",
            theme="The cutover slips a second time; every offset date moves another 7 days, fixed dates stay",
            pattern="temporal",
        ),
        Revision(
            request="Scratch that, the vendor shipped the fix after all. Go back to Monday 2025-03-24.",
            mutate=lambda q: q.update(cutover="2025-03-24"),
            direct="/cutover_date",
            theme="Undoing the last slip pulls every offset date back 7 days; fixed dates stay",
            pattern="temporal",
        ),
        Revision(
            request="Finance wants us clear of quarter close, so push the cutover back two more weeks.",
            mutate=lambda q: q.update(cutover=add_days(q["cutover"], 14)),
            direct="/cutover_date",
            theme="A relative slip from the current cutover moves it and every offset date 14 days; fixed "
            "dates stay",
            pattern="temporal",
        ),
    ]


# moves of pipeline-cutover-date-shift: the cutover moves to a named Monday, is pushed back or
# pulled in by some days or weeks, is set a number of weeks before the (fixed) quarterly audit,
# (sizes 50 and 100, where other dates follow it) a milestone's offset changes, and (size 100)
# on-call coverage and reconciliation start at another milestone


def _weekday(iso: str) -> str:
    """``_weekday("2025-03-10") == "Monday"``."""
    return _dt.date.fromisoformat(iso).strftime("%A")


def _weeks_or_days(days: int) -> str:
    return WEEKS.get(days, f"{days} days")


def _slip(p: dict[str, Any], d: Draw) -> Revision:
    weeks = d.pick([-3, -2, -1, 1, 2, 3, 4])
    cut = add_days(p["cutover"], 7 * weeks)
    later = "slips" if weeks > 0 else "comes forward"
    return Revision(
        request=f"The cutover {later} {_weeks_or_days(7 * abs(weeks))}: move it to {_weekday(cut)} {cut}.",
        mutate=lambda q: q.update(cutover=cut),
        direct="/cutover_date",
        theme=f"The cutover moves to {cut}: every offset date follows, fixed dates stay",
    )


def _relative(p: dict[str, Any], d: Draw, later: bool) -> Revision:
    days = d.pick([3, 4, 7, 10, 14, 21])
    cut = add_days(p["cutover"], days if later else -days)
    words = _weeks_or_days(days)
    request = (
        d.pick(
            [
                f"The vendor needs more time: push the cutover back {words}.",
                f"Push the cutover {words} later than it is now.",
            ]
        )
        if later
        else d.pick(
            [
                f"We're ahead of plan: pull the cutover in by {words}.",
                f"Bring the cutover {words} earlier than it is now.",
            ]
        )
    )
    return Revision(
        request=request,
        mutate=lambda q: q.update(cutover=cut),
        direct="/cutover_date",
        theme=f"A relative move of {days} days from the current cutover: every offset date follows",
    )


def _push(p: dict[str, Any], d: Draw) -> Revision:
    return _relative(p, d, later=True)


def _pull_in(p: dict[str, Any], d: Draw) -> Revision:
    return _relative(p, d, later=False)


def _before_audit(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [w for w in (1, 2, 3, 4, 5) if add_days(AUDIT_DATE, -7 * w) != p["cutover"]]
    weeks = d.pick(options)
    cut = add_days(AUDIT_DATE, -7 * weeks)
    return Revision(
        request=f"Finance wants the cutover exactly {_weeks_or_days(7 * weeks)} before the quarterly "
        "audit; move it there.",
        mutate=lambda q: q.update(cutover=cut),
        direct="/cutover_date",
        theme=f"The cutover set from the fixed audit date ({cut}): every offset date follows",
    )


OFFSET_WORDS = {
    "backfill_start": ("the backfill to start", "before"),
    "shadow_run_start": ("the shadow run to start", "before"),
    "legacy_decommission": ("the legacy job to be decommissioned", "after"),
}


def _reoffset(p: dict[str, Any], d: Draw) -> Revision:
    # the milestones other dates follow: the backfill start (the datasets' history), and at size
    # 100 the decommission (on-call coverage ends) and the shadow run while coverage starts with it
    keys = ["backfill_start"]
    if p["size"] >= 100:
        keys.append("legacy_decommission")
        if p["watch_from"] == "shadow_run_start":
            keys.append("shadow_run_start")
    key = d.pick(keys)
    what, side = OFFSET_WORDS[key]
    old = abs(p["offsets"][key])
    pool = {
        "backfill_start": (21, 28, 30, 35, 42),
        "shadow_run_start": (7, 10, 14, 18),
        "legacy_decommission": (21, 30, 45, 60, 90),
    }[key]
    days = d.pick([n for n in pool if n != old])
    offset = -days if side == "before" else days

    def mutate(q: dict[str, Any]) -> None:
        q["offsets"][key] = offset

    return Revision(
        request=f"We want {what} {days} days {side} the cutover instead of {old}.",
        mutate=mutate,
        direct=f"/milestones/{key}",
        theme=f"A new offset for {key}: the milestone and every date tied to it follow",
    )


WATCH_ANCHORS = {
    "backfill_start": "the day the backfill starts",
    "shadow_run_start": "the day the shadow run starts",
    "schema_freeze": "the day of the schema freeze",
    "go_no_go": "the day of the go/no-go",
}


def _watch_anchor(p: dict[str, Any], d: Draw) -> Revision:
    offsets = p["offsets"]
    key = d.pick([k for k in WATCH_ANCHORS if offsets[k] != offsets[p["watch_from"]]])
    return Revision(
        request="commerce-data-oncall coverage and the daily order-total reconciliation should both "
        f"start on {WATCH_ANCHORS[key]} instead.",
        mutate=lambda q: q.update(watch_from=key),
        direct="/on_call_coverage/from",
        theme=f"Coverage and reconciliation re-anchored on {key}: both start dates follow",
    )


CUTOVER_MOVES = [
    Move("slip", "temporal", _slip),
    Move("push", "temporal", _push),
    Move("pull-in", "temporal", _pull_in),
    Move("before-audit", "temporal", _before_audit),
    Move("reoffset", "temporal", _reoffset, when=lambda p: p["size"] >= 50, opens=False),
    Move("watch-anchor", "substitution", _watch_anchor, when=lambda p: p["size"] >= 100),
]


# =========================================================================== pipeline-promote-to-production
# Status flip: promoting the pipeline from staging to production moves every setting the user
# tied to the environment to its production value at once.

ENVIRONMENTS: dict[str, dict[str, Any]] = {
    "staging": {
        "dataset": "analytics_staging",
        "alert_route": "#payments-etl-dev",
        "retries": 1,
        "sample_percent": 10,
        "sla_tier": "none",
        "retention_days": 14,
        "workers": 2,
        "block_on_failure": False,
        "catalog_visibility": "team",
        "cluster": "etl-staging",
        "service_account": "payments-etl-stg",
        "secrets_path": "vault:kv/staging/payments-etl",
        "dashboard_folder": "Staging/Payments",
    },
    "production": {
        "dataset": "analytics_prod",
        "alert_route": "pagerduty:data-oncall",
        "retries": 3,
        "sample_percent": 100,
        "sla_tier": "gold",
        "retention_days": 400,
        "workers": 6,
        "block_on_failure": True,
        "catalog_visibility": "company",
        "cluster": "etl-prod",
        "service_account": "payments-etl-prod",
        "secrets_path": "vault:kv/prod/payments-etl",
        "dashboard_folder": "Production/Payments",
    },
}
PREPROD = {"dataset": "analytics_preprod", "alert_route": "#payments-etl-preprod"}
"""The new environment of the follow-up and the preprod move: production's settings except these."""
PREPROD_REQUEST = (
    "a new preprod environment: same settings as production, except it writes to analytics_preprod "
    "and alerts go to #payments-etl-preprod"
)
LEDGER_TABLES: list[tuple[str, str]] = [
    ("ledger_entries", "merge"),
    ("ledger_accounts", "merge"),
    ("fx_rates", "append"),
    ("settlements", "merge"),
    ("chargebacks", "append"),
    ("payouts", "merge"),
]
LEDGER_PEOPLE = [
    ("Hana Kim", "Ravi Menon", "Ines Kowalski"),
    ("Marta Sousa", "Kenji Ito", "Lea Fischer"),
    ("Omar Haddad", "Julia Novak", "Tariq Aziz"),
    ("Grace Owusu", "Pavel Ivanov", "Rosa Jimenez"),
]


def promote_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The pipeline's inputs: the environment it runs in, each environment's settings (the
    numbers drawn), the run timeout, the sample seed, the tables and the people."""
    staging = dict(ENVIRONMENTS["staging"])
    production = dict(ENVIRONMENTS["production"])
    staging.update(
        sample_percent=d.pick([10, 5, 20, 25]),
        workers=d.pick([2, 1, 3]),
        retention_days=d.pick([14, 7, 30]),
    )
    production.update(
        retries=d.pick([3, 4, 5]),
        workers=d.pick([6, 8, 10, 12]),
        retention_days=d.pick([400, 365, 730]),
    )
    lead, analyst, on_call = d.pick(LEDGER_PEOPLE)
    return {
        "size": size,
        "environment": "staging",
        "envs": {"staging": staging, "production": production},
        "timeout": d.pick([30, 20, 45, 60]),
        "seed": d.pick([42, 7, 1234, 2025]),
        "tables": list(LEDGER_TABLES[: 3 if size <= 50 else 6]),
        "people": [lead, analyst, on_call],
    }


promote_params = shipped_params(promote_inputs)


def _preprod(q: dict[str, Any]) -> None:
    """Move the pipeline to preprod, defined (as the request says) from production as it is now."""
    q["envs"]["preprod"] = {**q["envs"]["production"], **PREPROD}
    q["environment"] = "preprod"


def promote_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, env_name = p["size"], p["environment"]
    env = p["envs"][env_name]
    lead, analyst, on_call = p["people"]
    if size == 10:
        return {
            "pipeline": {
                "name": "payments-ledger-etl",
                "owner": "finance-data",
                "environment": env_name,
                "schedule": "15 * * * *",
            },
            "source_table": "payments.ledger_entries",
            "target_dataset": env["dataset"],
            "alert_route": env["alert_route"],
            "retries": env["retries"],
            "sample_percent": env["sample_percent"],
            "timeout_minutes": p["timeout"],
        }
    artifact: dict[str, Any] = {
        "pipeline": {
            "name": "payments-ledger-etl",
            "owner": "finance-data",
            "environment": env_name,
            "schedule": "15 * * * *",
            "timezone": "UTC",
        },
        "source": {"host": "payments-db.internal", "database": "payments", "schema": "public"},
        "target_dataset": env["dataset"],
        "tables": [
            {"source": t, "target": f"{env['dataset']}.{t}", "mode": m} for t, m in p["tables"]
        ],
        "alerting": {"route": env["alert_route"], "digest_channel": "#payments-data"},
        "runtime": {
            "retries": env["retries"],
            "timeout_minutes": p["timeout"],
            "workers": env["workers"],
            "worker_type": "m5.large",
        },
        "sampling": {"percent": env["sample_percent"], "seed": p["seed"]},
        "sla": {"tier": env["sla_tier"], "owner": "finance-data"},
        "retention_days": env["retention_days"],
        "quality": {
            "block_on_failure": env["block_on_failure"],
            "checks": ["balanced_ledger", "no_null_account", "fx_rate_present"],
        },
        "catalog": {
            "visibility": env["catalog_visibility"],
            "description": "Payments ledger, loaded hourly",
            "domain": "finance",
        },
        "owners": [
            {"name": lead, "role": "tech lead"},
            {"name": analyst, "role": "analyst"},
        ],
        "tags": ["payments", "ledger", "hourly", "sox"],
        "cost_center": "CC-7100",
        "runbook_url": "https://wiki.acme.io/data/payments-ledger-etl",
        "maintenance": {"window": "Sun 02:00-03:00", "skip_runs": True},
        "lineage": {"upstream": "payments-db", "downstream": ["finance-reporting"]},
    }
    if size == 50:
        return artifact
    artifact["runtime"].update(cluster=env["cluster"], service_account=env["service_account"])
    artifact["secrets_path"] = env["secrets_path"]
    artifact["lineage"]["downstream"] += ["treasury-forecast", "audit-exports"]
    artifact["quality"]["checks"] += ["no_duplicate_entry_id", "settlement_matches_payout"]
    artifact["owners"].append({"name": on_call, "role": "on-call"})
    artifact["schema_changes"] = {"on_new_column": "alert", "on_type_change": "fail"}
    artifact["pii_columns"] = ["account_holder", "iban"]
    artifact["audit"] = {
        "sox_control": "FIN-ETL-04",
        "evidence_folder": "s3://acme-audit/payments-etl/",
        "last_audit": "2024-11-18",
    }
    artifact["dependencies"] = [
        {"job": "fx-rates-fetch", "must_finish_by": "00:10"},
        {"job": "payments-db-snapshot", "must_finish_by": "00:05"},
    ]
    artifact["dashboard_folder"] = env["dashboard_folder"]
    artifact["notifications"] = {"on_success": False, "on_failure": True}
    artifact["backfill"] = {"from": "2024-01-01", "status": "done", "rows": 12_400_000}
    artifact["access"] = {"readers": "finance-analysts", "writers": "finance-data"}
    artifact["reconciliation"] = {
        "against": "ledger-service API",
        "tolerance_cents": 0,
        "report_channel": "#payments-recon",
    }
    artifact["change_management"] = {"approver": lead, "ticket": "CHG-5190"}
    artifact["storage"] = {
        "format": "parquet",
        "partitioned_by": "entry_date",
        "compression": "zstd",
    }
    artifact["compute_budget_usd"] = 650
    artifact["freshness_slo_minutes"] = 75
    artifact["last_reviewed"] = "2025-02-20"
    artifact["ticket_queue"] = "FINDATA"
    artifact["data_classification"] = "confidential"
    return artifact


def _times(n: int) -> str:
    """``_times(1) == "once"``, ``_times(3) == "3 times"``."""
    return "once" if n == 1 else f"{n} times"


def _retry_words(n: int) -> str:
    """``_retry_words(1) == "1 retry"``, ``_retry_words(3) == "3 retries"``."""
    return f"{n} retry" if n == 1 else f"{n} retries"


def promote_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    stg, prod = p["envs"]["staging"], p["envs"]["production"]
    lead, analyst, on_call = p["people"]
    timeout = p["timeout"]
    if size == 10:
        env_rules = (
            "Environment rules, so nobody has to remember them: in staging it writes to "
            f"{stg['dataset']}, alerts go to {stg['alert_route']}, it retries {_times(stg['retries'])} "
            f"and processes a {stg['sample_percent']}% sample. In production it writes to "
            f"{prod['dataset']}, alerts go to {prod['alert_route']}, it retries "
            f"{_times(prod['retries'])} and processes {prod['sample_percent']}% of rows. Set it up for "
            "staging for now."
        )
        return [
            (
                "Set up payments-ledger-etl for finance-data: hourly at quarter past, reading "
                "payments.ledger_entries. It starts out in staging.",
                ["/pipeline", "/source_table"],
            ),
            (env_rules, ["/target_dataset", "/alert_route", "/retries", "/sample_percent"]),
            (f"Give each run a {timeout}-minute timeout.", ["/timeout_minutes"]),
        ]
    table_list = ", ".join(f"{t} ({m})" for t, m in p["tables"])
    rules = (
        f"Here is what depends on the environment. Staging: dataset {stg['dataset']}, alerts to "
        f"{stg['alert_route']}, {_retry_words(stg['retries'])}, {stg['workers']} workers, a "
        f"{stg['sample_percent']}% sample, SLA tier {stg['sla_tier']}, {stg['retention_days']}-day "
        "retention, quality failures only warn (no blocking), and catalog visibility "
        f"{stg['catalog_visibility']}. Production: dataset {prod['dataset']}, alerts to "
        f"{prod['alert_route']}, {_retry_words(prod['retries'])}, {prod['workers']} workers, "
        f"{prod['sample_percent']}% of rows, SLA tier {prod['sla_tier']}, "
        f"{prod['retention_days']}-day retention, quality failures block the load, and catalog "
        f"visibility {prod['catalog_visibility']}."
    )
    if size >= 100:
        rules += (
            f" Also, staging runs on the {stg['cluster']} cluster as service account "
            f"{stg['service_account']} with secrets under {stg['secrets_path']}; production uses "
            f"{prod['cluster']}, {prod['service_account']} and {prod['secrets_path']}. Its dashboards "
            f"live in the {stg['dashboard_folder']} folder in staging and {prod['dashboard_folder']} "
            "in production."
        )
    rules += " Set everything up for staging."
    env_paths = [
        "/target_dataset",
        "/alerting/route",
        "/runtime/retries",
        "/runtime/workers",
        "/sampling/percent",
        "/sla/tier",
        "/retention_days",
        "/quality/block_on_failure",
        "/catalog/visibility",
    ]
    if size >= 100:
        env_paths += [
            "/runtime/cluster",
            "/runtime/service_account",
            "/secrets_path",
            "/dashboard_folder",
        ]
    turns: list[Turn] = [
        (
            "New pipeline for finance-data: payments-ledger-etl, hourly at quarter past (UTC), reading the public "
            "schema of the payments database on payments-db.internal. It starts out in staging.",
            [
                "/pipeline/name",
                "/pipeline/owner",
                "/pipeline/environment",
                "/pipeline/schedule",
                "/pipeline/timezone",
                "/source",
            ],
        ),
        (rules, env_paths),
        (
            f"Tables to load: {table_list}. Each lands in the environment's dataset under the same table name.",
            ["/tables"],
        ),
        (
            f"Runs time out after {timeout} minutes on m5.large workers. Keep the sample seed at "
            f"{p['seed']} so samples are repeatable. finance-data owns the SLA, and weekly digests go "
            "to #payments-data.",
            [
                "/runtime/timeout_minutes",
                "/runtime/worker_type",
                "/sampling/seed",
                "/sla/owner",
                "/alerting/digest_channel",
            ],
        ),
        (
            "Quality checks: balanced_ledger, no_null_account, fx_rate_present"
            + (", no_duplicate_entry_id and settlement_matches_payout." if size >= 100 else "."),
            ["/quality/checks"],
        ),
        (
            "Catalog description: 'Payments ledger, loaded hourly', in the finance domain.",
            ["/catalog/description", "/catalog/domain"],
        ),
        (
            f"Owners are {lead} (tech lead) and {analyst} (analyst)"
            + (f", with {on_call} on call" if size >= 100 else "")
            + ". Tag it payments, ledger, hourly, sox; cost center CC-7100.",
            ["/owners", "/tags", "/cost_center"],
        ),
        (
            "Runbook is https://wiki.acme.io/data/payments-ledger-etl. Skip runs during the Sunday 02:00-03:00 "
            "maintenance window. It reads payments-db and feeds finance-reporting"
            + (", treasury-forecast and audit-exports." if size >= 100 else "."),
            ["/runbook_url", "/maintenance", "/lineage"],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "New columns should raise an alert and type changes fail the run. account_holder and iban are PII.",
            ["/schema_changes", "/pii_columns"],
        ),
        (
            "It's a SOX control, FIN-ETL-04; evidence goes to s3://acme-audit/payments-etl/ and the last audit "
            "was 2024-11-18.",
            ["/audit"],
        ),
        (
            "It depends on fx-rates-fetch finishing by 00:10 and the payments-db-snapshot by 00:05.",
            ["/dependencies"],
        ),
        (
            "Notify on failures only. The history backfill from 2024-01-01 is done, 12.4 million rows. "
            "finance-analysts read, finance-data writes.",
            ["/notifications", "/backfill", "/access"],
        ),
        (
            "Reconcile against the ledger-service API to the cent (zero tolerance), reporting in "
            f"#payments-recon. The promotion goes through change ticket CHG-5190, approved by {lead}.",
            ["/reconciliation", "/change_management"],
        ),
        (
            "Store it as parquet partitioned by entry_date with zstd. Compute budget $650 a month, freshness "
            "SLO 75 minutes, last reviewed 2025-02-20, tickets in the FINDATA queue, classified confidential.",
            [
                "/storage",
                "/compute_budget_usd",
                "/freshness_slo_minutes",
                "/last_reviewed",
                "/ticket_queue",
                "/data_classification",
            ],
        ),
    ]
    return turns


def promote_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Staging has been clean for two weeks. Let's promote payments-ledger-etl to production.",
        mutate=lambda q: q.update(environment="production"),
        direct="/pipeline/environment",
    )


def promote_followups(p: dict[str, Any]) -> list[Revision]:
    return [
        Revision(
            request="The first production run double-counted chargebacks. Roll payments-ledger-etl back to "
            "staging while we fix it.",
            mutate=lambda q: q.update(environment="staging"),
            direct="/pipeline/environment",
            theme="Rolling back to staging returns every environment-governed setting to its staging value",
            pattern="status_flip",
        ),
        Revision(
            request=f"Before production again we'll soak it in {PREPROD_REQUEST}. "
            "Move payments-ledger-etl there.",
            mutate=_preprod,
            direct="/pipeline/environment",
            theme="A new environment defined as production with two exceptions: dataset, targets, alerts and "
            "every production value follow",
            pattern="substitution",
        ),
        Revision(
            request="Preprod has been clean for a week. Promote payments-ledger-etl to production.",
            mutate=lambda q: q.update(environment="production"),
            direct="/pipeline/environment",
            theme="Promoting from preprod to production moves the dataset, table targets and alert route",
            pattern="status_flip",
        ),
    ]


# moves of pipeline-promote-to-production: promote to production, roll back to staging, soak in
# preprod or try it in a sandbox (each defined in the request from production or staging as it
# stands), and (sizes 50 and 100, where the tables follow the dataset) rename the dataset of the
# environment it runs in


def _promote(p: dict[str, Any], d: Draw) -> Revision:
    since = d.pick(["two weeks", "a week", "ten days", "three weeks"])
    where = p["environment"].capitalize()
    return Revision(
        request=d.pick(
            [
                f"{where} has been clean for {since}. Promote payments-ledger-etl to production.",
                f"Sign-off came through: payments-ledger-etl moves from {p['environment']} to production.",
            ]
        ),
        mutate=lambda q: q.update(environment="production"),
        direct="/pipeline/environment",
        theme=f"Promoting from {p['environment']} to production moves every environment-governed setting",
    )


def _rollback(p: dict[str, Any], d: Draw) -> Revision:
    why = d.pick(
        [
            "double-counted chargebacks",
            "loaded duplicate settlements",
            "dropped the fx rates for two hours",
            "broke the finance-reporting refresh",
        ]
    )
    return Revision(
        request=f"The last {p['environment']} run {why}. Roll payments-ledger-etl back to staging "
        "while we fix it.",
        mutate=lambda q: q.update(environment="staging"),
        direct="/pipeline/environment",
        theme=f"Rolling back from {p['environment']} returns every environment-governed setting to staging",
    )


def _to_preprod(p: dict[str, Any], d: Draw) -> Revision:
    again = "preprod" in p["envs"]
    return Revision(
        request=(
            "Move payments-ledger-etl back to preprod, defined as before: "
            if again
            else "Before production we'll soak payments-ledger-etl in a new preprod environment: "
        )
        + "the same settings as production has right now, except it writes to "
        f"{PREPROD['dataset']} and alerts go to {PREPROD['alert_route']}."
        + ("" if again else " Move it there."),
        mutate=_preprod,
        direct="/pipeline/environment",
        theme="A preprod environment defined from production with two exceptions: every setting follows",
    )


SANDBOX = {"dataset": "analytics_sandbox", "alert_route": "#payments-etl-sandbox"}


def _sandbox(q: dict[str, Any]) -> None:
    """Move the pipeline to the sandbox, defined (as the request says) from staging as it is now."""
    q["envs"]["sandbox"] = {**q["envs"]["staging"], **SANDBOX}
    q["environment"] = "sandbox"


def _to_sandbox(p: dict[str, Any], d: Draw) -> Revision:
    again = "sandbox" in p["envs"]
    return Revision(
        request=(
            "Move payments-ledger-etl back to the sandbox, defined as before: "
            if again
            else "We need somewhere to try schema changes: move payments-ledger-etl to a new "
            "sandbox environment with "
        )
        + "the same settings as staging has right now, except it writes to "
        f"{SANDBOX['dataset']} and alerts go to {SANDBOX['alert_route']}.",
        mutate=_sandbox,
        direct="/pipeline/environment",
        theme="A sandbox environment defined from staging with two exceptions: every setting follows",
    )


DATASET_NAMES = {
    "staging": ["finance_staging", "ledger_staging", "payments_stg"],
    "production": ["finance_prod", "ledger_prod", "payments_production"],
    "preprod": ["finance_preprod", "ledger_preprod"],
    "sandbox": ["finance_sandbox", "ledger_sandbox"],
}


def _rename_dataset(p: dict[str, Any], d: Draw) -> Revision:
    env_name = p["environment"]
    name = d.pick([n for n in DATASET_NAMES[env_name] if n != p["envs"][env_name]["dataset"]])

    def mutate(q: dict[str, Any]) -> None:
        q["envs"][env_name]["dataset"] = name

    return Revision(
        request=f"The platform team renamed the {env_name} dataset: it is {name} now.",
        mutate=mutate,
        direct="/target_dataset",
        theme=f"The {env_name} dataset is renamed to {name}: every table target follows",
    )


PROMOTE_MOVES = [
    Move("promote", "status_flip", _promote, when=lambda p: p["environment"] != "production"),
    Move("rollback", "status_flip", _rollback, when=lambda p: p["environment"] != "staging"),
    Move("preprod", "substitution", _to_preprod, when=lambda p: p["environment"] != "preprod"),
    Move("sandbox", "substitution", _to_sandbox, when=lambda p: p["environment"] != "sandbox"),
    Move("rename-dataset", "substitution", _rename_dataset, when=lambda p: p["size"] >= 50),
]


SCENARIOS = [
    Scenario(
        id="pipeline-raw-volume-costs",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="Changing the daily raw volume recomputes clean and retained volumes, workers and every cost line",
        params=volume_params,
        compute=volume_compute,
        conversation=volume_conversation,
        revision=volume_revision,
        followups=volume_followups,
        inputs=volume_inputs,
        moves=VOLUME_MOVES,
        notes="Tests a formula chain stated only in the conversation: clean = 75% of raw, compute $0.50 per "
        "raw GB x 30 days, storage $0.02/GB-month on 90 days of clean output, monthly total. Larger "
        "sizes add workers, aggregate volume, budget headroom, a description, stage inputs and a team "
        "roll-up; the one-time backfill and the other team pipeline must stay.",
    ),
    Scenario(
        id="pipeline-warehouse-swap",
        domain=DOMAIN,
        pattern="substitution",
        theme="Switching the load destination copies in its catalog profile and repoints stages, checks and tables",
        params=warehouse_params,
        compute=warehouse_compute,
        conversation=warehouse_conversation,
        revision=warehouse_revision,
        followups=warehouse_followups,
        inputs=warehouse_inputs,
        moves=WAREHOUSE_MOVES,
        notes="Tests substitution of the destination: every profile attribute comes from the attached "
        "catalog profile. Larger sizes add stages, checks, tables, lineage and a description that "
        "follow 'the destination', while the GCS archive and the other pipelines on bq-analytics are "
        "stated to stay.",
    ),
    Scenario(
        id="pipeline-drop-dedupe-stage",
        domain=DOMAIN,
        pattern="add_remove",
        theme="Removing a stage from a sequential run relinks its successor and pulls every later time earlier",
        params=dedupe_params,
        compute=dedupe_compute,
        conversation=dedupe_conversation,
        revision=dedupe_revision,
        followups=dedupe_followups,
        inputs=dedupe_inputs,
        moves=DEDUPE_MOVES,
        notes="Tests removal from a strictly sequential stage list: total run time and finish time shrink "
        "by the removed 20 minutes. Larger sizes add the successor's relink to the removed stage's "
        "predecessor, earlier start/end times, and the dashboard refresh and partner export set "
        "relative to the finish; the 06:00 SLA and weekly rollup stay.",
    ),
    Scenario(
        id="pipeline-executor-quota-cap",
        domain=DOMAIN,
        pattern="threshold",
        theme="Growing a job's input past what the executor quota covers clamps executors, lengthens the run "
        "and raises the quota alert",
        params=quota_params,
        compute=quota_compute,
        conversation=quota_conversation,
        revision=quota_revision,
        followups=quota_followups,
        inputs=quota_inputs,
        moves=QUOTA_MOVES,
        notes="Tests a clamp: ceil(250/25) = 10 executors exceeds the quota of 8, so executors stay at 8, "
        "the run takes 75 instead of 60 minutes, the cost recomputes and the quota alert turns on. "
        "Larger sizes add the chained export, dashboard refresh, window end, monthly cost and quota "
        "count; jobs under the quota stay.",
    ),
    Scenario(
        id="pipeline-cutover-date-shift",
        domain=DOMAIN,
        pattern="temporal",
        theme="Moving the migration cutover shifts every date planned relative to it; fixed dates stay",
        params=cutover_params,
        compute=cutover_compute,
        conversation=cutover_conversation,
        revision=cutover_revision,
        followups=cutover_followups,
        inputs=cutover_inputs,
        moves=CUTOVER_MOVES,
        notes="Tests offset dates: every milestone planned in days from the cutover shifts by 14 days while "
        "a date given as fixed (the audit) stays. Larger sizes add the announcement, each dataset's "
        "history end (day before the backfill), checkpoints and on-call coverage, plus more fixed "
        "dates that must stay.",
    ),
    Scenario(
        id="pipeline-promote-to-production",
        domain=DOMAIN,
        pattern="status_flip",
        theme="Promoting the pipeline to production moves every environment-governed setting to its production value",
        params=promote_params,
        compute=promote_compute,
        conversation=promote_conversation,
        revision=promote_revision,
        followups=promote_followups,
        inputs=promote_inputs,
        moves=PROMOTE_MOVES,
        notes="Tests a status flip: the user listed staging and production values up front, so dataset, "
        "alert route, retries and sample switch together with the environment. Larger sizes add table "
        "targets, workers, SLA tier, retention, blocking and visibility (and cluster, account, "
        "secrets, dashboards); timeout, schedule, seed and owners stay.",
    ),
]
