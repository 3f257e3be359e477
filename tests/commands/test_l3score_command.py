"""``sideways l3score`` against the real local server: the seed's examples, cost, cache, inputs."""

from __future__ import annotations

import json
import math

import pytest
import yaml

from sideways.cli import main

PRICE = ["--input-per-mtok", "0.15", "--output-per-mtok", "0.6"]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def l3(capsys, server, *args: str) -> tuple[int, dict, str]:
    code = main(["l3score", "--model", "gpt-4o-mini", "--base-url", server.base_url, *args])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def seed_files(here):
    return ["--questions", write(here / "q.txt", ["What is the capital of France?", "", "What is the capital of Germany?"]),
            "--predictions", write(here / "p.txt", ["Paris", "Moscow"]),
            "--references", write(here / "r.txt", ["Paris", "Berlin"])]


def test_the_seeds_examples_with_a_confident_judge(here, server, capsys):
    code, result, _ = l3(capsys, server, *seed_files(here), *PRICE, "--items")
    assert code == 0 and result["n"] == 2
    paris, moscow = (item["score"] for item in result["items"])
    assert paris > 0.99 and moscow < 0.01
    assert paris == pytest.approx(math.exp(-0.0001) / (math.exp(-0.0001) + math.exp(-9.5)), abs=1e-12)
    assert result["L3Score"] == pytest.approx((paris + moscow) / 2, abs=1e-15)  # 0.49..., as in the seed


def test_cost_comes_from_usage_and_prices_and_a_rerun_pays_nothing(here, server, capsys):
    _, first, _ = l3(capsys, server, *seed_files(here), *PRICE)
    prompts = [body["messages"][0]["content"] for body in server.fake.bodies]
    tokens_in = sum(max(1, len(p) // 4) for p in prompts)  # what the fake server reports as usage
    assert first["Cost"] == pytest.approx((tokens_in * 0.15 + 2 * 0.6) / 1e6, abs=1e-15)
    assert set(first) == {"L3Score", "Cost", "n"}
    _, again, err = l3(capsys, server, *seed_files(here), *PRICE)
    assert server.fake.requests == 2 and again == {**first, "Cost": 0.0}
    assert "0 sent, 2 from the request cache" in err
    assert (here / ".sideways/cache").is_dir()  # params.yaml's default cache_dir


def test_prices_and_cache_dir_come_from_the_params_file(here, server, capsys):
    (here / "params.yaml").write_text(yaml.safe_dump({"models": {"m": {"backend": "sim", "provider": "p",
                                                                       "skill": 0.5}},
                                                      "jury": {"judges": 1, "pool": {"j": {"backend": "sim",
                                                                                           "provider": "q"}}},
                                                      "requests": {"cache_dir": "elsewhere"},
                                                      "prices": {"gpt-4o-mini": {"input_per_mtok": 1.0,
                                                                                 "output_per_mtok": 1.0}}}))
    _, result, _ = l3(capsys, server, *seed_files(here))
    tokens = sum(max(1, len(b["messages"][0]["content"]) // 4) + 1 for b in server.fake.bodies)
    assert result["Cost"] == pytest.approx(tokens / 1e6, abs=1e-15) and (here / "elsewhere").is_dir()


def test_unpriced_model_reports_a_null_cost_and_says_why(here, server, capsys):
    _, result, err = l3(capsys, server, *seed_files(here))
    assert result["Cost"] is None and "no price for 'gpt-4o-mini'" in err


def test_one_jsonl_file_gives_all_three_fields(here, server, capsys):
    rows = [{"question": "Capital of France?", "prediction": "paris", "reference": "Paris"},
            {"question": "Capital of Italy?", "prediction": "Milan", "reference": "Rome"}]
    path = write(here / "items.jsonl", [json.dumps(r) for r in rows])
    _, by_file, _ = l3(capsys, server, "--jsonl", path, "--items")
    assert [i["score"] > 0.99 for i in by_file["items"]] == [True, False]
    _, by_field, _ = l3(capsys, server, "--questions", path, "--predictions", path, "--references", path)
    assert by_field["L3Score"] == by_file["L3Score"]


@pytest.mark.parametrize(("files", "message"), [
    ({"q.txt": ["a", "b"], "p.txt": ["x"], "r.txt": ["y", "z"]}, "do not line up: 2 questions in q.txt, 1 predictions"),
    ({"q.jsonl": ['{"question": "a"}', "{oops"], "p.txt": ["x", "x"], "r.txt": ["y", "y"]}, r"q.jsonl: line 2: not valid JSON"),
    ({"q.jsonl": ['{"question": 3}'], "p.txt": ["x"], "r.txt": ["y"]}, r"q.jsonl:1: field 'question' should be"),
])
def test_inputs_that_do_not_line_up_are_named(here, server, capsys, files, message):
    for name, lines in files.items():
        write(here / name, lines)
    q, p, r = files
    code = main(["l3score", "--model", "m", "--base-url", server.base_url,
                 "--questions", q, "--predictions", p, "--references", r])
    assert code == 2 and message in capsys.readouterr().err and server.fake.requests == 0


def test_a_missing_key_is_named_before_anything_is_sent(here, server, capsys, monkeypatch):
    monkeypatch.delenv("L3_TEST_KEY", raising=False)
    code = main(["l3score", "--model", "m", "--base-url", server.base_url, "--api-key-env", "L3_TEST_KEY",
                 *seed_files(here)])
    assert code == 2 and "L3_TEST_KEY is not set" in capsys.readouterr().err and server.fake.requests == 0
