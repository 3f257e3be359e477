"""Any file where a harness's run is expected is either a run or one line naming the file."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sideways.imports.inspect_log import read_inspect_log
from sideways.imports.lm_eval import read_lm_eval
from sideways.imports.run import ImportedRun, ImportedRunError

DATA = Path(__file__).resolve().parents[1] / "data" / "imported"
LM = DATA / "lm_eval" / "seed1"
INSPECT = sorted((DATA / "inspect" / "json").glob("*.json"))[0]
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 50) | st.floats() | st.text(max_size=5),
                      lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4),
                      max_leaves=10)


def _check(read: Any, path: Path, named: Path) -> None:
    try:
        run = read(path)
    except ImportedRunError as exc:
        text = str(exc)  # the file, or its end when the line would pass 120 columns as a command prints it
        shown = text.split(": ")[0]
        assert "\n" not in text and (text.startswith(str(named)) or (
            shown.startswith("...") and str(named).endswith(shown[3:])
            and len("sideways import-run: error: " + text) <= 120))
    else:
        assert isinstance(run, ImportedRun) and run.items
        assert all(0 <= i.score <= 1 for i in run.items)


SAMPLE_FIELDS = ["doc_id", "doc", "target", "arguments", "filtered_resps", "filter", "metrics", "acc"]


@FAST
@given(st.integers(0, 39), st.sampled_from(SAMPLE_FIELDS), VALUES | st.just("__drop__"), st.integers(0, 60))
def test_an_lm_eval_samples_line_changed_anyhow_is_read_or_named(line: int, field: str, value: Any,
                                                                 cut: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        shutil.copytree(LM, out)
        samples = sorted(out.rglob("samples_*.jsonl"))[0]
        lines = samples.read_text().split("\n")
        row = json.loads(lines[line])
        if value == "__drop__":
            row.pop(field, None)
        else:
            row[field] = value
        lines[line] = json.dumps(row)
        text = "\n".join(lines)
        samples.write_text(text[: len(text) - cut] if cut % 7 == 0 else text)  # now and then truncated
        _check(read_lm_eval, out, samples.parent)  # the error names the samples or the results file


@FAST
@given(st.binary(max_size=120) | st.builds(lambda v: json.dumps(v).encode(), VALUES))
def test_any_bytes_as_an_lm_eval_results_file_are_read_or_named(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        shutil.copytree(LM, out)
        results = next(out.rglob("results_*.json"))
        results.write_bytes(data)
        _check(read_lm_eval, out, results)


INSPECT_LOG = json.loads(INSPECT.read_text())
LOG_FIELDS = ["version", "status", "eval", "results", "samples"]
INSPECT_SAMPLE_FIELDS = ["id", "epoch", "input", "target", "scores", "metadata", "output"]


@FAST
@given(st.sampled_from(LOG_FIELDS), VALUES, st.integers(0, 39), st.sampled_from(INSPECT_SAMPLE_FIELDS), VALUES)
def test_an_inspect_log_changed_anyhow_is_read_or_named(field: str, value: Any, i: int, sample_field: str,
                                                        sample_value: Any) -> None:
    log = json.loads(json.dumps(INSPECT_LOG))
    log["samples"][i][sample_field] = sample_value
    if field != "samples" or i % 2:
        log[field] = value if i % 3 == 0 else log[field]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.json"
        path.write_text(json.dumps(log))
        _check(read_inspect_log, path, path)


@FAST
@given(st.binary(max_size=200))
def test_any_bytes_as_an_inspect_log_are_read_or_named(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.json"
        path.write_bytes(data)
        _check(read_inspect_log, path, path)
