"""Every relative link of the README and the documentation pages leads somewhere: the file (or
folder) exists, and a ``#fragment`` into a Markdown page names one of its headings, spelled as
GitHub spells heading anchors. In-process: the pages are read and parsed, nothing is rendered."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(
    [
        ROOT / "README.md",
        *(ROOT / "docs").glob("*.md"),
        ROOT / "benchmarks" / "README.md",
        ROOT / "reports" / "README.md",
        ROOT / "benchmark_cases" / "scenarios" / "README.md",
    ]
)
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.DOTALL | re.MULTILINE)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def anchors(page: Path) -> set[str]:
    """The fragments GitHub gives the headings of a Markdown page: the heading's text without
    inline markup, lower-cased, without punctuation but ``-`` and ``_``, spaces as ``-``;
    a repeated one gets ``-1``, ``-2``, ..."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
        text = re.sub(r"[`*]|<[^>]+>", "", text).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(page: Path) -> list[str]:
    """The page's relative link targets (web addresses and e-mail left out)."""
    targets = LINK.findall(prose(page.read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.IGNORECASE)]


def shown(path: Path) -> str:
    """A path as the messages name it: relative to the repository when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def broken(page: Path) -> list[str]:
    """The page's links that lead nowhere, each with the reason."""
    wrong: list[str] = []
    for target in links(page):
        path_part, _, fragment = target.partition("#")
        dest = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not dest.exists():
            wrong.append(f"{target}: no file {shown(dest)}")
        elif fragment and dest.suffix == ".md" and unquote(fragment) not in anchors(dest):
            wrong.append(f"{target}: no heading #{fragment} in {shown(dest)}")
    return wrong


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_of_the_page_leads_somewhere(page: Path) -> None:
    assert page.exists()
    assert broken(page) == []


def test_the_link_checker_sees_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text(
        "# Title\n\n## The `x` option (fixed)\n\n## Same\n\n## Same\n"
    )
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#the-x-option-fixed) [ok](other.md#same-1) ![img](other.md) [web](https://x.org/a)\n"
        "[gone](missing.md) [no heading](other.md#nothing) `[code](missing-in-code.md)`\n"
        "```\n[fenced](missing-in-fence.md)\n```\n[self](#page) [self missing](#none)\n"
    )
    found = broken(page)
    assert found == [
        "missing.md: no file missing.md",
        "other.md#nothing: no heading #nothing in other.md",
        "#none: no heading #none in page.md",
    ]
