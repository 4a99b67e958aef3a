"""Making models ready to call, outside pytest as inside: the embedded llama.cpp server is
started for an embedded preset without an API base, then every server is checked once.
The plugin's session, `revprop annotate` and `revprop synth` all start models this way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_revprop.llm.presets import ModelConfig
    from pytest_revprop.servers.embedded import EmbeddedServer


def start_embedded(
    models: Sequence[ModelConfig], started: list[EmbeddedServer]
) -> list[ModelConfig]:
    """``models`` with each embedded preset pointed at a server of its own, started here and
    appended to ``started`` (the caller stops them, also when a later one fails)."""
    ready = []
    for model in models:
        if model.kind == "embedded" and not model.api_bases:
            from pytest_revprop.servers.embedded import embedded_server_for

            server = embedded_server_for(model)
            started.append(server)
            server.start()
            model = model.replace(api_bases=(server.base_url,))
        ready.append(model)
    return ready


def check_model_servers(models: Sequence[ModelConfig], option: str | None = None) -> None:
    """Check every server the models' calls go to (reference solvers make none); raises
    UserError naming the first unreachable one and how to start it (and pass it with
    ``option``, the command's API-base option; default a run's)."""
    urls = sorted({url for m in models if m.kind != "reference" for url in m.api_bases})
    if urls:
        from pytest_revprop.servers.health import API_BASE_OPTION, check_servers

        served: dict[str, list[str]] = {}
        for model in models:
            name = served_model_name(model)
            for url in model.api_bases if name else ():
                served.setdefault(url, []).append(name)
        check_servers(urls, option=option or API_BASE_OPTION, served=served)


OPENAI_COMPATIBLE_PROVIDERS = ("openai/", "hosted_vllm/")
"""litellm's providers whose model string names the model an OpenAI-compatible server lists."""


def served_model_name(model: ModelConfig) -> str:
    """The model name a model's calls carry to its server, where the server's model list can
    be checked for it; empty for reference solvers and providers that name models otherwise."""
    if model.kind == "reference":
        return ""
    if model.served_name:
        return model.served_name
    for prefix in OPENAI_COMPATIBLE_PROVIDERS:
        if model.litellm_model.startswith(prefix):
            return model.litellm_model[len(prefix) :]
    return ""


def ready_models(
    models: Sequence[ModelConfig], started: list[EmbeddedServer], option: str | None = None
) -> list[ModelConfig]:
    """Both: start what is embedded, then check every server (``option`` as above)."""
    ready = start_embedded(models, started)
    check_model_servers(ready, option)
    return ready
