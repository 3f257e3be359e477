"""The report's exam pages in a real Chromium, opened from file:// with no network.

The site holds the synthetic riddles and two synthetic exams (benchmarks/report_tables):
the first question of each exam carries an <img onerror> probe and the first reply a <script>.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from report_tables import XSS_QUESTION, XSS_REPLY, exam_tables, params_with_models, split_tables

from helpers import project_params
from helpers.browser import ConsoleLog
from sideways.report import exam_replies
from sideways.report.build import build_report
from sideways.report.site import site_files, write_site

HEADER = {"commit": "0123456789abcdef", "dirty": False, "params": "p1", "data": "d1"}
EXAM = "section[id='exam/exam']"


def _site(root: Path, with_exams: bool, group: int | None = None) -> Path:
    params = params_with_models(project_params(), None)
    exams = [exam_tables(params, 30), exam_tables(params, 8, key="second")] if with_exams else []
    with pytest.MonkeyPatch.context() as patch:
        if group is not None:  # the replies of every `group` models in a file of their own
            patch.setattr(exam_replies, "GROUP", group)
        report = build_report({s: split_tables(params, s, 10) for s in params.splits}, params, HEADER, exams)
    write_site(site_files(report), root / "report")
    return root / "report" / "index.html"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return _site(tmp_path_factory.mktemp("exam-site"), True)


@pytest.fixture(scope="module")
def grouped_site(tmp_path_factory) -> Path:
    return _site(tmp_path_factory.mktemp("exam-site-groups"), True, group=4)


@pytest.fixture
def open_page(browser):
    opened = []

    def go(url: str):
        page = browser.new_page()
        log = ConsoleLog(page)
        opened.append((page, log))
        page.goto(url)
        return page

    yield go
    for page, log in opened:
        assert log.errors == []  # no console errors, on every page the tests open
        page.close()


def test_an_exam_page_has_its_own_address_and_its_tab(open_page, site):
    page = open_page(site.as_uri() + "#exam/exam")
    page.wait_for_selector(f"{EXAM} table.exam-metrics tbody tr")
    assert page.is_visible(EXAM) and not page.is_visible("#leaderboard") and not page.is_visible("label.split")
    page.click("#tabs button[data-tab='exam/second']")
    page.wait_for_selector("section[id='exam/second'] .question")
    assert page.url.endswith("#exam/second") and not page.is_visible(EXAM)
    page.click("#tabs button[data-tab=leaderboard]")
    assert page.url.endswith("#leaderboard") and page.is_visible("label.split")
    page.go_back()
    page.wait_for_selector("section[id='exam/second']:not([hidden])")


def test_the_metrics_table_shows_every_model_with_standard_errors_best_idk_score_first(open_page, site):
    page = open_page(site.as_uri() + "#exam/exam")
    rows = page.eval_on_selector_all(f"{EXAM} table.exam-metrics tbody tr",
                                     "rs => rs.map(r => [r.dataset.model, ...[...r.cells].map(c => c.textContent)])")
    assert {r[0] for r in rows} == set(project_params()["models"])
    idk = [float(r[3].split(" ± ")[0]) for r in rows]
    assert idk == sorted(idk, reverse=True)
    assert all(" ± " in c for r in rows for c in r[2:7])  # trad, idk, idk_freq, extract_fail, short answer
    topics = page.inner_text(EXAM)
    assert all(t in topics for t in ("orbits", "stars", "galaxies", "Score (%) by topic"))


def test_the_question_explorer_filters_like_the_riddle_explorer(open_page, site):
    page = open_page(site.as_uri() + "#exam/exam")
    page.wait_for_selector(f"{EXAM} .question .choices")
    count = lambda: page.inner_text(f"{EXAM} .qx-count")  # noqa: E731
    assert count() == "30 of 30 questions" and page.locator(f"{EXAM} .question").count() == 20
    page.select_option(f"{EXAM} .qx-topic", "stars")
    assert count() == "10 of 30 questions"
    page.fill(f"{EXAM} .qx-search", "question 13:")
    assert count() == "1 of 30 questions"
    page.fill(f"{EXAM} .qx-search", "")
    page.select_option(f"{EXAM} .qx-topic", "")
    page.select_option(f"{EXAM} .qx-model", "atlas-large")
    page.select_option(f"{EXAM} .qx-outcome", "p")
    right = int(count().split()[0])
    assert 0 < right < 30
    page.wait_for_selector(f"{EXAM} .question .badge")
    rows = page.eval_on_selector_all(f"{EXAM} .question:has(.badge)", "cs => cs.map(c => c.querySelectorAll('tbody tr').length)")
    assert rows and set(rows) == {1}  # only the chosen model's reply


def test_a_short_answer_shows_the_rubric_and_each_judges_verdict(open_page, site):
    page = open_page(site.as_uri() + "#exam/exam")
    card = f"{EXAM} .question[data-question=q-003]"
    page.locator(card).scroll_into_view_if_needed()
    page.wait_for_selector(f"{card} .criteria")
    assert "Names Mercury" in page.inner_text(f"{card} .criteria")
    summaries = page.eval_on_selector_all(f"{card} .verdicts summary", "s => s.map(x => x.textContent)")
    assert len(summaries) == 12 and all("(rubric_anchored): " in s for s in summaries)  # 6 models x 2 judges
    assert "CRITERION_1" in page.text_content(f"{card} .verdicts .raw")


def test_untrusted_question_and_reply_are_text(open_page, site):
    """The XSS probe: an <img onerror> question and a <script> reply render as text, run never."""
    page = open_page(site.as_uri() + "#exam/exam")
    card = f"{EXAM} .question[data-question=q-000]"
    page.wait_for_selector(f"{card} .reply")
    page.wait_for_timeout(300)  # an onerror would have fired by now
    assert page.title() == "sideways report"
    assert page.text_content(f"{card} p.text") == XSS_QUESTION
    assert page.text_content(f"{card} .reply") == XSS_REPLY
    assert page.eval_on_selector_all(f"{EXAM} img, {EXAM} script", "n => n.length") == 0


def test_without_an_exam_there_is_no_exam_tab_and_an_exam_address_shows_the_leaderboard(open_page, tmp_path):
    page = open_page(_site(tmp_path, False).as_uri() + "#exam/exam")
    page.wait_for_selector("#lb-table tbody tr")
    assert page.locator("#tabs button[data-tab^=exam]").count() == 0 and page.locator("section.exam").count() == 0


def test_a_card_joins_the_reply_files_of_every_group_of_models_and_a_chosen_model_loads_its_group_alone(
        open_page, site, grouped_site):
    """Six models in groups of four: a card shows the same replies and verdicts as with one file."""
    card = f"{EXAM} .question[data-question=q-003]"
    shown = []
    for url in (site, grouped_site):
        page = open_page(url.as_uri() + "#exam/exam")
        page.locator(card).scroll_into_view_if_needed()
        page.wait_for_selector(f"{card} .verdicts")
        shown.append(page.inner_text(card))
    assert shown[0] == shown[1] and len(page.locator(f"{card} tbody tr").all()) == 6
    models = project_params()["models"]
    last = list(models)[5]  # the second group's
    page = open_page(grouped_site.as_uri() + "#exam/exam")
    page.select_option(f"{EXAM} .qx-model", last)
    page.wait_for_selector(f"{EXAM} .question .badge")
    firsts = page.eval_on_selector_all(f"{EXAM} .question:has(.badge)",
                                       "cs => cs.map(c => [...c.querySelectorAll('tbody tr')].map(r => r.cells[0].textContent))")
    assert firsts and all(f == [models[last]["name"]] for f in firsts)  # only the chosen model's reply


def test_a_one_question_exam_does_not_show_a_standard_error_of_zero(tmp_path, browser):
    """One item has no standard error: the page says ``(n=1)`` where it showed ``± 0.00``."""
    params = params_with_models(project_params(), None)
    one = exam_tables(params, 1, key="one")
    report = build_report({s: split_tables(params, s, 10) for s in params.splits}, params, HEADER, [one])
    write_site(site_files(report), tmp_path / "report")
    page = browser.new_page()
    log = ConsoleLog(page)
    page.goto((tmp_path / "report" / "index.html").as_uri() + "#exam/one")
    page.wait_for_selector("section[id='exam/one'] table.exam-metrics tbody tr")
    cells = page.eval_on_selector_all("section[id='exam/one'] table.exam-metrics tbody td", "cs => cs.map(c => c.textContent)")
    page.close()
    assert log.errors == []
    assert any("(n=1)" in c for c in cells) and not any("\u00b1 0.00" in c for c in cells)


def test_a_sampled_exams_score_shows_its_interval_and_how_many_questions_were_asked(open_page, tmp_path):
    params = params_with_models(project_params(), None)
    exam = exam_tables(params, 12)
    first = sorted(exam.metrics)[0]
    sampled = {m: v | ({"exam_score": 61.25, "exam_score_se": 4.5, "exam_score_lo": 52.1, "exam_score_hi": 70.4,
                        "asked_n": 12, "exam_n": 40} if m == first else {}) for m, v in exam.metrics.items()}
    report = build_report({s: split_tables(params, s, 10) for s in params.splits}, params, HEADER,
                          [dataclasses.replace(exam, metrics=sampled)])
    write_site(site_files(report), tmp_path / "report")
    page = open_page((tmp_path / "report" / "index.html").as_uri() + "#exam/exam")
    page.wait_for_selector(f"{EXAM} table.exam-metrics tbody tr")
    cells = page.eval_on_selector_all(f"{EXAM} table.exam-metrics tbody tr",
                                      "rs => rs.map(r => [r.dataset.model, r.cells[6].textContent])")
    shown = dict(cells)
    assert shown[first] == "61.3 [52.1, 70.4], 12 of 40 asked"
    assert all("asked" not in text for m, text in shown.items() if m != first)  # a full exam: the score alone
