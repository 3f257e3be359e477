"""The command line's manners on the demo pipeline: no line over 120 columns, params checked first.

One run of the default project through plain ``dvc repro`` (what the README tells users to run),
then the commands a user types after it; and a typo in params.yaml under plain ``dvc repro``, which
the first stage, ``check``, stops before DVC deletes any stage's outputs (docs/design.md, "Params
are checked first").
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.harness import commit, executed, new_repo, run

pytestmark = pytest.mark.slow

WIDTH = 120
COMMANDS = (("show",), ("status",), ("status", "--failed"), ("dry-run",), ("dry-run", "--by-model"), ("check",),
            ("diff", "HEAD", "HEAD"), ("cache", "stats"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The default project reproduced once with plain ``dvc repro``, and what that printed."""
    repo = new_repo(tmp_path_factory.mktemp("manners") / "repo")
    proc = run(repo, "dvc", "repro")
    commit(repo, "reproduced")
    return repo, proc


def _wide(text: str) -> list[str]:
    return [f"{len(line)}: {line}" for line in text.splitlines() if len(line) > WIDTH]


def test_the_demo_pipeline_and_the_common_commands_print_no_line_over_120_columns(demo):
    repo, proc = demo
    assert {"check", "predict", "judge", "calibrate@llm", "report"} <= executed(proc)
    wide = _wide(proc.stdout + proc.stderr)
    for args in COMMANDS:
        out = run(repo, "sideways", *args, check=False)
        assert out.returncode in (0, 1), out.stderr
        wide += [f"sideways {' '.join(args)}: {w}" for w in _wide(out.stdout + out.stderr)]
    assert not wide, "\n".join(wide)


def test_dry_run_by_model_groups_the_models_that_send_nothing(demo):
    out = run(demo[0], "sideways", "dry-run", "--by-model").stdout
    assert "rows of models and judges with no request to send (zero cost; by backend: sim " in out
    assert not [line for line in out.splitlines() if line.startswith(("predict ", "judge "))], out


def _outputs(repo: Path) -> dict[str, str]:
    """Every file under the pipeline's output folders, by path: its digest."""
    found = {}
    for top in ("data", "metrics", "report"):
        for path in sorted((repo / top).rglob("*")):
            if path.is_file():
                found[str(path.relative_to(repo))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.mark.parametrize(("old", "new", "line"), [
    ("  field: both_correct", "  feild: both_correct",
     "error: params.yaml: calibration.feild: unknown key (did you mean 'field'?)"),
    ("  judges: 3\n", "  judges: 0\n", "error: params.yaml: jury.judges: 0 is out of range [1, ...]"),
])
def test_a_params_mistake_under_plain_dvc_repro_leaves_every_output_in_place(demo, tmp_path, old, new, line):
    repo = tmp_path / "repo"
    shutil.copytree(demo[0], repo, symlinks=True)
    before = _outputs(repo)
    params = (repo / "params.yaml").read_text()
    assert old in params
    (repo / "params.yaml").write_text(params.replace(old, new, 1))
    proc = run(repo, "dvc", "repro", check=False)
    assert proc.returncode != 0
    assert executed(proc) == {"check"}
    assert line in proc.stderr.splitlines(), proc.stderr
    assert "Traceback" not in proc.stderr
    after = _outputs(repo)
    # the check stage's own output is the one DVC removes before running it again
    assert {k: v for k, v in before.items() if k != "data/checked.txt"} == after
