"""An exam on a sample (``exams.<key>.sample``) through ``dvc repro``, counted at the fake OpenAI server.

A paid model on the fake server takes the demo exam alone (33 questions), beside two simulated
models on the llm split. With ``sample: 10`` it is sent exactly 10 exam questions; raising the
sample to 15 sends exactly the 5 questions that follow in its frozen order (the first 10 are
reused, none is sent twice), and adding a model afterwards sends nothing and changes no earlier
model's design. The exam score is estimated for the whole exam, with its interval, from the sample.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from helpers.harness import edit_params, env, jobs_ran, new_repo, run
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

QUESTIONS = 33  # data/exams/demo.json


def sampled_exam(url: str):
    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        p["exams"] = {"demo": {"path": "data/exams/demo.json", "judges": 1, "sample": 10}}
        paid = {"backend": "openai-compatible", "base_url": url, "api_key_env": "LOCAL_LLM_KEY", "concurrency": 4,
                "provider": "localco", "name": "local-model-1", "n_hints": 0, "takes": ["demo"]}
        p["models"] = {"atlas-large": p["models"]["atlas-large"], "quill-max": p["models"]["quill-max"],
                       "paid-m": paid}
        p["calibration"]["posterior"] = "v1"
    return change


def exam_questions(bodies: list[dict]) -> list[str]:
    """The question each exam request asked (its prompt's text), in the order received."""
    out = []
    for body in bodies:
        text = "\n".join(str(m.get("content")) for m in body.get("messages", []))
        if "exam question" in text or "multiple-choice question" in text:
            out.append(text)
    return out


def asked(repo: Path, model: str) -> set[str]:
    return set(pd.read_parquet(repo / f"data/exam/predictions/demo/{model}.parquet")["item_id"])


def test_a_sampled_exam_asks_n_questions_and_growing_n_sends_only_the_new_ones(tmp_path):
    with FakeServer(Behaviour()) as server:
        repo = new_repo(tmp_path / "repo", sampled_exam(server.base_url))
        environ = {**env(repo), "LOCAL_LLM_KEY": "sk-fake-exam-sample"}
        run(repo, "dvc", "repro", "exam_items", "split", environ=environ)
        dry = run(repo, "sideways", "dry-run", environ=environ).stdout
        row = next(line for line in dry.splitlines() if line.startswith("localco"))  # the paid model's provider
        assert row.split()[2:6] == ["10", "0", "0", "10"], dry  # requests, cached, pulled, to send: the sample
        # the questions not asked, against the full design: every model's answer (and grades) of each
        saved = int(re.search(r"exams\.demo\.sample -(\d+) requests", dry).group(1))
        assert saved > 0 and saved % (QUESTIONS - 10) == 0 and saved >= 3 * (QUESTIONS - 10), dry
        run(repo, "dvc", "repro", environ=environ)
        first = exam_questions(server.fake.bodies)
        assert len(first) == server.fake.requests == 10  # exactly N, and nothing else asked of it
        ten = asked(repo, "paid-m")
        assert len(ten) == 10 and all(len(asked(repo, m)) == 10 for m in ("atlas-large", "quill-max"))
        design = json.loads((repo / "data/exam/samples/demo/paid-m.json").read_text())
        assert set(design["order"][:10]) == ten and len(design["order"]) == QUESTIONS

        edit_params(repo, lambda p: p["exams"]["demo"].update(sample=15))
        grown = run(repo, "dvc", "repro", environ=environ)
        questions = exam_questions(server.fake.bodies)
        assert len(questions) == server.fake.requests == 15  # the 5 new questions only
        assert max(Counter(questions).values()) == 1  # none sent twice
        fifteen = asked(repo, "paid-m")
        assert ten < fifteen and fifteen == set(design["order"][:15])  # nested: the next 5 of the same order
        assert "exam_predict@paid-m+demo" in jobs_ran(grown)

        metrics = json.loads((repo / "metrics/exams.json").read_text())["demo"]["paid-m"]
        assert (metrics["asked_n"], metrics["exam_n"]) == (15, QUESTIONS)
        assert metrics["exam_score_lo"] <= metrics["exam_score"] <= metrics["exam_score_hi"]
        assert 0 < metrics["exam_score_hi"] - metrics["exam_score_lo"] < 100
        headline = json.loads((repo / "metrics/headline_exams/demo.json").read_text())
        assert headline["paid-m"] == metrics["exam_score"]  # one estimator in every view
        shown = run(repo, "sideways", "show", environ=environ).stdout
        assert f"paid-m: exam {metrics['exam_score']:.1f} [{metrics['exam_score_lo']:.1f}, " in shown
        assert "estimated from 15 of 33 questions" in shown and max(map(len, shown.splitlines())) <= 120

        before = (repo / "data/exam/samples/demo/paid-m.json").read_bytes()
        def add_model(p: dict) -> None:
            p["models"]["quill-mini"] = {**p["models"]["quill-max"], "name": "sim-quill-mini"}
        edit_params(repo, add_model)
        run(repo, "dvc", "repro", environ=environ)
        assert server.fake.requests == 15  # nothing of the paid model sent again
        assert (repo / "data/exam/samples/demo/paid-m.json").read_bytes() == before  # frozen at its first run
        late = json.loads((repo / "data/exam/samples/demo/quill-mini.json").read_text())
        assert late["learned_from"] == ["atlas-large", "paid-m", "quill-max"]  # the models already scored
        assert len(asked(repo, "quill-mini")) == 15

        designs = {f: f.read_bytes() for f in sorted((repo / "data/exam/samples/demo").glob("*.json"))}
        scores = (repo / "metrics/exams.json").read_bytes()
        with (repo / "src/sideways/exams/__init__.py").open("a") as fh:  # a code change: every exam job runs again
            fh.write("# reformatted\n")
        again = run(repo, "dvc", "repro", environ=environ)
        assert "exam_predict@paid-m+demo" in jobs_ran(again) and server.fake.requests == 15  # nothing paid twice
        assert {f: f.read_bytes() for f in designs} == designs  # each design read back, not drawn again
        assert (repo / "metrics/exams.json").read_bytes() == scores  # the same answers, the same estimates


def test_a_sample_larger_than_the_exam_is_one_line_naming_the_field(tmp_path):
    repo = new_repo(tmp_path / "repo", lambda p: p.update(
        exams={"demo": {"path": "data/exams/demo.json", "sample": QUESTIONS + 1}}))
    proc = run(repo, "python", "stages/exam_items.py", check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "exams.demo.sample" in line]
    assert errors and errors[0].endswith(f"exams.demo.sample: {QUESTIONS + 1} questions asked, but the exam has "
                                         f"{QUESTIONS}"), proc.stderr
    assert not (repo / "data/exam/items/demo.sample.json").exists()
