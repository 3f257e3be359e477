"""The page in a real Chromium: a reload keeps the session (and the item it holds), a second tab gets
another item, untrusted text runs no markup, the labelling guidelines and the riddle's gold
justification are shown, and the empty-bin line is red only under an interval that fails on it."""

from __future__ import annotations

import json

import pandas as pd
from playwright.sync_api import expect

from helpers.browser import ConsoleLog
from helpers.label_project import Served, label_project
from sideways.artifacts.io import read_table, write_table
from sideways.artifacts.schema import PREDICTIONS, RIDDLES

HOSTILE = ('<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
           '<svg onload="window.pwned=3"></svg><a href="javascript:window.pwned=4">x</a>')


def _hostile(project):
    """Markup in every text the page shows from the data: riddle fields and model output."""
    riddles = read_table(project / "data/split/llm.parquet", RIDDLES)
    for col in ("title", "description", "answer", "solution", "justification"):
        riddles[col] = HOSTILE + " " + col
    write_table(riddles, RIDDLES, project / "data/split/llm.parquet")
    for path in (project / "data/predictions/llm").glob("*.parquet"):
        preds = read_table(path, PREDICTIONS)
        preds["answer"], preds["justification"] = HOSTILE + " answer", HOSTILE + " why"
        write_table(pd.DataFrame(preds), PREDICTIONS, path)


def test_reload_keeps_the_session_and_no_markup_runs(browser, tmp_path):
    project = label_project(tmp_path / "p", n_riddles=4, annotations={"budget": 12, "double_share": 0.0})
    _hostile(project)
    with Served(project, "ana") as server:
        context = browser.new_context()
        page = context.new_page()
        log = ConsoleLog(page)
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(server.url)
        expect(page.locator("#title")).to_contain_text("title")
        first = page.locator("#description").text_content()
        token = page.evaluate("sessionStorage.getItem('sideways-annotate-token')")
        assert token
        page.reload()
        expect(page.locator("#title")).to_contain_text("title")
        assert page.locator("#description").text_content() == first  # the same item: the session held it
        assert page.evaluate("sessionStorage.getItem('sideways-annotate-token')") == token
        other = context.new_page()  # another tab: a session of its own, another item
        other.goto(server.url)
        expect(other.locator("#title")).to_contain_text("title")
        assert other.evaluate("sessionStorage.getItem('sideways-annotate-token')") != token
        page.keyboard.press("1")
        page.keyboard.press("4")
        page.keyboard.press("Enter")
        expect(page.locator("#totals")).to_contain_text(" 1 yours")
        for p in (page, other):
            assert p.evaluate("window.pwned") is None
            assert p.locator("main script, main svg, main a, #item img:not(#picture)").count() == 0
            assert HOSTILE in p.locator("#justification").text_content()
        assert dialogs == [] and log.errors == []
        # the guidelines and the riddle's own (gold) justification
        expect(page.locator("#guidelines")).to_contain_text("Judge it on its own")
        expect(page.locator("#suggested")).to_contain_text("justification")
        # under the default posterior interval an empty bin fails nothing: not in red
        expect(page.locator("#holes")).to_contain_text("the posterior one ranks")
        assert "error" not in (page.locator("#holes").get_attribute("class") or "")
        expect(page.locator("#widening")).to_contain_text("expected")
        context.close()
    lines = [json.loads(x) for x in (project / "data/labels/llm.jsonl").read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["human_justification_correct"] is False


def test_empty_bins_are_red_under_the_published_interval_with_empty_bin_error(browser, tmp_path):
    project = label_project(tmp_path / "p", n_riddles=3)
    params = (project / "params.yaml").read_text()
    (project / "params.yaml").write_text(params.replace("interval: posterior", "interval: published"))
    assert "interval: published" in (project / "params.yaml").read_text()
    with Served(project, "ana") as server:
        page = browser.new_page()
        page.goto(server.url)
        expect(page.locator("#holes")).to_contain_text("empty bins (calibration would fail)")
        assert "error" in page.locator("#holes").get_attribute("class")
        page.close()
