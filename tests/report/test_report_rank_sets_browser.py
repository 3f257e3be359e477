"""One answer to "which model is best, and how sure?" on the demo project, in a real Chromium: the
leaderboard shows each model's 95% rank set, the same as `sideways show` and the leaderboard
metrics, and the sets agree with the Compare tab's paired differences and tie groups (all three
from one set of draws, docs/method.md §5); the header names the interval the ranks follow. Checked
after `dvc repro` and again after the README's experiment."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers.browser import ConsoleLog
from helpers.harness import run

pytestmark = pytest.mark.slow


def page_state(browser, site: Path, split: str) -> dict:
    """What the page shows for ``split``: the leaderboard's rank sets and tie groups, the Compare tab's
    tie groups, rank sets and which cells are apart (row model above column model), the header."""
    page = browser.new_page()
    log = ConsoleLog(page)
    page.goto(f"{site.as_uri()}#leaderboard/{split}")
    page.wait_for_selector(f"#leaderboard h2:has-text('{split} split')")
    board = page.eval_on_selector_all("#lb-table tbody tr", """rs => rs.map(r => [r.dataset.model,
        r.querySelector("td[data-key=rank_set]").textContent, r.querySelector("td[data-key=tie_groups]").textContent,
        r.querySelector("a").textContent])""")
    header = [h.strip() for h in page.eval_on_selector_all("#lb-table thead th", "hs => hs.map(h => h.textContent)")]
    provenance = page.text_content("#provenance")
    coverage = page.text_content("#lb-coverage")
    page.click("#tabs button[data-tab=compare]")
    page.wait_for_selector("#pairwise tbody tr")
    matrix = page.eval_on_selector_all("#pairwise tbody tr", """rs => rs.map(r => [r.dataset.model, r.cells[1].textContent,
        r.cells[2].textContent, [...r.querySelectorAll("td[data-against]")].map(c => [c.dataset.against,
        c.classList.contains("above"), c.classList.contains("below")])])""")
    page.close()
    assert log.errors == []
    return {"board": board, "header": header, "provenance": provenance, "coverage": coverage, "matrix": matrix}


def _set(text: str) -> tuple[int, int]:
    best, worst = text.split("-")
    return int(best), int(worst)


def check(repo: Path, browser) -> None:
    shown = run(repo, "sideways", "show").stdout
    for split in ("llm", "vlm"):
        got = page_state(browser, repo / "report" / "index.html", split)
        assert "ranks follow the posterior interval" in got["provenance"] and "method" not in got["provenance"]
        assert "95% rank set" in got["header"] and not any("spread" in h for h in got["header"])
        assert "95% probability" in got["coverage"]
        metrics = json.loads((repo / f"metrics/leaderboard_{split}.json").read_text())
        sets = {m: s for m, s, _, _ in got["board"]}
        ties = {m: t for m, _, t, _ in got["board"]}
        # the page's rank sets and tie groups are the metrics' and `sideways show`'s, models read as their keys
        assert sets == {m: e["rank_set"] for m, e in metrics.items()}
        assert ties == {m: e["tie_groups"] for m, e in metrics.items()}
        assert all(label == m for m, _, _, label in got["board"])
        for m, s in sets.items():
            assert re.search(rf"\| {re.escape(m)} \| [0-9.]+ \| (\[[0-9.]+, [0-9.]+\]|fully labelled) \|", shown)
            assert re.search(rf"\| [0-9]+ \| {re.escape(s)} \| {re.escape(m)} \|", shown), (m, s)
        # the Compare tab: the same tie groups and rank sets, and cells that agree with the sets
        assert {m: t for m, t, _, _ in got["matrix"]} == ties
        assert {m: s for m, _, s, _ in got["matrix"]} == sets
        above = {(a, b) for a, _, _, cells in got["matrix"] for b, up, _ in cells if up}
        below = {(b, a) for a, _, _, cells in got["matrix"] for b, _, down in cells if down}
        assert above == below  # each apart pair drawn both ways
        for a, b in above:
            (ba, wa), (bb, wb) = _set(sets[a]), _set(sets[b])
            assert ba <= bb and wa <= wb, (split, a, b, sets)
        for a in sets:
            for b in sets:
                if _set(sets[a])[1] < _set(sets[b])[0]:
                    assert (a, b) in above, (split, a, b, sets)


def test_the_leaderboard_shows_rank_sets_that_agree_with_the_compare_tab(reproduced_copy, browser):
    check(reproduced_copy, browser)
    # the README's experiment: a stronger atlas-mini, its results in the workspace
    run(reproduced_copy, "dvc", "exp", "run", "-S", "models.yaml:models.atlas-mini.skill=0.9")
    check(reproduced_copy, browser)
