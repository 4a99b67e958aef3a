"""`revprop annotate`: the annotation web app over folders of case files, and `--agreement`.

``store`` reads and writes the case files (path rules, atomic saves, conflicts), ``checks``
validates an edited case with the project's loader and scorer, ``threeway`` merges a stale
save with the file on disk against their common base, ``assist`` asks a model for a
tentative gold patch, ``agreement`` compares two annotators' golds, ``app`` is the aiohttp
application (its command line is :mod:`pytest_revprop.cli.annotate`). Only ``app`` imports
aiohttp.
"""
