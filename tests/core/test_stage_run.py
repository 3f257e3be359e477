"""A stage's own manners (core/stage.run): warnings as one ``warning:`` line each, said once; Ctrl-C
as one line and the resume hint with exit status 130, no traceback."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT
from helpers.harness import env

SCRIPT = """
import sys, warnings
from sideways.core import stage

def main():
    for model in ("a", "b"):
        warnings.warn("calibration: the same thing, said by two models' code")
    warnings.warn("a second thing\\nover two lines")
    print("working", file=sys.stderr)
    if sys.argv[-1] == "interrupt":
        raise KeyboardInterrupt

stage.run(main)
"""


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess:
    script = tmp_path / "calibrate.py"
    script.write_text(SCRIPT)
    return subprocess.run([sys.executable, str(script), "--split", "llm", *args], cwd=tmp_path,
                          env=env(tmp_path, src=ROOT / "src"), capture_output=True, text=True, timeout=120)


def test_warnings_are_one_line_each_said_once_after_the_work(tmp_path):
    proc = _run(tmp_path)
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [
        "working",
        "warning: calibrate@llm: calibration: the same thing, said by two models' code",
        "warning: calibrate@llm: a second thing\\nover two lines",
    ]


def test_ctrl_c_is_one_line_and_the_resume_hint(tmp_path):
    proc = _run(tmp_path, "interrupt")
    assert proc.returncode == 130
    lines = proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr and lines[0] == "working" and lines[-2:] == [
        "calibrate@llm: interrupted; the answers received so far are kept in the request cache, no output was recorded",
        "resume: `dvc repro` (or `make repro`) runs it again and sends only what was not answered"]
