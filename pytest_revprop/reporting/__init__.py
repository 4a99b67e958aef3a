"""From result records to what people read (the commands' front ends are in ``cli/``).
Dependencies point one way, down this list:

tables.py          the Markdown and the aligned-text table renderers (no imports)
stats.py           exact McNemar test, mean and std, pairing two runs' outcomes
results.py         the one reader of results.json (loaded and checked, or streamed)
replystore.py      each reply's text once, in replies/ (read by Python and by report.html)
samples.py         samples.jsonl read back with the replies' text
metrics.py         beyond the paper: pass^S, pass@S, flaky cases, credit means, the bootstrap
                   interval; where models fail; the cases no group or every group completes
relative.py        each method relative to j+h: gain, cost and latency multiples, effectiveness
chains.py          chain runs: the summary's chain fields, the chain table, completion by turn,
                   the protocol checks of the gate, compare and report
aggregate.py       summary rows built one record at a time; the summary's cells
sink.py            records to disk as they arrive; results.json, samples.jsonl, summary.md
gate.py            the baseline gate and the baseline file
header.py          the run header: versions, each model and where its calls go, the run
compare.py         two runs compared per (model, method, k): McNemar, flipped samples
report_rows.py     a results document -> the rows the report's figures and tables show
figures.py         the plots (matplotlib, imported when a figure is drawn)
report_tables.py   the report's tables
html_data.py       report.html's sample index and the data files beside it
html.py            report.html
report.py          the report folder (``write_report``): figures, report.md, report.html
"""
