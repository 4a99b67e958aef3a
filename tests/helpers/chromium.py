"""Debian's Chromium for the browser tests (Playwright drives it; `apt-get install chromium`)."""

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

HANG_LIMIT_MS = 120_000
"""How long a browser test waits for what a page shows before it calls the page hung: every
wait is for an event (a selector, a text), and returns as soon as it comes; this limit is
reached only by a page that never shows it, never by a busy machine that is slow to."""
