"""inspect ``.eval`` logs (tests/data/imported/inspect) read through inspect's own converter, run as the real
``inspect`` from its own environment (tests/helpers/inspect_cli.py); refused in one line without it, or when
it fails or hangs; and every error line about an inspect log within 120 columns however long its path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.inspect_cli import hide_inspect, use_real_inspect
from sideways.config.exam import RUN_KEY
from sideways.imports.inspect_log import read_inspect_log
from sideways.imports.inspect_tool import convert_eval
from sideways.imports.load import read_runs
from sideways.imports.run import ImportedRun, ImportedRunError, keyed_runs, model_key

DATA = Path(__file__).resolve().parents[1] / "data" / "imported" / "inspect"
JSON = sorted((DATA / "json").glob("*.json"))
EVAL = sorted((DATA / "eval").glob("*.eval"))
EVAL_SET = DATA / "eval-set"
PREFIX = "sideways import-run: error: "  # the longest prefix an import error is printed after


def _line(exc: pytest.ExceptionInfo[ImportedRunError], path: Path) -> str:
    """The error's text: one line naming ``path`` (its end when long), within 120 columns as printed."""
    text = str(exc.value)
    assert "\n" not in text and len(PREFIX + text) <= 120
    shown = text.split(": ")[0]
    assert str(path) == shown or (shown.startswith("...") and str(path).endswith(shown[3:]))
    return text


@pytest.mark.parametrize("i", [0, 1])
def test_an_eval_log_reads_through_inspects_converter_as_its_json_twin(monkeypatch: pytest.MonkeyPatch,
                                                                       i: int) -> None:
    use_real_inspect(monkeypatch)
    run = read_inspect_log(EVAL[i])  # the same run logged as .eval and as .json (regenerate.py)
    twin = read_inspect_log(JSON[i])
    assert run.source == str(EVAL[i]) and run.model == twin.model and run.tasks == twin.tasks
    assert [(x.item_id, x.group, x.target, x.response, x.score) for x in run.items] == [
        (x.item_id, x.group, x.target, x.response, x.score) for x in twin.items]
    assert run.converted is not None and twin.converted is None
    log = json.loads(run.converted)  # inspect's own .json of the log, which import-run stores
    assert log["version"] == 2 and log["status"] == "success" and len(log["samples"]) == len(run.items)


def test_an_eval_set_directory_reads_one_run_per_model_without_its_index_files(
        monkeypatch: pytest.MonkeyPatch) -> None:
    use_real_inspect(monkeypatch)
    runs = read_runs(EVAL_SET)
    assert (EVAL_SET / "logs.json").is_file() and (EVAL_SET / "eval-set.json").is_file()  # as inspect wrote it
    assert sorted(r.model for r in runs) == ["mockllm/alpha", "mockllm/beta"]
    assert sorted(keyed_runs((model_key(r), r) for r in runs)) == ["mockllm-alpha", "mockllm-beta"]
    assert all(len(r.items) == 40 and r.source.endswith(".eval") for r in runs)


def test_without_inspect_an_eval_log_is_refused_saying_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    hide_inspect(monkeypatch, tmp_path)
    for path in (EVAL[0], *sorted(EVAL_SET.glob("*.eval"))[:1]):
        with pytest.raises(ImportedRunError) as exc:
            read_inspect_log(path)
        assert "needs inspect: pipx install inspect-ai" in _line(exc, path)
    with pytest.raises(ImportedRunError) as exc:
        read_runs(EVAL_SET)
    assert "pipx install inspect-ai" in str(exc.value)


def test_a_named_inspect_that_is_not_there_is_said(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SIDEWAYS_INSPECT", str(tmp_path / "nope"))
    with pytest.raises(ImportedRunError) as exc:
        read_inspect_log(EVAL[0])
    assert f"SIDEWAYS_INSPECT={tmp_path / 'nope'}"[:20] in _line(exc, EVAL[0])


def test_a_log_inspect_cannot_convert_is_one_line_with_inspects_message(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    use_real_inspect(monkeypatch)
    bad = tmp_path / ("a-long-folder-name-" * 5) / "2026-11-28T23-16-21-00-00_sideways-arith_cutcutcutcut.eval"
    bad.parent.mkdir()
    bad.write_bytes(EVAL[0].read_bytes()[:2000])  # a zip cut short
    with pytest.raises(ImportedRunError) as exc:
        read_inspect_log(bad)
    assert ": inspect log convert failed: " in _line(exc, bad)


def test_a_conversion_that_takes_too_long_is_stopped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_real_inspect(monkeypatch)
    with pytest.raises(ImportedRunError) as exc:
        convert_eval(EVAL[0], tmp_path, timeout=0.05)  # inspect takes seconds to start
    assert "took over 0.05 s; stopped" in _line(exc, EVAL[0])
    assert not list(tmp_path.glob("*.json"))


def test_errors_naming_a_long_log_path_fit_120_columns(tmp_path: Path) -> None:
    folder = tmp_path / ("logs-of-a-long-running-evaluation-campaign-" * 4)
    folder.mkdir()
    log = json.loads(JSON[0].read_text())
    del log["samples"][4]["scores"]
    path = folder / JSON[0].name
    path.write_text(json.dumps(log))
    with pytest.raises(ImportedRunError) as exc:
        read_inspect_log(path)
    assert "sample 5" in _line(exc, path)
    other = folder / ("x" + JSON[0].name)
    shutil.copy(JSON[0], other)
    shutil.copy(JSON[1], path)
    runs = [read_inspect_log(path), read_inspect_log(other)]  # two logs of mockllm/model
    with pytest.raises(ImportedRunError) as exc:
        keyed_runs((model_key(r), r) for r in runs)
    text = _line(exc, other)
    assert "model key 'mockllm-model' also claimed by ..." in text and text.endswith(path.name[-15:])


@given(st.text(max_size=200))
def test_a_model_name_gives_a_key_that_names_files_or_one_line(name: str) -> None:
    run = ImportedRun("logs/run.json", "inspect", name, ("t",), ())
    try:
        key = model_key(run)
    except ImportedRunError as exc:
        assert str(exc).startswith("logs/run.json: model ") and "\n" not in str(exc)
        return
    assert RUN_KEY.match(key) and key == model_key(ImportedRun("other", "inspect", name, ("t",), ()))
