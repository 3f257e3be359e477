"""Issue 27: bound to every interface, the annotation app answers only the names it was given and
wants the secret of the URL it printed; a DNS-rebinding page (foreign Host or Origin) labels nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import httpx
import pytest

from helpers import ROOT
from helpers.label_project import Served, free_port, label_project
from sideways.annotation_app.app import _CSP

TOKEN = "X-CSRF-Token"


@pytest.fixture
def project(tmp_path):
    return label_project(tmp_path / "project", n_riddles=3)


def _good(item):
    return {"item_id": item["item_id"], "answer_correct": True, "justification_correct": True}


def test_a_wildcard_bind_needs_named_hosts(project):
    # a subprocess with a timeout: a server that wrongly starts must not hang the suite
    proc = subprocess.run([sys.executable, "-m", "sideways.commands.annotate", "serve", "--split", "llm",
                           "--annotator", "ana", "--host", "0.0.0.0", "--port", str(free_port())],
                          cwd=project, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--allow-host" in proc.stderr


def test_foreign_host_or_origin_or_no_secret_writes_no_label(project):
    extra = ("--host", "0.0.0.0", "--allow-host", "labels.lan")
    with Served(project, "ana", extra=extra) as s:
        url = re.search(r"open (\S+)", s.banner).group(1)
        assert url.startswith(f"http://labels.lan:{s.port}/?key=")
        key = url.split("?key=")[1]
        rebinding = {"Host": f"evil.example:{s.port}"}
        with httpx.Client(base_url=s.url) as c:  # the attacker's page: its own Host, no cookie
            assert c.get("/api/next", headers=rebinding, params={"key": key}).status_code == 403
            assert c.get("/api/next", headers={"Host": f"labels.lan:{s.port}"}).status_code == 403  # no secret
        with httpx.Client(base_url=s.url, headers={"Host": f"labels.lan:{s.port}"}) as c:
            assert c.get("/", params={"key": key}).status_code == 200  # the printed URL: sets the cookie
            item = c.get("/api/next").json()
            for origin in ("http://evil.example", f"http://evil.example:{s.port}", "null"):
                r = c.post("/api/labels", json=_good(item), headers={TOKEN: item["token"], "Origin": origin})
                assert r.status_code == 403, origin
            foreign = c.post("/api/labels", json=_good(item),
                             headers={TOKEN: item["token"], "Host": f"evil.example:{s.port}"})
            assert foreign.status_code == 403
            assert c.post("/api/undo", headers={TOKEN: item["token"], "Origin": "http://evil.example"}).status_code == 403
            assert not (project / "data/labels/llm.jsonl").exists()  # nothing written
            ok = c.post("/api/labels", json=_good(item), headers={TOKEN: item["token"], "Origin": f"http://labels.lan:{s.port}"})
            assert ok.status_code == 200
    assert len((project / "data/labels/llm.jsonl").read_text().splitlines()) == 1


def test_ipv6_loopback_serves_and_prints_a_valid_url(project):
    with Served(project, "ana", extra=("--host", "::1")) as s:
        assert f"open http://[::1]:{s.port}/ " in s.banner
        with httpx.Client(base_url=f"http://[::1]:{s.port}") as c:
            assert c.get("/api/next").status_code == 200


def test_the_page_cannot_be_framed():
    assert "frame-ancestors 'none'" in _CSP
