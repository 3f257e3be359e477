"""The readers of runs made elsewhere, on files lm-evaluation-harness and inspect_ai wrote
(tests/data/imported, remade by its regenerate.py), and on every way such a file can be bad."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sideways.exams.changes import paired_metric
from sideways.exams.results import detail_table, model_metrics
from sideways.imports.inspect_log import read_inspect_log
from sideways.imports.lm_eval import read_lm_eval
from sideways.imports.load import read_runs
from sideways.imports.run import ImportedRun, ImportedRunError, exam_tables, keyed_runs

DATA = Path(__file__).resolve().parents[1] / "data" / "imported"
LM = [DATA / "lm_eval" / f"seed{s}" for s in (1, 2)]
INSPECT = sorted((DATA / "inspect" / "json").glob("*.json"))


def _one_line(exc: pytest.ExceptionInfo[ImportedRunError], path: Path | str) -> str:
    text = str(exc.value)  # the path, or its end after "..." when the line would pass 120 columns
    shown = text.split(": ")[0]
    assert "\n" not in text and (text.startswith(str(path)) or (
        shown.startswith("...") and str(path).endswith(shown[3:]) and len("sideways import-run: error: " + text) <= 120))
    return text


def _mean(run: ImportedRun) -> float:
    return sum(i.score for i in run.items) / len(run.items)


@pytest.mark.parametrize("folder", LM)
def test_an_lm_eval_run_reads_as_its_results_file_scores_it(folder: Path) -> None:
    run = read_lm_eval(folder)
    results = json.loads(next(folder.rglob("results_*.json")).read_text())
    assert run.tasks == tuple(sorted(results["configs"])) and len(run.tasks) == 2
    for task in run.tasks:
        mine = [i for i in run.items if i.item_id.startswith(f"{task}/")]
        metric = results["configs"][task]["metric_list"][0]["metric"]  # acc, and exact_match for generation
        assert len(mine) == results["n-samples"][task]["effective"]
        assert sum(i.score for i in mine) / len(mine) == pytest.approx(results["results"][task][f"{metric},none"])
    assert run.model == results["model_name"] and run.tool == "lm_eval"
    samples = sorted(folder.rglob("samples_*.jsonl"))
    doc = json.loads(samples[0].read_text().split("\n")[0])["doc"]
    first = run.items[0]
    assert (first.group, first.target) == (doc["subject"], doc["choices"][doc["answer"]])
    assert first.response in doc["choices"]  # multiple choice: the choice ranked first
    generated = json.loads(samples[1].read_text().split("\n")[0])
    assert run.tasks[1].endswith("_gen") and generated["filtered_resps"][0] in {i.response for i in run.items}


@pytest.mark.parametrize("path", INSPECT)
def test_an_inspect_log_reads_as_inspect_scored_it(path: Path) -> None:
    run = read_inspect_log(path)
    log = json.loads(path.read_text())
    assert len(run.items) == log["results"]["total_samples"]
    assert _mean(run) == pytest.approx(log["results"]["scores"][0]["metrics"]["accuracy"]["value"])
    assert run.model == log["eval"]["model"]
    assert {i.group for i in run.items} == {s["metadata"]["subject"] for s in log["samples"]}


def test_two_runs_of_one_model_need_two_keys_and_then_give_a_paired_change() -> None:
    a, b = (read_lm_eval(f) for f in LM)
    c = read_lm_eval(LM[0])  # the same run read twice: one model name
    with pytest.raises(ImportedRunError) as exc:
        keyed_runs([(None, a), (None, c)])
    text = str(exc.value)  # both files, their ends when long (the whole: tests/imports/test_inspect_eval.py)
    assert a.source.endswith(text.split(": ")[0].removeprefix("...")) and "also claimed by" in text
    runs = keyed_runs([("before", a), ("after", b)])
    items, predictions, grades = exam_tables("arith", runs)
    detail = detail_table(items, predictions, grades)
    metrics = model_metrics(detail)
    assert metrics["before"]["exam_score"] == pytest.approx(100 * _mean(a))
    assert metrics["after"]["short_answer_n"] == len(b.items)
    change = paired_metric(detail[detail["model"] == "before"], detail[detail["model"] == "after"], "short_answer")
    assert change is not None
    assert change["change"] == pytest.approx(100 * (_mean(b) - _mean(a)))
    assert change["clusters"] == len({i.group for i in a.items}) > 1  # clustered by subject
    assert change["lo"] < change["change"] < change["hi"]


def test_runs_of_another_benchmark_under_one_exam_are_refused() -> None:
    lm, ins = read_lm_eval(LM[0]), read_inspect_log(INSPECT[0])
    moved = ImportedRun(ins.source, ins.tool, ins.model, lm.tasks,
                        tuple(type(i)(lm.items[k].item_id, i.group, i.question, i.target, i.response, i.score)
                              for k, i in enumerate(ins.items)))
    with pytest.raises(ImportedRunError) as exc:
        exam_tables("arith", {"lm": lm, "inspect": moved})
    assert "not runs of one benchmark" in _one_line(exc, lm.source) and ins.source in str(exc.value)


def _copy(folder: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    out = tmp_path / "run"
    shutil.copytree(folder, out)
    return out, next(out.rglob("results_*.json")), sorted(out.rglob("samples_*.jsonl"))[0]


def test_a_truncated_samples_file_names_its_line(tmp_path: Path) -> None:
    out, _, samples = _copy(LM[0], tmp_path)
    text = samples.read_text()
    samples.write_text(text[: len(text) - 200])
    with pytest.raises(ImportedRunError) as exc:
        read_lm_eval(out)
    assert f"line {text.count(chr(10))}: not valid JSON" in _one_line(exc, samples)


def test_a_samples_file_cut_at_a_line_end_is_short_of_the_results_count(tmp_path: Path) -> None:
    out, _, samples = _copy(LM[0], tmp_path)
    lines = samples.read_text().split("\n")
    samples.write_text("\n".join(lines[:10]) + "\n")
    with pytest.raises(ImportedRunError) as exc:
        read_lm_eval(out)
    assert "10 sample(s)" in _one_line(exc, samples) and "records 40" in str(exc.value)


def test_an_unsupported_lm_eval_version_is_refused(tmp_path: Path) -> None:
    out, results, _ = _copy(LM[0], tmp_path)
    data = json.loads(results.read_text())
    results.write_text(json.dumps(data | {"lm_eval_version": "0.3.0"}))
    with pytest.raises(ImportedRunError) as exc:
        read_lm_eval(out)
    assert "'0.3.0' is not supported" in _one_line(exc, results)


def test_a_sample_without_its_score_is_named(tmp_path: Path) -> None:
    out, _, samples = _copy(LM[0], tmp_path)
    lines = samples.read_text().split("\n")
    row = json.loads(lines[3])
    del row["acc"]
    lines[3] = json.dumps(row)
    samples.write_text("\n".join(lines))
    with pytest.raises(ImportedRunError) as exc:
        read_lm_eval(out)
    assert "line 4: no per-sample score 'acc'" in _one_line(exc, samples)


def test_a_score_outside_0_1_is_not_a_per_sample_score(tmp_path: Path) -> None:
    out, _, samples = _copy(LM[0], tmp_path)
    with pytest.raises(ImportedRunError) as exc:
        read_lm_eval(out, metric="doc_id")
    assert "line 3: doc_id: not a score in [0, 1]: 2" in _one_line(exc, samples)


def test_a_folder_of_two_runs_asks_which(tmp_path: Path) -> None:
    out = tmp_path / "both"
    for f in LM:
        shutil.copytree(f, out / f.name)
    with pytest.raises(ImportedRunError) as exc:
        read_lm_eval(out)
    assert "2 lm-eval runs below it" in _one_line(exc, out)


@pytest.mark.parametrize(("change", "message"), [
    ({"version": 1}, "inspect log version '1' is not supported"),
    ({"status": "error"}, "log status is 'error'"),
    ({"samples": []}, "no samples"),
])
def test_an_inspect_log_that_cannot_be_read_says_why(tmp_path: Path, change: dict[str, object],
                                                      message: str) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(json.loads(INSPECT[0].read_text()) | change))
    with pytest.raises(ImportedRunError) as exc:
        read_inspect_log(path)
    assert message in _one_line(exc, path)


def test_an_inspect_sample_without_a_score_is_named(tmp_path: Path) -> None:
    log = json.loads(INSPECT[0].read_text())
    log["samples"][5]["scores"] = {}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    with pytest.raises(ImportedRunError) as exc:
        read_inspect_log(path)
    assert "sample 6 'addition-5': no per-sample score from scorer 'choice'" in _one_line(exc, path)


def test_epochs_of_one_sample_are_averaged_and_an_epoch_twice_is_refused(tmp_path: Path) -> None:
    log = json.loads(INSPECT[0].read_text())
    second = json.loads(json.dumps(log["samples"][0])) | {"epoch": 2}
    first_score = log["samples"][0]["scores"]["choice"]["value"]
    second["scores"]["choice"]["value"] = "I" if first_score == "C" else "C"
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log | {"samples": [*log["samples"], second]}))
    run = read_inspect_log(path)
    assert len(run.items) == len(log["samples"]) and run.items[0].score == 0.5
    path.write_text(json.dumps(log | {"samples": [*log["samples"], log["samples"][0]]}))
    with pytest.raises(ImportedRunError) as exc:
        read_inspect_log(path)
    assert "an epoch appears twice" in _one_line(exc, path)


def test_a_path_reads_as_the_runs_it_holds_whichever_harness_wrote_them(tmp_path: Path) -> None:
    lm = read_runs(LM[0])
    assert [r.tool for r in lm] == ["lm_eval"] and lm[0].items == read_lm_eval(LM[0]).items
    both = tmp_path / "out"  # one --output_path, a subfolder per model as lm-eval keeps them
    for f in LM:
        shutil.copytree(next(f.iterdir()), both / next(f.iterdir()).name)
    assert sorted(r.model for r in read_runs(both)) == sorted(read_lm_eval(f).model for f in LM)
    logs = read_runs(DATA / "inspect" / "json")
    assert [r.source for r in logs] == [str(p) for p in INSPECT]
    with pytest.raises(ImportedRunError) as exc:  # one log folder, two runs of one model: which is which?
        keyed_runs((None, r) for r in logs)
    text = str(exc.value)
    assert "also claimed by ..." in text and logs[0].source.endswith(text.split("also claimed by ...")[1])
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    with pytest.raises(ImportedRunError) as exc:
        read_runs(tmp_path / "other")
    assert "neither an lm-eval output folder" in _one_line(exc, tmp_path / "other")


@pytest.mark.parametrize(("value", "score"), [("P", 0.5), ("N", 0.0), (0.25, 0.25), (True, 1.0)])
def test_an_inspect_score_reads_as_a_share_of_the_question(tmp_path: Path, value: object, score: float) -> None:
    log = json.loads(INSPECT[0].read_text())
    log["samples"][2]["scores"]["choice"]["value"] = value
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    assert read_inspect_log(path).items[2].score == score
    log["samples"][2]["scores"]["choice"]["value"] = 1.5 if value != "P" else "X"
    path.write_text(json.dumps(log))
    with pytest.raises(ImportedRunError) as exc:
        read_inspect_log(path)
    assert "sample 3 'addition-2': scores.choice.value: not a score in [0, 1]" in (
        _one_line(exc, path))
