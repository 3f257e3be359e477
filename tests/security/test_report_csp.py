"""Issue 27: the report page carries a Content-Security-Policy: no inline or remote script, no eval,
no form or base hijack (untrusted text already goes only through textContent; this is the second wall)."""

from __future__ import annotations

import re
from importlib import resources


def test_the_report_page_declares_a_strict_csp():
    html = resources.files("sideways.report").joinpath("assets", "index.html").read_text(encoding="utf-8")
    match = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert match, "no Content-Security-Policy in the report page"
    policy = dict(d.strip().split(" ", 1) for d in match.group(1).split(";"))
    assert policy["default-src"] == "'none'"
    assert "unsafe-inline" not in policy["script-src"] and "unsafe-eval" not in policy["script-src"]
    assert "http" not in policy["script-src"] and policy["form-action"] == "'none'"
    assert not re.search(r"<script>(?!\s*</script>)", html)  # no inline script for the policy to break
