"""The report in a real Chromium (OS package, through Playwright): opened from file://, no network.

The site is built from synthetic tables for the models of params.yaml (benchmarks/report_tables),
whose first prediction answers with an <img onerror> probe and justifies with a <script>.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from report_tables import XSS_ANSWER, XSS_JUSTIFICATION, params_with_models, split_tables

from helpers import project_params
from helpers.browser import ConsoleLog
from sideways.report.build import build_report
from sideways.report.site import site_files, write_site

HEADER = {"commit": "0123456789abcdef", "dirty": True, "params": "p1", "data": "d1"}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    params = params_with_models(project_params(), None)
    report = build_report({s: split_tables(params, s, 30) for s in params.splits}, params, HEADER)
    out = tmp_path_factory.mktemp("site") / "report"
    write_site(site_files(report), out)
    return out / "index.html"


@pytest.fixture
def page(browser, site):
    page = browser.new_page()
    log = ConsoleLog(page)
    page.goto(site.as_uri())
    page.wait_for_selector("#lb-table tbody tr")
    yield page
    assert log.errors == []  # no console errors, on every page the tests open
    page.close()


def leaderboard(page) -> list[list[str]]:
    return page.eval_on_selector_all("#lb-table tbody tr", "rows => rows.map(r => [r.dataset.model, r.innerText])")


def test_every_model_of_params_is_in_the_leaderboard(page):
    models = set(project_params()["models"])
    assert {m for m, _ in leaderboard(page)} == models
    assert "commit 0123456789ab" in page.inner_text("#provenance") and "dirty" in page.inner_text("#provenance")


def test_switching_split_shows_the_other_leaderboard(page):
    llm = leaderboard(page)
    page.select_option("#split", "vlm")
    page.wait_for_selector("#leaderboard h2:has-text('vlm split')")
    assert leaderboard(page) != llm and len(leaderboard(page)) == len(llm)


def test_sorting_by_score_puts_the_best_first(page):
    page.click("#lb-table th[data-key=score]")
    scores = [float(t) for t in page.eval_on_selector_all(
        "#lb-table tbody td:nth-child(6)", "cells => cells.map(c => c.textContent)")]
    assert scores == sorted(scores, reverse=True)
    page.click("#lb-table th[data-key=score]")
    scores = [float(t) for t in page.eval_on_selector_all(
        "#lb-table tbody td:nth-child(6)", "cells => cells.map(c => c.textContent)")]
    assert scores == sorted(scores)


def test_a_filter_narrows_the_explorer_and_cards_load_lazily(page):
    page.click("#tabs button[data-tab=explorer]")
    page.wait_for_selector(".card .gold")
    assert page.inner_text("#ex-count") == "30 of 30 riddles"
    assert page.locator(".card").count() == 20  # one page of cards, not every riddle
    assert page.eval_on_selector_all("script[src*=chunk]", "s => s.length") == 1  # only the chunk shown
    page.select_option("#ex-category", "logic")
    assert page.inner_text("#ex-count") == "6 of 30 riddles"
    page.fill("#ex-search", "riddle 11 of")
    assert page.inner_text("#ex-count") == "1 of 30 riddles"
    assert page.locator(".card").count() == 1
    page.fill("#ex-search", "")
    page.select_option("#ex-category", "")
    page.select_option("#ex-model", "atlas-large")
    page.select_option("#ex-outcome", "p")
    passed = int(page.inner_text("#ex-count").split()[0])
    assert 0 < passed < 30
    page.wait_for_selector(".card .gold")
    rows = page.eval_on_selector_all(".card:has(.gold)", "cs => cs.map(c => c.querySelectorAll('tbody tr').length)")
    assert rows and set(rows) == {1}  # only the chosen model's row


def test_scrolling_down_adds_cards_and_fills_them_when_they_come_into_view(page):
    page.click("#tabs button[data-tab=explorer]")
    page.wait_for_selector(".card .gold")
    filled = page.locator(".card:has(.gold)").count()
    assert filled < 20  # cards far below the viewport wait as placeholders
    page.locator("#ex-more").scroll_into_view_if_needed()
    # a locator waits without evaluating a string in the page (the report's CSP forbids eval)
    page.wait_for_selector(".card >> nth=29", state="attached")
    assert page.locator(".card").count() == 30
    page.locator(".card[data-riddle=syn-llm-0029]").scroll_into_view_if_needed()
    page.wait_for_selector(".card[data-riddle=syn-llm-0029] .gold")
    assert page.eval_on_selector_all("script[src*=chunk]", "s => s.length") == 2


def test_a_riddles_picture_loads(page):
    page.select_option("#split", "vlm")
    page.click("#tabs button[data-tab=explorer]")
    img = page.wait_for_selector(".card img")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img)
    assert img.evaluate("img => img.naturalWidth") == 240


def test_the_analytics_tab_draws_its_tables_and_the_calibration_plot(page):
    page.click("#tabs button[data-tab=analytics]")
    page.wait_for_selector("#calibration-plot circle")
    text = page.inner_text("#analytics")
    for needle in ("Cohen's κ", "judge-openai", "Failures per model", "Per provider", "arithmetic", "10-20"):
        assert needle in text


def test_untrusted_text_is_text(page):
    """The XSS probe: an <img onerror> answer and a <script> justification render as text, run never."""
    page.click("#tabs button[data-tab=explorer]")
    card = page.wait_for_selector(".card[data-riddle=syn-llm-0000] .answer")
    page.wait_for_timeout(300)  # an onerror would have fired by now
    assert page.title() == "sideways report"
    assert card.text_content() == XSS_ANSWER
    assert page.text_content(".card[data-riddle=syn-llm-0000] .justification") == XSS_JUSTIFICATION
    assert page.eval_on_selector_all("#explorer img[src=x], #explorer script", "n => n.length") == 0


def test_a_model_whose_job_failed_is_named_under_the_leaderboard(browser, tmp_path):
    """docs/design.md, "Failed jobs": the leaderboard says which model is missing and why."""
    from sideways.artifacts.failures import FailedJob

    params = params_with_models(project_params(), None)
    down = FailedJob("predict@gone-m-llm", "predict", "gone-m", "llm", "badco", "provider error", 503,
                     "36 of 36 items failed, the first: R1: api_error: HTTP 503: <b>service unavailable</b>")
    report = build_report({s: split_tables(params, s, 30) for s in params.splits}, params, HEADER, failed=[down])
    write_site(site_files(report), tmp_path / "report")
    page = browser.new_page()
    log = ConsoleLog(page)
    page.goto((tmp_path / "report" / "index.html").as_uri())
    page.wait_for_selector("#lb-missing li")
    text = page.inner_text("#lb-missing")
    assert "gone-m: predict@gone-m-llm: provider badco, HTTP 503, provider error" in text
    assert "<b>service unavailable</b>" in text  # shown as text, never markup
    page.select_option("#split", "vlm")
    page.wait_for_selector("#leaderboard h2:has-text('vlm split')")
    assert page.query_selector("#lb-missing") is None  # missing from llm only
    assert log.errors == []
    page.close()


def test_the_analytics_tab_gives_each_models_cost_against_the_full_design(browser, tmp_path):
    """Under a 2+1 cascade, the later judge asked on half the predictions: each model's answers, verdicts, what the
    cascade did not send (the project's judges are simulated: free) and the label count, as the data says."""
    data = project_params()
    data["jury"]["cascade"] = {"first": 2}
    params = params_with_models(data, None)
    tables = {}
    for s in params.splits:
        t = split_tables(params, s, 30)
        later = {m.key: params.jury.escalation(m.provider)[1][0].key for m in params.models_taking(s)}
        drop = t.judgments["model"].map(later).eq(t.judgments["judge"]) & t.judgments["riddle_id"].str.endswith("0")
        tables[s] = replace(t, judgments=t.judgments[~drop].reset_index(drop=True))
    report = build_report(tables, params, HEADER)
    write_site(site_files(report), tmp_path / "report")
    design = report.summary["splits"]["llm"]["analytics"]["design"]
    assert design["mechanisms"] == ["jury.cascade"] and all(m["saved"][0]["requests"] > 0 for m in design["models"])
    page = browser.new_page()
    log = ConsoleLog(page)
    page.goto((tmp_path / "report" / "index.html").as_uri())
    page.wait_for_selector("#lb-table tbody tr")
    page.click("#tabs button[data-tab=analytics]")
    page.wait_for_selector("#cost-design")
    heads = page.eval_on_selector_all("#cost-design + p + table th", "t => t.map(x => x.textContent)")
    assert heads == ["model", "answers USD", "verdicts USD", "total USD", "jury.cascade saved", "full design USD"]
    rows = page.eval_on_selector_all("#cost-design + p + table tbody tr",
                                     "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    names = {m["key"]: m["label"] for m in report.summary["models"]}
    assert rows == [[names[m["model"]], f"${m['predict_usd']:.4f}", f"${m['judge_usd']:.4f}", f"${m['total_usd']:.4f}",
                     f"{m['saved'][0]['requests']} calls, $0.0000", f"${m['full_usd']:.4f}"] for m in design["models"]]
    assert page.inner_text("#cost-labels").startswith(f"Labels on this split: {design['labels']} (a person's time")
    assert log.errors == []
    page.close()
