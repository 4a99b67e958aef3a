"""A timed screenshot walk through `revprop annotate`: one 100-leaf case from open to save.

    python benchmarks/annotate_walk.py [--case travel-shift-departure/100] [--out /tmp/annotate-walk]
                                       [--width 1500]

A copy of the shipped case, with one gold operation taken out (as a draft that missed a place),
is served by ``revprop annotate`` on a free port; Playwright drives Debian's Chromium
(/usr/bin/chromium) as an annotator would: open the page, open the case, search the artifact
for the missed place, add an operation and pick its path from the suggestions, type the new
value, see old -> new in the preview, save. Each step's wall time is printed (from the action to
the page showing its result) and a screenshot of each step is written to ``--out``. Exit status
0 when the saved file holds the operation again and passes the loader, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_revprop.core.cases import BENCHMARK_DIR, dump_case, load_case

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


def _serve(folder: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest_revprop.cli", "annotate", str(folder), "--port", "0",
         "--model", "gold", "--annotator", "walker", "--no-browser"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
        if found:
            return process, found.group(1)
    raise SystemExit(f"revprop annotate did not start: {process.wait()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="travel-shift-departure/100")
    parser.add_argument("--out", type=Path, default=Path("/tmp/annotate-walk"))
    parser.add_argument("--width", type=int, default=1500)
    args = parser.parse_args()
    from playwright.sync_api import expect, sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="annotate-walk-"))
    target = work / "cases" / f"{args.case}.json"
    target.parent.mkdir(parents=True)
    data = json.loads((BENCHMARK_DIR / f"{args.case}.json").read_text(encoding="utf-8"))
    missed = data["gold"].pop(-3)  # a draft that missed one place
    target.write_text(dump_case(data), encoding="utf-8")
    started = time.perf_counter()
    process, url = _serve(work / "cases")
    ready = time.perf_counter() - started
    timings: list[tuple[str, float, str]] = []

    def step(name: str, t0: float, page: Any) -> None:
        shot = args.out / f"{len(timings) + 1:02d}-{name}.png"
        timings.append((name, time.perf_counter() - t0, shot.name))
        page.screenshot(path=str(shot), full_page=False)

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_context(viewport={"width": args.width, "height": 1000}).new_page()
            page.set_default_timeout(30_000)
            t0 = time.perf_counter()
            page.goto(url)
            page.wait_for_selector(".case-item")
            step("list", t0, page)
            t0 = time.perf_counter()
            page.click(".case-item")
            expect(page.locator("#verdicts li")).not_to_have_count(0)
            step("open-case", t0, page)
            place = missed["path"]
            words = " ".join(part for part in place.split("/") if part)
            t0 = time.perf_counter()
            page.fill("#path-search", words)
            expect(page.locator("#search-count")).to_contain_text("of")
            step("search", t0, page)
            count = page.locator("#gold .op").count()
            t0 = time.perf_counter()
            page.click("#add-op")
            path_field = page.locator(f'#gold .op[data-index="{count}"] [data-field="path"]')
            path_field.type(place[:-2], delay=20)
            page.wait_for_selector(".suggest:not([hidden]) li")
            step("suggest", t0, page)
            t0 = time.perf_counter()
            page.locator(f'.suggest li[data-path="{place}"]').click()
            value = page.locator(f'#gold .op[data-index="{count}"] [data-field="value"]')
            value.fill(str(missed["value"]))
            expect(page.locator(f'#preview [data-path="{place}"] del.old')).to_have_count(1)
            page.locator(f'#preview [data-path="{place}"]').scroll_into_view_if_needed()
            step("old-to-new", t0, page)
            t0 = time.perf_counter()
            page.keyboard.press("Control+s")
            expect(page.locator("#save-state")).to_have_text(re.compile("^Saved"))
            step("saved", t0, page)
            browser.close()
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
    saved = load_case(target)
    ok = any(g.path == missed["path"] and g.value == missed["value"] for g in saved.gold)
    print(
        f"case {args.case} ({saved.size} leaves), {args.width} px wide; server ready {ready:.2f} s"
    )
    for name, seconds, shot in timings:
        print(f"  {name:<11} {seconds:6.2f} s  {args.out / shot}")
    print(
        f"  total       {sum(s for _, s, _ in timings):6.2f} s; saved: {'ok' if ok else 'MISSING'}"
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
