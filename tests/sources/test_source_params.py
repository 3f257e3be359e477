"""The riddles: section of params.yaml: defaults, the repository's file, and errors naming keys."""

from __future__ import annotations

import pytest

from helpers import project_params
from sideways.config.riddles import parse_riddles
from sideways.core.errors import ParamsError


def test_defaults_are_the_published_dataset_and_a_polite_wiki_client() -> None:
    p = parse_riddles({"source": "hf"})
    assert (p.source, p.hf_dataset, p.hf_revision) == ("hf", "rvienne/layton-eval", None)
    assert p.wiki.client.api_url == "https://layton.fandom.com/api.php" and p.wiki.client.min_interval == 1.0
    assert p.wiki.categories == ("All Puzzles",) and p.wiki.title_prefix == "Puzzle:"
    assert p.wiki.region == "uk" and parse_riddles({"wiki": {"region": "us"}}).wiki.region == "us"
    with pytest.raises(ParamsError, match=r"riddles\.wiki\.region: 'fr' is not one of uk, us"):
        parse_riddles({"wiki": {"region": "fr"}})
    assert p.wiki.data_prefix == "Module:PuzzleData/"
    assert parse_riddles({"wiki": {"data_prefix": None}}).wiki.data_prefix is None
    assert (p.overrides, p.duplicate_threshold) == ("data/curation/overrides.yaml", 0.9)
    assert parse_riddles(None).source == "demo"
    assert p.wiki.client.contact == ""  # no guessed contact: scraping asks for one


def test_scraping_requires_a_contact() -> None:
    from sideways.config.riddles import require_contact

    with pytest.raises(ParamsError, match=r"p\.yaml: riddles\.wiki\.contact: set a URL or e-mail"):
        require_contact(parse_riddles({"source": "wiki", "wiki": {"contact": None}}), "p.yaml")
    require_contact(parse_riddles({"source": "wiki", "wiki": {"contact": "me@example.org"}}))


def test_repository_params_parse_with_the_demo_path() -> None:
    data = project_params()["riddles"]
    p = parse_riddles(data)
    assert p.path == data["path"] and p.wiki.client.max_retries == 5
    assert parse_riddles(None).path == "data/riddles/demo.jsonl"


def test_contract_shapes() -> None:
    assert parse_riddles({"source": "hf", "hf_dataset": "/data/hub"}).hf_dataset == "/data/hub"
    p = parse_riddles({"source": "wiki", "wiki": {"categories": "Puzzles in X", "min_interval": 2}})
    assert p.wiki.categories == ("Puzzles in X",) and p.wiki.client.min_interval == 2.0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"source": "web"}, r"riddles\.source: 'web' is not one of demo, hf, wiki"),
        ({"hf_dataset": ""}, r"riddles\.hf_dataset: expected a non-empty string"),
        ({"wiki": []}, r"riddles\.wiki: expected a mapping"),
        ({"wiki": {"min_interval": -1}}, r"riddles\.wiki\.min_interval: -1 is out of range \[0, \.\.\.\]"),
        ({"wiki": {"max_retries": 2.5}}, r"riddles\.wiki\.max_retries: expected an integer"),
        ({"wiki": {"categories": []}}, r"riddles\.wiki\.categories: expected a non-empty list"),
        ({"curation": {"duplicate_threshold": 1.5}}, r"riddles\.curation\.duplicate_threshold: 1\.5 is not in"),
        ({"curation": {"duplicate_threshold": "high"}}, r"riddles\.curation\.duplicate_threshold: expected a number"),
        ({"pth": "x.jsonl"}, r"riddles\.pth: unknown key \(did you mean 'path'\?\)"),
        ({"path": ""}, r"riddles\.path: expected a non-empty string"),
        ({"hf_revision": 3}, r"riddles\.hf_revision: expected a non-empty string"),
        ({"wiki": {"min_intervall": 2}}, r"riddles\.wiki\.min_intervall: unknown key \(did you mean 'min_interval'\?\)"),
        ({"wiki": {"timeout": 0}}, r"riddles\.wiki\.timeout: 0 is out of range"),
        ({"wiki": {"backoff": "slow"}}, r"riddles\.wiki\.backoff: expected a number"),
        ({"wiki": {"data_prefix": ""}}, r"riddles\.wiki\.data_prefix: expected a non-empty string"),
        ({"curation": {"override": "x.yaml"}}, r"riddles\.curation\.override: unknown key \(did you mean 'overrides'\?\)"),
        ({"curation": []}, r"riddles\.curation: expected a mapping"),
    ],
)
def test_errors_name_the_key(data: dict, message: str) -> None:
    with pytest.raises(ParamsError, match=r"^p\.yaml: " + message):
        parse_riddles(data, "p.yaml")
