"""``sideways check`` refuses a secret in a DVC remote's URL, in .dvc/config and .dvc/config.local,
with one line naming the file and the remote, never the secret."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.harness import copy_project, run
from sideways.config.remote_urls import remote_urls, url_secret, url_secret_problems

SECRET = "hunter2-s3cr3t"


@pytest.mark.parametrize("url", [f"ssh://alice:{SECRET}@host/srv/dvc", f"https://bob:{SECRET}@example.org/dvc",
                                 f"azure://container/path?sig={SECRET}", f"https://example.org/dvc?access_token={SECRET}"])
def test_a_url_with_a_secret_is_named(url):
    assert url_secret(url) is not None


@pytest.mark.parametrize("url", ["ssh://alice@host/srv/dvc", "s3://bucket/sideways", "/srv/sideways-dvc",
                                 "ssh://alice@127.0.0.1:2222/srv", "gs://bucket/x?userProject=p"])
def test_a_url_without_a_secret_passes(url):
    assert url_secret(url) is None


@pytest.mark.parametrize("where", [".dvc/config", ".dvc/config.local"])
def test_sideways_check_refuses_a_password_in_a_remote_url(tmp_path, where):
    repo = copy_project(tmp_path / "repo")
    run(repo, "dvc", "init", "--no-scm", "-f")
    local = ["--local"] if where.endswith("local") else []
    run(repo, "dvc", "remote", "add", *local, "-d", "store", f"ssh://alice:{SECRET}@127.0.0.1/srv/dvc")
    assert SECRET in (repo / where).read_text()  # DVC wrote it where we look
    proc = run(repo, "sideways", "check", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert len(out.strip().splitlines()) == 1 and max(map(len, out.splitlines())) <= 120, out
    assert f"{where}: remote 'store': its url holds a password" in out
    assert SECRET not in out


def test_sideways_check_passes_a_url_without_secret(tmp_path):
    repo = copy_project(tmp_path / "repo")
    run(repo, "dvc", "init", "--no-scm", "-f")
    run(repo, "dvc", "remote", "add", "-d", "store", "ssh://alice@127.0.0.1/srv/dvc")
    run(repo, "dvc", "remote", "modify", "--local", "store", "password", SECRET)
    assert run(repo, "sideways", "check").returncode == 0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_config_text_gives_pairs_and_never_raises(text):
    for name, url in remote_urls(text):
        assert isinstance(name, str) and isinstance(url, str)
        url_secret(url)


@settings(max_examples=100, deadline=None)
@given(name=st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30),
       password=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=20))
def test_a_password_is_found_and_never_echoed(tmp_path_factory, name, password):
    root = tmp_path_factory.mktemp("cfg")
    (root / ".dvc").mkdir()
    safe = name.replace('"', "").replace("\n", "") or "r"
    (root / ".dvc" / "config").write_text(f"['remote \"{safe}\"']\n    url = ssh://u:{password}@h/p\n")
    problems = url_secret_problems(root)
    assert len(problems) == 1 and "a password" in problems[0]
    assert f"u:{password}@" not in problems[0]


def test_only_remote_sections_count(tmp_path):
    (tmp_path / ".dvc").mkdir()
    (tmp_path / ".dvc" / "config").write_text(
        "[core]\n    remote = store\n['remote \"store\"']\n    url = s3://b/p\n[cache]\n    url = ssh://u:p@h/x\n")
    assert url_secret_problems(tmp_path) == []
