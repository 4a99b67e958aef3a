"""The shipped RevPropBench cases and the programs that build them."""
