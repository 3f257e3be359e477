"""The compare page and the report's addresses in a real Chromium: every page, split, model and riddle
has its own URL fragment (#leaderboard/vlm/<model>, #compare/llm/<model>, #explorer/llm/<riddle>)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from report_tables import params_with_models, split_tables

from helpers import project_params
from helpers.browser import ConsoleLog
from sideways.report.build import build_report
from sideways.report.site import site_files, write_site

HEADER = {"commit": "0123456789abcdef", "dirty": False, "params": "p1", "data": "d1"}
#: sideways diff's reasons, as the terminal prints them: `quoted` commands, and a revision's own text.
NOT_COMPARED = ["vlm: not compared: data/vlm/jury.parquet at HEAD~1: its data is in neither DVC's cache nor the "
                "default remote (`dvc fetch --rev HEAD~1`)",
                "exam <img src=x onerror=\"document.title='pwned'\">: in `<b>HEAD~1</b>` only; not compared"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    params = params_with_models(project_params(), None)
    tables = {s: split_tables(params, s, 30) for s in params.splits}
    first = sorted(tables["llm"].riddles["riddle_id"])[:2]
    models = [m.key for m in params.models]
    rows = [{"benchmark": "llm", "model": m, "metric": "both_correct", "a": 50.0, "b": 60.0 if i == 0 else 50.0,
             "change": 10.0 if i == 0 else 0.0, "lo": 5.0 if i == 0 else -2.0, "hi": 15.0 if i == 0 else 2.0,
             "se": 2.0, "p": 0.001 if i == 0 else 1.0, "q": 0.01, "mde": 5.6,
             "verdict": "up" if i == 0 else "no detectable change", "to_wrong": [], "to_right": first if i == 0 else [],
             "items": 30} for i, m in enumerate(models)]
    report = build_report(tables, params, HEADER, compare={"against": "HEAD~1", "rows": rows, "not_compared": NOT_COMPARED})
    out = tmp_path_factory.mktemp("site") / "report"
    write_site(site_files(report), out)
    return out / "index.html", models, first, report.summary


@pytest.fixture
def open_page(browser):
    opened = []

    def go(url: str):
        page = browser.new_page()
        opened.append((page, ConsoleLog(page)))
        page.goto(url)
        return page

    yield go
    for page, log in opened:
        assert log.errors == []
        page.close()


def test_a_model_of_a_split_has_its_own_address(open_page, built):
    site, models, _, _ = built
    page = open_page(f"{site.as_uri()}#leaderboard/vlm/{models[2]}")
    page.wait_for_selector("#leaderboard h2:has-text('vlm split')")
    assert page.input_value("#split") == "vlm"
    assert page.eval_on_selector_all("#lb-table tr.target", "rs => rs.map(r => r.dataset.model)") == [models[2]]
    page.click(f"#lb-table tr[data-model='{models[1]}'] a")
    assert page.url.endswith(f"#leaderboard/vlm/{models[1]}")
    page.wait_for_selector(f"#lb-table tr.target[data-model='{models[1]}']")


def test_the_compare_page_draws_the_pairwise_matrix_and_the_tie_groups(open_page, built):
    site, models, _, summary = built
    page = open_page(site.as_uri() + "#compare")
    page.wait_for_selector("#pairwise tbody tr")
    n = len(models)
    assert page.eval_on_selector_all("#pairwise tbody tr", "rs => rs.length") == n
    assert page.eval_on_selector_all("#pairwise td.num", "cs => cs.length") == n * (n - 1)
    pairs = summary["splits"]["llm"]["pairwise"]["pairs"]
    apart = sum(p["apart"] for p in pairs)
    assert page.eval_on_selector_all("#pairwise td.above, #pairwise td.below", "cs => cs.length") == 2 * apart
    groups = page.eval_on_selector_all("#pairwise tbody tr", "rs => rs.map(r => [r.dataset.model, r.cells[1].textContent])")
    tie = summary["splits"]["llm"]["pairwise"]["tie_groups"]
    assert {m: g for m, g in groups} == {m: ",".join(map(str, v)) for m, v in tie.items()}


def test_the_change_against_a_revision_links_its_flipped_riddles_to_the_explorer(open_page, built):
    site, models, first, _ = built
    page = open_page(f"{site.as_uri()}#compare/llm/{models[0]}")
    page.wait_for_selector("#changes tbody tr")
    assert "Change against HEAD~1" in page.inner_text("#compare")
    assert page.eval_on_selector_all("#changes tr.target", "rs => rs.map(r => r.dataset.model)") == [models[0]]
    assert page.eval_on_selector_all("#changes tr.moved", "rs => rs.length") == 1
    page.click(f"#changes a[href='#explorer/llm/{first[1]}']")
    page.wait_for_selector(f"#ex-list article[data-riddle='{first[1]}'] table")
    assert page.eval_on_selector_all("#ex-list article", "as => as.map(a => a.dataset.riddle)") == [first[1]]
    assert page.url.endswith(f"#explorer/llm/{first[1]}")
    page.go_back()
    page.wait_for_selector("#compare:not([hidden])")


def test_why_a_split_was_not_compared_shows_its_commands_as_code_and_markup_as_text(open_page, built):
    site, _, _, _ = built
    page = open_page(site.as_uri() + "#compare")
    page.wait_for_selector("#changes tbody tr")
    page.wait_for_timeout(300)  # an onerror would have fired by now
    notes = page.eval_on_selector_all("#compare > p.muted", "ps => ps.map(p => p.textContent)")
    assert notes == [f"not compared: {m.replace('`', '')}" for m in NOT_COMPARED]
    assert page.eval_on_selector_all("#compare > p.muted code", "cs => cs.map(c => c.textContent)") == [
        "dvc fetch --rev HEAD~1", "<b>HEAD~1</b>"]
    assert page.title() == "sideways report"
    assert page.eval_on_selector_all("#compare img, #compare b", "n => n.length") == 0


def test_ranked_by_the_published_interval_the_leaderboard_shows_layton_evals_rank_spread_by_name(tmp_path, browser):
    base = project_params()
    base["calibration"] = {**base["calibration"], "interval": "published"}
    params = params_with_models(base, None)
    tables = {s: split_tables(params, s, 30) for s in params.splits}
    tables = {s: replace(t, scores=t.scores.assign(interval="published")) for s, t in tables.items()}
    write_site(site_files(build_report(tables, params, HEADER)), tmp_path / "report")
    page = browser.new_page()
    log = ConsoleLog(page)
    page.goto((tmp_path / "report" / "index.html").as_uri())
    page.wait_for_selector("#lb-table tbody tr")
    head = page.eval_on_selector_all("#lb-table thead th", "hs => hs.map(h => h.textContent)")
    provenance = page.text_content("#provenance")
    spreads = page.eval_on_selector_all("#lb-table tbody tr", "rs => rs.map(r => r.cells[1].textContent)")
    page.close()
    assert log.errors == []
    assert head[:3] == ["rank", "rank spread (layton-eval)", "model"] and "95% rank set" in head
    assert "ranks follow the published interval (method" in provenance
    assert all(" <--> " in s for s in spreads)
