"""The model-call layer: request and reply types, the response cache, transports, the client,
model presets and secret redaction. Nothing here imports litellm until a call is made."""
