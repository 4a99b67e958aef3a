"""Where model calls go: server health checks, the embedded llama.cpp server and the
`revprop serve` command for vLLM."""
