"""Every command README.md shows prints within 120 columns at the default project (6 models, two
splits, one exam), run in the README's order on a reproduced copy, as wide a terminal as they
like (COLUMNS=1000): their own width must be <= 120. A command the README adds must either run
here or say below why it cannot."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

from helpers import ROOT
from helpers.harness import BIN, env

pytestmark = pytest.mark.slow

WIDTH = 120
#: commands the README shows that do not run on a reproduced copy, and why
NOT_RUN = {
    "make repro": "its steps are the commands below (check, prune, dvc repro, show)",
    "make test": "the test suite itself",
    "make check": "ruff and mypy",
    "make bench": "the benchmarks, about half an hour",
    "make push && git push": "needs a remote",
    "dvc remote add -d store s3://bucket/sideways": "an S3 bucket",
    "dvc remote modify --local store access_key_id ...": "that bucket's credentials (tests/pipeline/test_remotes.py)",
    "dvc remote modify --local store secret_access_key ...": "that bucket's credentials",
    'git add .dvc/config && git commit -m "DVC remote"': "the remote above",
    "sideways annotate serve --split llm --annotator alice": "a server, until interrupted",
    "sideways annotate import annotations/llm.jsonl": "layton-eval's label file",
}
#: the README's commands about a model of the real-model example, run with a default model
SUBSTITUTE = {"-m gpt-5-1": "-m atlas-mini"}
#: commands the README names in its prose
IN_PROSE = ["sideways diff --items", "sideways status", "sideways prune", "dvc dag --md"]


def readme_commands() -> list[str]:
    """The commands of README.md's code blocks, in order (a comment after two spaces dropped)."""
    text = (ROOT / "README.md").read_text()
    out = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        for line in block.splitlines():
            cmd = line.split("  #", 1)[0].strip()
            if re.match(r"(sideways|dvc|make|git) ", cmd) and cmd not in out:
                out.append(cmd)
    return out


def readme_diff_output() -> list[str]:
    """The lines of the `sideways diff` output README.md shows after its experiment."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```text\n(HEAD -> workspace:.*?)```", text, re.S)
    assert block, "README.md shows no `sideways diff` output after its experiment"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_commands_are_known():
    commands = readme_commands()
    assert "dvc exp run -S models.yaml:models.atlas-mini.skill=0.9" in commands
    assert "dvc metrics show metrics/exams.json" not in commands  # thousands of columns: the headline instead
    assert not [c for c in NOT_RUN if c not in commands], "NOT_RUN names a command the README no longer shows"
    assert all(c in (ROOT / "README.md").read_text() for c in IN_PROSE)


def test_every_readme_command_fits_120_columns(reproduced_copy):
    project = reproduced_copy
    wide = {}
    for cmd in [*readme_commands(), *IN_PROSE]:
        if cmd in NOT_RUN:
            continue
        for old, new in SUBSTITUTE.items():
            cmd = cmd.replace(old, new)
        args = shlex.split(cmd)
        if args[:3] == ["dvc", "exp", "show"]:
            args.append("--no-pager")
        done = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=project, env={**env(project), "COLUMNS": "1000"},
                              capture_output=True, text=True)
        assert done.returncode == 0, f"{cmd}: {done.stderr}"
        lines = [line.rstrip() for line in (done.stdout + done.stderr).splitlines()]
        if max(map(len, lines), default=0) > WIDTH:
            wide[cmd] = max(lines, key=len)
        if args[:3] == ["dvc", "metrics", "show"]:
            assert all(m in done.stdout for m in ("atlas-large", "atlas-mini", "breeze-large", "nimbus-pro",
                                                  "quill-max", "tide-open")), done.stdout
        if args == ["sideways", "diff"]:  # after the experiment: the output the README shows, line for line
            printed = set(lines)
            assert not [line for line in readme_diff_output() if line not in printed], done.stdout
        if args[:3] == ["dvc", "exp", "show"]:
            assert "78.1" in done.stdout and "66.6" in done.stdout and "…" not in done.stdout, done.stdout
    assert not wide, "\n".join(f"{c} ({len(line)} columns): {line}" for c, line in wide.items())
