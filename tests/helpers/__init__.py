"""Code shared by the tests (importable from any test folder: pyproject puts ``tests/`` on the path).

harness          copies of this repository driven through the real DVC CLI; stage scripts run alone
model_project    a project whose model and judges live on the fake OpenAI-compatible server
request_layer    riddles, specs and a run context for the request layer and its backends
fake_batch_apis  the providers' batch APIs, mocked with respx
fake_wiki        a MediaWiki API on 127.0.0.1 serving the fixture pages in tests/sources/wiki/pages
hub_layout       a directory laid out like the Hugging Face dataset
exact_reference  the exact interval of the stratified bootstrap, computed without sideways
browser          the OS Chromium driven by Playwright (skips with the install hint without one)
label_project    a project the annotation app can serve (no DVC), and the app as a real server process
remote_servers   DVC remotes on 127.0.0.1: moto's S3 server and the OS's sshd (skips with the install hint without one)

Fixtures (``riddles``, ``default_params``, ``server``, ``browser``) live in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sideways.config.params import raw_params

ROOT = Path(__file__).resolve().parents[2]
# The published LLM calibration file, vendored with its licence (reproductions/layton-eval/data/README.md).
PPI_LLM_FILE = ROOT / "reproductions" / "layton-eval" / "data" / "layton-eval-ppi-llm.figures.jsonl"


def project_params(root: Path = ROOT) -> dict[str, Any]:
    """``root``'s params.yaml as a mapping, the models of models.yaml inline when it names that
    file (``models: models.yaml``, the default): what a test edits and writes back as params.yaml."""
    data, _ = raw_params(root / "params.yaml")
    return dict(data)
