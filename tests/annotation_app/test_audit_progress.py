"""The annotation app's progress view carries the annotators' audit (sideways.annotation_app.audit_field): a real
server on a simulated project whose label log has a careless annotator; the audit, computed in the background,
flags it, and the page shows the lines as text."""

from __future__ import annotations

from helpers.audit_project import audit_project
from helpers.browser import ConsoleLog
from helpers.label_project import Served, finished_audit
from lab.annotators import team


def test_progress_flags_the_careless_annotator_and_the_page_shows_it(tmp_path, browser):
    project = audit_project(tmp_path / "p", riddles=60, justification=0.6, share=1.0,
                            team=team(careful=3, careless=1, random=0))
    with Served(project, "alice") as served:
        audit = finished_audit(served.url)
        assert audit["flagged"] == ["careless-1"]
        assert audit["labels"] > 0
        assert any(line.startswith("careless-1") and line.endswith("FLAGGED") for line in audit["lines"])
        page = browser.new_page()
        log = ConsoleLog(page)
        page.goto(served.url + "/")
        page.wait_for_function("document.getElementById('audit').textContent.includes('careless-1')")
        assert "FLAGGED" in page.inner_text("#audit")
        assert log.errors == []
        page.close()
