"""Model presets, prices and ``[tool.revprop]`` configuration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import (
    EMBEDDED_MAX_TOKENS,
    PRESETS,
    ModelConfig,
    load_config,
    preset_names,
    resolve_model,
)

PAPER_PRICES = {
    "gpt-oss-20b": (0.029, 0.140),
    "gpt-oss-120b": (0.039, 0.180),
    "gpt-5.4-mini": (0.750, 4.500),
    "qwen3.5-9b": (0.100, 0.150),
    "qwen3.5-27b": (0.195, 1.560),
    "qwen3.5-122b-a10b": (0.260, 2.080),
}


@pytest.mark.parametrize("name", sorted(PAPER_PRICES))
def test_paper_presets_carry_the_protocol_settings(name: str) -> None:
    model = resolve_model(name)
    assert (model.price_in, model.price_out) == PAPER_PRICES[name]
    assert model.max_tokens == 32768
    assert model.kind == "litellm"
    if name == "gpt-5.4-mini":
        assert model.temperature is None
    else:
        assert model.temperature == 0.6
    expected_effort = "medium" if name.startswith("gpt") else None
    assert model.reasoning_effort == expected_effort


@pytest.mark.parametrize(
    ("name", "served"),
    [
        ("gpt-oss-20b", "openai/gpt-oss-20b"),
        ("gpt-oss-120b", "openai/gpt-oss-120b"),
        ("qwen3.5-9b", "Qwen/Qwen3.5-9B"),
        ("qwen3.5-27b", "Qwen/Qwen3.5-27B"),
        ("qwen3.5-122b-a10b", "Qwen/Qwen3.5-122B-A10B"),
    ],
)
def test_vllm_presets_name_the_served_model_and_local_server(name: str, served: str) -> None:
    model = resolve_model(name)
    assert model.served_name == served
    assert model.hf_model == served
    assert model.litellm_model == f"hosted_vllm/{served}"
    assert model.api_bases == ("http://127.0.0.1:8000/v1",)
    assert model.api_key_env is None


def test_gpt_5_4_mini_uses_the_hosted_api_with_the_openai_key() -> None:
    model = resolve_model("gpt-5.4-mini", api_bases=["http://127.0.0.1:8000/v1"])
    assert model.litellm_model == "openai/gpt-5.4-mini"
    assert model.api_key_env == "OPENAI_API_KEY"
    assert model.api_bases == ()  # the --revprop-api-base option is for self-hosted servers


def test_alias_resolves_to_the_full_preset() -> None:
    assert resolve_model("qwen3.5-122b") == PRESETS["qwen3.5-122b-a10b"]
    assert "qwen3.5-122b" in preset_names()


def test_embedded_and_reference_presets() -> None:
    embedded = resolve_model("smollm2-135m", api_bases=["http://127.0.0.1:5123/v1"])
    assert embedded.kind == "embedded"
    assert embedded.litellm_model == "openai/smollm2-135m"
    assert (embedded.price_in, embedded.price_out) == (0.0, 0.0)
    assert embedded.max_tokens == EMBEDDED_MAX_TOKENS
    assert embedded.api_bases == ("http://127.0.0.1:5123/v1",)
    for name in ("gold", "noop", "direct-only"):
        reference = resolve_model(name, api_bases=["http://127.0.0.1:1/v1"])
        assert reference.kind == "reference"
        assert reference.api_bases == ()


def test_raw_litellm_string_takes_the_api_bases_option() -> None:
    model = resolve_model("openai/my-model", api_bases=["http://a:1/v1/", " http://b:2/v1", ""])
    assert model.kind == "litellm"
    assert model.litellm_model == "openai/my-model"
    assert model.api_bases == ("http://a:1/v1", "http://b:2/v1")
    assert model.provider == "openai"


def test_api_base_option_replaces_the_vllm_default() -> None:
    model = resolve_model("gpt-oss-20b", api_bases=["http://gpu1:8000/v1", "http://gpu2:8000/v1"])
    assert model.api_bases == ("http://gpu1:8000/v1", "http://gpu2:8000/v1")


def test_unknown_bare_name_is_a_user_error_listing_presets() -> None:
    with pytest.raises(UserError, match=r"unknown model 'gpt-9'.*gpt-oss-20b"):
        resolve_model("gpt-9")


def test_cost_and_timeout_are_computed_from_the_config() -> None:
    model = resolve_model("gpt-oss-20b")
    # 1000 * 0.029 / 1e6 + 2000 * 0.140 / 1e6
    assert model.cost_usd(1000, 2000) == pytest.approx(0.000309)
    assert model.attempt_timeout_s == pytest.approx(60 + 32768 / 50)
    assert model.replace(timeout_s=12.0).attempt_timeout_s == 12.0


def test_model_config_is_hashable_and_keeps_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-value-1234567890")
    model = resolve_model("gpt-5.4-mini")
    assert hash(model) == hash(resolve_model("gpt-5.4-mini"))
    assert "sk-test" not in repr(model)
    assert model.api_key() == "sk-test-value-1234567890"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_pyproject_overrides_presets_defines_models_and_prices(tmp_path: Path) -> None:
    _write(
        tmp_path / "pyproject.toml",
        """
[tool.revprop]
concurrency = 16

[tool.revprop.models."gpt-oss-20b"]
temperature = 0.7
extra_body = { chat_template_kwargs = { enable_thinking = true } }

[tool.revprop.models.mine]
litellm_model = "openai/my-finetune"
api_bases = ["http://10.0.0.5:9000/v1"]
max_tokens = 4096
price_in = 1.0
price_out = 2.0

[tool.revprop.prices]
"qwen3.5-9b" = { in = 0.2, out = 0.3 }
"gpt-oss-120b" = [0.05, 0.25]
""",
    )
    config = load_config(tmp_path / "deep" / "inside")
    assert config["concurrency"] == 16
    assert config["_source"] == str(tmp_path / "pyproject.toml")

    tuned = resolve_model("gpt-oss-20b", overrides=config)
    assert tuned.temperature == 0.7
    assert tuned.extra_body_dict() == {"chat_template_kwargs": {"enable_thinking": True}}
    assert tuned.price_in == 0.029

    mine = resolve_model("mine", overrides=config)
    assert mine.litellm_model == "openai/my-finetune"
    assert mine.api_bases == ("http://10.0.0.5:9000/v1",)
    assert (mine.max_tokens, mine.price_in, mine.price_out) == (4096, 1.0, 2.0)

    assert (resolve_model("qwen3.5-9b", overrides=config).price_in) == 0.2
    assert (resolve_model("gpt-oss-120b", overrides=config).price_out) == 0.25


def test_revprop_toml_next_to_the_start_wins_over_a_farther_pyproject(tmp_path: Path) -> None:
    _write(tmp_path / "pyproject.toml", '[tool.revprop.models."gpt-oss-20b"]\nmax_tokens = 10\n')
    _write(tmp_path / "sub" / "revprop.toml", '[models."gpt-oss-20b"]\nmax_tokens = 20\n')
    config = load_config(tmp_path / "sub")
    assert resolve_model("gpt-oss-20b", overrides=config).max_tokens == 20


def test_pyproject_without_the_table_is_skipped(tmp_path: Path) -> None:
    _write(tmp_path / "pyproject.toml", '[tool.revprop]\ncache = "x"\n')
    _write(tmp_path / "sub" / "pyproject.toml", '[project]\nname = "other"\n')
    assert load_config(tmp_path / "sub")["cache"] == "x"


def test_no_config_file_gives_an_empty_table(tmp_path: Path) -> None:
    folders = (tmp_path, *tmp_path.parents)
    if any((f / n).exists() for f in folders for n in ("pyproject.toml", "revprop.toml")):
        pytest.skip("a config file above the temporary folder")
    assert load_config(tmp_path) == {}


def test_none_word_clears_an_optional_setting(tmp_path: Path) -> None:
    _write(tmp_path / "revprop.toml", '[models."qwen3.5-9b"]\ntemperature = "none"\n')
    assert resolve_model("qwen3.5-9b", overrides=load_config(tmp_path)).temperature is None


def test_field_overrides_apply_last() -> None:
    model = resolve_model("gpt-oss-20b", overrides={"max_tokens": 512, "reasoning_effort": "low"})
    assert (model.max_tokens, model.reasoning_effort) == (512, "low")


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ('[tool.revprop.models."gpt-oss-20b"]\ntemperature = "hot"\n', "temperature"),
        ('[tool.revprop.models."gpt-oss-20b"]\nmax_tokens = -1\n', "max_tokens"),
        ('[tool.revprop.models."gpt-oss-20b"]\ncolour = 1\n', "colour"),
        ('[tool.revprop.models.x]\napi_bases = ["ftp://a"]\n', "api_bases"),
        ('[tool.revprop.models.x]\nkind = "magic"\n', "kind"),
        ('[tool.revprop.models.x]\nstructured_format = "json"\n', "structured_format"),
        ('[tool.revprop.prices]\n"gpt-oss-20b" = [1]\n', "prices"),
        ('[tool.revprop.prices]\n"gpt-oss-20b" = { in = -1, out = 1 }\n', "prices"),
        ("[tool.revprop]\nmodels = 3\n", "models"),
        ("[tool.revprop\n", "TOML"),
    ],
)
def test_invalid_config_names_the_file_and_the_setting(
    tmp_path: Path, text: str, setting: str
) -> None:
    path = _write(tmp_path / "pyproject.toml", text)
    with pytest.raises(UserError) as info:
        load_config(tmp_path)
    message = str(info.value)
    assert str(path) in message
    assert setting in message
    assert "\n" not in message


def test_structured_output_form_follows_the_server_kind_unless_configured(tmp_path: Path) -> None:
    assert resolve_model("smollm2-135m").structured_form == "json_object"  # llama.cpp
    assert resolve_model("gpt-oss-20b").structured_form == "json_schema"  # vLLM
    assert resolve_model("gpt-5.4-mini").structured_form == "json_schema"  # OpenAI
    _write(
        tmp_path / "revprop.toml",
        '[models.my-llama]\nlitellm_model = "openai/llama"\nstructured_format = "json_object"\n',
    )
    assert resolve_model("my-llama", overrides=load_config(tmp_path)).structured_form == (
        "json_object"
    )


def test_defined_model_without_litellm_model_defaults_to_its_name() -> None:
    config = {"models": {"openai/x": {"max_tokens": 5}}}
    assert resolve_model("openai/x", overrides=config).litellm_model == "openai/x"


def test_modelconfig_defaults_are_those_of_a_plain_litellm_model() -> None:
    model = ModelConfig(name="m", litellm_model="hosted_vllm/m")
    assert (model.kind, model.provider, model.api_key()) == ("litellm", "hosted_vllm", None)


@pytest.mark.slow
def test_importing_models_and_client_does_not_import_litellm() -> None:
    code = (
        "import sys, pytest_revprop.llm.presets, pytest_revprop.llm.client, pytest_revprop.testing.fakeserver; "
        "assert 'litellm' not in sys.modules and 'aiohttp' not in sys.modules, 'heavy import'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
