"""Making cases: the scenario authoring layer, the gold diff and the `revprop cases` command."""
