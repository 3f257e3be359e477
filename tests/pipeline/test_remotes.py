"""Results shared through real remotes, as the README sets them up: S3 and SSH servers on 127.0.0.1.

Machine A reproduces a project whose model and judges are paid (the fake OpenAI-compatible
server) with ``make repro``, adds the remote (``dvc remote add -d store ...``, credentials in
``.dvc/config.local``) and runs ``make push``. Machine B clones it (its own HOME, no key, its
credentials in the environment or its own ``config.local``). A changes a parameter, reproduces
and pushes again; B's ``git pull && make repro`` restores every result from the remote: nothing
is sent, no stage runs. Machine C, a clone that never pulled, is refused without credentials and
runs ``sideways diff HEAD~1 HEAD`` from the remote alone. No credential reaches a tracked file.
The S3 server is moto's, with real IAM keys (a wrong one is refused); the SSH server is the OS's
sshd with throwaway keys (tests/helpers/remote_servers.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from helpers.harness import commit, edit_params, env, executed, make, new_repo, run
from helpers.model_project import KEY
from helpers.remote_servers import SSHD_HINT, find_sshd, s3_server, ssh_server
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

#: Environment variables of the outer shell that must not reach a machine: the model's key, an SSH
#: agent, and (below) any AWS setting: a machine's credentials are its own.
FOREIGN = ("LOCAL_LLM_KEY", "SSH_AUTH_SOCK")


def paid_models(base_url: str) -> Callable[[dict], None]:
    """One paid model and a panel of two paid judges on the fake server, beside a simulated model."""
    local = {"backend": "openai-compatible", "base_url": base_url, "api_key_env": "LOCAL_LLM_KEY", "concurrency": 4}

    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        p["models"] = {"local-m": {**local, "provider": "local", "name": "local-model-1", "n_hints": 0},
                       "atlas-mini": p["models"]["atlas-mini"]}
        p["jury"] = {"judges": 2, "pool": {"judge-a": {**local, "provider": "judgeco-a", "name": "judge-a-1"},
                                            "judge-b": {**local, "provider": "judgeco-b", "name": "judge-b-1"}}}
        p["requests"].update(backoff_s=0.01, max_backoff_s=0.05, timeout_s=5.0)
    return change


def machine(repo: Path, home: Path, **extra: str) -> dict[str, str]:
    """The environment of one machine: its own HOME (no ~/.ssh, no ~/.aws), no key, no outer AWS
    variable, and no instance-metadata lookup (botocore would ask 169.254.169.254 for credentials)."""
    home.mkdir(parents=True, exist_ok=True)
    out = {k: v for k, v in env(repo, home=home).items() if k not in FOREIGN and not k.startswith("AWS_")}
    return out | {"HOME": str(home), "AWS_EC2_METADATA_DISABLED": "true"} | extra


def sh(repo: Path, environ: dict[str, str], *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return run(repo, *cmd, check=check, environ=environ)


def results(repo: Path) -> dict[str, bytes]:
    """Every file a run writes that git does not track: the DVC outputs and the report."""
    tracked = set(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.split())
    return {str(p.relative_to(repo)): p.read_bytes() for top in ("data", "metrics", "plots", "report")
            for p in sorted((repo / top).rglob("*")) if p.is_file() and str(p.relative_to(repo)) not in tracked}


def assert_no_secret_tracked(repo: Path, secrets: list[str]) -> None:
    """No secret in a tracked file, nor anywhere in git's history."""
    history = subprocess.run(["git", "log", "-p", "--all"], cwd=repo, capture_output=True, text=True, check=True).stdout
    for name in subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.split():
        text = (repo / name).read_bytes()
        assert not any(s.encode() in text for s in secrets), f"a credential in the tracked file {name}"
    assert not any(s in history for s in secrets), "a credential in git's history"


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="outside CI the SSH remote's test skips without sshd")
def test_ci_has_sshd() -> None:
    assert find_sshd() is not None, f".ci/run should have installed it: {SSHD_HINT}"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer(Behaviour(expected_key=KEY)) as fake:
        yield fake


@pytest.fixture(scope="module")
def reproduced(server, tmp_path_factory) -> Path:
    """Machine A's project reproduced once by ``make repro`` (no remote yet), paid on the fake server."""
    repo = new_repo(tmp_path_factory.mktemp("origin") / "repo", paid_models(server.base_url))
    (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")  # git-ignored: A's key stays on A
    proc = make(repo, "repro", environ=machine(repo, repo.parent / "home"))
    assert {"predict", "judge"} <= executed(proc)
    assert server.fake.requests > 0
    commit(repo, "results")
    return repo


def setup_s3(s3) -> tuple[list[list[str]], Callable[[Path, dict[str, str], str], dict[str, str]], list[str]]:
    """S3: the URL and endpoint are shared (tracked); A keeps its keys in ``.dvc/config.local``,
    B and C in the environment (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``)."""
    shared = [["remote", "add", "-d", "store", f"s3://{s3.bucket}/sideways"],
              ["remote", "modify", "store", "endpointurl", s3.endpoint]]

    def credentials(repo: Path, environ: dict[str, str], who: str) -> dict[str, str]:
        if who == "a":
            sh(repo, environ, "dvc", "remote", "modify", "--local", "store", "access_key_id", s3.access_key_id)
            sh(repo, environ, "dvc", "remote", "modify", "--local", "store", "secret_access_key", s3.secret_access_key)
            return environ
        return environ | {"AWS_ACCESS_KEY_ID": s3.access_key_id, "AWS_SECRET_ACCESS_KEY": s3.secret_access_key}
    return shared, credentials, [s3.secret_access_key]


def setup_ssh(ssh, path: Path) -> tuple[list[list[str]], Callable[[Path, dict[str, str], str], dict[str, str]], list[str]]:
    """SSH: the URL (user, host, port, folder) is shared; each machine names its key in ``.dvc/config.local``."""
    shared = [["remote", "add", "-d", "store", ssh.url(path)]]

    def credentials(repo: Path, environ: dict[str, str], who: str) -> dict[str, str]:
        sh(repo, environ, "dvc", "remote", "modify", "--local", "store", "keyfile", str(ssh.keyfile))
        return environ
    private = ssh.keyfile.read_text().strip().splitlines()
    return shared, credentials, [line for line in private[1:-1] if len(line) > 20]


@pytest.fixture(params=["s3", "ssh"])
def remote(request, tmp_path):
    """(shared settings, credentials(repo, environ, machine) -> environ, secrets) of a live server."""
    if request.param == "s3":
        with s3_server(tmp_path / "s3") as s3:
            yield setup_s3(s3)
    else:
        sshd = find_sshd()
        if sshd is None:
            pytest.skip(SSHD_HINT)
        with ssh_server(tmp_path / "sshd", sshd) as ssh:
            yield setup_ssh(ssh, tmp_path / "ssh-remote")


def test_results_travel_through_the_remote_and_a_clone_pays_nothing(reproduced, server, remote, tmp_path):
    shared, credentials, secrets = remote
    a = tmp_path / "a" / "repo"
    shutil.copytree(reproduced, a, symlinks=True)
    env_a = machine(a, tmp_path / "a" / "home")
    for args in shared:
        sh(a, env_a, "dvc", *args)
    env_a = credentials(a, env_a, "a")
    commit(a, "results shared through the remote")
    make(a, "push", environ=env_a)
    paid = server.fake.requests

    # B: a fresh clone of A, no key, its own credentials, nothing in its cache
    b = tmp_path / "b" / "repo"
    sh(tmp_path, machine(tmp_path, tmp_path / "b" / "home"), "git", "clone", "-q", str(a), str(b))
    env_b = credentials(b, machine(b, tmp_path / "b" / "home"), "b")

    # A: a second revision (more human labels: no paid stage reruns), reproduced and pushed
    edit_params(a, lambda p: p["annotations"].update(share=0.8))
    assert executed(make(a, "repro", environ=env_a)) & {"predict", "judge"} == set()
    commit(a, "more labels")
    make(a, "push", environ=env_a)
    assert server.fake.requests == paid

    # B: `git pull && make repro` restores every result from the remote: no stage runs, nothing is sent
    sh(b, env_b, "git", "pull", "-q")
    proc = make(b, "repro", environ=env_b)
    assert executed(proc) == set(), proc.stdout
    assert server.fake.requests == paid, "a clone paid again"
    assert results(b) == results(a)
    assert sh(b, env_b, "git", "status", "--porcelain").stdout == ""

    # C: a clone that never pulled compares the two pushed revisions from the remote alone
    c = tmp_path / "c" / "repo"
    sh(tmp_path, machine(tmp_path, tmp_path / "c" / "home"), "git", "clone", "-q", str(a), str(c))
    denied = sh(c, machine(c, tmp_path / "c" / "home"), "dvc", "fetch", check=False)
    assert denied.returncode != 0, "the remote let in a machine without credentials"
    env_c = credentials(c, machine(c, tmp_path / "c" / "home"), "c")
    out = json.loads(sh(c, env_c, "sideways", "diff", "HEAD~1", "HEAD", "--json").stdout)
    assert out["not_compared"] == []
    assert {(r["benchmark"], r["model"]) for r in out["rows"]} >= {("llm", "local-m"), ("llm", "atlas-mini")}
    assert not (c / "data" / "predictions").exists()  # read, not checked out
    assert server.fake.requests == paid

    for repo in (a, b, c):
        assert_no_secret_tracked(repo, secrets)
    assert not any(KEY.encode() in p.read_bytes() for p in (b / "data").rglob("*") if p.is_file())
    assert os.environ.get("LOCAL_LLM_KEY") != KEY
