"""The README's `dvc plots show`, opened in a real Chromium with no network: every plot draws.

A project with this repository's DVC config, plot definitions and templates (dvc.yaml's ``plots:``,
plots/*.json) and plot data computed by sideways from synthetic tables (benchmarks/report_tables),
as `dvc repro` writes it. Any request leaving the page is recorded and refused.
"""

from __future__ import annotations

import configparser
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from report_tables import params_with_models, split_tables

from helpers import ROOT, project_params
from helpers.browser import ConsoleLog
from sideways.report.analytics import calibration_bins
from sideways.scoring.leaderboard import plot_rows
from sideways.scoring.ranking import rank_leaderboard


def _copy(path: Path, into: Path) -> None:
    (into / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, into / path.relative_to(ROOT))


@pytest.fixture(scope="module")
def plots_page(tmp_path_factory) -> Path:
    """``dvc plots show`` run, as the README says, in a project laid out as this repository."""
    project = tmp_path_factory.mktemp("plots")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run([sys.executable, "-m", "dvc", "init", "-q"], cwd=project, check=True)
    _copy(ROOT / ".dvc" / "config", project)
    config = configparser.ConfigParser()
    config.read(ROOT / ".dvc" / "config")
    template = config.get("plots", "html_template", fallback=None)
    if template:  # the page template the config names, where the config names it
        _copy((ROOT / ".dvc" / template).resolve(), project)
    for t in (ROOT / "plots").glob("*.json"):
        _copy(t, project)
    (project / "dvc.yaml").write_text(yaml.safe_dump({"plots": yaml.safe_load((ROOT / "dvc.yaml").read_text())["plots"]}))
    params = params_with_models(project_params(), None)
    for split in params.splits:
        t = split_tables(params, split, 30)
        data = {f"scores_{split}.json": plot_rows(rank_leaderboard(t.scores)),
                f"calibration/{split}.json": calibration_bins(t.jury, t.annotations, params.calibration.field)}
        for name, rows in data.items():
            (project / "metrics" / "plots" / name).parent.mkdir(parents=True, exist_ok=True)
            (project / "metrics" / "plots" / name).write_text(json.dumps(rows))
    shown = subprocess.run([sys.executable, "-m", "dvc", "plots", "show"], cwd=project, capture_output=True,
                           text=True, check=True)
    page = project / "dvc_plots" / "index.html"
    assert shown.stdout.strip() == page.as_uri()
    return page


def test_the_plots_page_draws_every_plot_with_no_network(browser, plots_page):
    page = browser.new_page()
    log = ConsoleLog(page)
    left: list[str] = []

    def refuse(route):
        left.append(route.request.url)
        route.abort()

    page.route(lambda url: not url.startswith("file:"), refuse)
    page.goto(plots_page.as_uri())
    page.wait_for_load_state("load")
    assert left == []  # DVC's own page asks a CDN for Vega here
    divs = page.eval_on_selector_all("body > div[id]", "ds => ds.map(d => d.id)")
    assert len(divs) == len(yaml.safe_load((ROOT / "dvc.yaml").read_text())["plots"])
    for div in divs:  # vega-embed draws into the plot's div: a canvas (or an SVG)
        page.wait_for_selector(f"div[id='{div}'].vega-embed canvas.marks, div[id='{div}'].vega-embed svg.marks",
                               timeout=15_000)
    assert left == [] and log.errors == []
    page.close()
