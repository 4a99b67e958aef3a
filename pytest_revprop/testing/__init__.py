"""Supported test doubles: an OpenAI-compatible fake server and a scripted responder.

Use them in your own tests of prompts or methods: ``FakeServer`` speaks real HTTP on
127.0.0.1, so calls go through litellm exactly as they do against vLLM.
"""
