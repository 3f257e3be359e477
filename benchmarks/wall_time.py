"""Wall time of a full ``dvc repro`` with M batch models, in units of the batch latency L (issue 19).

For each M, a fresh temporary copy of the project (the files git would ship, its own git
repository, DVC's config and site cache, Hugging Face caches offline, all under the copy)
gets a params.yaml with M batch models on the OpenAI Batch API on both splits, and a jury
pool of 3 batch judges of other providers (Doubleword, Groq, Mistral), so every model's
panel is those k = 3 judges. Every provider is a fake on 127.0.0.1
(:mod:`sideways.testing.fake_batch_provider`) whose batches complete L seconds after creation;
the stages reach them through a ``sitecustomize`` on their PYTHONPATH. Then ``dvc repro`` runs
once, from nothing, and the script prints for each M the wall time, wall / L, the batches the
fakes created, the most batches in flight at one moment, and the rounds (a round starts when a
batch is created while none is in flight): wall - rounds x L is what the run spent besides
waiting for batches (DVC, stage start-up, our code).

It edits only params.yaml and runs DVC, so it measures whatever dvc.yaml layout the copy has:
per-model stages run their batches one after another (about M x (1 + k) x L per split, plus
the exams'), stages that put every job of a step in flight at once about one L per step.

    PYTHONPATH=src python benchmarks/wall_time.py --models 1,4,16 --latency 10
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import yaml

from sideways.config.params import raw_params
from sideways.testing.fake_batch_provider import HOSTS_VAR, FakeBatchServer, hosts, write_sitecustomize
from sideways.testing.openai_server import Behaviour, FakeServer

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
JUDGES = ("doubleword", "groq", "mistral")
KEYS = {"OPENAI_API_KEY": "sk-fake-openai", "DOUBLEWORD_API_KEY": "fake-dw", "GROQ_API_KEY": "fake-groq",
        "MISTRAL_API_KEY": "fake-mistral"}


def copy_project(dest: Path) -> Path:
    """The files git would ship (tracked, and untracked but not ignored), copied into ``dest``."""
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, names):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    (dest / ".dvc").mkdir(exist_ok=True)
    return dest


def params(base: dict[str, Any], m: int, latency: float, online: int = 0, base_url: str = "") -> dict[str, Any]:
    """``base`` with M OpenAI batch models (and ``online`` models on the fake OpenAI-compatible
    server at ``base_url``) and a pool of 3 batch judges of other providers."""
    out = dict(base)
    out["models"] = {f"bench-{i:02d}": {"backend": "batch", "provider": "openai", "name": f"bench-model-{i:02d}",
                                        "n_hints": 0} for i in range(m)}
    out["models"].update({f"online-{i:02d}": {"backend": "openai-compatible", "provider": "local",
                                              "name": f"online-model-{i:02d}", "n_hints": 0, "base_url": base_url,
                                              "concurrency": 8} for i in range(online)})
    out["jury"] = {**base["jury"], "judges": len(JUDGES),
                   "pool": {f"judge-{p}": {"backend": "batch", "provider": p, "name": f"{p}-judge"} for p in JUDGES}}
    poll = max(0.2, min(2.0, latency / 20))
    out["requests"] = {**base["requests"], "batch_window_s": 0.5, "batch_poll_s": poll, "max_failure_share": 1.0}
    out["calibration"] = {**base["calibration"], "empty_bin": "nearest"}
    out["annotations"] = {**base["annotations"], "source": "file"}
    return out


def write_labels(repo: Path, models: list[str]) -> None:
    """Human labels of every model's prediction of every demo riddle, right and wrong in turn
    (simulated annotators label only simulated models; calibration needs labels in each split)."""
    riddles = [json.loads(line) for line in (repo / "data" / "riddles" / "demo.jsonl").read_text().splitlines() if line]
    labels = repo / "data" / "labels"
    for split in {r["split"] for r in riddles}:
        rows = [{"riddle_id": r["riddle_id"], "model": m, "provider": "openai", "human_answer_correct": i % 2 == 0,
                 "human_justification_correct": i % 2 == 0, "annotator": "bench", "timestamp": "2026-01-01T00:00:00Z"}
                for i, r in enumerate(x for x in riddles if x["split"] == split) for m in models]
        (labels / f"{split}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def environment(repo: Path, shim: Path, targets: dict[str, str]) -> dict[str, str]:
    """An isolated environment: the copy's code first, DVC and Hugging Face state under ``repo/../home``."""
    home = repo.parent / "home"
    env = {**os.environ, **KEYS}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=f"{repo / 'src'}{os.pathsep}{shim}",
               DVC_NO_ANALYTICS="1", DVC_GLOBAL_CONFIG_DIR=str(home / "dvc-global"),
               DVC_SYSTEM_CONFIG_DIR=str(home / "dvc-system"), DVC_SITE_CACHE_DIR=str(home / "dvc-site-cache"),
               SIDEWAYS_PROGRESS="0", HF_HOME=str(home / "hf"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@example.invalid", **{HOSTS_VAR: json.dumps(targets)})
    return env


def measure(m: int, latency: float, keep: bool, online: int = 0) -> dict[str, Any]:
    """One full ``dvc repro`` with ``m`` batch models: wall seconds and batches created per provider."""
    tmp = Path(tempfile.mkdtemp(prefix=f"sideways-wall-{m}-"))
    repo = copy_project(tmp / "repo")
    base = raw_params(repo / "params.yaml")[0]
    with ExitStack() as stack:
        server = stack.enter_context(FakeServer(Behaviour(latency_s=0.05, keep_bodies=False)))
        edited = params(base, m, latency, online, server.base_url)
        (repo / "params.yaml").write_text(yaml.safe_dump(edited, sort_keys=False))
        write_labels(repo, list(edited["models"]))
        servers = [stack.enter_context(FakeBatchServer(p, latency)) for p in ("openai", *JUDGES)]
        env = environment(repo, write_sitecustomize(tmp / "shim"), hosts(servers))
        for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "bench"]):
            subprocess.run(cmd, cwd=repo, env=env, check=True, capture_output=True)
        start = time.monotonic()
        proc = subprocess.run([str(BIN / "dvc"), "repro"], cwd=repo, env=env, capture_output=True, text=True)
        wall = time.monotonic() - start
        batches = {s.fake.dialect.name: s.fake.created for s in servers}
        logs = [b for s in servers for b in s.fake.log]
    if proc.returncode != 0:
        sys.exit(f"dvc repro failed with M={m} (copy kept in {tmp}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    if not keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"m": m, "wall": wall, "batches": batches, **waves(logs)}


def waves(logs: list[Any]) -> dict[str, int]:
    """The most batches in flight at one moment, and the rounds: a new round starts when a batch
    is created while no other is in flight (so the run waited for the rounds one after another)."""
    def end(b: Any) -> float:
        return float(b.collected_at or b.completes_at)

    most = max((sum(1 for o in logs if o.created_at <= b.created_at < end(o)) for b in logs), default=0)
    rounds, until = 0, float("-inf")
    for b in sorted(logs, key=lambda b: b.created_at):
        if b.created_at >= until:
            rounds += 1
        until = max(until, end(b))
    return {"most_in_flight": most, "rounds": rounds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--models", default="1,4,16", help="comma-separated numbers of batch models")
    parser.add_argument("--latency", type=float, default=10.0, help="seconds from a batch's creation to its completion")
    parser.add_argument("--online", type=int, default=0,
                        help="also this many models on a fake OpenAI-compatible server (50 ms per reply)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copies")
    args = parser.parse_args(argv)
    print(f"L = {args.latency:g} s, k = {len(JUDGES)} batch judges per panel, splits llm and vlm, "
          f"{args.online} online model(s) besides", flush=True)
    print(f"{'M':>3}  {'wall s':>8}  {'wall/L':>7}  {'batches':>7}  {'most in flight':>14}  {'rounds':>6}  "
          f"{'wall - rounds x L':>17}  per provider", flush=True)
    for m in (int(x) for x in args.models.split(",")):
        r = measure(m, args.latency, args.keep, args.online)
        per = ", ".join(f"{p} {n}" for p, n in r["batches"].items())
        print(f"{m:>3}  {r['wall']:>8.1f}  {r['wall'] / args.latency:>7.2f}  {sum(r['batches'].values()):>7}  "
              f"{r['most_in_flight']:>14}  {r['rounds']:>6}  {r['wall'] - r['rounds'] * args.latency:>17.1f}  {per}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
