"""A push is finished or it fails, and a clone never silently pays (moto S3 on 127.0.0.1).

Machine A pays a model and two judges on the fake OpenAI-compatible server (``make repro``) and
shares through an S3 remote. Its push is killed (SIGKILL) once the remote holds 1, then a third,
then two thirds of the objects; each time ``make push`` afterwards exits 0 only with every result
on the remote, looked up there. Objects removed from the remote behind DVC's back (what a push
killed midway leaves while DVC's records say "pushed") are uploaded again by ``make push``; when
A's cache lacks them too, ``make push`` exits 1 naming them. Machine B, a fresh clone holding the
key, then runs ``make repro``: it stops before sending anything, naming the outputs and the remote;
so does machine C once the folders' manifests are gone from the remote too (DVC then cannot even
list the outputs, and would run the stage); ``SIDEWAYS_PAY_AGAIN=1 make repro`` pays on purpose. The fake server counts every request.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import time
from pathlib import Path

import boto3
import pytest
import yaml
from test_remotes import machine, paid_models, results

from helpers.harness import BIN, commit, executed, make, new_repo, run
from helpers.model_project import KEY
from helpers.remote_servers import s3_server
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

ANSWERS = "data/answers/predict/llm/local-m.jsonl"
PREFIX = "sideways/files/md5/"


def md5_key(data: bytes) -> str:
    digest = hashlib.md5(data).hexdigest()  # noqa: S324 - DVC's object name, not a security use
    return f"{PREFIX}{digest[:2]}/{digest[2:]}"


def md5_key_of(md5: str) -> str:
    """The object key of a hash dvc.lock records (``….dir``: a folder's manifest)."""
    return f"{PREFIX}{md5[:2]}/{md5[2:]}"


def bucket_keys(s3) -> set[str]:
    client = boto3.client("s3", endpoint_url=s3.endpoint, region_name="us-east-1",
                          aws_access_key_id=s3.access_key_id, aws_secret_access_key=s3.secret_access_key)
    keys: set[str] = set()
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=s3.bucket):
        keys |= {o["Key"] for o in page.get("Contents", [])}
    return keys


def delete(s3, keys: set[str]) -> None:
    client = boto3.client("s3", endpoint_url=s3.endpoint, region_name="us-east-1",
                          aws_access_key_id=s3.access_key_id, aws_secret_access_key=s3.secret_access_key)
    for key in keys:
        client.delete_object(Bucket=s3.bucket, Key=key)


def expected(repo: Path) -> dict[str, str]:
    """The object key of every result file a clone must restore -> its path."""
    return {md5_key(data): name for name, data in results(repo).items() if not name.startswith("report/")}


def named(path: str, text: str) -> bool:
    """Whether a line of ``text`` names ``path``: ``stage: <folder>/: N file(s): <rest of path>, ...``."""
    folder, _, rest = path.partition("/llm/")
    return any(f"{folder}/:" in line and f"llm/{rest}" in line for line in text.splitlines())


def ours(text: str, start: str) -> list[str]:
    """The lines of ``text`` from the first that begins with ``start`` (DVC's own lines are before)."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    return lines[first:]


def killed_push(repo: Path, environ: dict[str, str], s3, after: int) -> None:
    """``dvc push`` killed with SIGKILL once the bucket holds ``after`` objects (or when it ends)."""
    proc = subprocess.Popen([str(BIN / "dvc"), "push", "-j", "1"], cwd=repo, env=environ,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if len({k for k in bucket_keys(s3) if k.startswith(PREFIX)}) >= after:
                os.killpg(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.02)
    finally:
        proc.wait(30)



def key_holding_clone(tmp_path: Path, origin: Path, name: str, s3) -> tuple[Path, dict[str, str]]:
    """A fresh git clone of ``origin`` on machine ``name``: the endpoint's key in its .env, the remote's
    credentials in its environment; (its folder, that environment)."""
    repo = tmp_path / name / "repo"
    run(tmp_path, "git", "clone", "-q", str(origin), str(repo), environ=machine(tmp_path, tmp_path / name / "home"))
    (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
    return repo, machine(repo, tmp_path / name / "home", AWS_ACCESS_KEY_ID=s3.access_key_id,
                         AWS_SECRET_ACCESS_KEY=s3.secret_access_key)


def test_a_push_is_finished_or_fails_and_a_clone_never_pays_silently(tmp_path):
    with FakeServer(Behaviour(expected_key=KEY)) as server, s3_server(tmp_path / "s3") as s3:
        a = new_repo(tmp_path / "a" / "repo", paid_models(server.base_url))
        (a / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
        env_a = machine(a, tmp_path / "a" / "home")
        run(a, "dvc", "remote", "add", "-d", "store", f"s3://{s3.bucket}/sideways", environ=env_a)
        run(a, "dvc", "remote", "modify", "store", "endpointurl", s3.endpoint, environ=env_a)
        run(a, "dvc", "remote", "modify", "--local", "store", "access_key_id", s3.access_key_id, environ=env_a)
        run(a, "dvc", "remote", "modify", "--local", "store", "secret_access_key", s3.secret_access_key, environ=env_a)
        assert {"predict", "judge"} <= executed(make(a, "repro", environ=env_a))
        commit(a, "results")
        paid = server.fake.requests
        want = expected(a)
        assert ANSWERS in want.values() and len(want) > 10

        # a push killed at several points, then `make push`: finished (every result there) or failed
        for after in (1, len(want) // 3, 2 * len(want) // 3):
            delete(s3, bucket_keys(s3))
            killed_push(a, env_a, s3, after)
            proc = make(a, "push", environ=env_a, check=False)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert set(want) <= bucket_keys(s3), sorted(want[k] for k in set(want) - bucket_keys(s3))
            assert "holds all" in proc.stdout

        # results gone from the remote while DVC's records say pushed: `make push` sends them again
        lost = {k for k, name in want.items() if name.startswith(("data/answers/predict", "data/predictions"))}
        delete(s3, lost)
        proc = make(a, "push", environ=env_a, check=False)
        assert proc.returncode == 0 and lost <= bucket_keys(s3), proc.stdout + proc.stderr

        # ... and when A's cache lacks them too, `make push` fails naming them, one line each
        delete(s3, lost)
        for key in lost:
            (a / ".dvc" / "cache" / "files" / "md5" / key.removeprefix(PREFIX)).unlink()
        proc = make(a, "push", environ=env_a, check=False)
        assert proc.returncode != 0
        assert named(ANSWERS, proc.stderr) and "remote 'store'" in proc.stderr, proc.stderr
        assert max(map(len, ours(proc.stderr, "sideways push:"))) <= 120

        # B: a fresh clone holding the key; the answers cannot be restored: it stops before sending
        b, env_b = key_holding_clone(tmp_path, a, "b", s3)
        proc = make(b, "repro", environ=env_b, check=False)
        out = proc.stdout + proc.stderr
        assert server.fake.requests == paid, f"a clone paid silently:\n{out}"
        assert proc.returncode != 0 and "predict" not in executed(proc), out
        assert named(ANSWERS, out) and "remote 'store'" in out and "SIDEWAYS_PAY_AGAIN=1 make repro" in out, out
        assert max(map(len, ours(proc.stderr, "sideways fetch:"))) <= 120

        # C: the folders' manifests gone too (a push killed before it sent them): DVC cannot even list the
        # outputs ("Unable to pull data for stage"), and would run the stage; it stops before sending
        delete(s3, {md5_key_of(out["md5"]) for stage in ("predict", "judge")
                    for out in yaml.safe_load((a / "dvc.lock").read_text())["stages"][stage]["outs"]
                    if out["md5"].endswith(".dir")})
        c, env_c = key_holding_clone(tmp_path, a, "c", s3)
        proc = make(c, "repro", environ=env_c, check=False)
        out = proc.stdout + proc.stderr
        assert server.fake.requests == paid, f"a clone paid silently:\n{out}"
        assert proc.returncode != 0 and "data/answers/predict" in out and "SIDEWAYS_PAY_AGAIN=1" in out, out

        # paying again is a decision: SIDEWAYS_PAY_AGAIN=1
        proc = make(b, "repro", environ=env_b | {"SIDEWAYS_PAY_AGAIN": "1"}, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert server.fake.requests > paid
