"""The report opened at the addresses a user shares, in a real Chromium: each page right on first load.

The site holds both splits and an exam (benchmarks/report_tables), for params.yaml's models with
one change: atlas-large takes only the llm split (``takes: [llm]``), so the vlm split has no
predictions of it, as after `dvc repro`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from report_tables import exam_tables, params_with_models, split_tables

from helpers import project_params
from helpers.browser import ConsoleLog
from sideways.report.build import build_report
from sideways.report.site import site_files, write_site

HEADER = {"commit": "0123456789abcdef", "dirty": False, "params": "p1", "data": "d1"}
TEXT_ONLY = "atlas-large"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    base = project_params()
    base["models"][TEXT_ONLY]["takes"] = ["llm"]
    params = params_with_models(base, None)
    report = build_report({s: split_tables(params, s, 30) for s in params.splits}, params, HEADER,
                          [exam_tables(params, 12)])
    out = tmp_path_factory.mktemp("first-load") / "report"
    write_site(site_files(report), out)
    return out / "index.html"


@pytest.fixture
def open_page(browser, site):
    opened = []

    def go(fragment: str):
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        opened.append((page, ConsoleLog(page)))
        page.goto(site.as_uri() + fragment)
        return page

    yield go
    for page, log in opened:
        assert log.errors == []  # no console errors (an uncaught URI malformed among them)
        page.close()


@pytest.mark.parametrize("fragment", ["#explorer", "#explorer/llm/syn-llm-0003"])
def test_a_text_riddles_card_has_no_stray_null_line(open_page, fragment):
    page = open_page(fragment)
    card = page.wait_for_selector("#ex-list .card:has(table)")
    lines = [line.strip() for line in card.inner_text().splitlines()]
    assert "null" not in lines
    assert card.eval_on_selector_all("img", "i => i.length") == 0  # a text riddle: no picture either


@pytest.mark.parametrize("tab", ["leaderboard", "analytics", "explorer", "compare", "exam/exam"])
def test_a_shared_tab_address_opens_at_the_top_as_a_click_on_the_tab_does(open_page, tab):
    section = f"section[id='{tab}']"
    clicked = open_page("")
    clicked.wait_for_selector("#lb-table tbody tr")
    clicked.click(f"#tabs button[data-tab='{tab}']")
    page = open_page("#" + tab)
    for p in (clicked, page):
        p.wait_for_selector(f"{section}:not([hidden]) > *")
        p.wait_for_load_state("load")
        p.wait_for_timeout(100)  # the browser's own scroll to the fragment's element comes by load
    top = f"document.querySelector(\"{section}\").firstElementChild.getBoundingClientRect().top"
    header = "document.querySelector('header').getBoundingClientRect().bottom"
    assert page.evaluate("scrollY") == clicked.evaluate("scrollY") == 0
    assert page.evaluate(top) >= page.evaluate(header)  # its first heading (or controls) not under the header


def test_analytics_on_a_split_leaves_out_a_model_that_does_not_take_it(open_page):
    page = open_page("#analytics/vlm")
    page.wait_for_selector("#analytics table")
    models = [m for m in project_params()["models"] if m != TEXT_ONLY]
    tables = page.eval_on_selector_all(
        "#analytics table", "ts => ts.map(t => [...t.tBodies[0].rows].map(r => r.cells[0].textContent))")
    by_category, by_difficulty, by_hints, answer_vs_justification = tables[:4]
    for rows in (by_category, by_difficulty, by_hints, answer_vs_justification):
        assert rows == models
    assert TEXT_ONLY not in tables[-1]  # failures per model
    legend = page.inner_text("#analytics p.legend >> nth=0")
    assert TEXT_ONLY in legend and "vlm" in legend and "takes:" in legend
    page.click("#tabs button[data-tab=explorer]")
    options = page.eval_on_selector_all("#ex-model option", "os => os.map(o => o.value)")
    assert options == ["", *models]


def test_analytics_on_a_split_every_model_takes_says_nothing_left_out(open_page):
    page = open_page("#analytics")
    page.wait_for_selector("#analytics table")
    rows = page.eval_on_selector_all("#analytics table >> nth=0", "t => [...t[0].tBodies[0].rows].length")
    assert rows == len(project_params()["models"])
    assert "Left out" not in page.inner_text("#analytics")


def test_the_compare_tab_shows_its_command_as_code_not_markdown(open_page):
    page = open_page("#compare")
    page.wait_for_selector("#pairwise tbody tr")
    assert "`" not in page.inner_text("#compare")
    assert page.eval_on_selector_all("#compare code", "cs => cs.map(c => c.textContent)") == [
        "sideways report --compare REV"]


@pytest.mark.parametrize("fragment", ["#%", "#leaderboard/llm/%E0%A4%A", "#%E0%A4%A/vlm", "#explorer/llm/%zz"])
def test_an_address_with_a_bad_percent_escape_still_opens_a_page(open_page, fragment):
    page = open_page(fragment)
    page.wait_for_selector("section.tab:not([hidden]) > *")
    if fragment.startswith("#explorer"):
        assert page.inner_text("#ex-count") == "0 of 30 riddles"  # no riddle has that id
    else:
        split = "vlm" if fragment.endswith("/vlm") else "llm"
        assert page.input_value("#split") == split
        assert page.locator("#lb-table tbody tr").count() == (5 if split == "vlm" else 6)  # vlm: not the text-only model
