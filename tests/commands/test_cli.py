"""The ``sideways`` command as a user meets it: help texts, ``check``, closed pipes, ``make repro``.

Issue 16: every subcommand and option is described, no developer docstring reaches ``--help``,
``sideways check`` names a params.yaml problem in one line (``make repro`` runs it before DVC),
and no traceback reaches a user, not even when the reader of a pipe stops early.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import make_riddles
from helpers import ROOT
from helpers.harness import BIN, env
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import RIDDLES
from sideways.cli import build_parser, main


def _parsers(parser: argparse.ArgumentParser, name: str = "sideways"):
    """``(name, parser)`` for the parser and every subcommand's parser, at any depth."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}")


def test_every_command_and_option_has_a_description():
    missing = []
    for name, parser in _parsers(build_parser()):
        if not parser.description:
            missing.append(f"{name}: no description")
        for action in parser._actions:
            if not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
            if isinstance(action, argparse._SubParsersAction):
                described = {a.dest for a in action._choices_actions if a.help}
                missing += [f"{name} {c}: no help line" for c in action.choices if c not in described]
    assert not missing, missing


def test_help_shows_no_developer_docstring(capsys):
    for name, parser in _parsers(build_parser()):
        text = parser.format_help()
        for marker in (":mod:", ":func:", ":class:", "``"):
            assert marker not in text, f"{name} --help shows {marker!r}"
    with pytest.raises(SystemExit):
        main(["--help"])
    assert capsys.readouterr().out.splitlines()[2].startswith("sideways: a reproducible")


def test_cache_stats_on_an_empty_cache_says_so(tmp_path, monkeypatch, capsys):
    _copy_params(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["cache", "stats"]) == 0
    assert capsys.readouterr().out == "cache: .sideways/cache is empty: no request to a real model has been answered yet\n"


def test_check_accepts_the_default_params_and_names_a_dotted_model_key(tmp_path, monkeypatch, capsys):
    _copy_params(tmp_path)
    (tmp_path / "data").symlink_to(ROOT / "data")  # the exam file params.yaml names: check reads it
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    assert capsys.readouterr().out.startswith("params.yaml: ok (6 models")
    _dotted_model(tmp_path / "params.yaml")
    assert main(["check"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sideways check: error: models.yaml: models.gpt-5.1: key must not contain a dot")
    assert len(err.splitlines()) == 1


def _copy_params(dest: Path) -> None:
    """params.yaml and the models.yaml it names."""
    for name in ("params.yaml", "models.yaml"):
        shutil.copy(ROOT / name, dest)


def _dotted_model(path: Path) -> None:
    """A dot in a model key of models.yaml, beside the params file ``path``."""
    models = yaml.safe_load((path.parent / "models.yaml").read_text())
    models["models"]["gpt-5.1"] = models["models"].pop("atlas-mini")
    (path.parent / "models.yaml").write_text(yaml.safe_dump(models))


def _project_with_splits(tmp_path: Path) -> Path:
    _copy_params(tmp_path)
    for split in ("llm", "vlm"):
        (tmp_path / "data/split").mkdir(parents=True, exist_ok=True)
        write_table(make_riddles(8, split), RIDDLES, tmp_path / f"data/split/{split}.parquet")
    return tmp_path


@pytest.mark.parametrize("args", [["dry-run", "--by-model"], ["--help"], ["cache", "stats"]])
def test_a_closed_pipe_ends_the_command_quietly(tmp_path, args):
    """``sideways dry-run | head -1``: the reader is gone before the command writes (BrokenPipeError)."""
    repo = _project_with_splits(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "sideways.cli", *args], cwd=repo, env=env(repo, src=ROOT / "src"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # long before the interpreter has imported sideways
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, 1), err
    assert err == ""


@pytest.mark.skipif(not (BIN / "sideways").exists() or shutil.which("make") is None,
                    reason="needs make and the sideways script beside this interpreter")
def test_make_repro_names_a_dotted_model_key_before_dvc_reads_params(tmp_path):
    """Without the check, DVC reads params.yaml first: "Parameters 'models.gpt-5.1' are missing"."""
    for name in ("Makefile", "params.yaml", "models.yaml", "dvc.yaml", "pyproject.toml", "scripts/find_python.sh"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    _dotted_model(tmp_path / "params.yaml")
    environ = env(tmp_path, src=ROOT / "src")
    subprocess.run([BIN / "dvc", "init", "--no-scm", "-q"], cwd=tmp_path, env=environ, check=True)
    stamp = tmp_path / "installed"
    stamp.touch()  # newer than pyproject.toml: make installs nothing
    proc = subprocess.run(["make", "repro", f"VENV={BIN.parent}", f"STAMP={stamp}"], cwd=tmp_path,
                          env=environ, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "sideways check: error: models.yaml: models.gpt-5.1: key must not contain a dot" in proc.stderr
    assert "dvc repro" not in proc.stdout and "are missing" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("stage", "edit"), [
    ("predict", lambda m: m.update(skil=m.pop("skill"))),
    ("predict", lambda m: m.update(skill="high")),
    ("judge", lambda m: m.update(skill="high")),
])
def test_a_stage_given_a_typo_prints_one_line_not_a_traceback(tmp_path, stage, edit):
    repo = _project_with_splits(tmp_path)
    models = yaml.safe_load((repo / "models.yaml").read_text())
    edit(models["models"]["atlas-mini"])
    (repo / "models.yaml").write_text(yaml.safe_dump(models))
    proc = subprocess.run([sys.executable, str(ROOT / "stages" / f"{stage}.py")],
                          cwd=repo, env=env(repo, src=ROOT / "src"), capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: models.yaml: models.atlas-mini.skil") and len(proc.stderr.splitlines()) == 1
