"""Supported test doubles: an OpenAI-compatible fake server and scripted responders.

Use them in your own tests of prompts or methods: ``FakeServer`` speaks real HTTP on
127.0.0.1, so calls go through litellm exactly as they do against vLLM. ``responder``
answers revision prompts from the cases' gold; ``scripted_writer`` answers the prompts of
``revprop synth`` (a card's turns, its request, the gold samples, a rewording) from a script,
so a card can be tried with no model.
"""
