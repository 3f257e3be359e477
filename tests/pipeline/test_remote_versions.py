"""Two versions compared on a second clone through a moto S3 remote, as docs/remotes.md prescribes.

Clone 1 reproduces the simulated project with ``make repro``, ``make push`` and commits; changes a
model's skill, reproduces, pushes, commits and ``git push``es to a bare repository. Clone 2 runs
``git pull && make repro`` and ``sideways diff HEAD~1 HEAD``: rows for both versions, exit 0. A
clone whose credentials are wrong gets an error, not an empty table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.harness import commit, edit_params, env, make, new_repo, run
from helpers.remote_servers import s3_server

pytestmark = pytest.mark.slow


def machine(repo: Path, home: Path, **extra: str) -> dict[str, str]:
    """One machine's environment: its own HOME, no outer AWS setting, no instance-metadata lookup."""
    home.mkdir(parents=True, exist_ok=True)
    out = {k: v for k, v in env(repo, home=home).items() if not k.startswith("AWS_")}
    return out | {"HOME": str(home), "AWS_EC2_METADATA_DISABLED": "true"} | extra


def small(p: dict) -> None:
    """The simulated default on the llm split with three models: the same stages, a shorter run."""
    p["splits"] = ["llm"]
    p["models"] = {k: p["models"][k] for k in ("atlas-mini", "nimbus-pro", "quill-max")}


def test_a_second_clone_diffs_two_pushed_versions(tmp_path):
    with s3_server(tmp_path / "s3") as s3:
        keys = {"AWS_ACCESS_KEY_ID": s3.access_key_id, "AWS_SECRET_ACCESS_KEY": s3.secret_access_key}
        one = new_repo(tmp_path / "one" / "repo", small)
        env1 = machine(one, tmp_path / "one" / "home", **keys)
        run(one, "dvc", "remote", "add", "-d", "store", f"s3://{s3.bucket}/sideways", environ=env1)
        run(one, "dvc", "remote", "modify", "store", "endpointurl", s3.endpoint, environ=env1)
        commit(one, "remote")
        bare = tmp_path / "bare.git"
        run(tmp_path, "git", "clone", "-q", "--bare", str(one), str(bare), environ=env1)
        run(one, "git", "remote", "add", "origin", str(bare), environ=env1)

        make(one, "repro", environ=env1)
        make(one, "push", environ=env1)
        commit(one, "version 1")
        run(one, "git", "push", "-q", "origin", "main", environ=env1)

        two = tmp_path / "two" / "repo"
        env2 = machine(two.parent, tmp_path / "two" / "home", **keys)
        run(tmp_path, "git", "clone", "-q", str(bare), str(two), environ=env2)
        env2 = machine(two, tmp_path / "two" / "home", **keys)

        edit_params(one, lambda p: p["models"]["atlas-mini"].update(skill=0.95))
        make(one, "repro", environ=env1)
        make(one, "push", environ=env1)
        commit(one, "version 2")
        run(one, "git", "push", "-q", "origin", "main", environ=env1)

        run(two, "git", "pull", "-q", environ=env2)
        make(two, "repro", environ=env2)
        proc = run(two, "sideways", "diff", "HEAD~1", "HEAD", "--json", environ=env2, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        out = json.loads(proc.stdout)
        assert out["not_compared"] == [], out["not_compared"]
        assert {(r["benchmark"], r["model"]) for r in out["rows"]} >= {("llm", "atlas-mini"), ("demo", "atlas-mini")}

        # a version committed and shared through git but never pushed: diff names a command of the pinned
        # DVC that exists, and exits 1; it does not guess that an exam is "in one version only"
        edit_params(one, lambda p: p["models"]["quill-max"].update(skill=0.55))
        make(one, "repro", environ=env1)
        commit(one, "version 3, not pushed")
        run(one, "git", "push", "-q", "origin", "main", environ=env1)
        run(two, "git", "pull", "-q", environ=env2)
        proc = run(two, "sideways", "diff", "HEAD~1", "HEAD", environ=env2, check=False)
        text = proc.stdout + proc.stderr
        assert proc.returncode == 1, text
        assert "dvc push --all-commits" in text and "--rev" not in text and " only; not compared" not in text, text
        assert "data/jury/llm.parquet at HEAD" in text
        assert max(map(len, text.splitlines())) <= 120, text
        dvc_help = run(two, "dvc", "push", "--help", environ=env2).stdout
        assert "--all-commits" in dvc_help
        run(one, "dvc", "push", "--all-commits", environ=env1)  # what the message says, where the data is
        proc = run(two, "sideways", "diff", "HEAD~1", "HEAD", "--json", environ=env2, check=False)
        assert proc.returncode == 0 and json.loads(proc.stdout)["not_compared"] == [], proc.stdout + proc.stderr

        # wrong credentials: an error naming the remote, not an empty table
        wrong = machine(two, tmp_path / "two" / "home", AWS_ACCESS_KEY_ID=s3.access_key_id,
                        AWS_SECRET_ACCESS_KEY="not-the-key")
        run(two, "rm", "-rf", ".dvc/cache", environ=wrong)
        bad = run(two, "sideways", "diff", "HEAD~1", "HEAD", environ=wrong, check=False)
        assert bad.returncode != 0, bad.stdout
        assert "store" in bad.stdout + bad.stderr and "not-the-key" not in bad.stdout + bad.stderr
