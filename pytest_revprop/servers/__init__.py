"""Where model calls go: server health checks (``health``), the embedded llama.cpp server
(``embedded``) and the ``revprop serve`` command for vLLM (``vllm``)."""
