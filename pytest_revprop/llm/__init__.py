"""The model-call layer, one job per module, in the order a call goes through them:

- ``presets``: model presets, prices and the ``[tool.revprop]`` configuration (``ModelConfig``);
- ``types``: the request, the reply, the failure, the retry policy, the client's counters;
- ``client``: ``Client.complete(request)``, the one path of every call, and its priority slots;
- ``budget``: a spending ceiling, holding each call's worst case while it is in flight (and an
  ordered one, spending by priority);
- ``cache``: the response cache and the cross-process claims on its entries;
- ``transports``: what one attempt sends, through litellm or posted straight to the server;
- ``litellm_setup``: litellm imported, priced and warmed up once per process;
- ``responses``: a Reply read from a server's answer;
- ``failures``: whether a failed attempt is retried, and the line that describes it;
- ``redact``: secrets hidden from every error and log line.

Importing this package, or any module of it, imports neither litellm nor aiohttp: they are
loaded when the first call needs them. Import names from their modules; nothing is re-exported
here, so that a module that needs only the types loads only the types.
"""
