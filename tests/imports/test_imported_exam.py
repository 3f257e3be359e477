"""An exam whose answers and grades come from runs made elsewhere (``exams.<key>.source: imported``):
its params, the models its runs become, the tables exam_items writes from the files lm-evaluation-harness
and inspect_ai wrote (tests/data/imported), and every way its runs can be wrong, each one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from helpers.harness import run_stage
from sideways.artifacts import paths
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.config.params import load_params, parse_params
from sideways.config.preflight import check_project
from sideways.core.errors import ParamsError
from sideways.imports.exam import imported_exam
from sideways.imports.inspect_log import read_inspect_log
from sideways.imports.lm_eval import read_lm_eval
from sideways.imports.run import ImportedRunError

DATA = Path(__file__).resolve().parents[1] / "data" / "imported"
LM = [DATA / "lm_eval" / f"seed{s}" for s in (1, 2)]
INSPECT = sorted((DATA / "inspect" / "json").glob("*.json"))


def project(root: Path, default_params: dict, runs: dict[str, Path], **exam: object) -> Path:
    """A project holding copies of ``runs`` under data/exams/arith/<key> and an imported exam of them."""
    named = {}
    for key, src in runs.items():
        dest = root / "data" / "exams" / "arith" / (key + src.suffix)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest)
        named[key] = dest.relative_to(root).as_posix()
    default_params["exams"] = {"arith": {"source": "imported", "runs": named, **exam}}
    (root / "params.yaml").write_text(yaml.safe_dump(default_params, sort_keys=False))
    return root


def test_each_run_is_a_model_that_takes_the_imported_exam_and_nothing_else(default_params):
    default_params["exams"]["arith"] = {"source": "imported", "runs": {"base": "data/exams/a/1", "tuned": "x/2"}}
    p = parse_params(default_params)
    assert [m.key for m in p.models_taking("arith")] == ["base", "tuned"]
    base = p.model("base")
    assert base.backend == "imported" and base.takes == ("arith",) and base.capabilities.imported
    assert not any(p.takes(base, b) for b in ("llm", "vlm", "demo"))
    natives = [m for m in p.models if not m.capabilities.imported]
    assert natives and not any(p.takes(m, "arith") for m in natives)  # nothing is asked of a model there
    assert p.exams["arith"].runs == (("base", "data/exams/a/1"), ("tuned", "x/2"))


def test_one_run_key_in_two_imported_exams_is_one_model_taking_both(default_params):
    default_params["exams"] |= {"a": {"source": "imported", "runs": {"base": "r1"}},
                                "b": {"source": "imported", "runs": {"base": "r2"}}}
    p = parse_params(default_params)
    assert p.model("base").takes == ("a", "b") and [m.key for m in p.models if m.key == "base"] == ["base"]


@pytest.mark.parametrize(("exam", "message"), [
    ({"runs": {"atlas-large": "r"}}, r"exams\.arith\.runs\.atlas-large: models: has a model of this key"),
    ({"runs": {"Atlas-Large": "r"}}, r"exams\.arith\.runs\.Atlas-Large: models: has a model of this key"),
    ({"runs": {}}, r"exams\.arith\.runs: name at least one run"),
    ({"runs": ["r1", "r2"]}, r"exams\.arith\.runs: expected a mapping"),
    ({"runs": {"a.b": "r"}}, r"exams\.arith\.runs: run key 'a\.b' must be letters, digits"),
    ({"runs": {"base": "/tmp/run"}}, r"exams\.arith\.runs\.base: /tmp/run: a path inside the project"),
    ({"runs": {"base": "../run"}}, r"exams\.arith\.runs\.base: \.\./run: a path inside the project"),
    ({"runs": {"base": "r"}, "judges": 2}, r"exams\.arith\.judges: only with source: json or hf "
                                           r"\(this exam has source: imported\)"),
    ({"runs": {"base": "r"}, "sample": 10}, r"exams\.arith\.sample: only with source: json or hf"),
    ({"path": "data/exams/demo.json"}, r"exams\.arith\.path: only with source: json"),
])
def test_a_wrong_imported_exam_is_one_line_naming_the_key(default_params, exam, message):
    default_params["exams"]["arith"] = {"source": "imported", **exam}
    with pytest.raises(ParamsError, match=message):
        parse_params(default_params)


def test_run_keys_differing_only_by_case_are_refused(default_params):
    default_params["exams"] |= {"a": {"source": "imported", "runs": {"base": "r1"}},
                                "b": {"source": "imported", "runs": {"Base": "r2"}}}
    with pytest.raises(ParamsError, match=r"exams\.b\.runs\.Base: differs from run key base only by case"):
        parse_params(default_params)


def test_a_model_of_models_cannot_take_an_imported_exam(default_params):
    default_params["exams"]["arith"] = {"source": "imported", "runs": {"base": "r"}}
    default_params["models"]["atlas-large"]["takes"] = ["llm", "arith"]
    with pytest.raises(ParamsError, match=r"models\.atlas-large\.takes: 'arith' is an imported exam, taken only"):
        parse_params(default_params)


def test_imported_is_not_a_backend_models_may_name(default_params):
    default_params["models"]["mine"] = {"backend": "imported", "provider": "x"}
    with pytest.raises(ParamsError, match=r"models\.mine\.backend: .*'imported'"):
        parse_params(default_params)


def test_two_runs_under_one_key_are_refused_naming_the_line(tmp_path, default_params):
    project(tmp_path, default_params, {"base": LM[0]})
    text = (tmp_path / "params.yaml").read_text()
    text = text.replace("      base: data/exams/arith/base\n",
                        "      base: data/exams/arith/base\n      base: data/exams/arith/other\n")
    (tmp_path / "params.yaml").write_text(text)
    with pytest.raises(ParamsError, match=r"params\.yaml:\d+: key 'base' appears twice in one mapping"):
        load_params(tmp_path / "params.yaml")


def test_a_missing_run_is_named_by_the_check(tmp_path, default_params):
    project(tmp_path, default_params, {"base": LM[0]})
    shutil.rmtree(tmp_path / "data/exams/arith/base")
    with pytest.raises(ParamsError, match=r"params\.yaml: exams\.arith\.runs\.base: data/exams/arith/base: no such "
                                          r"run folder or log file$"):
        check_project(tmp_path / "params.yaml")


def test_the_tables_are_the_runs_own(tmp_path, default_params):
    project(tmp_path, default_params, {"base": LM[0], "tuned": LM[1], "mock": INSPECT[0]})
    got = imported_exam(load_params(tmp_path / "params.yaml").exams["arith"], tmp_path)
    lm, mock = read_lm_eval(LM[0]), read_inspect_log(INSPECT[0])
    assert set(got.predictions) == set(got.grades) == {"base", "tuned", "mock"}
    assert set(got.items["item_id"]) == {i.item_id for i in lm.items} | {i.item_id for i in mock.items}
    assert len(got.grades["mock"]) == len(mock.items) and len(got.grades["tuned"]) == len(lm.items)
    base = got.grades["base"].set_index("item_id")["earned"]
    assert base.to_dict() == {i.item_id: i.score for i in lm.items}
    assert list(got.predictions["base"]["model_name"].unique()) == [lm.model]
    assert set(got.grades["mock"]["judge"]) == {"inspect"} and set(got.grades["base"]["judge"]) == {"lm_eval"}
    assert set(got.items.loc[got.items["item_id"].str.startswith("sideways_arith/"), "topic"]) == {
        "addition", "subtraction", "multiplication", "comparison"}  # the samples' subjects: the clusters


def test_a_path_holding_two_runs_under_one_key_is_refused(tmp_path, default_params):
    both = tmp_path / "both"
    for folder in LM:
        shutil.copytree(folder, both / folder.name)
    project(tmp_path, default_params, {"base": both})
    with pytest.raises(ImportedRunError, match=r"^data/exams/arith/base: 2 runs \(results_.*\), but "
                                               r"exams\.arith\.runs\.base is one model: name one run per key$"):
        imported_exam(load_params(tmp_path / "params.yaml").exams["arith"], tmp_path)


def test_exam_items_writes_the_items_and_each_runs_tables(tmp_path, default_params):
    project(tmp_path, default_params, {"base": LM[0], "tuned": LM[1]})
    proc = run_stage(tmp_path, "exam_items", tmp_path / "home")
    assert proc.returncode == 0, proc.stderr
    items = read_table(tmp_path / paths.exam_items("arith"), EXAM_ITEMS)
    assert len(items) == 80 and set(items["kind"]) == {"short_answer"} and (items["points"] == 1).all()
    for key in ("base", "tuned"):
        predictions = read_table(tmp_path / paths.exam_imported("arith", key, "exam_predict"), EXAM_PREDICTIONS)
        grades = read_table(tmp_path / paths.exam_imported("arith", key, "exam_judge"), EXAM_GRADES)
        assert list(predictions["item_id"]) == list(grades["item_id"]) == sorted(items["item_id"])
        assert set(predictions["model"]) == set(grades["model"]) == {key}
    first = (tmp_path / paths.exam_imported("arith", "base", "exam_judge")).read_bytes()
    assert run_stage(tmp_path, "exam_items", tmp_path / "home").returncode == 0
    assert (tmp_path / paths.exam_imported("arith", "base", "exam_judge")).read_bytes() == first  # same bytes


def test_exam_items_names_a_truncated_run_in_one_line(tmp_path, default_params):
    project(tmp_path, default_params, {"base": LM[0], "tuned": LM[1]})
    samples = next((tmp_path / "data/exams/arith/tuned").rglob("samples_sideways_arith_2*.jsonl"))
    data = samples.read_bytes()
    samples.write_bytes(data[: len(data) // 2])  # cut inside a line
    proc = run_stage(tmp_path, "exam_items", tmp_path / "home")
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    rel = samples.relative_to(tmp_path).as_posix()
    assert len(lines) == 1 and lines[0].startswith("error: " + rel) and "line " in lines[0], proc.stderr
    assert not (tmp_path / paths.exam_items("arith")).exists()  # nothing of the exam half-written


def test_the_annotation_app_does_not_list_runs_as_models_left_out_of_a_split(default_params):
    from sideways.annotation_app.items import skipped

    default_params["models"]["atlas-large"]["takes"] = ["vlm"]
    default_params["exams"]["arith"] = {"source": "imported", "runs": {"base": "r"}}
    assert skipped(parse_params(default_params), "llm") == "atlas-large: not labelled on llm (their `takes:` leaves llm out)"
