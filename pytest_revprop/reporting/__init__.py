"""From result records to what people read: aggregation, the baseline gate, statistics,
tables, figures, the HTML report, `revprop report` and `revprop compare`."""
