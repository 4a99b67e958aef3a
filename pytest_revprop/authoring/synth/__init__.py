"""`revprop synth`: cases drafted by a model from scenario cards, and reworded variants of
existing cases. docs/synth.md describes the card format, the pipeline and its outputs.

Modules, in the order a draft flows through them:

- ``cards``: the scenario card (TOML): reading, checking, the commented examples;
- ``replies``: the JSON object in a model's reply;
- ``asking``: one step's model call with bounded re-asks carrying the reason, and the budget;
- ``checks``: the checks after each step (a turn, the request, the final size);
- ``generate``: the conversation turn by turn, then the revision request;
- ``gold_draft``: the tentative gold from several samples merged by the project's methods;
- ``followups``: a chain's follow-ups, each request and gold on the document before it;
- ``drafts``: the draft case with its ``annotation`` object, and the rejected-draft record;
- ``facts`` and ``paraphrase``: reworded variants and their mechanical fact check;
- ``pipeline``: one draft from start to file (a card's case, or a reworded variant);
- ``batch``: a batch of drafts: the models and servers, the run, its progress lines
  (the command line is :mod:`pytest_revprop.cli.synth`).
"""
