"""What there is to label on a split: every prediction the jury scored, with its riddle.

Read from the pipeline's own tables (run `dvc repro` first): ``data/split/<split>.parquet``,
``data/predictions/<split>/<model>.parquet`` for the models of params.yaml that take the split
(a text-only model with ``takes: [llm, demo]`` has no vlm predictions: it is skipped there) and
``data/jury/<split>.parquet``. A prediction nobody voted on for the calibration field is left
out: it has no jury-score bin, so its label could never enter the calibration pool.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sideways.annotation_app.queue import Candidate
from sideways.artifacts import paths
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import JURY, PREDICTIONS, RIDDLES, records_by
from sideways.config.params import Params
from sideways.core.errors import SidewaysError
from sideways.scoring.calibration import jury_bins

_MAGIC = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF8": "image/gif", b"RIFF": "image/webp"}


@dataclass(frozen=True)
class Item:
    """One prediction to label: the queue's view of it and what the page shows."""

    candidate: Candidate
    model_name: str
    riddle: dict[str, str | None]
    answer: str | None
    justification: str | None


def data_url(image: bytes | None) -> str | None:
    """The picture as a ``data:`` URL the page can show, or None (unknown formats are not shown)."""
    if not image:
        return None
    mime = next((m for magic, m in _MAGIC.items() if image.startswith(magic)), None)
    return None if mime is None else f"data:{mime};base64,{base64.b64encode(image).decode()}"


def _riddle(r: dict[str, object]) -> dict[str, str | None]:
    shown = ("title", "description", "answer", "solution", "justification")
    out: dict[str, str | None] = {}
    for k in shown:
        value = r.get(k)
        out[k] = value if isinstance(value, str) else None
    image = r.get("image")
    out["image"] = data_url(image if isinstance(image, bytes) else None)
    return out


def skipped(params: Params, split: str) -> str | None:
    """One line naming the models of params.yaml that do not take ``split`` (None: every model takes it)."""
    out = [m.key for m in params.models if m not in params.models_taking(split) and not m.capabilities.imported]
    if not out:
        return None
    return f"{', '.join(out)}: not labelled on {split} (their `takes:` leaves {split} out)"


def load_items(params: Params, split: str, root: Path = Path(".")) -> list[Item]:
    """Every prediction of ``split`` with a jury score for ``calibration.field``, sorted by (riddle, model),
    of the models that take ``split``."""
    field = params.calibration.field
    models = params.models_taking(split)
    if not models:
        raise SidewaysError(f"no model of params.yaml takes the {split} split: nothing to label there")
    try:
        riddles = records_by(read_table(root / paths.split_table(split), RIDDLES), "riddle_id")
        jury = read_table(root / paths.jury(split), JURY)
        preds = pd.concat([read_table(root / paths.predictions(split, m.key), PREDICTIONS) for m in models])
    except SidewaysError as exc:
        raise SidewaysError(f"{exc} (the app labels the pipeline's predictions: run `dvc repro` first)") from None
    jury = jury[jury[f"{field}_judges"] > 0]
    bins = jury_bins(jury[f"{field}_votes"].to_numpy(), jury[f"{field}_judges"].to_numpy())
    bin_of = dict(zip(zip(jury["riddle_id"], jury["model"], strict=True), bins, strict=True))
    items = []
    for p in preds.sort_values(["riddle_id", "model"]).to_dict("records"):
        key = (p["riddle_id"], p["model"])
        if key in bin_of and p["riddle_id"] in riddles:
            items.append(Item(
                Candidate(p["riddle_id"], p["model"], p["provider"], bin_of[key]),
                p["model_name"], _riddle(riddles[p["riddle_id"]]), p["answer"], p["justification"],
            ))
    return items
