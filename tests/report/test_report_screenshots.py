"""scripts/screenshot.py --tabs (what `make screenshot` runs for docs/img/report): a picture of every
tab, Compare included, and of the first exam's page, taken in the OS Chromium."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PIL import Image
from report_tables import exam_tables, params_with_models, split_tables

from helpers import ROOT, project_params
from helpers.browser import INSTALL_HINT, find_chromium
from sideways.report.build import build_report
from sideways.report.site import site_files, write_site


def test_screenshot_tabs_shoots_every_tab_and_the_exam_page(tmp_path):
    if find_chromium() is None:
        pytest.skip(INSTALL_HINT)
    params = params_with_models(project_params(), None)
    report = build_report({s: split_tables(params, s, 10) for s in params.splits}, params,
                          {"commit": "0123456789abcdef", "dirty": False, "params": "p1", "data": "d1"},
                          [exam_tables(params, 8)])
    write_site(site_files(report), tmp_path / "report")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "screenshot.py"), "--tabs", "--report",
                          str(tmp_path / "report" / "index.html"), "--out", str(tmp_path / "img")],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    names = ("leaderboard", "analytics", "compare", "explorer", "exam")
    assert out.split() == [str(tmp_path / "img" / f"{n}.png") for n in names]
    for n in names:
        with Image.open(tmp_path / "img" / f"{n}.png") as img:
            assert img.format == "PNG" and img.width == 1280
