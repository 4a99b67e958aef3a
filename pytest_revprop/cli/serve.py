"""``revprop serve``: print (``--dry-run``) or run the vLLM command that serves one model for
the protocol, with the pytest command that evaluates it on that server.

The work is :mod:`pytest_revprop.servers.vllm`.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_revprop.errors import UserError
from pytest_revprop.run.options import parse_gpus_per_replica, parse_port, parse_replicas
from pytest_revprop.servers.vllm import (
    DEFAULT_TENSOR_PARALLEL,
    VLLM_INSTALL_HINT,
    pytest_command,
    reasoning_parser_for,
    shipped_prompt_tokens,
    vllm_command,
    vllm_model,
)


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="revprop serve",
        description=(
            "Serve one of the paper's open-weight models (or a Hugging Face id) with vLLM, "
            "with the settings the protocol needs, and print the pytest command that uses it."
        ),
    )
    parser.add_argument(
        "model", metavar="MODEL", help="preset (e.g. gpt-oss-20b, qwen3.5-9b) or Hugging Face id"
    )
    parser.add_argument(
        "--tensor-parallel-size", "-tp", type=parse_gpus_per_replica, default=None, metavar="N",
        help="GPUs per model replica (default: 4 for qwen3.5-122b-a10b, else 1)",
    )  # fmt: skip
    parser.add_argument(
        "--data-parallel-size", "-dp", type=parse_replicas, default=1, metavar="N",
        help="model replicas (default: 1)",
    )  # fmt: skip
    parser.add_argument(
        "--port", type=parse_port, default=8000, help="port to listen on (default: 8000)"
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: 0.0.0.0)")
    parser.add_argument(
        "--cases", type=Path, default=None, metavar="PATH",
        help="size --max-model-len for these case files (default: the shipped benchmark)",
    )  # fmt: skip
    parser.add_argument(
        "--dry-run", action="store_true", help="print the commands instead of running vLLM"
    )
    parser.add_argument(
        "--extra", nargs=argparse.REMAINDER, default=[], metavar="ARGS",
        help="everything after --extra goes to `vllm serve` unchanged",
    )  # fmt: skip
    return parser


def serve_main(argv: Sequence[str]) -> int:
    """``revprop serve``: print (``--dry-run``) or exec the vLLM command for a model."""
    args = _serve_parser().parse_args(list(argv))
    try:
        model = vllm_model(args.model)
        tp = args.tensor_parallel_size or DEFAULT_TENSOR_PARALLEL.get(model.hf_model or "", 1)
        command = vllm_command(
            model,
            tensor_parallel_size=tp,
            data_parallel_size=args.data_parallel_size,
            port=args.port,
            host=args.host,
            prompt_tokens=shipped_prompt_tokens(args.cases),
            extra=args.extra,
        )
    except UserError as exc:
        print(f"revprop serve: error: {exc}", file=sys.stderr)
        return 2
    client = shlex.join(pytest_command(model, host=args.host, port=args.port))
    if not model.reasoning_parser and not reasoning_parser_for(model.hf_model or ""):
        print(
            f"revprop serve: note: no known reasoning parser for {model.hf_model}", file=sys.stderr
        )
    if args.dry_run:
        print(shlex.join(command))
        print(client)
        return 0
    executable = shutil.which("vllm")
    if executable is None:
        print(
            f"revprop serve: error: vllm is not installed (not on PATH): {VLLM_INSTALL_HINT}",
            file=sys.stderr,
        )
        return 2
    print(f"revprop serve: once the server is up, run: {client}", file=sys.stderr, flush=True)
    os.execv(executable, command)
    return 0  # pragma: no cover - execv does not return
