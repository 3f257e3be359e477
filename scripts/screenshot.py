"""Screenshots of the built report (report/index.html) in the OS Chromium, headless.

    python scripts/screenshot.py                       # docs/report.png: the leaderboard (README)
    python scripts/screenshot.py --tabs --out /tmp/s   # one PNG per tab (leaderboard, analytics, compare,
                                                       # explorer) into /tmp/s, and exam.png:
                                                       # the first exam's page (#exam/<key>)

Chromium is the one `apt-get install chromium` puts on PATH (or SIDEWAYS_CHROMIUM); Playwright
drives it through executable_path, nothing is downloaded.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

TABS = ("leaderboard", "analytics", "compare", "explorer")  # explorer last: it switches to the vlm split


def chromium() -> str:
    found = os.environ.get("SIDEWAYS_CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    if not found:
        sys.exit("no Chromium found: `apt-get install chromium` (or set SIDEWAYS_CHROMIUM)")
    return found


def exam_page(page, out: Path) -> None:
    """The first exam's page: metrics, topics and the first questions (none without an exam)."""
    tabs = page.locator("#tabs button[data-tab^='exam/']")
    if tabs.count() == 0:
        return
    tabs.first.click()
    page.set_viewport_size({"width": 1280, "height": 1500})
    page.wait_for_selector("section.exam:not([hidden]) .question .choices")
    page.screenshot(path=str(out))
    print(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", default="report/index.html")
    parser.add_argument("--out", default="docs/report.png", help="a PNG path, or a folder with --tabs")
    parser.add_argument("--tabs", action="store_true", help="one screenshot per tab, full page")
    args = parser.parse_args()
    url = Path(args.report).resolve().as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        page.goto(url)
        page.wait_for_selector("#lb-table tbody tr")
        if not args.tabs:
            page.screenshot(path=args.out)
            print(args.out)
        else:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            for tab in TABS:
                page.click(f"#tabs button[data-tab={tab}]")
                if tab == "explorer":  # the vision split, where riddles have pictures
                    page.select_option("#split", "vlm")
                    page.wait_for_selector(".card img")
                out = Path(args.out) / f"{tab}.png"
                page.screenshot(path=str(out), full_page=tab != "explorer")
                print(out)
            exam_page(page, Path(args.out) / "exam.png")
        browser.close()


if __name__ == "__main__":
    main()
