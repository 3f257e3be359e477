"""The lines ``sideways push`` and ``sideways fetch`` print about missing objects, and which stages pay."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import project_params
from sideways.commands.fetch import paid_stages
from sideways.commands.remote_state import Locked, summary
from sideways.config.params import parse_params

PART = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["predict", "judge", "extract"]), PART, st.lists(PART, max_size=30)),
                max_size=30))
def test_one_line_per_output_within_the_width_and_the_rest_counted(outs):
    objects = [Locked(f"{i:032x}", out, stage) for i, (stage, out, _) in enumerate(outs)]
    objects += [Locked(f"{i:030x}{j:02x}", f"{out}/{name}", stage, out)
                for i, (stage, out, names) in enumerate(outs) for j, name in enumerate(names)]
    lines = summary(objects)
    assert all(len(line) <= 116 for line in lines)
    assert len(lines) <= 11
    outputs = {(o.stage, o.out) for o in objects}
    assert len(lines) == min(len(outputs), 10) + (len(outputs) > 10)
    if len(outputs) > 10:
        assert lines[-1] == f"... and {len(outputs) - 10} more output(s)"


def test_a_folder_names_its_files_after_the_folder():
    lines = summary([Locked("a" * 32, "data/answers/predict/llm/m.jsonl", "predict", "data/answers/predict"),
                     Locked("b" * 32, "metrics/failures/predict.json", "predict")])
    assert lines == ["predict: data/answers/predict/: 1 file(s): llm/m.jsonl", "predict: metrics/failures/predict.json"]


def test_the_simulated_default_pays_in_no_stage_and_a_real_model_or_judge_does():
    params = project_params()
    assert paid_stages(parse_params(params)) == set()
    local = {"backend": "openai-compatible", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "K",
             "provider": "local", "name": "m"}
    params["models"] = {**params["models"], "local-m": {**local, "n_hints": 0}}
    assert paid_stages(parse_params(params)) == {"predict"}
    params["jury"]["pool"]["judge-x"] = {**local, "provider": "judgeco"}  # last of the pool: no panel asks it
    assert paid_stages(parse_params(params)) == {"predict"}
    params["jury"]["pool"] = {"judge-x": {**local, "provider": "judgeco"}, **params["jury"]["pool"]}
    assert paid_stages(parse_params(params)) == {"predict", "judge"}  # first of the pool: every panel asks it
