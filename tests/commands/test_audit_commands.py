"""The raters' audit in the commands: ``sideways show --judges`` prints every judge's rates with intervals, and
``sideways annotate stats`` flags a careless annotator, on simulated projects written where the stages write."""

from __future__ import annotations

import re

from helpers.audit_project import audit_project, sim_params
from lab.annotators import team
from sideways.cli import main

RATE = re.compile(r"(\d\.\d\d) \[(\d\.\d\d), (\d\.\d\d)\]")


def test_show_judges_prints_each_judges_rates_with_intervals(tmp_path, monkeypatch, capsys):
    project = audit_project(tmp_path / "p", splits=("llm", "vlm"), share=0.5)
    monkeypatch.chdir(project)
    assert main(["show", "--judges"]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 120 for line in out.splitlines())
    _, params = sim_params(("llm", "vlm"), None)
    for split in ("llm", "vlm"):
        block = out.split(f"{split} split: judges audited")[1].split(" split: judges audited")[0]
        for judge in params.jury.pool:
            alls = [line for line in block.splitlines() if line.startswith(judge.key) and " all " in line]
            if not any(judge in params.jury.panel(m.provider) for m in params.models_taking(split)):
                continue
            assert len(alls) == 1, (split, judge.key, block)
            cells = RATE.findall(alls[0])
            assert len(cells) == 4  # answer and justification, sensitivity and specificity
            for est, lo, hi in cells:
                assert float(lo) <= float(est) <= float(hi) and float(hi) - float(lo) < 0.5
            # the simulated judge's own rates, against the truth the posterior infers
            (_, sens_lo, sens_hi), (_, spec_lo, spec_hi) = cells[0], cells[1]
            opts = judge.options
            assert float(sens_lo) - 0.03 <= opts.sensitivity <= float(sens_hi) + 0.03
            assert float(spec_lo) - 0.03 <= opts.specificity <= float(spec_hi) + 0.03
            assert any(line.startswith(judge.key) and "model of " in line for line in block.splitlines())
            assert any(line.startswith(judge.key) and "reply long" in line for line in block.splitlines())


def test_annotate_stats_flags_the_careless_annotator(tmp_path, monkeypatch, capsys):
    project = audit_project(tmp_path / "p", riddles=60, justification=0.6, share=1.0, team=team())
    monkeypatch.chdir(project)
    assert main(["annotate", "stats", "--split", "llm"]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 120 for line in out.splitlines())
    audit = out.split("annotators audited")[1]
    rows = {line.split()[0]: line for line in audit.splitlines() if re.match(r"\s+(careful|careless|random)-\d ", line)}
    assert set(rows) == {"careful-1", "careful-2", "careful-3", "careless-1", "random-1"}
    assert rows["careless-1"].endswith("FLAGGED")
    assert not any(rows[n].endswith("FLAGGED") for n in ("careful-1", "careful-2", "careful-3"))
    assert re.search(r"flagged: careless-1: justification error \d+\.\d% \[", audit)
