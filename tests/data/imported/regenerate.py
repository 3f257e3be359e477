"""Regenerate the imported-run test data with the real tools: lm-evaluation-harness and inspect_ai.

Installs nothing: run it with a Python that has both (kept out of the project's install, see
``docs/exams.md``)::

    python3.12 -m venv .venv-harness
    .venv-harness/bin/pip install "lm-eval==0.4.13" "inspect-ai==0.3.285"
    .venv-harness/bin/python tests/data/imported/regenerate.py          # or name parts: lm_eval inspect eval-set

Neither tool needs weights or a network here: lm-eval's ``dummy`` model scores every choice with
``-random.random()`` (seeded by ``--seed``), inspect's ``mockllm/model`` returns the outputs it is
given (with its token usage: counting would fetch an encoding). The questions are made here (small arithmetic, four subjects), so no dataset is fetched.
Two runs of one model each (two seeds) give a paired diff something to compare. Paths and times
that the tools write are left as they are: the readers must take the files as the tools make them.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SUBJECTS = ("addition", "subtraction", "multiplication", "comparison")
PER_SUBJECT = 10
TASK = "sideways_arith"


def questions() -> list[dict[str, Any]]:
    """Forty four-choice questions, ten per subject, the same every run."""
    rng = random.Random(61)
    rows: list[dict[str, Any]] = []
    for subject in SUBJECTS:
        for i in range(PER_SUBJECT):
            a, b = rng.randint(2, 30), rng.randint(2, 30)
            if subject == "addition":
                q, right = f"What is {a} + {b}?", a + b
            elif subject == "subtraction":
                q, right = f"What is {a} - {b}?", a - b
            elif subject == "multiplication":
                q, right = f"What is {a} * {b}?", a * b
            else:
                q, right = f"Which is larger, {a} or {b + 31}?", b + 31
            wrong = sorted({right + d for d in (-3, -1, 2, 5)} - {right})[:3]
            choices = [str(c) for c in [*wrong, right]]
            rng.shuffle(choices)
            rows.append({"id": f"{subject}-{i}", "subject": subject, "question": q,
                         "choices": choices, "answer": choices.index(str(right))})
    return rows


TASK_YAML = f"""task: {TASK}
dataset_path: json
dataset_kwargs:
  data_files:
    test: questions.jsonl
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: answer
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


GEN_YAML = f"""task: {TASK}_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: questions.jsonl
test_split: test
output_type: generate_until
doc_to_text: "{{{{question}}}}\\nAnswer:"
doc_to_target: "{{{{choices[answer]}}}}"
generation_kwargs:
  until: ["\\n"]
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


def lm_eval_runs(rows: list[dict[str, Any]]) -> None:
    """``lm_eval --model dummy`` on the questions as multiple choice (``acc``) and as generation
    (``exact_match``: the dummy always replies "lol"), twice (seeds 1 and 2), into lm_eval/seed<N>/."""
    work = HERE / "_lm_eval_task"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    (work / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (work / f"{TASK}.yaml").write_text(TASK_YAML, encoding="utf-8")
    (work / f"{TASK}_gen.yaml").write_text(GEN_YAML, encoding="utf-8")
    lm_eval = Path(sys.executable).parent / "lm_eval"
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    for seed in (1, 2):
        out = HERE / "lm_eval" / f"seed{seed}"
        shutil.rmtree(out, ignore_errors=True)
        # cwd=work: the task's data file is named relative to it, so no path of this machine is written
        subprocess.run([str(lm_eval), "--model", "dummy", "--tasks", f"{TASK},{TASK}_gen", "--include_path", ".",
                        "--output_path", str(out), "--log_samples", "--seed", f"{seed},{seed},{seed},{seed}"],
                       cwd=work, env=env, check=True)
    shutil.rmtree(work)


def inspect_runs(rows: list[dict[str, Any]]) -> None:
    """inspect's ``mockllm/model`` on the same questions, twice: its reply right with probability
    0.6 (seed 1) and 0.7 (seed 2), scored by inspect's ``choice()`` scorer; each run logged as
    ``.json`` (in inspect/json/) and as ``.eval`` (in inspect/eval/). The mock's outputs are
    picked by the question in the prompt, so the order inspect asks in does not change them."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import choice
    from inspect_ai.solver import multiple_choice

    samples = [Sample(id=str(r["id"]), input=str(r["question"]), choices=[str(c) for c in r["choices"]],
                      target="ABCD"[int(r["answer"])], metadata={"subject": r["subject"]})
               for r in rows]
    out = HERE / "inspect"
    shutil.rmtree(out, ignore_errors=True)
    for seed, p in ((1, 0.6), (2, 0.7)):
        rng = random.Random(seed)
        letter = {str(r["question"]): "ABCD"[(int(r["answer"]) + (0 if rng.random() < p else 1)) % 4]
                  for r in rows}

        def reply(messages: list[Any], *_: Any, letter: dict[str, str] = letter) -> Any:
            prompt = messages[-1].text
            asked = next(q for q in letter if q in prompt)
            output = ModelOutput.from_content("mockllm/model", f"ANSWER: {letter[asked]}")
            # usage given: else the mock counts tokens with tiktoken, which downloads its encoding
            output.usage = ModelUsage(input_tokens=len(prompt.split()), output_tokens=2,
                                      total_tokens=len(prompt.split()) + 2)
            return output

        for fmt in ("json", "eval"):
            task = Task(name=TASK, dataset=samples, solver=multiple_choice(), scorer=choice())
            eval(task, model=get_model("mockllm/model", custom_outputs=reply), log_dir=str(out / fmt),
                 log_format=fmt, display="none", seed=seed)


def inspect_eval_set(rows: list[dict[str, Any]]) -> None:
    """``inspect eval-set``'s log directory: one log per model (``mockllm/alpha`` right with probability
    0.6, ``mockllm/beta`` 0.7) in its default ``.eval`` format, with the index files it writes beside them
    (``logs.json``, ``eval-set.json``), in inspect/eval-set/."""
    from inspect_ai import Task, eval_set
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import choice
    from inspect_ai.solver import multiple_choice

    samples = [Sample(id=str(r["id"]), input=str(r["question"]), choices=[str(c) for c in r["choices"]],
                      target="ABCD"[int(r["answer"])], metadata={"subject": r["subject"]})
               for r in rows]
    out = HERE / "inspect" / "eval-set"
    shutil.rmtree(out, ignore_errors=True)
    models = []
    for seed, (name, p) in enumerate((("alpha", 0.6), ("beta", 0.7)), start=1):
        rng = random.Random(seed)
        letter = {str(r["question"]): "ABCD"[(int(r["answer"]) + (0 if rng.random() < p else 1)) % 4]
                  for r in rows}

        def reply(messages: list[Any], *_: Any, letter: dict[str, str] = letter, name: str = name) -> Any:
            prompt = messages[-1].text
            asked = next(q for q in letter if q in prompt)
            output = ModelOutput.from_content(f"mockllm/{name}", f"ANSWER: {letter[asked]}")
            output.usage = ModelUsage(input_tokens=len(prompt.split()), output_tokens=2,
                                      total_tokens=len(prompt.split()) + 2)
            return output

        models.append(get_model(f"mockllm/{name}", custom_outputs=reply))
    task = Task(name=TASK, dataset=samples, solver=multiple_choice(), scorer=choice())
    ok, _ = eval_set(task, model=models, log_dir=str(out), display="none", seed=1)
    assert ok, "inspect eval-set did not finish"


if __name__ == "__main__":
    data = questions()
    only = sys.argv[1:]  # e.g. `eval-set`: remake that part alone
    if not only or "lm_eval" in only:
        lm_eval_runs(data)
    if not only or "inspect" in only:
        inspect_runs(data)
    if not only or "eval-set" in only:
        inspect_eval_set(data)
