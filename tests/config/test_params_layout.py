"""params.yaml is kept in the layout DVC's own writer keeps (``dvc exp run -S`` rewrites the file
through ruamel.yaml's round trip): a one-value experiment is a one-line ``git diff``, with no flow
mapping re-wrapped, no ``null`` emptied and no trailing space."""

from __future__ import annotations

import difflib
import shutil

import pytest
from dvc.utils.hydra import apply_overrides

from helpers import ROOT


@pytest.mark.parametrize("override", ["models.yaml:models.atlas-mini.skill=0.9", "calibration.interval=published",
                                      "exams.demo.strategy=baseline", "jury.pool.judge-gemini.sensitivity=0.8"])
def test_dvc_exp_run_set_param_changes_one_line(tmp_path, override):
    name, _, override = override.rpartition(":")
    path = tmp_path / (name or "params.yaml")
    shutil.copy(ROOT / path.name, path)
    before = path.read_text().splitlines()
    apply_overrides(path, [override])  # what `dvc exp run -S` calls on params.yaml
    after = path.read_text().splitlines()
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0)
               if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    key, value = override.split("=")
    key = key.rsplit(".", 1)[-1]
    assert len(changed) == 2 and changed[1][1:].strip().startswith(f"{key}: {value}"), changed


@pytest.mark.parametrize("name", ["params.yaml", "models.yaml"])
def test_params_yaml_has_no_trailing_space_and_no_flow_mapping_past_80_columns(name):
    for number, line in enumerate((ROOT / name).read_text().splitlines(), 1):
        assert line == line.rstrip(), f"{name}:{number} ends in a space"
        assert not ("{" in line.split("#")[0] and len(line) > 80), f"{name}:{number}: ruamel re-wraps it"
        assert "[" not in line.split("#")[0], f"{name}:{number}: DVC rewrites every list as a block list"
