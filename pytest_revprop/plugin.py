"""pytest glue for pytest-revprop (being built)."""
