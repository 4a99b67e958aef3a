"""Making cases: scenario declarations, their helpers, the gold patch, case assembly, the
frozen dev/test split and the `revprop cases` command."""
