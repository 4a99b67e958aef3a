"""From result records to what people read. Dependencies point one way, down this list:

tables.py          the Markdown and the aligned-text table renderers (no imports)
stats.py           exact McNemar test, mean and std, pairing two runs' outcomes
results.py         the one reader of results.json (load and check) and samples.jsonl
relative.py        each method relative to j+h: gain, cost and latency multiples, effectiveness
aggregate.py       summary rows; results.json, samples.jsonl, summary.md; the summary's cells
gate.py            the baseline gate (verdicts, groups not compared) and the baseline file
header.py          the run header: versions, each model and where its calls go, the run
compare.py         ``revprop compare``
shaping.py         a results document -> the rows the report's figures and tables show
figures.py         the plots (matplotlib, imported when a figure is drawn)
report_tables.py   the report's tables
html.py            the self-contained report.html
report_command.py  the report folder (``write_report``) and ``revprop report``
item.py            the report of one item that failed or errored, and its rerun command
"""
