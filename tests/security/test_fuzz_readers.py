"""Issue 27: property-based fuzzing (Hypothesis) of every reader of outside input.

params.yaml, label files (JSONL and Parquet), exam JSON, answers files, replay files, riddle
sources and the annotation app's JSON API each get generated inputs: the real file with random
subtrees replaced or removed, random lines, random bytes, and the characters that broke things
before (U+2028, U+2029, U+0085, deep nesting, huge integers). Every input must give a result or
a one-line :class:`SidewaysError` naming the file (or a 400 naming the field), never another
exception, and nothing may be written outside the workspace the reader was given.

Runs are derandomized (the same inputs every run, no example database written), with no
deadline per input; ``EXAMPLES`` sets how many inputs each reader gets. On a 2-core machine the
module takes well under 60 s (docs/design.md, "What sideways trusts").
"""

from __future__ import annotations

import copy
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import ROOT, project_params
from sideways.core.errors import SidewaysError

EXAMPLES = {"params": 1000, "labels_jsonl": 1000, "labels_parquet": 1000, "exam": 1000, "answers": 1200,
            "replay": 1000, "replay_values": 1000, "params_keys": 1000, "riddles": 1000, "api": 2000}
COUNTS: dict[str, int] = {}


def fuzz(name: str) -> Callable[[Any], Any]:
    return settings(max_examples=EXAMPLES[name], deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


ODD = st.sampled_from(["\u2028", "\u2029", "\x85", "\r", "\x00", "\ufeff", "..", "/", "\\", "'", '"', "\n",
                       "{", "[" * 3000, "9" * 5000, "é", "NaN", "-0", "1e999"])
TEXT = st.one_of(st.text(max_size=12), ODD, st.builds("".join, st.lists(ODD, max_size=3)))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-(10**40), 10**40),
                    st.floats(allow_nan=True, allow_infinity=True), TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)), max_leaves=10)


def _replace(draw: st.DrawFn, obj: Any) -> Any:
    """``obj`` with one random subtree replaced by a random value, or one key removed."""
    if not isinstance(obj, dict | list) or not obj or draw(st.integers(0, 4)) == 0:
        return draw(VALUES)
    if isinstance(obj, dict):
        key = draw(st.sampled_from(sorted(obj, key=str)))
        if draw(st.integers(0, 5)) == 0:
            del obj[key]
        else:
            obj[key] = _replace(draw, obj[key])
    else:
        i = draw(st.integers(0, len(obj) - 1))
        obj[i] = _replace(draw, obj[i])
    return obj


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    obj = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        obj = _replace(draw, obj)
    return obj


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a few bytes flipped, cut, or inserted."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(0, len(out) - 1)))
        how = draw(st.integers(0, 2))
        if how == 0 and out:
            out[at] = draw(st.integers(0, 255))
        elif how == 1:
            del out[at:]
        else:
            out[at:at] = draw(st.binary(min_size=1, max_size=8))
    return bytes(out)


def jsonl(rows: list[Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8", "surrogatepass")


def expect(name: str, read: Callable[[], Any], *named: str) -> Any:
    """``read()``; a failure must be one SidewaysError line naming one of ``named``."""
    COUNTS[name] = COUNTS.get(name, 0) + 1
    try:
        return read()
    except SidewaysError as exc:
        message = str(exc)
        assert "\n" not in message, f"a multi-line error: {message!r}"
        assert any(n in message for n in named), f"the error names none of {named}: {message!r}"
        return None


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Any:
    yield
    print("\nfuzzed inputs per reader: " + ", ".join(f"{k} {v}" for k, v in sorted(COUNTS.items())))


# -- params.yaml ------------------------------------------------------------------------------
PARAMS = project_params()


def test_params(work: Path) -> None:
    from sideways.config.params import load_params

    path = work / "params.yaml"

    @fuzz("params")
    @given(st.one_of(mutated(PARAMS).map(lambda d: yaml.safe_dump(d, allow_unicode=True).encode()),
                     damaged(yaml.safe_dump(PARAMS).encode()), st.binary(max_size=64)))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        expect("params", lambda: load_params(path), str(path))

    run()


# -- label files --------------------------------------------------------------------------------
LABEL = {"riddle_id": "r-00", "model": "atlas-large", "provider": "openai", "human_answer_correct": True,
         "human_justification_correct": False, "annotator": "ana", "timestamp": "2026-01-01T00:00:00Z",
         "note": "ok"}
RIDDLE_IDS = pd.DataFrame({"riddle_id": ["r-00", "r-01"]})
LABEL_LINES = st.lists(st.one_of(mutated(LABEL), st.just(LABEL), mutated({"action": "undo", **LABEL})),
                       min_size=1, max_size=4)


def test_label_jsonl(work: Path) -> None:
    from sideways.annotation.labels import read_label_file
    from sideways.annotation_app.store import LabelStore

    path = work / "labels.jsonl"

    @fuzz("labels_jsonl")
    @given(st.one_of(LABEL_LINES.map(jsonl), damaged(jsonl([LABEL, LABEL])), st.binary(max_size=64)))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        expect("labels_jsonl", lambda: read_label_file(path, RIDDLE_IDS), str(path))
        expect("labels_jsonl", lambda: LabelStore(path).events(), str(path))

    run()


def _parquet(rows: list[Any]) -> bytes:
    buf = io.BytesIO()
    try:
        pd.DataFrame([r if isinstance(r, dict) else {"x": r} for r in rows]).to_parquet(buf)
    except Exception:  # a table pyarrow cannot write is not an input anyone can send
        return b""
    return buf.getvalue()


def test_label_parquet(work: Path) -> None:
    from sideways.annotation.labels import read_label_file

    path = work / "labels.parquet"
    good = _parquet([LABEL, {**LABEL, "riddle_id": "r-01"}])

    @fuzz("labels_parquet")
    @given(st.one_of(st.lists(mutated(LABEL), min_size=1, max_size=3).map(_parquet), damaged(good),
                     st.binary(max_size=64)))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        expect("labels_parquet", lambda: read_label_file(path, RIDDLE_IDS), str(path))

    run()


# -- exam JSON ----------------------------------------------------------------------------------
EXAM = json.loads((ROOT / "data/exams/demo.json").read_text())
SMALL_EXAM = {**EXAM, "questions": [q for q in EXAM["questions"] if q["type"] == "mcq"][:2]
              + [q for q in EXAM["questions"] if q["type"] != "mcq"][:1]}


def test_exam(work: Path) -> None:
    from sideways.exams.format import load_exam

    path = work / "exam.json"

    @fuzz("exam")
    @given(st.one_of(mutated(SMALL_EXAM).map(lambda d: json.dumps(d, ensure_ascii=False).encode("utf-8", "surrogatepass")),
                     damaged(json.dumps(SMALL_EXAM).encode()), st.binary(max_size=64),
                     st.integers(1, 100_000).map(lambda n: b"[" * n)))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        expect("exam", lambda: load_exam(path), str(path))

    run()


# -- answers files ------------------------------------------------------------------------------
ANSWER = {"key": "ab" * 32, "label": "predict/m/r-00", "parts": {"body": {"x": 1}}, "response": {"text": "42"},
          "error": None, "status_code": None, "input_tokens": 1, "output_tokens": 2, "cost_usd": 0.1}


def test_answers(work: Path) -> None:
    from sideways.llm.answers import read_answers, restore
    from sideways.llm.cache import RequestCache

    project = work / "answers-project"
    path = project / "data/answers/predict/llm/m.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    cache = RequestCache(project / ".sideways/cache")
    outside = work.parent

    @fuzz("answers")
    @given(st.one_of(st.lists(mutated(ANSWER), min_size=1, max_size=3).map(jsonl), damaged(jsonl([ANSWER])),
                     st.lists(TEXT.map(lambda k: {**ANSWER, "key": k}), min_size=1, max_size=2).map(jsonl),
                     st.binary(max_size=64)))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        expect("answers", lambda: restore(read_answers(path), cache), str(path))

    before = files_under(outside) - files_under(project)
    run()
    written = files_under(project) - {path}
    assert all(p.is_relative_to(cache.root) and len(p.stem) == 64 for p in written), written
    assert files_under(outside) - files_under(project) == before  # nothing outside the project


# -- replay files -------------------------------------------------------------------------------
REPLAY = {"riddle_id": "r-00", "model": "m", "answer": "42", "justification": "because"}


def test_replay(work: Path) -> None:
    from sideways.backends.replay import _normalise, _require, read_any

    suffixes = [".jsonl", ".json", ".csv", ".parquet"]

    def encode(rows: list[Any], suffix: str) -> bytes:
        if suffix == ".json":
            return json.dumps(rows, ensure_ascii=False).encode("utf-8", "surrogatepass")
        if suffix == ".csv":
            return "\n".join(",".join(map(str, r.values())) if isinstance(r, dict) else str(r) for r in rows).encode(
                "utf-8", "surrogatepass")
        return _parquet(rows) if suffix == ".parquet" else jsonl(rows)

    @fuzz("replay")
    @given(st.sampled_from(suffixes), st.one_of(
        st.lists(st.one_of(mutated(REPLAY), st.just(REPLAY)), min_size=1, max_size=3).map(lambda r: ("rows", r)),
        st.binary(max_size=64).map(lambda b: ("bytes", b))))
    def run(suffix: str, given_: tuple[str, Any]) -> None:
        path = work / f"replay{suffix}"
        kind, value = given_
        path.write_bytes(value if kind == "bytes" else encode(value, suffix))

        def read() -> Any:
            df = _normalise(read_any(path), path, ["m"])
            _require(df, ["r-00"], path, "answers")
            return df

        expect("replay", read, str(path))

    run()


# -- replay values: one rule for answers and verdicts --------------------------------------------
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-(10**40), 10**40),
              st.floats(allow_nan=False, allow_infinity=False), TEXT,
              st.sampled_from(["0", "1", "yes", " No ", "CORRECT", "incorrect", "true", "False", ""])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)), max_leaves=6)
WORDS = {"true": True, "yes": True, "correct": True, "1": True, "false": False, "no": False, "incorrect": False,
         "0": False}


def expected_answer(value: Any) -> str | None:
    """The rule: text (stripped, not empty) or a number (its decimal text); anything else is no answer."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def expected_verdict(value: Any) -> bool | None:
    """The rule: a boolean, the number 0 or 1, or one of the words (any case, spaces around)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return value == 1
    if isinstance(value, str):
        return WORDS.get(value.strip().lower())
    return None


def test_replay_values(work: Path) -> None:
    from helpers.request_layer import context, make_riddles
    from sideways.backends.replay import ReplayJudge, ReplayPredictor
    from sideways.config.options import ReplayOptions
    from sideways.config.params import JudgeSpec, ModelSpec

    riddles = make_riddles(1)
    rid = str(riddles["riddle_id"][0])
    path = work / "values.jsonl"
    model = ModelSpec("m", "replay", "acme", "acme-1", 0, ReplayOptions(path=str(path)))
    judge = JudgeSpec("j", "replay", "other", "judge-1", ReplayOptions(path=str(path)))
    predictions = pd.DataFrame({"riddle_id": [rid], "model": ["m"], "status": ["ok"]})
    ctx = context(work)

    @fuzz("replay_values")
    @given(JSON_VALUES, JSON_VALUES, JSON_VALUES, JSON_VALUES)
    def run(answer: Any, justification: Any, a: Any, j: Any) -> None:
        COUNTS["replay_values"] = COUNTS.get("replay_values", 0) + 1
        path.write_bytes(jsonl([{"riddle_id": rid, "model": "m", "answer": answer, "justification": justification,
                                 "is_answer_correct": a, "is_justification_correct": j}]))
        row = ReplayPredictor().predict(riddles, model, ctx).iloc[0]
        want = expected_answer(answer)
        assert (row["status"] == "ok") == (want is not None), (answer, row["status"])
        assert row["answer"] == want or (want is None and row["answer"] is None), (answer, row["answer"])
        if want is not None and justification is not None and not isinstance(justification, str):
            assert row["justification"] == json.dumps(justification, ensure_ascii=False)  # JSON, never a repr
        verdict = ReplayJudge().judge(riddles, predictions, judge, ctx).iloc[0]
        va, vj = expected_verdict(a), expected_verdict(j)
        ok = va is not None and vj is not None
        assert (verdict["status"] == "ok") == ok, (a, j, verdict["status"])
        if ok:
            assert (verdict["is_answer_correct"], verdict["is_justification_correct"]) == (va, vj)

    run()


# -- params.yaml with a key twice -------------------------------------------------------------------
def test_params_keys(work: Path) -> None:
    """A key written twice in any mapping of params.yaml is refused naming its line and key; the file
    with the duplicate taken out still loads as before."""
    from sideways.config.params import load_params

    path = work / "params-twice.yaml"
    lines = (ROOT / "params.yaml").read_text().splitlines(keepends=True)
    keyed = [i for i, line in enumerate(lines) if ":" in line and not line.lstrip().startswith(("#", "-"))]

    @fuzz("params_keys")
    @given(st.sampled_from(keyed), st.integers(0, 3))
    def run(at: int, later: int) -> None:
        COUNTS["params_keys"] = COUNTS.get("params_keys", 0) + 1
        line = lines[at]
        indent = len(line) - len(line.lstrip())

        def child(text: str) -> bool:
            """Inside the key's value: deeper, or a list item at the key's own indent (DVC's layout)."""
            depth = len(text) - len(text.lstrip())
            return depth > indent or (depth == indent and text.lstrip().startswith("- "))

        # the same key again, later in the same mapping (after up to `later` siblings and their children)
        end, siblings = at + 1, 0
        while end < len(lines) and (not lines[end].strip() or lines[end].lstrip().startswith("#") or child(lines[end])):
            end += 1
        while siblings < later and end < len(lines) and len(lines[end]) - len(lines[end].lstrip()) == indent:
            end += 1
            while end < len(lines) and (not lines[end].strip() or child(lines[end])):
                end += 1
            siblings += 1
        key = line.split(":")[0].strip()
        twice = lines[:end] + [" " * indent + f"{key}: 1\n"] + lines[end:]
        path.write_text("".join(twice))
        try:
            load_params(path)
        except SidewaysError as exc:
            message = str(exc)
            assert message == (f"{path}:{end + 1}: key {key!r} appears twice in one mapping "
                               "(YAML would keep only the last one, and DVC refuses the file)"), message
        else:
            raise AssertionError(f"{key} twice (line {end + 1}) was accepted")

    run()


# -- riddle sources -----------------------------------------------------------------------------
DEMO = [json.loads(line) for line in (ROOT / "data/riddles/demo.jsonl").read_text().splitlines() if line.strip()]
RIDDLES = [DEMO[0], next(r for r in DEMO if r["split"] == "vlm")]


def test_riddles(work: Path) -> None:
    from sideways.sources.demo import load_demo

    folder = work / "riddles"
    folder.mkdir(exist_ok=True)
    path = folder / "demo.jsonl"
    images = st.sampled_from([{"file": "../outside.png"}, {"file": "/etc/hostname"}, {"png_base64": "iVBORw0KGgo="},
                              {"kind": "grid", "rows": 10**6, "cols": 10**6}])
    riddle = st.one_of(mutated(RIDDLES[0]), mutated(RIDDLES[1]),
                       images.map(lambda im: {**RIDDLES[1], "image": im}))

    @fuzz("riddles")
    @given(st.one_of(st.lists(riddle, min_size=1, max_size=2).map(jsonl), damaged(jsonl(RIDDLES)),
                     st.binary(max_size=64)))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        expect("riddles", lambda: load_demo(path), str(path))

    (work / "outside.png").write_bytes(b"not reachable")
    run()


# -- the annotation app's JSON API ----------------------------------------------------------------
def test_api(work: Path) -> None:
    from helpers.label_project import label_project
    from sideways.annotation_app.items import load_items
    from sideways.annotation_app.service import BadRequest, Conflict, LabelService
    from sideways.annotation_app.store import LabelStore
    from sideways.commands.annotate import plan_for
    from sideways.config.params import load_params
    from sideways.core.jsonl import parse_line

    project = label_project(work / "app", n_riddles=4)
    here = os.getcwd()
    os.chdir(project)
    try:
        params = load_params("params.yaml")
        items = load_items(params, "llm")
    finally:
        os.chdir(here)
    service = LabelService(items, plan_for(params, "llm", items), LabelStore(project / "data/labels/llm.jsonl"), "ana")
    token = service.open_session()
    first = service.next(token)
    assert first is not None
    good = {"item_id": first["item_id"], "answer_correct": True, "justification_correct": False, "note": "n"}

    @fuzz("api")
    @given(st.sampled_from(["label", "skip", "bytes"]),
           st.one_of(mutated(good), VALUES, st.binary(max_size=64), damaged(json.dumps(good).encode())))
    def run(action: str, body: Any) -> None:
        COUNTS["api"] = COUNTS.get("api", 0) + 1
        try:
            if isinstance(body, bytes):
                body = parse_line(body, "body")
            if action != "bytes":
                (service.label if action == "label" else service.skip)(token, body)
        except BadRequest as exc:
            assert "\n" not in str(exc) and exc.field
        except (Conflict, SidewaysError) as exc:
            assert "\n" not in str(exc) and str(exc)

    run()
    assert {p.relative_to(project).parts[0] for p in files_under(project)} == {"params.yaml", "data"}
