"""The raters' audit in the report (sideways.report.audit, assets/audit.js), in a real Chromium from file://: every
annotator and judge has its row with intervals, and an annotator's name (from a label file: untrusted) is text."""

from __future__ import annotations

from dataclasses import replace

import pytest
from report_tables import params_with_models, split_tables

from helpers import project_params
from helpers.browser import ConsoleLog
from sideways.report.build import build_report
from sideways.report.site import site_files, write_site

PROBE = '<img src=x onerror="window.__audit_xss=1">'
HEADER = {"commit": "0123456789abcdef", "dirty": False, "params": "p1", "data": "d1"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    params = params_with_models(project_params(), None)
    splits = {}
    for s in params.splits:
        t = split_tables(params, s, 30)
        names = [PROBE if i % 2 else "alice" for i in range(len(t.annotations))]
        splits[s] = replace(t, annotations=t.annotations.assign(annotator=names))
    report = build_report(splits, params, HEADER)
    out = tmp_path_factory.mktemp("site") / "report"
    write_site(site_files(report), out)
    return out / "index.html", report, params


def test_the_audit_renders_with_untrusted_names_as_text(browser, site):
    index, report, params = site
    audit = report.summary["splits"]["llm"]["analytics"]["audit"]
    assert {a["annotator"] for a in audit["annotators"]} == {PROBE, "alice"}
    page = browser.new_page()
    log = ConsoleLog(page)
    page.goto(index.as_uri())
    page.wait_for_selector("#lb-table tbody tr")
    page.click("#tabs button[data-tab=analytics]")
    page.wait_for_selector("#analytics h2:has-text('Annotators audited')")
    text = page.inner_text("#analytics")
    assert PROBE in text  # the name, shown as text
    assert page.evaluate("window.__audit_xss") is None
    assert page.locator("#analytics img").count() == 0
    tables = page.locator("#analytics h2:has-text('Annotators audited') ~ table")
    rows = tables.first.locator("tbody tr")
    assert rows.count() == 2
    judges = page.locator("#analytics h2:has-text('Judges audited') + table tbody tr")
    panel = {j.key for m in params.models_taking("llm") for j in params.jury.panel(m.provider)}
    shown = {judges.nth(i).locator("td").first.inner_text() for i in range(judges.count())}
    assert shown == panel
    assert "all" in judges.first.inner_text() and "[" in judges.first.inner_text()
    assert log.errors == []
    page.close()
