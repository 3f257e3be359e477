"""The extract stage with a model: requests through the request layer (cached, priced in the dry
run), a failed request marked for review, the replay extractor, and riddles.extract in params."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from helpers.fake_wiki import Serving, real_layout_wiki
from helpers.harness import make_project, run_stage
from helpers.request_layer import context
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import EXTRACTED, conform
from sideways.cli import main
from sideways.config.options import OpenAICompatibleOptions, ReplayOptions
from sideways.config.params import ModelSpec, parse_params
from sideways.core.errors import ParamsError
from sideways.jobs.extract import run_extraction
from sideways.sources.wiki.api import ClientSettings, WikiClient
from sideways.sources.wiki.build import build_riddles
from sideways.sources.wiki.scrape import scrape
from sideways.testing.openai_server import Behaviour, FakeServer


@pytest.fixture(scope="module")
def riddles(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    raw = tmp_path_factory.mktemp("real") / "raw"
    with Serving(real_layout_wiki()) as srv, WikiClient(ClientSettings(api_url=srv.api_url, min_interval=0)) as c:
        scrape(c, raw, data_prefix="Module:PuzzleData/")
    return build_riddles(raw)


def model(base_url: str) -> ModelSpec:
    return ModelSpec("extract", "openai-compatible", "local", "local-model-1", 0,
                     OpenAICompatibleOptions(base_url=base_url, concurrency=4))


def test_a_model_extracts_through_the_cache(riddles: pd.DataFrame, tmp_path: Path) -> None:
    with FakeServer(Behaviour(plan={"Sky Versus Clouds": ["500"] * 10})) as server:
        ctx = context(tmp_path, max_attempts=2)
        table, rows = run_extraction(riddles, model(server.base_url), ctx)
        sent = server.fake.requests
        again, _ = run_extraction(riddles, model(server.base_url), ctx)
        assert server.fake.requests == sent + 2  # only the failed request is tried again
    table = conform(table, EXTRACTED, "t").set_index("riddle_id")
    assert table.loc["wiki-301"].answer == "three" and table.loc["wiki-305"].answer == "D"
    assert table.loc["wiki-305"].justification == "As the solution explains."
    assert bool(table.loc["wiki-304"].needs_game_engine) and bool(table.loc["wiki-305"].needs_image)
    assert table.loc["wiki-303"].answer == "" and table.loc["wiki-303"].review == (
        "the model found no answer stated in the solution text")  # nothing invented
    failed = table.loc["wiki-302"]
    assert failed.answer == "" and failed.needs_review and failed.review.startswith("extraction failed: gave up after 2 attempts: HTTP 500")
    assert set(table.extracted_by) == {"local-model-1"}
    assert rows is not None and (rows.status == "ok").sum() == 5 and rows.cost_usd.notna().sum() == 5
    assert table.loc["wiki-301"].request_hash and table.loc["wiki-301"].cost_usd > 0


def test_replay_extractions(riddles: pd.DataFrame, tmp_path: Path) -> None:
    ids = list(riddles.riddle_id)
    file = pd.DataFrame({"riddle_id": ids, "answer": ["3", "6:4", "A and D", "", "D", ""],
                         "justification": ["j"] * 6, "needs_game_engine": ["false", "false", "false", "true", "false",
                                                                             "maybe"],
                         "needs_image": ["false"] * 6})
    file.to_csv(tmp_path / "x.csv", index=False)
    spec = ModelSpec("extract", "replay", "people", "our-curators", 0, ReplayOptions(path=str(tmp_path / "x.csv")))
    table, rows = run_extraction(riddles, spec, context(tmp_path))
    assert rows is not None and list(rows.status) == ["ok"] * 5 + ["parse_error"]
    assert list(table.answer) == ["3", "6:4", "A and D", "", "D", ""]
    assert list(table.needs_review) == [False, False, False, False, False, True]


def test_riddles_extract_params() -> None:
    base = {"models": {"m": {"backend": "sim", "provider": "a", "skill": 0.5}},
            "jury": {"judges": 1, "pool": {"j": {"backend": "sim", "provider": "b"}}}}
    assert parse_params(base).extractor is None
    spec = parse_params({**base, "riddles": {"extract": {"backend": "openai-compatible", "provider": "local",
                                                         "name": "m-1", "base_url": "http://127.0.0.1:1/v1"}}}).extractor
    assert spec is not None and (spec.key, spec.backend, spec.name) == ("extract", "openai-compatible", "m-1")
    with pytest.raises(ParamsError, match=r"riddles\.extract\.backend: sim cannot extract; use heuristic, batch, "):
        parse_params({**base, "riddles": {"extract": {"backend": "sim", "provider": "x"}}})
    with pytest.raises(ParamsError, match=r"riddles\.extract\.name: unknown key \(known: backend\)"):
        parse_params({**base, "riddles": {"extract": {"backend": "heuristic", "name": "x"}}})


def test_the_dry_run_prices_the_extract_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with Serving(real_layout_wiki()) as wiki, FakeServer(Behaviour()) as server:
        extract = {"backend": "openai-compatible", "provider": "local", "name": "local-model-1",
                   "base_url": server.base_url}
        project = make_project(tmp_path / "p", {"source": "wiki", "extract": extract, "wiki": {
            "api_url": wiki.api_url, "min_interval": 0.0, "contact": "https://example.org/t"}})
        assert run_stage(project, "scrape", tmp_path / "home").returncode == 0
        monkeypatch.chdir(project)
        assert main(["dry-run", "--by-model"]) == 0
        out = capsys.readouterr().out
        line = next(x for x in out.splitlines() if x.startswith("extract "))
        assert line.split()[1:8] == ["wiki", "extract", "openai-compatible", "6", "0", "0", "6"]
        assert "not priced yet: predict and judge on llm, vlm" in out and server.fake.requests == 0

        proc = run_stage(project, "extract", tmp_path / "home")
        assert proc.returncode == 0, proc.stderr
        assert server.fake.requests == 6 and "6 riddles by local-model-1" in proc.stderr
        assert main(["dry-run", "--by-model"]) == 0
        line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("extract "))
        assert line.split()[4:8] == ["6", "6", "0", "0"]  # all cached: nothing to send

        # A fresh cache: the answers that travel with the output are restored, nothing is sent.
        (project / ".sideways").rename(project / "old-cache")
        proc = run_stage(project, "extract", tmp_path / "home")
        assert proc.returncode == 0 and "6 answers restored" in proc.stderr and server.fake.requests == 6
    assert len(read_table(project / "data/extracted/riddles.parquet", EXTRACTED)) == 6
