"""``models: models.yaml``: the models in a file of their own beside params.yaml.

DVC copies a stage's params values into dvc.lock and parses and rewrites the lock after every
stage; with the models there (seven lines a model) every stage of a 200-model project paid about a
second more than at 48. Named by file, they are one line of the lock and one md5. These tests pin
that both forms read the same, and that every way the file can be wrong is one error naming it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from helpers import ROOT, project_params
from sideways.config.params import MODELS_FILE, load_params, raw_params
from sideways.core.errors import ParamsError
from sideways.report.provenance import RESULT_PARAMS, params_digest


def _project(tmp_path: Path, models: str | None = None, params_models: object = MODELS_FILE) -> Path:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["models"] = params_models
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    if models is not None:
        (tmp_path / MODELS_FILE).write_text(models)
    return tmp_path / "params.yaml"


def test_the_default_project_names_the_file_and_reads_the_models_from_it():
    assert yaml.safe_load((ROOT / "params.yaml").read_text())["models"] == MODELS_FILE
    in_file = yaml.safe_load((ROOT / MODELS_FILE).read_text())["models"]
    assert [m.key for m in load_params(ROOT / "params.yaml").models] == list(in_file)


def test_inline_models_read_the_same_as_the_file(tmp_path):
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(project_params(), sort_keys=False))
    assert isinstance(yaml.safe_load((tmp_path / "params.yaml").read_text())["models"], dict)
    assert load_params(tmp_path / "params.yaml") == load_params(ROOT / "params.yaml")


def test_the_report_header_digest_is_the_same_for_both_forms(tmp_path):
    """The report's params digest covers the models wherever they are written."""
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(project_params(), sort_keys=False))
    inline, _ = raw_params(tmp_path / "params.yaml")
    named, source = raw_params(ROOT / "params.yaml")
    assert source == str(ROOT / MODELS_FILE)
    digest = lambda raw: params_digest({k: raw.get(k) for k in RESULT_PARAMS})  # noqa: E731
    assert digest(inline) == digest(named)
    named["models"]["atlas-mini"]["skill"] = 0.1
    assert digest(inline) != digest(named)


@pytest.mark.parametrize(("params_models", "models", "message"), [
    ("other.yaml", "models: {}\n", "params.yaml: models: 'other.yaml': expected the models themselves, or 'models.yaml'"),
    (MODELS_FILE, None, "models.yaml: models file not found"),
    (MODELS_FILE, "- a\n- b\n", "models.yaml: expected one key at the top level, models:"),
    (MODELS_FILE, "models: {}\nseed: 1\n", "models.yaml: expected one key at the top level, models:"),
    (MODELS_FILE, "", "models.yaml: expected one key at the top level, models:"),
    (MODELS_FILE, "models: {}\n", "models.yaml: models: at least one model is needed"),
    (MODELS_FILE, "models:\n  a.b: {backend: sim, provider: x, name: a}\n", "models.yaml: models.a.b: key must not"),
    (MODELS_FILE, "models:\n  m: {backend: sim, provider: x, name: m, skill: high}\n",
     "models.yaml: models.m.skill: expected a number, got 'high'"),
    (MODELS_FILE, "models:\n  m: {}\n  m: {}\n", "models.yaml:3: key 'm' appears twice in one mapping"),
    (MODELS_FILE, "models: [\n", "models.yaml"),
])
def test_a_bad_models_file_is_one_error_naming_it(tmp_path, params_models, models, message):
    path = _project(tmp_path, models, params_models)
    with pytest.raises(ParamsError) as info:
        load_params(path)
    text = str(info.value)
    assert message in text and "\n" not in text.strip()
    assert text.startswith(str(tmp_path)), text


def test_models_file_bytes_that_are_not_utf8_name_the_file(tmp_path):
    path = _project(tmp_path)
    (tmp_path / MODELS_FILE).write_bytes(b"models:\n  m\xff: {}\n")
    with pytest.raises(ParamsError, match=r"models\.yaml: not UTF-8"):
        load_params(path)
