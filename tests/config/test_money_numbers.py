"""Money numbers at the config door: a NaN, an infinity or a negative price, cap or batch discount is
refused by `sideways check` (and by every stage, which parses the same way) in one line naming the field."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from helpers import ROOT, project_params
from sideways.config.params import parse_params
from sideways.core.errors import ParamsError

BAD = [".nan", ".inf", "-.inf", "-1"]


def with_value(path: tuple[str, ...], value: object) -> dict:
    data = project_params()
    data["prices"] = {"atlas-large": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}
    node = data
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return data


FIELDS = [("requests", "max_cost_usd"), ("requests", "batch_discount"), ("prices", "atlas-large", "input_per_mtok"),
          ("prices", "atlas-large", "output_per_mtok"), ("requests", "max_cost_usd_per_model", "atlas-large"),
          ("requests", "timeout_s")]


@pytest.mark.parametrize("path", FIELDS, ids=".".join)
@pytest.mark.parametrize("text", BAD)
def test_a_non_finite_or_negative_money_number_is_refused_naming_its_field(path, text):
    value = yaml.safe_load(text)
    with pytest.raises(ParamsError) as err:
        parse_params(with_value(path, value))
    assert ".".join(path) in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("text", [".nan", "-1"])
def test_sideways_check_refuses_a_nan_cap_in_one_line(tmp_path, text):
    for name in ("params.yaml", "models.yaml"):
        (tmp_path / name).write_text((ROOT / name).read_text())
    params = tmp_path / "params.yaml"
    data = yaml.safe_load(params.read_text())
    data["requests"]["max_cost_usd"] = yaml.safe_load(text)
    params.write_text(yaml.safe_dump(data, sort_keys=False))
    proc = subprocess.run([sys.executable, "-m", "sideways.cli", "check", "--params", str(params)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert "requests.max_cost_usd" in line and len(line) <= 200, line
