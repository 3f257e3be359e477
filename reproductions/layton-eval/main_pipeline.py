"""The published LLM table through the MAIN pipeline: a copy of the repository made into a replay project.

Usage: python reproductions/layton-eval/main_pipeline.py PROJECT [--ppi-file FILE] [--split llm]

PROJECT is a copy of this repository (a clone, or `git worktree add`). The script rewrites its
params.yaml (riddles, splits, models, jury, annotations, calibration, exams; the rest is kept) and
models.yaml (when params.yaml names it, as by default), and writes the files they name, all
derived from the vendored calibration file (data/layton-eval-ppi-llm.figures.jsonl) by
sideways.layton_eval.project:

- data/riddles/layton-eval.jsonl: its 186 riddle ids, texts marked as placeholders (riddles.source: demo);
- data/replay/models/<key>.jsonl: each of the 9 models' predictions (backend: replay, takes: [llm]);
- data/replay/judges/<key>.jsonl: each of the 4 judges' verdicts (backend: replay, in jury.pool);
- data/labels/llm.jsonl: its human labels (annotations.source: file).

Then `cd PROJECT && dvc repro` writes metrics/leaderboard_llm.json, whose `published` scores,
intervals and ranks are ../published_llm.json digit for digit (docs/calibration.md,
"The published table from the main pipeline"; tests/pipeline/test_layton_main_dvc.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from sideways.artifacts.io import atomic_write_bytes  # noqa: E402
from sideways.layton_eval.project import replay_project  # noqa: E402
from sideways.layton_eval.source import read_ppi  # noqa: E402

PPI_FILE = HERE / "data" / "layton-eval-ppi-llm.figures.jsonl"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("project", type=Path, help="a copy of this repository, made into the replay project")
    p.add_argument("--ppi-file", type=Path, default=PPI_FILE, help="layton-eval-ppi file (default: the vendored one)")
    p.add_argument("--split", default="llm", help="the split to replay (default: llm)")
    args = p.parse_args(argv)
    params_path = args.project / "params.yaml"
    base = yaml.safe_load(params_path.read_text(encoding="utf-8"))
    project = replay_project(read_ppi(args.ppi_file, split=args.split), base, split=args.split,
                             source=str(args.ppi_file))
    for name, rows in project.files.items():
        text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
        atomic_write_bytes(args.project / name, text.encode("utf-8"))
    header = f"# Written by reproductions/layton-eval/main_pipeline.py from {args.ppi_file.name}: replay only.\n"
    params = dict(project.params)
    if base.get("models") == "models.yaml":  # the models go where params.yaml says they live
        models = yaml.safe_dump({"models": params["models"]}, sort_keys=False)
        atomic_write_bytes(args.project / "models.yaml", (header + models).encode("utf-8"))
        params["models"] = "models.yaml"
    atomic_write_bytes(params_path, (header + yaml.safe_dump(params, sort_keys=False)).encode("utf-8"))
    print(f"{args.project}: {len(project.params['models'])} replay models, "
          f"{len(project.params['jury']['pool'])} replay judges, {len(project.files)} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
