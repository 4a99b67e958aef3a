"""The benchmark's semantics: cases, prompts, patches, scoring, methods and their registry."""
