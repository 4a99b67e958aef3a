"""deployment_config: a platform engineer writes down how services are deployed and operated.

Six scenarios, one per propagation pattern. Every rule the gold depends on is stated by the
user in the conversation; ``compute`` applies those rules, so the gold is the diff of the
artifact before and after the edited input.

Every scenario generates fresh instances: ``*_inputs(size, d)`` draws its inputs (the shipped
instance is the draw of no seed, so ``*_params`` is ``*_inputs(size, SHIPPED)``) and its
``*_MOVES`` are the edits a chain makes of them, each request written from its arguments for
the size it runs at. deploy-prod-change-freeze carries the status_flip moves.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from typing import Any

from pytest_revprop.authoring.helpers import money
from pytest_revprop.authoring.scenario import SHIPPED, Draw, Move, Revision, Scenario, Turn, regex

DOMAIN = "deployment_config"
CPU_USD_PER_VCPU_MONTH = 20
MEM_USD_PER_GIB_MONTH = 4


def _stamp(start: str, minutes: int) -> str:
    """``_stamp("2025-06-14T22:00:00Z", 150) == "2025-06-15T00:30:00Z"`` (UTC timestamps)."""
    t = dt.datetime.strptime(start, "%Y-%m-%dT%H:%M:%SZ") + dt.timedelta(minutes=minutes)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _delete(key: str, i: int) -> Callable[[dict[str, Any]], None]:
    """A move's edit that takes element ``i`` out of the inputs' list ``key``."""

    def mutate(q: dict[str, Any]) -> None:
        del q[key][i]

    return mutate


def _monthly_cost(cpu_millicores: int, memory_mib: int) -> dict[str, float]:
    """The team's rate card: $20 per vCPU-month and $4 per GiB-month of requested memory."""
    cpu = money(cpu_millicores / 1000 * CPU_USD_PER_VCPU_MONTH)
    mem = money(memory_mib / 1024 * MEM_USD_PER_GIB_MONTH)
    return {"cpu": cpu, "memory": mem, "total": money(cpu + mem)}


# =========================================================================== deploy-pod-memory-sizing
# Arithmetic: the per-pod memory request feeds the limit, the JVM heap, namespace totals, the quota,
# the cost, and (at size 100) a canary with the same pod size and the node count.

NODE_ALLOCATABLE_MIB = 8192
SPARE_NODES = 1


def _pod(name: str, image: str, replicas: int, cpu: int, request: int, gc: str) -> dict[str, Any]:
    """The user's sizing rules: limit = 2 x request, heap = 75% of the limit."""
    limit = request * 2
    heap = limit * 3 // 4
    return {
        "name": name,
        "image": image,
        "replicas": replicas,
        "cpu_millicores": cpu,
        "memory_request_mib": request,
        "memory_limit_mib": limit,
        "jvm_heap_mib": heap,
        "java_opts": f"-Xmx{heap}m -XX:+{gc}",
    }


WORKER = ["orders-worker", "registry.acme.io/orders-worker:2.14.0", 2, 250, 512, "UseG1GC"]
SCHEDULER = [
    "orders-scheduler",
    "registry.acme.io/orders-scheduler:1.3.2",
    1,
    250,
    256,
    "UseSerialGC",
]
MORE_PODS = [
    ["orders-notifier", "registry.acme.io/orders-notifier:1.0.3", 1, 250, 384, "UseG1GC"],
    ["orders-exporter", "registry.acme.io/orders-exporter:0.4.0", 1, 250, 256, "UseSerialGC"],
    ["orders-indexer", "registry.acme.io/orders-indexer:3.2.1", 2, 500, 768, "UseG1GC"],
]
"""Services a chain may add after orders-api's companions (and those it took out, back)."""
CANARY = "canary"
"""The canary's row in ``others``: its CPU, memory and Java options are orders-api's."""
CPU_WORDS = {
    250: "a quarter of a CPU",
    500: "half a CPU",
    750: "three quarters of a CPU",
    1000: "a full CPU",
}


def memory_inputs(size: int, d: Draw) -> dict[str, Any]:
    """orders-api's replicas, CPU and memory request; ``others``: the services after it, as
    ``_pod`` arguments (the worker's replicas and request drawn) or :data:`CANARY`."""
    worker = [*WORKER[:2], d.int(1, 3, shipped=2), 250, d.pick([512, 384, 640, 768]), "UseG1GC"]
    others: list[Any] = {10: [], 50: [worker], 100: [CANARY, worker, list(SCHEDULER)]}[size]
    return {
        "size": size,
        "request_mib": d.int(768, 2048, shipped=1024, step=256),
        "replicas": d.int(4, 6, shipped=4),
        "cpu": d.pick([500, 250, 750, 1000]),
        "others": others,
    }


def memory_params(size: int) -> dict[str, Any]:
    return memory_inputs(size, SHIPPED)


def _replicas(n: int) -> str:
    return f"{n} replica{'s' if n != 1 else ''}"


def memory_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, request, cpu_each = p["size"], p["request_mib"], p["cpu"]
    api = _pod(
        "orders-api",
        "registry.acme.io/orders-api:2.14.0",
        p["replicas"],
        cpu_each,
        request,
        "UseG1GC",
    )
    if size == 10:
        total = api["replicas"] * request
        return {
            "service": {"name": api["name"], "image": api["image"], "replicas": api["replicas"]},
            "namespace": "commerce",
            "resources": {
                k: api[k]
                for k in (
                    "cpu_millicores",
                    "memory_request_mib",
                    "memory_limit_mib",
                    "jvm_heap_mib",
                )
            },
            "totals": {"memory_request_mib": total},
            "monthly_cost_usd": _monthly_cost(api["replicas"] * api["cpu_millicores"], total)[
                "total"
            ],
        }
    services = [api]
    for row in p["others"]:
        if row == CANARY:
            row = [
                "orders-api-canary",
                "registry.acme.io/orders-api:2.15.0-rc1",
                1,
                cpu_each,
                request,
                "UseG1GC",
            ]
        services.append(_pod(*row))
    requests = sum(s["replicas"] * s["memory_request_mib"] for s in services)
    limits = sum(s["replicas"] * s["memory_limit_mib"] for s in services)
    cpu = sum(s["replicas"] * s["cpu_millicores"] for s in services)
    cost = _monthly_cost(cpu, requests)
    artifact: dict[str, Any] = {
        "cluster": "prod-eks-2",
        "owner": "commerce-platform",
        "services": services,
        "namespace": {
            "name": "commerce",
            "cpu_millicores": cpu,
            "memory_requests_mib": requests,
            "memory_limits_mib": limits,
            "memory_quota_mib": requests * 5 // 4,
        },
        "cost": {"cpu_usd": cost["cpu"], "memory_usd": cost["memory"], "total_usd": cost["total"]},
        "hpa": {"min_replicas": 4, "max_replicas": 8, "target_cpu_pct": 70},
        "probes": {"path": "/healthz", "initial_delay_s": 20, "period_s": 10},
        "ingress": {"host": "orders.acme.io", "path": "/api", "tls": True},
        "rollout": {"strategy": "RollingUpdate", "max_surge": 1, "max_unavailable": 0},
        "env": {"SPRING_PROFILES_ACTIVE": "prod", "DB_POOL_SIZE": 20, "LOG_LEVEL": "info"},
        "node_pool": {"name": "general", "instance_type": "m6i.xlarge"},
        "pdb_min_available": 3,
        "service_account": "orders-api",
        "monitoring": {
            "dashboard": "Orders API",
            "alert_channel": "#orders-alerts",
            "memory_alert_pct": 90,
        },
        "tags": ["orders", "java"],
    }
    if size == 50:
        return artifact
    artifact["node_pool"].update(
        allocatable_mib=NODE_ALLOCATABLE_MIB,
        spare_nodes=SPARE_NODES,
        node_count=math.ceil(requests / NODE_ALLOCATABLE_MIB) + SPARE_NODES,
    )
    artifact["monitoring"].update(p99_latency_ms=400, error_rate_pct=1)
    artifact["tags"] += ["tier-1", "pci", "eu"]
    artifact["canary"] = {"traffic_percent": 10, "analysis_minutes": 30, "success_rate_pct": 99.5}
    artifact["secrets"] = ["orders-db-credentials", "payments-api-token"]
    artifact["database"] = {
        "host": "orders-db.internal",
        "pool_max": 20,
        "read_replica": "orders-db-ro.internal",
    }
    artifact["logging"] = {"format": "logfmt", "level": "info", "retention_days": 14}
    artifact["network_policy"] = {
        "allow_from": ["ingress-nginx", "orders-worker"],
        "egress_dns": True,
    }
    artifact["image_pull"] = {"registry": "registry.acme.io", "pull_policy": "IfNotPresent"}
    artifact["scaling_schedule"] = [
        {"cron": "0 7 * * 1-5", "min_replicas": 6},
        {"cron": "0 20 * * *", "min_replicas": 4},
    ]
    artifact["security"] = {
        "run_as_non_root": True,
        "read_only_root_fs": True,
        "seccomp": "RuntimeDefault",
    }
    artifact["release"] = {
        "version": "2.14.0",
        "change_ticket": "CHG-6021",
        "approved_by": "Ana Costa",
    }
    return artifact


SIZING_RULES = (
    "The memory limit is always double the request, and the JVM heap (-Xmx) is 75% of the limit."
)
RATE_CARD = (
    "We pay $20 per vCPU-month and $4 per GiB-month of requested memory (1 GiB = 1024 MiB); "
    "round to the cent."
)


def memory_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    cpu = p["cpu"]
    cpu_text = f"{CPU_WORDS[cpu]} ({cpu} millicores)" if cpu in CPU_WORDS else f"{cpu} millicores"
    worker = next((r for r in p["others"] if r != CANARY and r[0] == WORKER[0]), WORKER)
    if size == 10:
        return [
            (
                "Deploying orders-api (registry.acme.io/orders-api:2.14.0) into the commerce namespace with "
                f"{_replicas(p['replicas'])}.",
                ["/service", "/namespace"],
            ),
            (
                f"Each pod gets {cpu_text} and a {p['request_mib']} MiB memory request. "
                + SIZING_RULES,
                ["/resources"],
            ),
            (
                "Add the namespace total of memory requests across all replicas, and the monthly cost of the "
                "requested CPU and memory. " + RATE_CARD,
                ["/totals", "/monthly_cost_usd"],
            ),
        ]
    api_paths = [
        f"/services/0/{k}"
        for k in (
            "name",
            "image",
            "replicas",
            "cpu_millicores",
            "memory_request_mib",
            "memory_limit_mib",
            "jvm_heap_mib",
            "java_opts",
        )
    ]
    turns: list[Turn] = [
        (
            "Writing down the commerce namespace on prod-eks-2, owned by commerce-platform.",
            ["/cluster", "/owner"],
        ),
        (
            f"First orders-api: registry.acme.io/orders-api:2.14.0, {_replicas(p['replicas'])}, {cpu} "
            f"millicores and a {p['request_mib']} MiB "
            f"memory request per pod. {SIZING_RULES} Put -Xmx<heap>m -XX:+UseG1GC in its Java options.",
            api_paths,
        ),
    ]
    if size >= 100:
        turns.append(
            (
                "We also run a canary of the next release, orders-api-canary (registry.acme.io/orders-api:"
                "2.15.0-rc1), 1 replica. It always gets exactly the same CPU, memory and Java options as "
                "orders-api.",
                ["/services/1"],
            )
        )
    turns.append(
        (
            f"orders-worker (registry.acme.io/orders-worker:2.14.0): {_replicas(worker[2])}, 250 millicores, "
            f"{worker[4]} MiB request, "
            "same limit and heap rules and also G1GC.",
            [f"/services/{1 if size == 50 else 2}"],
        )
    )
    if size >= 100:
        turns.append(
            (
                "And orders-scheduler (registry.acme.io/orders-scheduler:1.3.2): 1 replica, 250 millicores, "
                "256 MiB request, same rules, but with the serial collector (UseSerialGC).",
                ["/services/3"],
            )
        )
    turns += [
        (
            "Namespace totals across every replica of every service: CPU, memory requests and memory limits. "
            "The memory quota is the total requests plus 25% headroom.",
            ["/namespace"],
        ),
        ("Monthly cost of the requested CPU and memory, split and total. " + RATE_CARD, ["/cost"]),
        (
            "orders-api autoscales between 4 and 8 replicas at 70% CPU; health check on /healthz after 20 "
            "seconds, every 10.",
            ["/hpa", "/probes"],
        ),
        (
            "It's exposed at orders.acme.io under /api with TLS. Rolling updates, one extra pod at a time and "
            "none unavailable.",
            ["/ingress", "/rollout"],
        ),
        ("Environment: prod Spring profile, a DB pool of 20, log level info.", ["/env"]),
    ]
    if size == 50:
        turns.append(("Runs on the general node pool (m6i.xlarge).", ["/node_pool"]))
    else:
        turns.append(
            (
                "It runs on the general node pool (m6i.xlarge, 8192 MiB allocatable per node). Node count is the "
                "namespace memory requests divided by the allocatable memory, rounded up, plus 1 spare node.",
                ["/node_pool"],
            )
        )
    monitoring = (
        "Keep at least 3 pods available during disruptions, service account orders-api. Dashboard "
        "Orders API, alerts in #orders-alerts when a pod passes 90% of its memory limit"
    )
    monitoring += ", p99 latency over 400 ms or errors above 1%." if size >= 100 else "."
    turns += [
        (monitoring, ["/pdb_min_available", "/service_account", "/monitoring"]),
        ("Tag it orders, java" + (", tier-1, pci, eu." if size >= 100 else "."), ["/tags"]),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "Canary analysis: 10% of traffic for 30 minutes, needs a 99.5% success rate.",
            ["/canary"],
        ),
        (
            "Secrets mounted: orders-db-credentials and payments-api-token. The database is "
            "orders-db.internal with a pool max of 20 and a read replica at orders-db-ro.internal.",
            ["/secrets", "/database"],
        ),
        (
            "Logs in logfmt at info, kept 14 days. Only ingress-nginx and orders-worker may call it; DNS "
            "egress allowed.",
            ["/logging", "/network_policy"],
        ),
        (
            "Images come from registry.acme.io with IfNotPresent pulls. Scheduled scaling: at least 6 replicas "
            "from 07:00 on weekdays, back to 4 at 20:00.",
            ["/image_pull", "/scaling_schedule"],
        ),
        (
            "Run as non-root with a read-only root filesystem and the RuntimeDefault seccomp profile. This is "
            "release 2.14.0 under CHG-6021, approved by Ana Costa.",
            ["/security", "/release"],
        ),
    ]
    return turns


def memory_revision(p: dict[str, Any]) -> Revision:
    direct = (
        "/resources/memory_request_mib" if p["size"] == 10 else "/services/0/memory_request_mib"
    )
    overrides = {}
    if p["size"] >= 50:
        overrides["/services/0/java_opts"] = regex(r"(?i)-Xmx2304m")
    if p["size"] >= 100:
        overrides["/services/1/java_opts"] = regex(r"(?i)-Xmx2304m")
    return Revision(
        request="orders-api keeps getting OOM-killed. Raise its per-pod memory request to 1536 MiB.",
        mutate=lambda q: q.update(request_mib=1536),
        direct=direct,
        overrides=overrides,
    )


def memory_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    api = "/service" if size == 10 else "/services/0"
    resources = "/resources" if size == 10 else "/services/0"
    heap = {}
    if size >= 50:
        heap["/services/0/java_opts"] = regex(r"(?i)-Xmx1920m")
    if size >= 100:
        heap["/services/1/java_opts"] = regex(r"(?i)-Xmx1920m")
    return [
        Revision(
            request="Traffic is up after the launch. Run 6 replicas of orders-api instead of 4"
            + ("." if size == 10 else "; leave the autoscaling settings as they are."),
            mutate=lambda q: q.update(replicas=6),
            direct=f"{api}/replicas",
            theme="More replicas raise the namespace CPU and memory totals, the quota and the cost",
            pattern="arithmetic",
        ),
        Revision(
            request="The memory leak is fixed, so 1536 MiB is more than orders-api needs. Set its per-pod "
            "memory request to 1280 MiB.",
            mutate=lambda q: q.update(request_mib=1280),
            direct=f"{resources}/memory_request_mib",
            overrides=heap,
            theme="The request raised before is lowered again: limit, heap, Java options, totals, quota and "
            "cost follow",
            pattern="arithmetic",
        ),
        Revision(
            request="orders-api is CPU-throttled under load. Give each pod a full CPU, 1000 millicores.",
            mutate=lambda q: q.update(cpu=1000),
            direct=f"{resources}/cpu_millicores",
            theme="A bigger CPU request per pod raises the namespace CPU and the CPU cost (and the canary's CPU)",
            pattern="arithmetic",
        ),
    ]


# moves of deploy-pod-memory-sizing: orders-api's memory request, replicas or CPU change; at sizes
# 50 and 100 orders-worker's request or replicas change, and a service leaves or joins at the end


def _heap_opts(p: dict[str, Any], at: list[int], request: int) -> dict[str, Any]:
    """Java options of the services at ``at`` (pattern: only the -Xmx the new request gives)."""
    if p["size"] == 10:
        return {}
    return {f"/services/{i}/java_opts": regex(f"(?i)-Xmx{request * 2 * 3 // 4}m") for i in at}


def _api_rows(p: dict[str, Any]) -> list[int]:
    """orders-api and (size 100) its canary, which copies orders-api's pod size."""
    return [0] + [1 + i for i, row in enumerate(p["others"]) if row == CANARY]


def _api_request(p: dict[str, Any], d: Draw) -> Revision:
    old = p["request_mib"]
    new = d.pick([m for m in range(512, 3073, 256) if m != old])
    lead = (
        "orders-api keeps getting OOM-killed. Raise"
        if new > old
        else "orders-api uses far less memory than it asks for. Lower"
    )
    where = "/resources" if p["size"] == 10 else "/services/0"
    return Revision(
        request=f"{lead} its per-pod memory request to {new} MiB.",
        mutate=lambda q: q.update(request_mib=new),
        direct=f"{where}/memory_request_mib",
        overrides=_heap_opts(p, _api_rows(p), new),
        theme=f"orders-api's request goes from {old} to {new} MiB: limit, heap, totals and cost follow",
    )


def _api_replicas(p: dict[str, Any], d: Draw) -> Revision:
    old = p["replicas"]
    low = 2 if p["size"] == 10 else 4  # the autoscaler's minimum (sizes 50, 100) is 4
    new = d.pick([n for n in range(low, 9) if n != old])
    keep = "." if p["size"] == 10 else "; leave the autoscaling settings as they are."
    where = "/service" if p["size"] == 10 else "/services/0"
    return Revision(
        request=f"Run {new} replicas of orders-api instead of {old}{keep}",
        mutate=lambda q: q.update(replicas=new),
        direct=f"{where}/replicas",
        theme=f"orders-api runs {new} replicas: the namespace totals and the cost follow",
    )


def _api_cpu(p: dict[str, Any], d: Draw) -> Revision:
    old = p["cpu"]
    new = d.pick([c for c in range(250, 2001, 250) if c != old])
    where = "/resources" if p["size"] == 10 else "/services/0"
    return Revision(
        request=f"Give each orders-api pod {new} millicores of CPU instead of {old}.",
        mutate=lambda q: q.update(cpu=new),
        direct=f"{where}/cpu_millicores",
        theme=f"orders-api's CPU per pod becomes {new} millicores: the CPU total and cost follow",
    )


def _pod_rows(p: dict[str, Any]) -> list[int]:
    """Indexes in ``others`` of the services with their own pod size (not the canary)."""
    return [i for i, row in enumerate(p["others"]) if row != CANARY]


def _other_request(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(_pod_rows(p))
    name, old = p["others"][i][0], p["others"][i][4]
    new = d.pick([m for m in range(256, 1537, 128) if m != old])
    return Revision(
        request=f"Set {name}'s per-pod memory request to {new} MiB.",
        mutate=lambda q: q["others"][i].__setitem__(4, new),
        direct=f"/services/{1 + i}/memory_request_mib",
        overrides=_heap_opts(p, [1 + i], new),
        theme=f"{name}'s request becomes {new} MiB: its limit, heap and the namespace totals follow",
    )


def _other_replicas(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(_pod_rows(p))
    name, old = p["others"][i][0], p["others"][i][2]
    new = d.pick([n for n in range(1, 6) if n != old])
    return Revision(
        request=f"Scale {name} to {_replicas(new)}.",
        mutate=lambda q: q["others"][i].__setitem__(2, new),
        direct=f"/services/{1 + i}/replicas",
        theme=f"{name} runs {_replicas(new)}: the namespace totals and cost follow",
    )


def _removable(p: dict[str, Any]) -> list[int]:
    """Services a move may take out: not orders-worker at size 100, whose network policy names it."""
    return [
        i
        for i, row in enumerate(p["others"])
        if p["size"] == 50 or row == CANARY or row[0] != WORKER[0]
    ]


def _drop_service(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(_removable(p))
    row = p["others"][i]
    name = "orders-api-canary" if row == CANARY else row[0]
    if row == CANARY:
        request = (
            "The release is promoted, so take the orders-api-canary service out of the namespace; "
            "keep the canary analysis settings for the next release."
        )
    else:
        request = f"{name} is retired: take it out of the namespace."

    return Revision(
        request=request,
        mutate=_delete("others", i),
        direct=f"/services/{1 + i}",
        theme=f"{name} leaves: the namespace totals and cost follow",
    )


def _add_service(p: dict[str, Any], d: Draw) -> Revision | None:
    names = {row[0] for row in p["others"] if row != CANARY}
    free = [row for row in [WORKER, SCHEDULER, *MORE_PODS] if row[0] not in names]
    if p["size"] == 50:
        free = [row for row in free if row[0] != SCHEDULER[0]]
    if not free:
        return None
    name, image, replicas, cpu, request, gc = d.pick(free)
    return Revision(
        request=f"Add {name} ({image}) at the end of the services: {_replicas(replicas)}, {cpu} "
        f"millicores, {request} MiB request, same limit and heap rules, and -XX:+{gc} in its Java "
        "options.",
        mutate=lambda q: q["others"].append([name, image, replicas, cpu, request, gc]),
        direct=f"/services/{1 + len(p['others'])}",
        theme=f"{name} joins: the namespace totals and cost follow",
    )


MEMORY_MOVES = [
    Move("api-request", "arithmetic", _api_request),
    Move("api-replicas", "arithmetic", _api_replicas),
    Move("api-cpu", "arithmetic", _api_cpu, opens=False),
    Move(
        "other-request",
        "arithmetic",
        _other_request,
        when=lambda p: bool(_pod_rows(p)),
        opens=False,
    ),
    Move(
        "other-replicas",
        "arithmetic",
        _other_replicas,
        when=lambda p: bool(_pod_rows(p)),
        opens=False,
    ),
    Move("drop-service", "add_remove", _drop_service, when=lambda p: bool(_removable(p))),
    Move("add-service", "add_remove", _add_service, when=lambda p: p["size"] >= 50),
]

# =========================================================================== deploy-staging-region-move
# Substitution: staging moves to another AWS region; everything region-specific comes from that
# region's profile, and every image, hostname and path built from it follows.

ACCOUNT = "123456789012"
REGION_PROFILES: dict[str, dict[str, Any]] = {
    "eu-west-1": {
        "registry": f"{ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com",
        "kms_alias": "alias/acme-staging-euw1",
        "artifact_bucket": "acme-staging-artifacts-euw1",
        "dns_suffix": "euw1.staging.acme.internal",
        "availability_zones": ["eu-west-1a", "eu-west-1b", "eu-west-1c"],
    },
    "eu-central-1": {
        "registry": f"{ACCOUNT}.dkr.ecr.eu-central-1.amazonaws.com",
        "kms_alias": "alias/acme-staging-euc1",
        "artifact_bucket": "acme-staging-artifacts-euc1",
        "dns_suffix": "euc1.staging.acme.internal",
        "availability_zones": ["eu-central-1a", "eu-central-1b", "eu-central-1c"],
    },
    "eu-north-1": {
        "registry": f"{ACCOUNT}.dkr.ecr.eu-north-1.amazonaws.com",
        "kms_alias": "alias/acme-staging-eun1",
        "artifact_bucket": "acme-staging-artifacts-eun1",
        "dns_suffix": "eun1.staging.acme.internal",
        "availability_zones": ["eu-north-1a", "eu-north-1b", "eu-north-1c"],
    },
    "eu-west-3": {
        "registry": f"{ACCOUNT}.dkr.ecr.eu-west-3.amazonaws.com",
        "kms_alias": "alias/acme-staging-euw3",
        "artifact_bucket": "acme-staging-artifacts-euw3",
        "dns_suffix": "euw3.staging.acme.internal",
        "availability_zones": ["eu-west-3a", "eu-west-3b", "eu-west-3c"],
    },
    "eu-south-1": {
        "registry": f"{ACCOUNT}.dkr.ecr.eu-south-1.amazonaws.com",
        "kms_alias": "alias/acme-staging-eus1",
        "artifact_bucket": "acme-staging-artifacts-eus1",
        "dns_suffix": "eus1.staging.acme.internal",
        "availability_zones": ["eu-south-1a", "eu-south-1b", "eu-south-1c"],
    },
}
REGION_CITIES = {
    "eu-west-1": "Ireland",
    "eu-central-1": "Frankfurt",
    "eu-north-1": "Stockholm",
    "eu-west-3": "Paris",
    "eu-south-1": "Milan",
}
STAGING_SERVICES: list[tuple[str, str, int, int]] = [
    ("storefront", "4.2.0", 2, 8080),
    ("checkout", "3.9.1", 2, 8080),
    ("inventory", "1.18.0", 1, 9090),
    ("notifications", "0.7.3", 1, 8080),
    ("search", "2.4.0", 2, 9200),
    ("pricing", "1.2.5", 1, 8080),
]


def _profile(region: str, generation: int = 1, zones: int = 3) -> dict[str, Any]:
    """A region's profile; a rotated one (``generation`` 2, 3, ...) has its KMS alias and artifact
    bucket suffixed ``-v<generation>``; staging uses the first ``zones`` zones."""
    prof = dict(REGION_PROFILES[region])
    if generation > 1:
        prof["kms_alias"] += f"-v{generation}"
        prof["artifact_bucket"] += f"-v{generation}"
    prof["availability_zones"] = prof["availability_zones"][:zones]
    return prof


def _region_profile(region: str, size: int, generation: int = 1) -> dict[str, Any]:
    """The profile a request attaches (what the size's document holds of it)."""
    keys = ["registry", "kms_alias", "artifact_bucket"]
    if size >= 50:
        keys.append("dns_suffix")
    keys.append("availability_zones")
    profile = _profile(region, generation)
    return {"region": region, **{k: profile[k] for k in keys}}


def region_inputs(size: int, d: Draw) -> dict[str, Any]:
    """Staging's region (``generation``: rotated profiles by region, ``before``: regions it left,
    ``zones``: how many of the profile's zones it uses) and its services as ``[name, tag,
    replicas, port]``."""
    services = [
        [name, _bumped(tag, d), d.pick([r, r + 1]), port]
        for name, tag, r, port in STAGING_SERVICES[: 4 if size == 50 else 6]
    ]
    return {
        "size": size,
        "region": d.pick(list(REGION_PROFILES)),
        "owner": d.pick(["platform-team", "infra-team", "devex-team", "cloud-team"]),
        "cluster": d.pick(["staging-eks", "stg-eks-1", "eks-staging", "staging-eks-2"]),
        "generation": {},
        "before": [],
        "zones": 3,
        "services": services if size >= 50 else [],
    }


def region_params(size: int) -> dict[str, Any]:
    return region_inputs(size, SHIPPED)


def _staging_profile(p: dict[str, Any]) -> dict[str, Any]:
    return _profile(p["region"], p["generation"].get(p["region"], 1), p["zones"])


def region_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, region = p["size"], p["region"]
    prof = _staging_profile(p)
    keys = ["registry", "kms_alias", "artifact_bucket"]
    if size >= 50:
        keys.append("dns_suffix")
    env: dict[str, Any] = {
        "name": "staging",
        "cluster": p["cluster"],
        "region": region,
        **{k: prof[k] for k in keys},
        "availability_zones": list(prof["availability_zones"]),
    }
    if size == 10:
        return {"environment": env, "owner": p["owner"]}
    services = [
        {
            "name": n,
            "tag": tag,
            "image": f"{prof['registry']}/{n}:{tag}",
            "hostname": f"{n}.{prof['dns_suffix']}",
            "replicas": r,
            "port": port,
        }
        for n, tag, r, port in p["services"]
    ]
    artifact: dict[str, Any] = {
        "environment": env,
        "services": services,
        "production": {
            "region": "eu-west-1",
            "cluster": "prod-eks",
            "registry": REGION_PROFILES["eu-west-1"]["registry"],
        },
        "database": {
            "engine": "postgres",
            "instance_class": "db.t4g.large",
            "storage_gb": 100,
            "multi_az": False,
        },
        "ci": {"system": "github-actions", "deploy_branch": "main", "push_to": prof["registry"]},
        "secrets": {"provider": "aws-secrets-manager", "prefix": "staging/"},
        "owner": p["owner"],
        "cost_center": "CC-9001",
        "tags": ["staging", "eks"],
    }
    if size == 50:
        return artifact
    artifact["subnets"] = [f"staging-private-{az}" for az in prof["availability_zones"]]
    artifact["terraform"] = {
        "state_uri": f"s3://{prof['artifact_bucket']}/terraform/staging.tfstate",
        "lock_table": "tf-locks-staging",
        "version": "1.7.5",
    }
    artifact["ci"]["artifacts_uri"] = f"s3://{prof['artifact_bucket']}/builds/"
    artifact["monitoring"] = {
        "grafana": "https://grafana.acme.io/d/staging",
        "log_retention_days": 14,
        "alert_channel": "#staging-alerts",
    }
    artifact["access"] = {
        "sso_group": "eng-all",
        "admin_group": "platform-admins",
        "break_glass": False,
    }
    artifact["schedules"] = {
        "scale_down": "0 20 * * 1-5",
        "scale_up": "0 7 * * 1-5",
        "weekend_off": True,
    }
    artifact["backups"] = {"retention_days": 3, "window": "02:00-03:00"}
    artifact["budget"] = {"monthly_usd": 1800, "alert_at_pct": 80}
    artifact["change_tracking"] = {"epic": "PLAT-2210", "sponsor": "Ana Costa"}
    artifact["load_balancer"] = {"name": "staging-alb", "scheme": "internal", "idle_timeout_s": 60}
    artifact["on_call"] = {"rotation": "platform-oncall", "escalation": "platform-leads"}
    artifact["feature_flags"] = {"provider": "launchdarkly", "project": "acme-web"}
    artifact["cache"] = {"engine": "redis", "node_type": "cache.t4g.small", "nodes": 1}
    artifact["queue"] = {"name": "staging-events", "visibility_timeout_s": 30}
    artifact["public_dns"] = {"zone": "staging.acme.io", "ttl": 60}
    artifact["tags"] += ["non-prod", "eu"]
    return artifact


def _zones_text(zones: list[str]) -> str:
    """``["eu-west-1a", "eu-west-1b", "eu-west-1c"] -> "eu-west-1a, 1b and 1c"``."""
    return _series([zones[0], *(z.rsplit("-", 1)[1] for z in zones[1:])])


def region_conversation(p: dict[str, Any]) -> list[Turn]:
    size, region = p["size"], p["region"]
    prof = _staging_profile(p)
    zones = _zones_text(prof["availability_zones"])
    if size == 10:
        return [
            (
                f"Let's record how our staging environment is set up: the {p['cluster']} cluster in {region}, "
                f"owned by {p['owner']}.",
                ["/environment/name", "/environment/cluster", "/environment/region", "/owner"],
            ),
            (
                f"Everything region-specific comes from our region profile. For {region} that's the "
                f"registry {prof['registry']}, KMS alias {prof['kms_alias']}, artifact bucket "
                f"{prof['artifact_bucket']}, and availability zones {zones}.",
                [
                    "/environment/registry",
                    "/environment/kms_alias",
                    "/environment/artifact_bucket",
                    "/environment/availability_zones",
                ],
            ),
        ]
    svc_text = ", ".join(
        f"{name} {tag} ({r} replica{'s' if r > 1 else ''}, port {port})"
        for name, tag, r, port in p["services"]
    )
    turns: list[Turn] = [
        (
            f"Let's record how our staging environment is set up: the {p['cluster']} cluster in {region}, "
            f"owned by {p['owner']} on cost center CC-9001.",
            [
                "/environment/name",
                "/environment/cluster",
                "/environment/region",
                "/owner",
                "/cost_center",
            ],
        ),
        (
            f"Everything region-specific comes from our region profile. For {region}: registry "
            f"{prof['registry']}, KMS alias {prof['kms_alias']}, artifact bucket "
            f"{prof['artifact_bucket']}, internal DNS suffix {prof['dns_suffix']}, and zones {zones}.",
            [
                "/environment/registry",
                "/environment/kms_alias",
                "/environment/artifact_bucket",
                "/environment/dns_suffix",
                "/environment/availability_zones",
            ],
        ),
        (
            f"Services: {svc_text}. Each image is <registry>/<service>:<tag>, and each service's hostname is "
            "<service>.<DNS suffix>.",
            ["/services"],
        ),
        (
            "For reference, production is prod-eks in eu-west-1 and pulls from the eu-west-1 registry. It stays "
            "in Ireland whatever we do with staging.",
            ["/production"],
        ),
        ("Staging database: Postgres on db.t4g.large, 100 GB, single-AZ.", ["/database"]),
        (
            "CI is GitHub Actions deploying from main and pushing images to the environment's registry."
            + (" Build artifacts go to the artifact bucket under builds/." if size >= 100 else ""),
            ["/ci"],
        ),
        (
            "Secrets come from AWS Secrets Manager under the staging/ prefix. Tag it staging, eks"
            + (", non-prod, eu." if size >= 100 else "."),
            ["/secrets", "/tags"],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        ("One private subnet per availability zone, named staging-private-<zone>.", ["/subnets"]),
        (
            "Terraform 1.7.5 keeps its state in the artifact bucket at terraform/staging.tfstate, locking "
            "through tf-locks-staging.",
            ["/terraform"],
        ),
        (
            "Monitoring: dashboard https://grafana.acme.io/d/staging, logs kept 14 days, alerts in "
            "#staging-alerts. eng-all can log in, platform-admins administer, no break-glass access.",
            ["/monitoring", "/access"],
        ),
        (
            "Scale down at 20:00 and back up at 07:00 on weekdays, off at weekends. Database backups kept 3 "
            "days, taken 02:00-03:00.",
            ["/schedules", "/backups"],
        ),
        (
            "Budget is $1,800 a month with an alert at 80%. Staging infrastructure work is tracked under the "
            "PLAT-2210 epic, sponsored by Ana Costa.",
            ["/budget", "/change_tracking"],
        ),
        (
            "Traffic comes in through staging-alb, an internal load balancer with a 60-second idle timeout; "
            "the public zone is staging.acme.io with a 60-second TTL.",
            ["/load_balancer", "/public_dns"],
        ),
        (
            "Redis cache: one cache.t4g.small node. The staging-events queue has a 30-second visibility "
            "timeout. Feature flags from LaunchDarkly, project acme-web. On-call is platform-oncall, "
            "escalating to platform-leads.",
            ["/cache", "/queue", "/feature_flags", "/on_call"],
        ),
    ]
    return turns


def region_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="We're moving staging to Frankfurt: switch it to eu-central-1. That region's profile is attached.",
        mutate=lambda q: q.update(region="eu-central-1"),
        direct="/environment/region",
        reference=_region_profile("eu-central-1", p["size"]),
    )


def region_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    return [
        Revision(
            request="Frankfurt can't give us the Graviton capacity we need. Move staging to Stockholm, "
            "eu-north-1, instead; that region's profile is attached.",
            mutate=lambda q: q.update(region="eu-north-1"),
            direct="/environment/region",
            reference=_region_profile("eu-north-1", size),
            theme="A second region move replaces the Frankfurt profile and everything built from it with "
            "Stockholm's",
            pattern="substitution",
        ),
        Revision(
            request="The data-residency review wants staging in the same region as production after all. "
            "Move it back to eu-west-1, with the profile we started from.",
            mutate=lambda q: q.update(region="eu-west-1"),
            direct="/environment/region",
            theme="Moving back to the original region restores its profile, images, hostnames and paths",
            pattern="substitution",
        ),
        Revision(
            request="Residency has been cleared for Frankfurt and the capacity came through: put staging in "
            "eu-central-1 as first planned. Its profile is attached again.",
            mutate=lambda q: q.update(region="eu-central-1"),
            direct="/environment/region",
            reference=_region_profile("eu-central-1", size),
            theme="Redoing the first move re-applies the Frankfurt profile everywhere the region reaches",
            pattern="substitution",
        ),
    ]


# moves of deploy-staging-region-move: staging moves to another region (its profile attached) or
# back to the one it left before (a stack: a second move back goes one further), or its region's
# profile is rotated; at sizes 50 and 100 a service's tag
# changes, at size 100 staging drops to two availability zones or goes back to three


def _zones_note(p: dict[str, Any]) -> str:
    return " Staging still uses only the profile's first two zones." if p["zones"] == 2 else ""


def _move_region(p: dict[str, Any], d: Draw) -> Revision:
    old = p["region"]
    new = d.pick([r for r in REGION_PROFILES if r != old])
    generation = p["generation"].get(new, 1)

    def mutate(q: dict[str, Any]) -> None:
        q["before"].append(q["region"])
        q["region"] = new

    return Revision(
        request=f"We're moving staging to {REGION_CITIES[new]}: switch it to {new}. That region's "
        f"profile is attached.{_zones_note(p)}",
        mutate=mutate,
        direct="/environment/region",
        reference=_region_profile(new, p["size"], generation),
        theme=f"Staging moves from {old} to {new}: the profile and everything built from it follow",
    )


def _move_back(p: dict[str, Any], d: Draw) -> Revision:
    back = p["before"][-1]

    def mutate(q: dict[str, Any]) -> None:
        q["region"] = q["before"].pop()

    return Revision(
        request=f"Move staging back to {back}, with the profile it had there.{_zones_note(p)}",
        mutate=mutate,
        direct="/environment/region",
        theme=f"Staging goes back to {back}: its earlier profile and everything built from it return",
    )


def _rotate(p: dict[str, Any], d: Draw) -> Revision:
    region = p["region"]
    generation = p["generation"].get(region, 1) + 1
    return Revision(
        request=f"Security rotated staging's KMS alias and artifact bucket in {region}; the updated "
        f"{region} profile is attached.{_zones_note(p)}",
        mutate=lambda q: q["generation"].update({region: generation}),
        direct="/environment/kms_alias",
        reference=_region_profile(region, p["size"], generation),
        theme="A rotated profile: the KMS alias, the artifact bucket and the paths built on it follow",
    )


def _retag(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["services"])))
    name, old = p["services"][i][:2]
    major, minor, patch = (int(x) for x in old.split("."))
    new = d.pick([f"{major}.{minor}.{patch + 1}", f"{major}.{minor + 1}.0", f"{major + 1}.0.0"])
    return Revision(
        request=f"Staging should run {name} {new} now instead of {old}.",
        mutate=lambda q: q["services"][i].__setitem__(1, new),
        direct=f"/services/{i}/tag",
        theme=f"{name}'s tag changes: its image follows",
    )


def _two_zones(p: dict[str, Any], d: Draw) -> Revision:
    return Revision(
        request="To cut costs, staging runs in only two availability zones from now on: the first two "
        "of its region's profile, whatever region it is in.",
        mutate=lambda q: q.update(zones=2),
        direct="/environment/availability_zones/2",
        theme="Staging drops its third zone: the subnet in that zone goes too",
    )


def _three_zones(p: dict[str, Any], d: Draw) -> Revision:
    return Revision(
        request="Staging goes back to all three availability zones of its region's profile.",
        mutate=lambda q: q.update(zones=3),
        direct="/environment/availability_zones/2",
        theme="Staging takes its third zone back: its subnet returns",
    )


REGION_MOVES = [
    Move("move-region", "substitution", _move_region),
    Move(
        "move-back",
        "substitution",
        _move_back,
        when=lambda p: bool(p["before"]) and p["before"][-1] != p["region"],
    ),
    Move("rotate-profile", "substitution", _rotate),
    Move("retag", "substitution", _retag, when=lambda p: p["size"] >= 50, opens=False),
    Move(
        "two-zones", "add_remove", _two_zones, when=lambda p: p["size"] >= 100 and p["zones"] == 3
    ),
    Move(
        "three-zones",
        "add_remove",
        _three_zones,
        when=lambda p: p["size"] >= 100 and p["zones"] == 2,
    ),
]

# =========================================================================== deploy-remove-reporting-service
# Add/remove: a service leaves the stack; totals and cost shrink, and its route, dashboard panel
# and alert policy go with it.

STACK_SERVICES: dict[str, dict[str, Any]] = {
    "web": {
        "image": "registry.acme.io/shop-web:5.3.0",
        "replicas": 3,
        "cpu": 500,
        "mem": 512,
        "route": "/",
    },
    "api": {
        "image": "registry.acme.io/shop-api:7.1.2",
        "replicas": 4,
        "cpu": 1000,
        "mem": 1024,
        "route": "/api",
    },
    "reporting": {
        "image": "registry.acme.io/shop-reporting:1.9.0",
        "replicas": 1,
        "cpu": 250,
        "mem": 512,
        "route": "/reports",
    },
    "worker": {
        "image": "registry.acme.io/shop-worker:7.1.2",
        "replicas": 2,
        "cpu": 500,
        "mem": 1024,
        "route": None,
    },
    "search": {
        "image": "registry.acme.io/shop-search:2.0.4",
        "replicas": 2,
        "cpu": 1000,
        "mem": 2048,
        "route": "/search",
    },
    "notifier": {
        "image": "registry.acme.io/shop-notifier:0.9.1",
        "replicas": 1,
        "cpu": 250,
        "mem": 256,
        "route": None,
    },
    "audit-log": {
        "image": "registry.acme.io/shop-audit:1.0.0",
        "replicas": 2,
        "cpu": 250,
        "mem": 512,
        "route": None,
    },
    "recommendations": {
        "image": "registry.acme.io/shop-recs:3.4.1",
        "replicas": 2,
        "cpu": 500,
        "mem": 1024,
        "route": "/recs",
    },
    "payments": {
        "image": "registry.acme.io/shop-payments:6.0.3",
        "replicas": 3,
        "cpu": 750,
        "mem": 768,
        "route": "/pay",
    },
}
STACK_PLANS: dict[int, tuple[str, ...]] = {
    10: ("web", "api", "reporting"),
    50: ("web", "api", "reporting", "worker"),
    100: ("web", "api", "reporting", "worker", "search", "notifier"),
}
STACK_BUDGET_USD = 250
SEVERITY = {
    "web": "page",
    "api": "page",
    "reporting": "ticket",
    "worker": "page",
    "search": "ticket",
    "notifier": "ticket",
    "audit-log": "ticket",
    "recommendations": "ticket",
    "payments": "page",
}


def stack_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The services in order, their per-replica CPU and replicas where they differ from
    :data:`STACK_SERVICES` (``cpu``, ``replicas``) and the budget (size 100)."""
    cpu, replicas = {}, {}
    for name in STACK_PLANS[size]:
        base = STACK_SERVICES[name]
        c = d.pick([base["cpu"], base["cpu"] + 250, max(250, base["cpu"] - 250)])
        r = d.pick([base["replicas"], base["replicas"] + 1])
        if c != base["cpu"]:
            cpu[name] = c
        if r != base["replicas"] and size >= 50:
            replicas[name] = r
    return {
        "size": size,
        "services": list(STACK_PLANS[size]),
        "cpu": cpu,
        "replicas": replicas,
        "budget": d.pick([STACK_BUDGET_USD, 300, 350, 400]),
    }


def stack_params(size: int) -> dict[str, Any]:
    return stack_inputs(size, SHIPPED)


def _stack_row(p: dict[str, Any], name: str) -> dict[str, Any]:
    """A service's catalogue entry with the inputs' CPU and replicas."""
    s = STACK_SERVICES[name]
    return {
        **s,
        "cpu": p["cpu"].get(name, s["cpu"]),
        "replicas": p["replicas"].get(name, s["replicas"]),
    }


def stack_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, names = p["size"], p["services"]
    cpu_of = {n: _stack_row(p, n)["cpu"] for n in names}
    if size == 10:
        return {
            "stack": "shop-prod",
            "cluster": "eks-prod-1",
            "services": [{"name": n, "cpu_millicores": cpu_of[n]} for n in names],
            "total_cpu_millicores": sum(cpu_of.values()),
            "service_count": len(names),
        }
    services = [
        {
            "name": n,
            "image": s["image"],
            "replicas": s["replicas"],
            "cpu_millicores": s["cpu"],
            "memory_mib": s["mem"],
            "public": s["route"] is not None,
        }
        for n in names
        for s in [_stack_row(p, n)]
    ]
    cpu = sum(s["replicas"] * s["cpu_millicores"] for s in services)
    mem = sum(s["replicas"] * s["memory_mib"] for s in services)
    cost = _monthly_cost(cpu, mem)["total"]
    artifact: dict[str, Any] = {
        "stack": {"name": "shop-prod", "cluster": "eks-prod-1", "namespace": "shop"},
        "services": services,
        "totals": {
            "cpu_millicores": cpu,
            "memory_mib": mem,
            "service_count": len(services),
            "monthly_cost_usd": cost,
        },
        "ingress": {
            "host": "shop.acme.io",
            "tls_secret": "shop-tls",
            "routes": [
                {"path": STACK_SERVICES[n]["route"], "service": n}
                for n in names
                if STACK_SERVICES[n]["route"] is not None
            ],
        },
        "deploy": {"strategy": "rolling", "max_surge": "25%", "max_unavailable": 0},
        "alerts": {"channel": "#shop-alerts", "pager": "shop-oncall"},
        "registry": "registry.acme.io",
        "dns": {"zone": "acme.io", "ttl": 300},
        "backups": {"schedule": "0 3 * * *", "retention_days": 14},
        "owner": "shop-platform",
    }
    if size == 50:
        return artifact
    artifact["totals"]["budget_usd"] = p["budget"]
    artifact["totals"]["budget_headroom_usd"] = money(p["budget"] - cost)
    artifact["dashboard"] = {"name": "Shop Overview", "panels": list(names)}
    artifact["alert_policies"] = [{"service": n, "severity": SEVERITY[n]} for n in names]
    artifact["network"] = {"vpc": "vpc-prod", "private_subnets": ["subnet-0a1b", "subnet-0c2d"]}
    artifact["secrets"] = ["shop-db-credentials", "stripe-api-token", "smtp-password"]
    artifact["on_call"] = {"rotation": "shop-oncall", "escalation": "platform-leads"}
    artifact["tags"] = ["shop", "prod", "tier-1", "eu"]
    artifact["cluster_version"] = "1.29"
    artifact["region"] = "eu-west-1"
    artifact["log_retention_days"] = 30
    return artifact


def _service_line(p: dict[str, Any], name: str) -> str:
    s = _stack_row(p, name)
    exposure = f"public at {s['route']}" if s["route"] else "internal only"
    return f"{name} ({s['image']}, {s['replicas']} x {s['cpu']} millicores / {s['mem']} MiB, {exposure})"


def stack_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    names = p["services"]
    cpu = {n: _stack_row(p, n)["cpu"] for n in names}
    if size == 10:
        return [
            ("Let's write down the shop-prod stack on cluster eks-prod-1.", ["/stack", "/cluster"]),
            (
                f"Services: web at {cpu['web']} millicores, api at {cpu['api']}, and the old reporting "
                f"service at {cpu['reporting']}.",
                ["/services"],
            ),
            (
                "Keep a total of the CPU across the services and how many services there are.",
                ["/total_cpu_millicores", "/service_count"],
            ),
        ]
    lines = "; ".join(_service_line(p, n) for n in names)
    turns: list[Turn] = [
        (
            "Let's write down the shop-prod stack: cluster eks-prod-1, namespace shop, owned by shop-platform.",
            ["/stack", "/owner"],
        ),
        (f"Services, with replicas x per-replica CPU / memory: {lines}.", ["/services"]),
        (
            "Totals over every replica of every service: CPU, memory, the number of services, and the monthly "
            f"cost. {RATE_CARD}"
            + (f" Our budget is ${p['budget']} a month; show the headroom." if size >= 100 else ""),
            ["/totals"],
        ),
        (
            "Ingress on shop.acme.io with the shop-tls certificate; every public service gets a route at its "
            "path.",
            ["/ingress"],
        ),
        (
            "Rolling deploys, 25% surge, nothing unavailable. Alerts in #shop-alerts, paging shop-oncall.",
            ["/deploy", "/alerts"],
        ),
        (
            "Images from registry.acme.io; DNS in the acme.io zone with a 300-second TTL; nightly backups at "
            "03:00 kept 14 days.",
            ["/registry", "/dns", "/backups"],
        ),
    ]
    if size == 50:
        return turns
    severities = ", ".join(f"{n} {SEVERITY[n]}" for n in names)
    turns += [
        (
            "The Shop Overview dashboard has one panel per service, in the same order as the services.",
            ["/dashboard"],
        ),
        (f"One alert policy per service, with severity: {severities}.", ["/alert_policies"]),
        (
            "Network: vpc-prod, private subnets subnet-0a1b and subnet-0c2d. Secrets: shop-db-credentials, "
            "stripe-api-token, smtp-password.",
            ["/network", "/secrets"],
        ),
        (
            "On-call is shop-oncall, escalating to platform-leads. Tags: shop, prod, tier-1, eu. Kubernetes "
            "1.29 in eu-west-1, logs kept 30 days.",
            ["/on_call", "/tags", "/cluster_version", "/region", "/log_retention_days"],
        ),
    ]
    return turns


def stack_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Reporting has moved to the BI platform, so take the reporting service out of shop-prod.",
        mutate=lambda q: q.update(services=[s for s in q["services"] if s != "reporting"]),
        direct=f"/services/{STACK_PLANS[p['size']].index('reporting')}",
    )


def stack_followups(p: dict[str, Any]) -> list[Revision]:
    plan = list(STACK_PLANS[p["size"]])
    reporting_at = plan.index("reporting")
    audit_at = len(plan) - 1  # appended after the removal

    def bring_back(q: dict[str, Any]) -> None:
        q["services"].insert(q["services"].index(plan[reporting_at - 1]) + 1, "reporting")

    return [
        Revision(
            request="We're adding the audit-log service to shop-prod"
            + (
                " at 250 millicores."
                if p["size"] == 10
                else ": registry.acme.io/shop-audit:1.0.0, 2 replicas x 250 millicores / 512 MiB, "
                "internal only" + (", alerts at ticket severity." if p["size"] >= 100 else ".")
            ),
            mutate=lambda q: q["services"].append("audit-log"),
            direct=f"/services/{audit_at}",
            theme="A new service grows the totals and cost and gets its own panel and alert policy, but no route",
            pattern="add_remove",
        ),
        Revision(
            request="audit-log is CPU-starved. Give it 500 millicores per replica.",
            mutate=lambda q: q["cpu"].update({"audit-log": 500}),
            direct=f"/services/{audit_at}/cpu_millicores",
            theme="The service just added gets more CPU, so the CPU total, the cost and the headroom move",
            pattern="arithmetic",
        ),
        Revision(
            request="The BI migration slipped a quarter. Bring the reporting service back into shop-prod, "
            f"exactly as it was, in its old place right after {plan[reporting_at - 1]}"
            + (" in every list." if p["size"] >= 50 else "."),
            mutate=bring_back,
            direct=f"/services/{reporting_at}",
            theme="Undoing the removal restores the service, its route, panel and alert policy and grows the "
            "totals again",
            pattern="add_remove",
        ),
    ]


# moves of deploy-remove-reporting-service: a service leaves or joins at the end, a service's CPU
# per replica changes; at sizes 50 and 100 its replicas, at size 100 the budget


def _stack_drop(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["services"])))
    name = p["services"][i]

    return Revision(
        request=d.pick(
            [
                f"Take the {name} service out of shop-prod.",
                f"We're retiring {name}: remove that service from shop-prod.",
            ]
        ),
        mutate=_delete("services", i),
        direct=f"/services/{i}",
        theme=f"{name} leaves: the totals shrink and its route, panel and alert policy go",
    )


def _stack_add(p: dict[str, Any], d: Draw) -> Revision | None:
    free = [n for n in STACK_SERVICES if n not in p["services"]]
    if not free:
        return None
    name = d.pick(free)
    s = _stack_row(p, name)
    if p["size"] == 10:
        request = f"Add the {name} service to shop-prod at {s['cpu']} millicores; list it last."
    else:
        exposure = f"public at {s['route']}" if s["route"] else "internal only"
        request = (
            f"Add the {name} service to shop-prod, listed last: {s['image']}, {s['replicas']} x "
            f"{s['cpu']} millicores / {s['mem']} MiB, {exposure}"
        )
        if p["size"] >= 100:
            request += f", alerts at {SEVERITY[name]} severity"
        request += "."
    return Revision(
        request=request,
        mutate=lambda q: q["services"].append(name),
        direct=f"/services/{len(p['services'])}",
        theme=f"{name} joins: the totals grow"
        + (", with its route, panel and alert policy" if p["size"] >= 100 else ""),
    )


def _stack_cpu(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["services"])))
    name = p["services"][i]
    old = _stack_row(p, name)["cpu"]
    new = d.pick([c for c in range(250, 2001, 250) if c != old])
    per = "" if p["size"] == 10 else " per replica"
    return Revision(
        request=f"Give {name} {new} millicores{per} instead of {old}.",
        mutate=lambda q: q["cpu"].update({name: new}),
        direct=f"/services/{i}/cpu_millicores",
        theme=f"{name}'s CPU changes: the CPU total (and the cost) follow",
    )


def _stack_replicas(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["services"])))
    name = p["services"][i]
    old = _stack_row(p, name)["replicas"]
    new = d.pick([r for r in range(1, 7) if r != old])
    return Revision(
        request=f"Run {name} with {_replicas(new)} instead of {old}.",
        mutate=lambda q: q["replicas"].update({name: new}),
        direct=f"/services/{i}/replicas",
        theme=f"{name} runs {_replicas(new)}: the CPU and memory totals and the cost follow",
    )


def _stack_budget(p: dict[str, Any], d: Draw) -> Revision:
    new = d.pick([b for b in range(200, 501, 25) if b != p["budget"]])
    return Revision(
        request=f"Finance set shop-prod's budget to ${new} a month.",
        mutate=lambda q: q.update(budget=new),
        direct="/totals/budget_usd",
        theme="A new budget: the headroom follows",
    )


STACK_MOVES = [
    Move("drop-service", "add_remove", _stack_drop, when=lambda p: len(p["services"]) > 2),
    Move("add-service", "add_remove", _stack_add),
    Move("service-cpu", "arithmetic", _stack_cpu),
    Move("service-replicas", "arithmetic", _stack_replicas, when=lambda p: p["size"] >= 50),
    Move("budget", "arithmetic", _stack_budget, when=lambda p: p["size"] >= 100, opens=False),
]

# =========================================================================== deploy-db-volume-threshold
# Threshold: storage at or above 1,000 GB moves the volume from gp3 to io2, which changes the IOPS
# rule, the price per GB, the monitoring interval and (size 100) the storage alert route.

IO2_THRESHOLD_GB = 1000
GP3_BASELINE_IOPS = 3000
IO2_IOPS_PER_GB = 5
PRICE_PER_GB_MONTH = {"gp3": 0.08, "io2": 0.14}
MONITORING_SECONDS = {"gp3": 60, "io2": 15}
STORAGE_ALERT_ROUTE = {"gp3": "#db-alerts", "io2": "pagerduty:dba-oncall"}
DB_BUDGET_USD = 400


def _volume(allocated_gb: int, size: int) -> dict[str, Any]:
    """The user's volume rule: gp3 below 1,000 GB, io2 at 5 IOPS per GB from 1,000 GB up."""
    kind = "io2" if allocated_gb >= IO2_THRESHOLD_GB else "gp3"
    vol: dict[str, Any] = {
        "allocated_gb": allocated_gb,
        "volume_type": kind,
        "iops": allocated_gb * IO2_IOPS_PER_GB if kind == "io2" else GP3_BASELINE_IOPS,
        "monthly_cost_usd": money(allocated_gb * PRICE_PER_GB_MONTH[kind]),
    }
    if size >= 50:
        vol["free_space_alarm_gb"] = allocated_gb // 5
        vol["monitoring_interval_s"] = MONITORING_SECONDS[kind]
    if size >= 100:
        vol["alert_route"] = STORAGE_ALERT_ROUTE[kind]
    return vol


NEW_REPLICAS = ["orders-db-replica-2", "orders-db-reporting", "orders-db-replica-3"]


def volume_tier_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The primary's size (gp3, under the threshold), the read replicas as ``[name, GB]`` (the
    first on gp3, the analytics one at size 100 on io2) and the backup retention."""
    replicas = [["orders-db-replica-1", d.int(300, 900, shipped=500, step=50)]]
    if size >= 100:
        replicas.append(["orders-db-analytics", d.int(1000, 1600, shipped=1000, step=100)])
    return {
        "size": size,
        "allocated_gb": d.int(600, 950, shipped=800, step=50),
        "replicas": replicas if size >= 50 else [],
        "backup_days": d.pick([7, 5, 10, 14]),
    }


def volume_tier_params(size: int) -> dict[str, Any]:
    return volume_tier_inputs(size, SHIPPED)


def volume_tier_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    primary = _volume(p["allocated_gb"], size)
    if size == 10:
        return {
            "database": {
                "name": "orders-db",
                "engine": "postgres",
                "version": "16.3",
                "instance_class": "db.r6g.xlarge",
                "multi_az": True,
            },
            "storage": primary,
            "backup_retention_days": p["backup_days"],
        }
    replicas = [{"name": name, **_volume(gb, size)} for name, gb in p["replicas"]]
    total = money(primary["monthly_cost_usd"] + sum(r["monthly_cost_usd"] for r in replicas))
    artifact: dict[str, Any] = {
        "database": {
            "name": "orders-db",
            "engine": "postgres",
            "version": "16.3",
            "instance_class": "db.r6g.xlarge",
            "multi_az": True,
        },
        "storage": primary,
        "replicas": replicas,
        "storage_cost_total_usd": total,
        "backups": {
            "retention_days": p["backup_days"],
            "window": "03:00-04:00",
            "copy_to_region": "eu-central-1",
        },
        "parameters": {"max_connections": 800, "shared_buffers": "8GB", "work_mem": "64MB"},
        "maintenance": {"window": "Sun 04:00-05:00", "auto_minor_upgrade": True},
        "network": {
            "subnet_group": "prod-db-subnets",
            "security_group": "sg-orders-db",
            "port": 5432,
        },
        "encryption": {"at_rest": True, "kms_alias": "alias/prod-rds"},
        "owner": "platform-dba",
        "cost_center": "CC-9100",
    }
    artifact["app_clients"] = [
        {"service": "orders-api", "pool_size": 40},
        {"service": "orders-worker", "pool_size": 10},
        {"service": "reporting-etl", "pool_size": 5},
    ]
    artifact["pgbouncer"] = {"enabled": True, "pool_mode": "transaction", "max_client_conn": 2000}
    if size == 50:
        artifact["tags"] = ["orders", "postgres", "prod"]
        artifact["alerts"] = {"channel": "#db-alerts", "cpu_pct": 80, "connections_pct": 85}
        artifact["deletion_protection"] = True
        return artifact
    artifact["budget"] = {
        "monthly_storage_usd": DB_BUDGET_USD,
        "headroom_usd": money(DB_BUDGET_USD - total),
    }
    artifact["alerts"] = {"cpu_pct": 80, "connections_pct": 85, "replica_lag_s": 30}
    artifact["parameters"].update(timezone="UTC", idle_in_transaction_session_timeout="60s")
    artifact["performance_insights"] = {"enabled": True, "retention_days": 7}
    artifact["deletion_protection"] = True
    artifact["tags"] = ["orders", "postgres", "prod", "pci"]
    artifact["extensions"] = ["pg_stat_statements", "pgcrypto", "uuid-ossp"]
    artifact["on_call"] = {"rotation": "dba-oncall", "escalation": "platform-leads"}
    artifact["upgrade_plan"] = {"next_major": "17", "target_quarter": "2025-Q4"}
    artifact["tags"].append("eu")
    artifact["staging_copy"] = {
        "name": "orders-db-staging",
        "allocated_gb": 200,
        "volume_type": "gp3",
        "iops": 3000,
    }
    artifact["slow_query_log"] = {"enabled": True, "min_duration_ms": 500}
    artifact["endpoints"] = {
        "writer": "orders-db.cluster.internal",
        "reader": "orders-db-ro.internal",
    }
    artifact["iam_auth"] = True
    artifact["log_exports"] = ["postgresql", "upgrade"]
    artifact["snapshots"] = {"manual_before_changes": True, "keep_last": 5}
    artifact["ha"] = {"failover_priority": 1, "standby_az": "eu-west-1b"}
    artifact["capacity_review"] = {
        "last": "2025-01-20",
        "next": "2025-04-20",
        "reviewer": "Ola Nordmann",
    }
    artifact["runbook_url"] = "https://wiki.acme.io/platform/orders-db"
    artifact["access"] = {"admin_group": "dba-admins", "readonly_group": "analytics-readers"}
    artifact["connection_limits"] = {"app_user": 600, "readonly_user": 100, "admin_user": 10}
    artifact["grafana_dashboard"] = "https://grafana.acme.io/d/orders-db"
    return artifact


VOLUME_RULE = (
    "Volume rule for every Postgres volume: below 1,000 GB we stay on gp3 with its flat 3,000 IOPS "
    "baseline; at 1,000 GB or more it moves to io2, provisioned at 5 IOPS per GB. Prices are $0.08 "
    "per GB-month on gp3 and $0.14 on io2, IOPS included in our contract."
)


def volume_tier_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                "Production Postgres for orders: orders-db, Postgres 16.3 on a db.r6g.xlarge, multi-AZ.",
                ["/database"],
            ),
            (f"Give it {p['allocated_gb']:,} GB of storage.", ["/storage/allocated_gb"]),
            (
                VOLUME_RULE + " Fill in the volume type, IOPS and monthly storage cost.",
                ["/storage/volume_type", "/storage/iops", "/storage/monthly_cost_usd"],
            ),
            (f"Keep automated backups for {p['backup_days']} days.", ["/backup_retention_days"]),
        ]
    gated = (
        "Anything on io2 also gets enhanced monitoring every 15 seconds; gp3 volumes stay at 60 seconds. "
        "Set a free-space alarm at 20% of the allocated size."
    )
    if size >= 100:
        gated += " Storage alerts for io2 volumes page pagerduty:dba-oncall; gp3 ones just post to #db-alerts."
    vol_paths = [
        "volume_type",
        "iops",
        "monthly_cost_usd",
        "free_space_alarm_gb",
        "monitoring_interval_s",
    ]
    if size >= 100:
        vol_paths.append("alert_route")
    replicas = f"{p['replicas'][0][0]} with {p['replicas'][0][1]:,} GB"
    if size >= 100:
        replicas += (
            f", and the analytics replica {p['replicas'][1][0]} with {p['replicas'][1][1]:,} GB"
        )
    turns: list[Turn] = [
        (
            "Production Postgres for orders: orders-db, Postgres 16.3 on a db.r6g.xlarge, multi-AZ, owned by "
            "platform-dba on cost center CC-9100.",
            ["/database", "/owner", "/cost_center"],
        ),
        (f"The primary gets {p['allocated_gb']:,} GB of storage.", ["/storage/allocated_gb"]),
        (f"{VOLUME_RULE} {gated}", [f"/storage/{k}" for k in vol_paths]),
        (f"Read replicas follow the same volume rules: {replicas}.", ["/replicas"]),
        (
            "Total monthly storage cost across the primary and the replicas."
            + (" The storage budget is $400 a month; show the headroom." if size >= 100 else ""),
            ["/storage_cost_total_usd"] + (["/budget"] if size >= 100 else []),
        ),
        (
            f"Backups kept {p['backup_days']} days, taken 03:00-04:00, copied to eu-central-1.",
            ["/backups"],
        ),
        (
            "Parameters: max_connections 800, shared_buffers 8GB, work_mem 64MB. Maintenance on Sundays "
            "04:00-05:00 with automatic minor upgrades.",
            [
                "/parameters/max_connections",
                "/parameters/shared_buffers",
                "/parameters/work_mem",
                "/maintenance",
            ],
        ),
        (
            "Network: subnet group prod-db-subnets, security group sg-orders-db, port 5432. Encrypted at rest "
            "with alias/prod-rds.",
            ["/network", "/encryption"],
        ),
        (
            "Clients: orders-api pools 40 connections, orders-worker 10, reporting-etl 5, all through pgbouncer "
            "in transaction mode with up to 2,000 client connections.",
            ["/app_clients", "/pgbouncer"],
        ),
    ]
    if size == 50:
        turns.append(
            (
                "Tags orders, postgres, prod. Alerts in #db-alerts at 80% CPU or 85% of connections, and turn on "
                "deletion protection.",
                ["/tags", "/alerts", "/deletion_protection"],
            )
        )
        return turns
    turns += [
        (
            "Instance alerts at 80% CPU, 85% of connections, or 30 seconds of replica lag. Also set the "
            "database timezone to UTC and kill sessions idle in a transaction after 60s.",
            ["/alerts", "/parameters/timezone", "/parameters/idle_in_transaction_session_timeout"],
        ),
        (
            "Performance Insights on, 7 days. Deletion protection on. Tags orders, postgres, prod, pci, eu. "
            "Extensions: pg_stat_statements, pgcrypto, uuid-ossp.",
            ["/performance_insights", "/deletion_protection", "/tags", "/extensions"],
        ),
        (
            "On-call is dba-oncall, escalating to platform-leads. We plan the move to Postgres 17 in 2025-Q4.",
            ["/on_call", "/upgrade_plan"],
        ),
        (
            "For comparison, the staging copy orders-db-staging has 200 GB on gp3 at 3,000 IOPS; it's managed "
            "separately.",
            ["/staging_copy"],
        ),
        (
            "Log queries slower than 500 ms and export the postgresql and upgrade logs. Writer endpoint "
            "orders-db.cluster.internal, reader orders-db-ro.internal, IAM authentication on.",
            ["/slow_query_log", "/log_exports", "/endpoints", "/iam_auth"],
        ),
        (
            "Take a manual snapshot before every change and keep the last 5. Failover priority 1 with the "
            "standby in eu-west-1b.",
            ["/snapshots", "/ha"],
        ),
        (
            "Last capacity review was 2025-01-20 by Ola Nordmann; the next one is booked for 2025-04-20. "
            "Runbook: https://wiki.acme.io/platform/orders-db, dashboard https://grafana.acme.io/d/orders-db.",
            ["/capacity_review", "/runbook_url", "/grafana_dashboard"],
        ),
        (
            "dba-admins administer it and analytics-readers get read-only access. Connection caps: 600 for "
            "the app user, 100 for the read-only user, 10 for admins.",
            ["/access", "/connection_limits"],
        ),
    ]
    return turns


def volume_tier_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="We're running out of room on the orders-db primary. Allocate 1,200 GB instead of "
        f"{p['allocated_gb']:,}.",
        mutate=lambda q: q.update(allocated_gb=1200),
        direct="/storage/allocated_gb",
    )


def volume_tier_followups(p: dict[str, Any]) -> list[Revision]:
    return [
        Revision(
            request="The cleanup job freed far more space than expected, so 1,200 GB is too much. Set the "
            "orders-db primary to 950 GB.",
            mutate=lambda q: q.update(allocated_gb=950),
            direct="/storage/allocated_gb",
            theme="Shrinking the primary back under 1,000 GB returns it to gp3 with its IOPS, price, "
            "monitoring and alerting",
            pattern="threshold",
        ),
        Revision(
            request="The new growth forecast is much steeper. Make the primary 1,500 GB.",
            mutate=lambda q: q.update(allocated_gb=1500),
            direct="/storage/allocated_gb",
            theme="Growing the primary past 1,000 GB again moves it to io2 at 5 IOPS per GB with io2 pricing",
            pattern="threshold",
        ),
        Revision(
            request="The new audit tables need room too: add another 300 GB to the primary on top of that.",
            mutate=lambda q: q.update(allocated_gb=q["allocated_gb"] + 300),
            direct="/storage/allocated_gb",
            theme="A relative increase on the io2 volume raises its size, IOPS, cost, alarm and the totals",
            pattern="arithmetic",
        ),
    ]


# moves of deploy-db-volume-threshold: the primary is resized across 1,000 GB, within its tier or
# by a relative amount; at sizes 50 and 100 a replica crosses the threshold, joins or leaves

GB_SIZES = range(300, 2401, 50)
REPLICA_GB = range(300, 1601, 50)


def _tier(gb: int) -> bool:
    return gb >= IO2_THRESHOLD_GB


def _cross_primary(p: dict[str, Any], d: Draw) -> Revision:
    old = p["allocated_gb"]
    new = d.pick([gb for gb in GB_SIZES if _tier(gb) != _tier(old)])
    request = (
        f"We're running out of room on the orders-db primary. Allocate {new:,} GB instead of {old:,}."
        if new > old
        else f"The cleanup job freed a lot of space. Set the orders-db primary to {new:,} GB."
    )
    return Revision(
        request=request,
        mutate=lambda q: q.update(allocated_gb=new),
        direct="/storage/allocated_gb",
        theme=f"The primary crosses 1,000 GB ({old:,} to {new:,} GB): type, IOPS and price follow",
    )


def _resize_primary(p: dict[str, Any], d: Draw) -> Revision:
    old = p["allocated_gb"]
    new = d.pick([gb for gb in GB_SIZES if _tier(gb) == _tier(old) and gb != old])
    return Revision(
        request=f"Make the orders-db primary {new:,} GB.",
        mutate=lambda q: q.update(allocated_gb=new),
        direct="/storage/allocated_gb",
        theme=f"The primary goes from {old:,} to {new:,} GB on the same volume type",
    )


def _grow_primary(p: dict[str, Any], d: Draw) -> Revision:
    more = d.pick(range(100, 401, 50))
    return Revision(
        request=d.pick(
            [
                f"The new audit tables need room: add another {more} GB to the orders-db primary.",
                f"Grow the orders-db primary by {more} GB.",
            ]
        ),
        mutate=lambda q: q.update(allocated_gb=q["allocated_gb"] + more),
        direct="/storage/allocated_gb",
        theme=f"The primary grows by {more} GB: everything sized from it follows",
    )


def _cross_replica(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["replicas"])))
    name, old = p["replicas"][i]
    new = d.pick([gb for gb in REPLICA_GB if _tier(gb) != _tier(old)])
    return Revision(
        request=f"Resize the read replica {name} to {new:,} GB.",
        mutate=lambda q: q["replicas"][i].__setitem__(1, new),
        direct=f"/replicas/{i}/allocated_gb",
        theme=f"{name} crosses 1,000 GB: its type, IOPS and price follow, and the total",
    )


def _add_replica(p: dict[str, Any], d: Draw) -> Revision | None:
    names = {r[0] for r in p["replicas"]}
    free = [n for n in NEW_REPLICAS if n not in names]
    if not free:
        return None
    name, gb = d.pick(free), d.pick(REPLICA_GB)
    return Revision(
        request=f"Add a read replica {name} with {gb:,} GB, at the end of the replicas.",
        mutate=lambda q: q["replicas"].append([name, gb]),
        direct=f"/replicas/{len(p['replicas'])}",
        theme=f"A {gb:,} GB replica joins: the storage total follows",
    )


def _remove_replica(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["replicas"])))
    name = p["replicas"][i][0]

    return Revision(
        request=f"We no longer need the read replica {name}; remove it.",
        mutate=_delete("replicas", i),
        direct=f"/replicas/{i}",
        theme=f"{name} goes: the storage total follows",
    )


VOLUME_MOVES = [
    Move("cross-primary", "threshold", _cross_primary),
    Move("resize-primary", "arithmetic", _resize_primary),
    Move("grow-primary", "arithmetic", _grow_primary, when=lambda p: p["allocated_gb"] <= 2000),
    Move("cross-replica", "threshold", _cross_replica, when=lambda p: p["size"] >= 50),
    Move("add-replica", "add_remove", _add_replica, when=lambda p: p["size"] >= 50),
    Move(
        "remove-replica",
        "add_remove",
        _remove_replica,
        when=lambda p: p["size"] >= 50 and len(p["replicas"]) > 1,
    ),
]

# =========================================================================== deploy-maintenance-window-shift
# Temporal: the maintenance window opens later; every run-book time given relative to the opening
# moves by the same 90 minutes (crossing midnight), while absolutely given times stay.

WINDOW_STEPS: list[tuple[str, int, str]] = [
    ("take snapshot", -30, "dba"),
    ("drain traffic", 0, "ic"),
    ("start upgrade", 15, "dba"),
    ("run smoke tests", 90, "comms"),
    ("rollback decision", 120, "ic"),
    ("restore traffic", 150, "ic"),
]
EXTRA_STEPS: list[tuple[str, int, str]] = [
    ("pause batch jobs", -60, "comms"),
    ("re-enable batch jobs", 165, "comms"),
]
WINDOW_HOURS = {
    180: "three hours",
    210: "three and a half hours",
    240: "four hours",
    270: "four and a half hours",
    300: "five hours",
}
"""Window lengths in minutes, as the user says them (the shipped window: three hours)."""
WINDOW_PEOPLE = {
    "ic": ["Ana Costa", "Nadia Karim", "Paul Moreau"],
    "dba": ["Tomás Herrera", "Marta Ruiz", "Kenji Ito"],
    "comms": ["Lena Fischer", "Sara Lind", "Omar Haddad"],
}
"""Who holds each role (run-book steps name their owner by role), shipped person first."""
ROLE_WORDS = {"ic": "incident commander", "dba": "DBA", "comms": "comms lead"}
NOTICE_MINUTES = -72 * 60


def window_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The window's opening and length and who holds each role."""
    day = d.date("2025-06-11", "2025-06-20", shipped="2025-06-14")
    hour = d.pick(["22:00", "21:00", "21:30", "22:30", "23:00"])
    return {
        "size": size,
        "start": f"{day}T{hour}:00Z",
        "minutes": d.pick([180, 240]),
        "people": {role: d.pick(names) for role, names in WINDOW_PEOPLE.items()},
    }


def window_params(size: int) -> dict[str, Any]:
    return window_inputs(size, SHIPPED)


def _when(stamp: str) -> str:
    """``"2025-06-14T22:00:00Z" -> "2025-06-14 at 22:00 UTC"``."""
    return f"{stamp[:10]} at {stamp[11:16]} UTC"


def window_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, start = p["size"], p["start"]
    end = _stamp(start, p["minutes"])
    who = p["people"]
    if size == 10:
        return {
            "change": {
                "id": "CHG-4821",
                "title": "Postgres 15 to 16 upgrade",
                "owner": "platform-team",
            },
            "service": "orders-db",
            "window": {"start": start, "end": end},
            "steps": {
                "snapshot_at": _stamp(start, -30),
                "upgrade_at": _stamp(start, 15),
                "smoke_test_at": _stamp(start, 90),
            },
            "approved_at": "2025-06-10T15:00:00Z",
        }
    steps = sorted(WINDOW_STEPS + (EXTRA_STEPS if size >= 100 else []), key=lambda s: s[1])
    artifact: dict[str, Any] = {
        "change": {
            "id": "CHG-4821",
            "title": "Postgres 15 to 16 upgrade",
            "owner": "platform-team",
            "service": "orders-db",
            "risk": "medium",
        },
        "window": {"start": start, "end": end, "timezone": "UTC"},
        "customer_notice": {
            "send_at": _stamp(start, NOTICE_MINUTES),
            "channel": "status page",
            "audience": "all customers",
        },
        "steps": [{"name": n, "at": _stamp(start, m), "owner": who[o]} for n, m, o in steps],
        "deploy_freeze": {"from": _stamp(start, -120), "to": end},
        "fixed": {
            "approved_at": "2025-06-10T15:00:00Z",
            "oncall_handover": "2025-06-15T08:00:00Z",
            "cert_renewal": "2025-07-01",
        },
        "rollback": {"plan": "restore snapshot", "max_minutes": 45},
        "contacts": {
            "incident_commander": who["ic"],
            "dba": who["dba"],
            "comms": who["comms"],
        },
        "versions": {"from": "15.6", "to": "16.3"},
        "database": {"instance": "orders-db", "instance_class": "db.r6g.xlarge"},
        "status_page": {"component": "Orders API", "message": "Scheduled maintenance"},
        "approvals_required": 2,
        "ticket_url": "https://jira.acme.io/browse/CHG-4821",
        "tags": ["maintenance", "postgres", "orders"],
    }
    if size == 50:
        return artifact
    artifact["customer_notice"]["reminder_at"] = _stamp(start, -60)
    artifact["fixed"].update(
        quarter_end_freeze="2025-06-27T00:00:00Z", vendor_support_call="2025-06-13T14:00:00Z"
    )
    artifact["status_page"]["all_clear_at"] = _stamp(end, 15)
    artifact["monitoring"] = {
        "dashboard": "https://grafana.acme.io/d/orders-db",
        "watch_until": _stamp(end, 120),
        "extra_alerting": True,
    }
    artifact["participants"] = [
        {"name": who["ic"], "role": "incident commander"},
        {"name": who["dba"], "role": "DBA"},
        {"name": who["comms"], "role": "communications"},
        {"name": "Jonas Weber", "role": "app owner"},
    ]
    artifact["bridge"] = {"zoom": "https://acme.zoom.us/j/4821", "slack": "#chg-4821"}
    artifact["prechecks"] = ["replication lag under 5 s", "disk free above 30%", "backup verified"]
    artifact["related_changes"] = [
        {"id": "CHG-4790", "at": "2025-06-12T21:00:00Z", "title": "kernel patching"},
        {"id": "CHG-4801", "at": "2025-06-14T12:00:00Z", "title": "firewall rule cleanup"},
        {"id": "CHG-4833", "at": "2025-06-16T20:00:00Z", "title": "CDN config update"},
    ]
    artifact["comms_templates"] = {
        "notice": "tmpl-maint-72h",
        "reminder": "tmpl-maint-1h",
        "all_clear": "tmpl-all-clear",
    }
    artifact["affected_services"] = ["orders-api", "orders-worker", "checkout"]
    artifact["success_criteria"] = {"error_rate_pct": 1, "p99_latency_ms": 500}
    artifact["escalation"] = {"manager": "Priya Nair", "vendor_case": "AWS-882211"}
    artifact["tags"] += ["tier-1", "db"]
    artifact["change"].update(
        change_type="normal", requested_by="Jonas Weber", sla_credit_risk=False
    )
    return artifact


def window_conversation(p: dict[str, Any]) -> list[Turn]:
    size, who, hours = p["size"], p["people"], WINDOW_HOURS[p["minutes"]]
    if size == 10:
        return [
            (
                "Opening change CHG-4821 for the platform team: the Postgres 15 to 16 upgrade on orders-db.",
                ["/change", "/service"],
            ),
            (
                f"The maintenance window opens {_when(p['start'])} and lasts {hours}. Write times as "
                "UTC timestamps.",
                ["/window"],
            ),
            (
                "Run-book timing, all relative to the window opening: the snapshot 30 minutes before it, the "
                "upgrade itself 15 minutes in, smoke tests 90 minutes in.",
                ["/steps"],
            ),
            ("The change board approved it on 2025-06-10 at 15:00 UTC.", ["/approved_at"]),
        ]
    steps = sorted(WINDOW_STEPS + (EXTRA_STEPS if size >= 100 else []), key=lambda s: s[1])
    parts = []
    for name, minutes, owner in steps:
        when = (
            "when the window opens"
            if minutes == 0
            else f"{-minutes} minutes before it opens"
            if minutes < 0
            else f"{minutes} minutes in"
        )
        parts.append(f"{name} {when} ({who[owner]})")
    turns: list[Turn] = [
        (
            "Opening change CHG-4821 for platform-team: the Postgres 15 to 16 upgrade on orders-db, medium risk."
            + (
                " It's a normal change requested by Jonas Weber, with no SLA credit risk."
                if size >= 100
                else ""
            ),
            ["/change"],
        ),
        (
            f"The maintenance window opens {_when(p['start'])} and lasts {hours}. Times as UTC "
            "timestamps, please.",
            ["/window"],
        ),
        (
            "Customers get a status page notice 72 hours before the window opens"
            + (", plus a reminder an hour before" if size >= 100 else "")
            + ".",
            ["/customer_notice"],
        ),
        (
            "Run book, in order, relative to the window opening: " + "; ".join(parts) + ".",
            ["/steps"],
        ),
        (
            "Block deploys from two hours before the window opens until it closes.",
            ["/deploy_freeze"],
        ),
        (
            "Fixed dates that don't move: the change board approved it 2025-06-10 15:00 UTC, on-call hands over "
            "2025-06-15 08:00 UTC, and the TLS certificate renews on 2025-07-01.",
            ["/fixed/approved_at", "/fixed/oncall_handover", "/fixed/cert_renewal"],
        ),
        (
            f"Rollback means restoring the snapshot, and it must fit in 45 minutes. {who['ic']} is "
            f"incident commander, {who['dba']} the DBA, {who['comms']} handles comms.",
            ["/rollback", "/contacts"],
        ),
        ("We go from 15.6 to 16.3 on orders-db, a db.r6g.xlarge.", ["/versions", "/database"]),
        (
            "Status page component Orders API shows 'Scheduled maintenance'. Two approvals needed; ticket "
            "https://jira.acme.io/browse/CHG-4821. Tags maintenance, postgres, orders"
            + (", tier-1, db." if size >= 100 else "."),
            [
                "/status_page/component",
                "/status_page/message",
                "/approvals_required",
                "/ticket_url",
                "/tags",
            ],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "Post the all-clear on the status page 15 minutes after the window closes, and watch the "
            "dashboard https://grafana.acme.io/d/orders-db with extra alerting until two hours after it closes.",
            ["/status_page/all_clear_at", "/monitoring"],
        ),
        (
            "Two more fixed times: the quarter-end freeze starts 2025-06-27 00:00 UTC, and we have a vendor "
            "support call on 2025-06-13 at 14:00 UTC.",
            ["/fixed/quarter_end_freeze", "/fixed/vendor_support_call"],
        ),
        (
            f"Participants: {who['ic']} (incident commander), {who['dba']} (DBA), {who['comms']} "
            "(communications), "
            "Jonas Weber (app owner). Bridge on https://acme.zoom.us/j/4821 and #chg-4821.",
            ["/participants", "/bridge"],
        ),
        (
            "Prechecks: replication lag under 5 s, disk free above 30%, backup verified. Note the unrelated "
            "changes around it: kernel patching CHG-4790 on 2025-06-12 at 21:00 UTC, firewall rule cleanup "
            "CHG-4801 on 2025-06-14 at 12:00 UTC, and the CDN config update CHG-4833 on 2025-06-16 at 20:00 UTC.",
            ["/prechecks", "/related_changes"],
        ),
        (
            "Comms templates: tmpl-maint-72h for the notice, tmpl-maint-1h for the reminder, tmpl-all-clear "
            "afterwards. Affected services are orders-api, orders-worker and checkout.",
            ["/comms_templates", "/affected_services"],
        ),
        (
            "It's a success if errors stay under 1% and p99 under 500 ms. Escalate to Priya Nair; the AWS "
            "support case is AWS-882211.",
            ["/success_criteria", "/escalation"],
        ),
    ]
    return turns


def window_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Can we open the maintenance window at 23:30 UTC on 2025-06-14 instead of 22:00?",
        mutate=lambda q: q.update(start="2025-06-14T23:30:00Z"),
        direct="/window/start",
    )


def window_followups(p: dict[str, Any]) -> list[Revision]:
    return [
        Revision(
            request="Checkout is running a promotion on the night of the 14th. Move the window to the next "
            "night, 2025-06-15, still opening at 23:30 UTC.",
            mutate=lambda q: q.update(start="2025-06-15T23:30:00Z"),
            direct="/window/start",
            theme="The window moves a whole day; every relative time follows, absolute times stay",
            pattern="temporal",
        ),
        Revision(
            request="Let's open it an hour earlier than that, at 22:30 UTC.",
            mutate=lambda q: q.update(start=_stamp(q["start"], -60)),
            direct="/window/start",
            theme="An hour earlier than the moved window: every relative time moves back 60 minutes",
            pattern="temporal",
        ),
        Revision(
            request="The change board wants the original slot after all: open the window on 2025-06-14 at "
            "22:00 UTC.",
            mutate=lambda q: q.update(start="2025-06-14T22:00:00Z"),
            direct="/window/start",
            theme="Going back to the first slot moves every relative time back across the day boundary",
            pattern="temporal",
        ),
    ]


# moves of deploy-maintenance-window-shift: the window opens at another time, another day or a
# number of minutes later or earlier; at sizes 50 and 100 it gets longer or shorter, and someone
# takes over a role (its run-book steps follow)


def _night(stamp: str) -> bool:
    """Whether a window opening stays a night slot (20:00 to 01:00 UTC) of 2025-06-11 to -20."""
    minute = int(stamp[11:13]) * 60 + int(stamp[14:16])
    evening = _stamp(stamp, -120)[:10]
    return (minute >= 20 * 60 or minute <= 60) and "2025-06-11" <= evening <= "2025-06-20"


def _set_time(p: dict[str, Any], d: Draw) -> Revision | None:
    old = p["start"]
    options = [_stamp(old, 30 * k) for k in range(-6, 7) if k and _night(_stamp(old, 30 * k))]
    if not options:
        return None
    new = d.pick(options)
    return Revision(
        request=f"Can we open the maintenance window on {_when(new)} instead of {_when(old)}?",
        mutate=lambda q: q.update(start=new),
        direct="/window/start",
        theme="The window opens at another time: every time set relative to it follows",
    )


def _delay(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [m for m in range(-120, 121, 15) if m and _night(_stamp(p["start"], m))]
    if not options:
        return None
    minutes = d.pick(options)
    words = {60: "an hour", 90: "an hour and a half", 120: "two hours"}.get(
        abs(minutes), f"{abs(minutes)} minutes"
    )
    request = (
        f"Push the maintenance window back {words}."
        if minutes > 0
        else f"Open the maintenance window {words} earlier than planned."
    )
    return Revision(
        request=request,
        mutate=lambda q: q.update(start=_stamp(q["start"], minutes)),
        direct="/window/start",
        theme=f"The window moves {minutes:+} minutes: every relative time follows, fixed times stay",
    )


def _move_day(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [
        _stamp(p["start"], days * 24 * 60)
        for days in (-3, -2, -1, 1, 2, 3)
        if _night(_stamp(p["start"], days * 24 * 60))
    ]
    if not options:
        return None
    new = d.pick(options)
    return Revision(
        request=f"Move the maintenance window to {new[:10]}, still opening at {new[11:16]} UTC.",
        mutate=lambda q: q.update(start=new),
        direct="/window/start",
        theme="The window moves to another day: every relative time follows, fixed times stay",
    )


def _stretch(p: dict[str, Any], d: Draw) -> Revision:
    old = p["minutes"]
    new = d.pick([m for m in WINDOW_HOURS if m != old])
    lead = "The upgrade needs more room:" if new > old else "We don't need that long:"
    return Revision(
        request=f"{lead} make the maintenance window {WINDOW_HOURS[new]} long instead of "
        f"{WINDOW_HOURS[old]}, still opening at the same time.",
        mutate=lambda q: q.update(minutes=new),
        direct="/window/end",
        theme="The window closes at another time: everything set from its close follows",
    )


def _take_over(p: dict[str, Any], d: Draw) -> Revision:
    role = d.pick(list(WINDOW_PEOPLE))
    old = p["people"][role]
    new = d.pick([n for n in WINDOW_PEOPLE[role] if n != old])
    key = {"ic": "incident_commander", "dba": "dba", "comms": "comms"}[role]
    return Revision(
        request=f"{new} takes over from {old} as {ROLE_WORDS[role]}: replace {old} with {new} "
        "everywhere, run-book steps included.",
        mutate=lambda q: q["people"].__setitem__(role, new),
        direct=f"/contacts/{key}",
        theme=f"{new} replaces {old}: the run-book steps {old} owned follow",
    )


WINDOW_MOVES = [
    Move("set-time", "temporal", _set_time),
    Move("delay", "temporal", _delay),
    Move("move-day", "temporal", _move_day),
    Move("stretch", "temporal", _stretch, when=lambda p: p["size"] >= 50),
    Move("take-over", "substitution", _take_over, when=lambda p: p["size"] >= 50, opens=False),
]

# =========================================================================== deploy-prod-change-freeze
# Status flip: freezing production moves every setting the user tied to the change status to its
# frozen value at once; staging, which stays open, keeps its settings.

CHANGE_STATES: dict[str, dict[str, Any]] = {
    "open": {
        "auto_deploy": True,
        "required_approvals": 1,
        "allowed_change_types": ["feature", "fix", "config"],
        "approver_group": "team-leads",
        "deploy_banner": "Production is open for changes",
        "auto_promote": True,
        "flag_changes_allowed": True,
        "migrations_allowed": True,
    },
    "frozen": {
        "auto_deploy": False,
        "required_approvals": 2,
        "allowed_change_types": ["hotfix"],
        "approver_group": "release-managers",
        "deploy_banner": "Change freeze in effect: hotfixes only",
        "auto_promote": False,
        "flag_changes_allowed": False,
        "migrations_allowed": False,
    },
}
CHANGE_STATES["soft-frozen"] = {
    **CHANGE_STATES["frozen"],
    "allowed_change_types": ["hotfix", "fix"],
    "deploy_banner": "Soft freeze in effect: hotfixes and fixes only",
}
"""The follow-up's new status: frozen, except that regular fixes are allowed too."""
PROD_SERVICES: list[tuple[str, str, str]] = [
    ("storefront", "4.2.0", "2025-12-15"),
    ("checkout", "3.9.1", "2025-12-17"),
    ("inventory", "1.18.0", "2025-12-11"),
    ("search", "2.4.0", "2025-12-16"),
    ("pricing", "1.2.5", "2025-12-09"),
    ("notifications", "0.7.3", "2025-12-18"),
    ("accounts", "5.0.2", "2025-12-12"),
]


RELEASE_MANAGERS = [
    ("dana.k", "Dana Kowalczyk"),
    ("miro.s", "Miro Svoboda"),
    ("ines.p", "Ines Pereira"),
    ("kofi.a", "Kofi Asante"),
]
OPEN_TYPES = ["feature", "fix", "config"]
NEW_PROD_SERVICES: list[tuple[str, str, str]] = [
    ("payments", "2.3.1", "2025-12-10"),
    ("shipping", "1.4.0", "2025-12-08"),
    ("reviews", "0.9.2", "2025-12-05"),
    ("loyalty", "3.1.0", "2025-12-03"),
]


def _series(items: list[str]) -> str:
    """``["a", "b", "c"] -> "a, b and c"``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _bumped(version: str, d: Draw) -> str:
    """``version`` or a later patch or minor release of it (the shipped instance: ``version``)."""
    major, minor, patch = (int(x) for x in version.split("."))
    return d.pick([version, f"{major}.{minor}.{patch + 1}", f"{major}.{minor + 1}.0"])


def freeze_inputs(size: int, d: Draw) -> dict[str, Any]:
    """Production's inputs: its change status, the change types open allows, the release manager
    and the services with their versions (and last deploy days at size 100)."""
    services = [
        [name, _bumped(version, d), d.date("2025-12-01", "2025-12-18", shipped=day)]
        for name, version, day in PROD_SERVICES[: 4 if size == 50 else 7]
    ]
    return {
        "size": size,
        "status": "open",
        "open_types": d.shuffled(OPEN_TYPES),
        "manager": list(d.pick(RELEASE_MANAGERS)),
        "soft_extra": "fix",
        "services": services if size >= 50 else [],
    }


def freeze_params(size: int) -> dict[str, Any]:
    return freeze_inputs(size, SHIPPED)


def _change_types(p: dict[str, Any]) -> list[str]:
    """The allowed change types of the current status (open's are the user's list, soft-frozen
    allows ``soft_extra`` alongside hotfixes)."""
    if p["status"] == "open":
        return list(p["open_types"])
    if p["status"] == "soft-frozen":
        return ["hotfix", p["soft_extra"]]
    return list(CHANGE_STATES[p["status"]]["allowed_change_types"])


def _banner(p: dict[str, Any]) -> str:
    extra = p["soft_extra"]
    if p["status"] != "soft-frozen" or extra == "fix":
        return str(CHANGE_STATES[p["status"]]["deploy_banner"])
    return f"Soft freeze in effect: hotfixes and {extra} changes only"


def freeze_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, status = p["size"], p["status"]
    st = CHANGE_STATES[status]
    env: dict[str, Any] = {
        "name": "production",
        "cluster": "prod-eks",
        "change_status": status,
        "auto_deploy": st["auto_deploy"],
        "required_approvals": st["required_approvals"],
    }
    if size == 10:
        return {
            "environment": env,
            "allowed_change_types": _change_types(p),
            "release_manager": p["manager"][0],
            "region": "eu-west-1",
        }
    env.update(region="eu-west-1", approver_group=st["approver_group"], deploy_banner=_banner(p))
    if size >= 100:
        env.update(
            flag_changes_allowed=st["flag_changes_allowed"],
            migrations_allowed=st["migrations_allowed"],
        )
    services = []
    for name, version, deployed in p["services"]:
        service: dict[str, Any] = {"name": name, "current_version": version}
        if size >= 100:
            service["last_deployed"] = deployed
        service.update(pipeline=f"deploy-{name}", auto_promote=st["auto_promote"])
        services.append(service)
    artifact: dict[str, Any] = {
        "environment": env,
        "allowed_change_types": _change_types(p),
        "services": services,
        "staging": {"change_status": "open", "auto_deploy": True, "required_approvals": 1},
        "release_manager": p["manager"][0],
        "on_call": {"rotation": "platform-oncall", "escalation": "platform-leads"},
        "deploy_windows": {"days": "Mon-Thu", "hours": "09:00-16:00"},
        "notifications": {"channel": "#deploys", "notify_on_approval": True},
        "ci": {
            "system": "github-actions",
            "main_branch": "main",
            "required_checks": ["unit", "integration", "lint"],
        },
        "rollback": {"automatic": True, "error_rate_pct": 2},
        "tags": ["production", "eks", "tier-1"],
        "owner": "platform-team",
        "audit_log": "s3://acme-audit/deploys/",
        "cluster_version": "1.29",
    }
    if size == 50:
        return artifact
    artifact["staging"].update(approver_group="team-leads", auto_promote_to_prod=False)
    artifact["canary"] = {"traffic_percent": 5, "duration_minutes": 20}
    artifact["holidays"] = ["2025-12-24", "2025-12-25", "2025-12-31", "2026-01-01"]
    artifact["break_glass"] = {"group": "sre-leads", "max_hours": 4, "review_within_days": 2}
    artifact["registries"] = {"images": "registry.acme.io", "charts": "charts.acme.io"}
    artifact["slo"] = {"availability_pct": 99.95, "latency_p99_ms": 300}
    artifact["contacts"] = [
        {"name": p["manager"][1], "role": "release manager"},
        {"name": "Ana Costa", "role": "SRE lead"},
    ]
    artifact["exceptions_channel"] = "#release-exceptions"
    artifact["observability"] = {
        "dashboard": "https://grafana.acme.io/d/prod",
        "error_budget_remaining_pct": 62,
    }
    artifact["secrets"] = {"provider": "vault", "rotation_days": 90}
    artifact["ci"]["required_checks"].append("security-scan")
    artifact["tags"].append("eu")
    artifact["incident_process"] = {"sev1_page": "platform-oncall", "postmortem_within_days": 5}
    artifact["change_calendar"] = "https://cal.acme.io/changes"
    return artifact


def freeze_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                "Let's capture production's release settings: cluster prod-eks in eu-west-1, release manager "
                f"{p['manager'][0]}.",
                ["/environment/name", "/environment/cluster", "/region", "/release_manager"],
            ),
            (
                "Its change status is open, which means merges to main deploy automatically, one approval is "
                f"enough, and the allowed change types are {_series(p['open_types'])}. The other status is "
                "frozen: "
                "auto-deploy goes off, every change needs 2 approvals, and the only allowed change type is hotfix.",
                [
                    "/environment/change_status",
                    "/environment/auto_deploy",
                    "/environment/required_approvals",
                    "/allowed_change_types",
                ],
            ),
        ]
    if size == 50:
        svc = ", ".join(f"{name} {version}" for name, version, _ in p["services"])
    else:
        svc = ", ".join(
            f"{name} {version} (last deployed {day})" for name, version, day in p["services"]
        )
    rules = (
        "Production's change status is open; the other status is frozen. Open means: merges auto-deploy, "
        f"1 approval from team-leads, allowed change types {_series(p['open_types'])}, each service's pipeline "
        "auto-promotes to prod, and the deploy banner reads 'Production is open for changes'. Frozen means: "
        "no auto-deploy, 2 approvals from release-managers, hotfix as the only allowed change type, no "
        "auto-promotion, and the banner says 'Change freeze in effect: hotfixes only'."
    )
    env_paths = [
        "/environment/change_status",
        "/environment/auto_deploy",
        "/environment/required_approvals",
        "/environment/approver_group",
        "/environment/deploy_banner",
    ]
    if size >= 100:
        rules += (
            " Also, feature-flag changes and database migrations are allowed while open and blocked "
            "while frozen."
        )
        env_paths += ["/environment/flag_changes_allowed", "/environment/migrations_allowed"]
    turns: list[Turn] = [
        (
            "Let's capture production's release settings: cluster prod-eks (Kubernetes 1.29) in eu-west-1, owned "
            f"by platform-team, release manager {p['manager'][0]}.",
            [
                "/environment/name",
                "/environment/cluster",
                "/environment/region",
                "/cluster_version",
                "/owner",
                "/release_manager",
            ],
        ),
        (rules, [*env_paths, "/allowed_change_types"]),
        (
            f"Services in production, each with its own deploy-<name> pipeline: {svc}.",
            ["/services"],
        ),
        (
            "Staging has its own gate and stays open regardless: auto-deploy on, 1 approval"
            + (
                " from team-leads, and it never auto-promotes anything to prod."
                if size >= 100
                else "."
            ),
            ["/staging"],
        ),
        (
            "On-call is platform-oncall, escalating to platform-leads. Deploy windows are Mon-Thu 09:00-16:00.",
            ["/on_call", "/deploy_windows"],
        ),
        (
            "Deploy notifications go to #deploys, including approvals. CI is GitHub Actions on main, requiring "
            + (
                "the unit, integration, lint and security-scan checks."
                if size >= 100
                else "the unit, integration and lint checks."
            ),
            ["/notifications", "/ci"],
        ),
        (
            "Roll back automatically above a 2% error rate. Tags production, eks, tier-1"
            + (", eu" if size >= 100 else "")
            + "; audit log in s3://acme-audit/deploys/.",
            ["/rollback", "/tags", "/audit_log"],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "Canaries take 5% of traffic for 20 minutes. Company holidays: 2025-12-24, 2025-12-25, 2025-12-31 "
            "and 2026-01-01.",
            ["/canary", "/holidays"],
        ),
        (
            "Break-glass access: sre-leads, at most 4 hours, reviewed within 2 days. Images from "
            "registry.acme.io, charts from charts.acme.io.",
            ["/break_glass", "/registries"],
        ),
        (
            f"SLO is 99.95% availability and 300 ms p99. Contacts: {p['manager'][1]} (release manager) and Ana "
            "Costa (SRE lead).",
            ["/slo", "/contacts"],
        ),
        (
            "Exception requests go to #release-exceptions. Dashboard https://grafana.acme.io/d/prod; 62% of "
            "the error budget is left. Secrets from Vault, rotated every 90 days.",
            ["/exceptions_channel", "/observability", "/secrets"],
        ),
        (
            "Sev1 incidents page platform-oncall and need a postmortem within 5 days. The change calendar is "
            "https://cal.acme.io/changes.",
            ["/incident_process", "/change_calendar"],
        ),
    ]
    return turns


def freeze_revision(p: dict[str, Any]) -> Revision:
    overrides = {}
    if p["size"] >= 50:
        overrides["/environment/deploy_banner"] = regex(r"(?i)^(?=.*freeze)(?=.*hotfix)")
    return Revision(
        request="We're entering the holiday code freeze. Freeze production starting now.",
        mutate=lambda q: q.update(status="frozen"),
        direct="/environment/change_status",
        overrides=overrides,
    )


def freeze_followups(p: dict[str, Any]) -> list[Revision]:
    def banner(pattern: str) -> dict[str, Any]:
        return {"/environment/deploy_banner": regex(pattern)} if p["size"] >= 50 else {}

    return [
        Revision(
            request="Teams are pushing back. Relax production to a new status, soft-frozen: the same as "
            "frozen, except regular fixes are allowed alongside hotfixes"
            + ("." if p["size"] == 10 else ", and the banner should say it's a soft freeze."),
            mutate=lambda q: q.update(status="soft-frozen"),
            direct="/environment/change_status",
            overrides=banner(r"(?i)^(?=.*soft)(?=.*freeze)"),
            theme="A softer status defined against frozen: only the allowed change types and the banner move",
            pattern="status_flip",
        ),
        Revision(
            request="Holidays are over and the freeze is lifted. Open production again.",
            mutate=lambda q: q.update(status="open"),
            direct="/environment/change_status",
            overrides=banner(r"(?i)^(?!.*freeze).*\bopen\b"),
            theme="Reopening production flips every setting tied to the status back to its open value",
            pattern="status_flip",
        ),
        Revision(
            request="Sev1 on checkout. Freeze production again, starting now.",
            mutate=lambda q: q.update(status="frozen"),
            direct="/environment/change_status",
            overrides=banner(r"(?i)^(?=.*freeze)(?=.*hotfix)(?!.*soft)"),
            theme="Re-freezing after the reopening puts every status-governed setting back to frozen",
            pattern="status_flip",
        ),
    ]


# moves of deploy-prod-change-freeze: production is frozen, soft-frozen (with a drawn change type
# allowed beside hotfixes) or reopened; at sizes 50 and 100 a service is renamed (its pipeline
# follows). Nothing else in the document derives from a list edit, so no add/remove move.

BANNERS = {
    "open": r"(?i)^(?!.*freeze).*\bopen\b",
    "frozen": r"(?i)^(?=.*freeze)(?=.*hotfix)(?!.*soft)",
    "soft-frozen": r"(?i)^(?=.*soft)(?=.*freeze)",
}


def _set_status(status: str, requests: list[str]) -> Any:
    def make(p: dict[str, Any], d: Draw) -> Revision:
        banner = {"/environment/deploy_banner": regex(BANNERS[status])} if p["size"] >= 50 else {}
        return Revision(
            request=d.pick(requests),
            mutate=lambda q: q.update(status=status),
            direct="/environment/change_status",
            overrides=banner,
            theme=f"Production goes {status}: every setting tied to the status follows",
        )

    return make


def _soft_freeze(p: dict[str, Any], d: Draw) -> Revision:
    extra = d.pick(["fix", *[t for t in p["open_types"] if t != "fix"]])
    kind = "regular fixes" if extra == "fix" else f"{extra} changes"
    banner = ", and the banner should say it's a soft freeze" if p["size"] >= 50 else ""
    leads = ["Teams are pushing back on the freeze.", "Too much work is waiting on the freeze."]
    if p["status"] == "open":
        leads = ["Risky weeks ahead, but we can't stop everything.", "Let's slow changes down."]
    lead = d.pick(leads)
    return Revision(
        request=f"{lead} Put production in a status called soft-frozen: the same as frozen, except "
        f"{kind} are allowed alongside hotfixes{banner}.",
        mutate=lambda q: q.update(status="soft-frozen", soft_extra=extra),
        direct="/environment/change_status",
        overrides={"/environment/deploy_banner": regex(BANNERS["soft-frozen"])}
        if p["size"] >= 50
        else {},
        theme=f"A softer status defined against frozen: {kind} are allowed again",
    )


RENAMES = {
    "storefront": "web-store",
    "checkout": "cart-checkout",
    "inventory": "stock",
    "search": "catalog-search",
    "pricing": "price-engine",
    "notifications": "notifier",
    "accounts": "identity",
}
"""A service's new name; a renamed service may go back to its old one."""


def _rename_service(p: dict[str, Any], d: Draw) -> Revision:
    names = [s[0] for s in p["services"]]
    i = d.pick(range(len(names)))
    back = {new: old for old, new in RENAMES.items()}
    new = RENAMES.get(names[i]) or back[names[i]]
    again = " back" if names[i] in back else ""
    return Revision(
        request=f"We're renaming the {names[i]} service{again} to {new}.",
        mutate=lambda q: q["services"][i].__setitem__(0, new),
        direct=f"/services/{i}/name",
        theme=f"{names[i]} becomes {new}: its pipeline name follows",
    )


FREEZE_MOVES = [
    Move(
        "freeze",
        "status_flip",
        _set_status(
            "frozen",
            [
                "We're entering the holiday code freeze. Freeze production starting now.",
                "Sev1 in production. Freeze it, starting now.",
                "Quarter-end is coming up: freeze production.",
            ],
        ),
        when=lambda p: p["status"] != "frozen",
    ),
    Move(
        "reopen",
        "status_flip",
        _set_status(
            "open",
            [
                "The freeze is lifted. Open production again.",
                "All clear: production is open for changes again.",
            ],
        ),
        when=lambda p: p["status"] != "open",
    ),
    Move("soft-freeze", "status_flip", _soft_freeze, when=lambda p: p["status"] != "soft-frozen"),
    Move("rename-service", "substitution", _rename_service, when=lambda p: p["size"] >= 50),
]


SCENARIOS = [
    Scenario(
        id="deploy-pod-memory-sizing",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="Raising a pod's memory request recomputes its limit, heap, namespace totals, quota, cost and nodes",
        params=memory_params,
        compute=memory_compute,
        conversation=memory_conversation,
        revision=memory_revision,
        followups=memory_followups,
        inputs=memory_inputs,
        moves=MEMORY_MOVES,
        notes="Tests a formula chain: limit = 2 x request, heap = 75% of the limit, namespace total = "
        "replicas x request, cost at $20/vCPU-month and $4/GiB-month. Larger sizes add the Java "
        "options, limits total, quota (requests x 1.25), a canary sized like orders-api and the node "
        "count; the worker, scheduler and CPU figures stay.",
    ),
    Scenario(
        id="deploy-staging-region-move",
        domain=DOMAIN,
        pattern="substitution",
        theme="Moving staging to another region copies in the region profile and rebuilds images, hostnames and paths",
        params=region_params,
        compute=region_compute,
        conversation=region_conversation,
        revision=region_revision,
        followups=region_followups,
        inputs=region_inputs,
        moves=REGION_MOVES,
        notes="Tests substitution of the region: registry, KMS alias, artifact bucket, zones (and DNS "
        "suffix) come from the attached profile. Larger sizes add images, hostnames, the CI target, "
        "subnets and the state path built from them, while production stays in eu-west-1.",
    ),
    Scenario(
        id="deploy-remove-reporting-service",
        domain=DOMAIN,
        pattern="add_remove",
        theme="Removing a service from the stack shrinks the totals and cost and drops its route, panel and alert policy",
        params=stack_params,
        compute=stack_compute,
        conversation=stack_conversation,
        revision=stack_revision,
        followups=stack_followups,
        inputs=stack_inputs,
        moves=STACK_MOVES,
        notes="Tests removal of a list element: CPU total and service count are aggregates over the "
        "remaining services. Larger sizes add memory, cost and budget headroom, and the service's "
        "ingress route, dashboard panel and alert policy (one per service) go too; other services and "
        "routes stay.",
    ),
    Scenario(
        id="deploy-db-volume-threshold",
        domain=DOMAIN,
        pattern="threshold",
        theme="Growing the database volume past 1,000 GB switches it to io2 with new IOPS, price, monitoring and alerting",
        params=volume_tier_params,
        compute=volume_tier_compute,
        conversation=volume_tier_conversation,
        revision=volume_tier_revision,
        followups=volume_tier_followups,
        inputs=volume_tier_inputs,
        moves=VOLUME_MOVES,
        notes="Tests a threshold crossing: 1,200 GB is at least 1,000 GB, so the primary moves from gp3 to "
        "io2 with 6,000 IOPS and the io2 price. Larger sizes add the monitoring interval, free-space "
        "alarm, alert route, total cost and headroom; the 500 GB replica stays gp3 and the 1,000 GB "
        "replica was already io2.",
    ),
    Scenario(
        id="deploy-maintenance-window-shift",
        domain=DOMAIN,
        pattern="temporal",
        theme="Opening the maintenance window later shifts every run-book time set relative to it, across midnight",
        params=window_params,
        compute=window_compute,
        conversation=window_conversation,
        revision=window_revision,
        followups=window_followups,
        inputs=window_inputs,
        moves=WINDOW_MOVES,
        notes="Tests relative times: the window end and every run-book step move 90 minutes later, some "
        "onto 2025-06-15, while the approval time stays. Larger sizes add the customer notice and "
        "reminder, deploy freeze, all-clear and watch period, plus more absolutely given times that "
        "must stay.",
    ),
    Scenario(
        id="deploy-prod-change-freeze",
        domain=DOMAIN,
        pattern="status_flip",
        theme="Freezing production flips auto-deploy, approvals, allowed changes, banner and every service's auto-promotion",
        params=freeze_params,
        compute=freeze_compute,
        conversation=freeze_conversation,
        revision=freeze_revision,
        followups=freeze_followups,
        inputs=freeze_inputs,
        moves=FREEZE_MOVES,
        notes="Tests a status flip: the user defined the open and frozen settings up front, so auto-deploy, "
        "approvals and allowed change types move together with the status. Larger sizes add the "
        "approver group, banner, per-service auto-promotion and flag/migration gates; staging stays "
        "open and deploy windows are untouched.",
    ),
]
