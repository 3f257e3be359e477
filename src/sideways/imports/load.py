"""Runs read from where a user points: an lm-eval output folder, an inspect log or a folder of logs.

The one place that tells the two harnesses' files apart, so a caller names a path and gets
runs: a folder with lm-eval ``results_*.json`` files below it holds one lm-eval run per results
file (``--output_path`` keeps one subfolder per model, one results file per run); a ``.json`` or
``.eval`` file is one inspect log; any other folder is read as inspect's log directory (as
``inspect eval`` or ``inspect eval-set`` writes it), each ``.json`` or ``.eval`` log in it one run
(a ``.eval`` log converted by inspect's own tool, :mod:`~.inspect_tool`), the index files
``inspect eval-set`` writes beside them (``logs.json``, ``eval-set.json``) left out.
"""

from __future__ import annotations

from pathlib import Path

from sideways.imports.inspect_log import read_inspect_log
from sideways.imports.lm_eval import read_lm_eval
from sideways.imports.run import ImportedRun, ImportedRunError

INDEXES = frozenset({"logs.json", "eval-set.json"})  # inspect eval-set's listings, not logs


def read_runs(path: str | Path, score: str | None = None) -> list[ImportedRun]:
    """Every run at ``path``; ``score`` names the per-sample metric (lm-eval) or scorer (inspect)."""
    path = Path(path)
    if path.is_file():
        return [read_inspect_log(path, score) if path.suffix in (".json", ".eval") else read_lm_eval(path, score)]
    if not path.is_dir():
        raise ImportedRunError(f"{path}: no such run folder or log file")
    results = sorted(path.rglob("results_*.json"))
    if results:
        return [read_lm_eval(p, score) for p in results]
    logs = sorted(p for p in path.iterdir()
                  if p.suffix in (".json", ".eval") and not p.name.startswith(".") and p.name not in INDEXES)
    if not logs:
        raise ImportedRunError(f"{path}: neither an lm-eval output folder (results_*.json) nor inspect logs "
                               "(*.json, *.eval)")
    return [read_inspect_log(p, score) for p in logs]
