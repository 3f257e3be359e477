import copy

import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import project_params
from sideways.config.params import parse_params
from sideways.core.errors import ParamsError


def set_key(params: dict, path: tuple[str, ...], value: object) -> dict:
    """``params`` with the key at ``path`` (created if absent) set to ``value``."""
    node = params
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return params


def test_default_params_parse(default_params):
    p = parse_params(default_params)
    assert len(p.models) >= 6
    assert len({m.provider for m in p.models}) >= 4
    providers = [m.provider for m in p.models]
    assert any(providers.count(x) >= 2 for x in providers), "two models should share a provider"
    assert [j.provider for j in p.jury.pool] == ["openai", "gemini", "anthropic", "mistral"]
    assert p.model("atlas-large").options.skill == 0.85
    assert p.riddles.path == "data/riddles/demo.jsonl" and p.requests.max_failure_share == 0.05
    assert p.prices.prices == {}


def test_panel_excludes_own_provider_and_takes_first_three(default_params):
    p = parse_params(default_params)
    assert [j.provider for j in p.jury.panel("openai")] == ["gemini", "anthropic", "mistral"]
    assert [j.provider for j in p.jury.panel("anthropic")] == ["openai", "gemini", "mistral"]
    assert [j.provider for j in p.jury.panel("together")] == ["openai", "gemini", "anthropic"]


def test_dotted_model_key_is_rejected_by_name(default_params):
    default_params["models"]["gpt-5.1"] = default_params["models"].pop("atlas-large")
    with pytest.raises(ParamsError, match=r"models\.gpt-5\.1: key must not contain a dot"):
        parse_params(default_params)


def test_unknown_backend_names_the_key(default_params):
    default_params["models"]["atlas-mini"]["backend"] = "telepathy"
    with pytest.raises(ParamsError, match=r"models\.atlas-mini\.backend: 'telepathy' is not one of"):
        parse_params(default_params)


def test_pool_too_small_for_a_panel_names_the_model(default_params):
    del default_params["jury"]["pool"]["judge-mistral"]
    with pytest.raises(ParamsError, match=r"too small to form a panel of 3 for model 'atlas-large'"):
        parse_params(default_params)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("models", "atlas-mini", "n_hints"), 7, r"models\.atlas-mini\.n_hints: 7 is out of range"),
        (("calibration", "method"), "magic", r"calibration\.method: 'magic' is not one of"),
        (("calibration", "bootstrap"), "many", r"calibration\.bootstrap: expected an integer"),
        (("annotations", "source"), "crowd", r"annotations\.source"),
        (("splits",), ["llm", "audio"], r"splits: unknown split 'audio'"),
        (("seed",), 1.5, r"seed: expected an integer"),
        (("calibration", "field"), "answer", r"calibration\.field: 'answer' is not one of answer_correct, "),
        (("calibration", "empty_bin"), "skip", r"calibration\.empty_bin: 'skip' is not one of error, nearest"),
        (("calibration", "interval"), "hpd", r"calibration\.interval: 'hpd' is not one of posterior, published"),
        (("calibration", "posterior"), "v2", r"calibration\.posterior: 'v2' is not one of hierarchical, latent, v1"),
        (("annotations", "queue"), "fifo", r"annotations\.queue: 'fifo' is not one of lookahead, latent, uncertain, width, holes"),
        (("annotations", "share"), 1.5, r"annotations\.share: 1\.5 is out of range"),
        (("annotations", "share"), 0, r"annotations\.share: 0 labels nothing"),
        (("annotations", "first_double"), -1, r"annotations\.first_double: -1 is out of range"),
        (("annotations", "first_double"), 2.5, r"annotations\.first_double: expected an integer"),
        (("annotations", "first_double"), True, r"annotations\.first_double: expected an integer"),
        (("annotations", "per_riddle"), 3, r"annotations\.per_riddle is no longer read: write `share: <0\.\.1>` instead"),
        (("jury", "judges"), "3", r"jury\.judges: expected an integer"),
        (("riddles", "source"), "web", r"riddles\.source: 'web' is not one of demo, hf, wiki"),
        (("requests", "max_attempts"), 0, r"requests\.max_attempts: 0 is out of range"),
        (("prices",), {"m": {"input_per_mtok": "1"}}, r"prices\.m\.input_per_mtok: expected a number"),
        (("models", "atlas-mini", "provider"), "", r"models\.atlas-mini\.provider: expected a non-empty string"),
    ],
)
def test_bad_values_name_their_key(default_params, path, value, message):
    with pytest.raises(ParamsError, match=message):
        parse_params(set_key(default_params, path, value))


def test_load_params_reports_bad_yaml(tmp_path):
    from sideways.config.params import load_params

    bad = tmp_path / "params.yaml"
    bad.write_text("models: [unclosed\n")
    with pytest.raises(ParamsError, match=r"params\.yaml: not valid YAML"):
        load_params(bad)


def test_every_backend_params_accept_has_a_predictor_and_a_judge():
    from sideways.backends import judge_for, predictor_for
    from sideways.config.backends import backend_names
    from sideways.config.options import SimModelOptions
    from sideways.config.params import JudgeSpec, ModelSpec

    options = SimModelOptions(skill=0.5)  # the options do not choose the class
    for name in backend_names():  # not ``imported``: an exam's runs make those models, which nobody asks
        assert hasattr(predictor_for(ModelSpec("m", name, "p", "m", 0, options)), "predict")
        assert hasattr(judge_for(JudgeSpec("j", name, "p", "j", options)), "judge")
    with pytest.raises(ParamsError, match=r"models\.m\.backend: backend 'x' cannot predict \(backends that can: sim, "):
        predictor_for(ModelSpec("m", "x", "p", "m", 0, options))  # type: ignore[arg-type]


def test_old_jury_size_key_says_what_to_write_instead(default_params):
    default_params["jury"]["size"] = default_params["jury"].pop("judges")
    with pytest.raises(ParamsError, match=r"jury\.size is no longer read: write `judges: 3` instead"):
        parse_params(default_params)


def test_panel_follows_jury_judges(default_params):
    default_params["jury"]["judges"] = 2
    assert [j.provider for j in parse_params(default_params).jury.panel("openai")] == ["gemini", "anthropic"]


def _keys(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, str(key))
            yield from _keys(value, (*path, str(key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _keys(value, (*path, str(i)))


def test_no_params_key_anywhere_is_named_size_or_nfiles():
    """DVC's run-cache key drops params keys named ``size`` or ``nfiles`` at any depth, so a
    change to one would restore stale outputs from the run-cache (docs/design.md)."""
    import subprocess

    from helpers import ROOT

    tracked = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    files = [ROOT / f for f in tracked if f.endswith("params.yaml")]
    assert ROOT / "params.yaml" in files
    bad = [f"{f.relative_to(ROOT)}: {'.'.join(k)}" for f in files
           for k in _keys(yaml.safe_load(f.read_text())) if k[-1] in ("size", "nfiles")]
    assert not bad, f"params keys DVC's run-cache ignores: {bad}"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("models", "atlas-mini", "skil"), 0.5, r"^params\.yaml: models\.atlas-mini\.skil: unknown key \(did you mean 'skill'\?\)$"),
        (("models", "atlas-mini", "skill"), 1.5, r"models\.atlas-mini\.skill: 1\.5 is out of range \[0\.0, 1\.0\]"),
        (("models", "atlas-mini", "hint_gain"), "big", r"models\.atlas-mini\.hint_gain: expected a number"),
        (("models", "nimbus-pro", "vision_skill"), -0.1, r"models\.nimbus-pro\.vision_skill: -0\.1 is out of range"),
        (("models", "tide-open", "justification"), True, r"models\.tide-open\.justification: expected a number"),
        (("models", "atlas-mini", "base_url"), "http://x", r"models\.atlas-mini\.base_url: unknown key"),
        (("models", "atlas-mini", "api_key"), "sk-oops", r"models\.atlas-mini\.api_key: never put a key in params\.yaml"),
        (("jury", "pool", "judge-gemini", "sensitivty"), 0.9, r"jury\.pool\.judge-gemini\.sensitivty: unknown key \(did you mean 'sensitivity'\?\)"),
        (("jury", "pool", "judge-gemini", "skill"), 0.9, r"jury\.pool\.judge-gemini\.skill: unknown key"),
        (("jury", "pool", "judge-gemini", "failure_rate"), 2, r"jury\.pool\.judge-gemini\.failure_rate: 2 is out of range"),
        (("jury", "pool", "judge-gemini", "self_bias"), -2, r"jury\.pool\.judge-gemini\.self_bias: -2 is out of range"),
        (("jury", "pool", "judge-gemini", "token"), "t", r"jury\.pool\.judge-gemini\.token: never put a key"),
        (("jury", "pol"), {}, r"jury\.pol: unknown key \(did you mean 'pool'\?\)"),
        (("calibration", "methd"), "exact", r"calibration\.methd: unknown key \(did you mean 'method'\?\)"),
        (("annotations", "shar"), 0.5, r"annotations\.shar: unknown key \(did you mean 'share'\?\)"),
        (("requets",), {}, r"^params\.yaml: requets: unknown key \(did you mean 'requests'\?\)$"),
    ],
)
def test_unknown_or_bad_keys_are_named_with_their_path(default_params, path, value, message):
    with pytest.raises(ParamsError, match=message):
        parse_params(set_key(default_params, path, value))


def _with_model(default_params, entry):
    default_params["models"]["m"] = {"provider": "openai", "name": "m", **entry}
    return default_params


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"backend": "sim"}, r"models\.m\.skill: the sim backend needs a skill"),
        ({"backend": "replay"}, r"models\.m\.path: the replay backend needs the path"),
        ({"backend": "replay", "path": "p.jsonl", "match_model": ""}, r"models\.m\.match_model: expected a non-empty string"),
        ({"backend": "openai-compatible"}, r"models\.m\.base_url: the openai-compatible backend needs an http\(s\) base_url"),
        ({"backend": "openai-compatible", "base_url": "http://h/v1", "concurrency": 0}, r"models\.m\.concurrency: 0 is out of range"),
        ({"backend": "openai-compatible", "base_url": "http://h/v1", "timeout_s": "1"}, r"models\.m\.timeout_s: expected a number"),
        ({"backend": "openai-compatible", "base_url": "http://h/v1", "temperature": "hot"}, r"models\.m\.temperature: expected a number"),
        ({"backend": "openai-compatible", "base_url": "http://h/v1", "api_key_env": 5}, r"models\.m\.api_key_env: expected a non-empty string"),
        ({"backend": "batch", "base_url": "http://h/v1"}, r"models\.m\.base_url: batchling batches only requests to the provider's own host"),
        ({"backend": "batch", "rpm": 5}, r"models\.m\.rpm: unknown key"),
        ({"backend": "batch", "key": "sk-x"}, r"models\.m\.key: never put a key"),
    ],
)
def test_backend_options_are_checked_per_backend(default_params, entry, message):
    with pytest.raises(ParamsError, match=message):
        parse_params(_with_model(default_params, entry))


def test_backend_options_are_typed(default_params):
    from sideways.config.options import BatchOptions, OpenAICompatibleOptions, ReplayOptions, SimJudgeOptions

    _with_model(default_params, {"backend": "openai-compatible", "base_url": "http://h/v1", "temperature": 1,
                                 "max_tokens_field": "max_completion_tokens", "rpm": 60})
    default_params["models"]["b"] = {"backend": "batch", "provider": "openai", "api_key_env": "MY_KEY"}
    default_params["models"]["r"] = {"backend": "replay", "provider": "x", "path": "p.jsonl", "match_model": "gpt"}
    p = parse_params(default_params)
    assert p.model("m").options == OpenAICompatibleOptions(base_url="http://h/v1", temperature=1,
                                                           max_tokens_field="max_completion_tokens", rpm=60)
    assert type(p.model("m").options.temperature) is int  # as written: it goes into the request body
    assert p.model("b").options == BatchOptions(api_key_env="MY_KEY")
    assert p.model("r").options == ReplayOptions(path="p.jsonl", match_model="gpt")
    assert p.jury.pool[0].options == SimJudgeOptions(sensitivity=0.93, specificity=0.88, self_bias=0.1)


def test_every_option_of_every_backend_in_the_table_declares_its_validator():
    from dataclasses import fields

    from sideways.config.backends import BACKENDS

    for entry in BACKENDS.values():
        for cls in (entry.model_options, entry.judge_options):
            for f in fields(cls):
                assert callable(f.metadata.get("check")), f"{cls.__name__}.{f.name} has no validator (use option())"


def test_an_option_declared_once_is_validated_from_that_declaration():
    from sideways.config.options import SimJudgeOptions, parse_options

    with pytest.raises(ParamsError, match=r"jury\.pool\.j\.sensitivity: .*1\.5"):
        parse_options(SimJudgeOptions, "sim", {"sensitivity": 1.5}, "jury.pool.j")
    assert parse_options(SimJudgeOptions, "sim", {"sensitivity": 0.5}, "w").sensitivity == 0.5


def test_a_backend_given_another_backends_options_says_so():
    from sideways.backends.base import RunContext
    from sideways.backends.sim import SimPredictor
    from sideways.config.options import ReplayOptions
    from sideways.config.params import ModelSpec

    spec = ModelSpec("m", "sim", "p", "m", 0, ReplayOptions(path="x"))
    with pytest.raises(ParamsError, match=r"models\.m: expected SimModelOptions, got ReplayOptions"):
        SimPredictor().predict(pd.DataFrame({"riddle_id": ["a"], "split": ["llm"], "picarats": [10]}), spec, RunContext())


def _rename(node: dict, old: str, new: str) -> None:
    node[new] = node.pop(old)


# Issue 16, item 2: each typo the issue lists, written as a user would, gives one line naming the key.
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p: _rename(p, "models", "modles"), "params.yaml: modles: unknown key (did you mean 'models'?)"),
        (lambda p: _rename(p["calibration"], "method", "metod"),
         "params.yaml: calibration.metod: unknown key (did you mean 'method'?)"),
        (lambda p: p["models"]["atlas-mini"].update(temperatur=0.2),
         "params.yaml: models.atlas-mini.temperatur: unknown key (known: abstain, hidden_difficulty, hint_gain, justification, skill, slip, vision_skill)"),
        (lambda p: p["jury"]["pool"]["judge-gemini"].update(sensitivity=1.5),
         "params.yaml: jury.pool.judge-gemini.sensitivity: 1.5 is out of range [0.0, 1.0]"),
        (lambda p: _rename(p["models"]["atlas-mini"], "skill", "skil"),
         "params.yaml: models.atlas-mini.skil: unknown key (did you mean 'skill'?)"),
        (lambda p: p["models"]["atlas-mini"].update(skill="high"),
         "params.yaml: models.atlas-mini.skill: expected a number, got 'high'"),
    ],
    ids=["modles", "calibration.metod", "unknown-sim-option", "sensitivity-1.5", "skil", "skill-high"],
)
def test_each_typo_of_issue_16_is_one_line_naming_its_key(default_params, edit, message):
    edit(default_params)
    with pytest.raises(ParamsError) as info:
        parse_params(default_params)
    assert str(info.value) == message


def test_latent_posterior_and_the_lookahead_queue_are_the_defaults_the_others_a_key_away(default_params):
    params = parse_params(default_params)
    assert params.calibration.posterior == "latent" and params.annotations.queue == "lookahead"
    other = set_key(set_key(default_params, ("calibration", "posterior"), "hierarchical"), ("annotations", "queue"),
                    "holes")
    assert parse_params(other).calibration.posterior == "hierarchical"
    assert parse_params(other).annotations.queue == "holes"


def test_the_posterior_interval_ranks_by_default_and_the_published_one_is_a_key_away(default_params):
    assert parse_params(default_params).calibration.interval == "posterior"
    del default_params["calibration"]["interval"]
    assert parse_params(default_params).calibration.interval == "posterior"
    published = parse_params(set_key(default_params, ("calibration", "interval"), "published"))
    assert published.calibration.interval == "published"


@pytest.mark.parametrize("where", ["models", "jury.pool"])
def test_a_key_twice_in_one_mapping_is_refused_in_one_line(tmp_path, where):
    """PyYAML kept the last of two equal keys (one model silently dropped, `sideways check` ok),
    then DVC refused the file in six lines. `sideways check` (make repro's first step) refuses it."""
    import subprocess
    import sys

    from helpers import ROOT

    name = "models.yaml" if where == "models" else "params.yaml"  # the models live in models.yaml
    for other in ("params.yaml", "models.yaml"):
        (tmp_path / other).write_text((ROOT / other).read_text())
    lines = (ROOT / name).read_text().splitlines(keepends=True)
    if where == "models":
        at = next(i for i, line in enumerate(lines) if line.startswith("  tide-open:"))
    else:
        at = next(i for i, line in enumerate(lines) if line.strip() == "pool:") + 1  # the pool's first judge
    lines.insert(at + 1, lines[at])
    path = tmp_path / name
    path.write_text("".join(lines))
    proc = subprocess.run([sys.executable, "-m", "sideways.cli", "check", "--params", str(tmp_path / "params.yaml")],
                          capture_output=True, text=True, cwd=tmp_path)
    key = lines[at].split(":")[0].strip()
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"sideways check: error: {path}:{at + 2}: key {key!r} appears twice in one mapping "
                           "(YAML would keep only the last one, and DVC refuses the file)\n")


@settings(max_examples=80, deadline=None)
@given(st.one_of(st.integers(-10, 200_000), st.floats(allow_nan=True), st.booleans(), st.text(max_size=4),
                 st.none(), st.lists(st.integers(), max_size=2)))
def test_first_double_is_a_bounded_count_or_one_line_naming_it(value):
    """``annotations.first_double`` at the door: a count in [0, 100000] read as given, anything else refused by
    one line naming the key."""
    params = copy.deepcopy(project_params())
    params["annotations"]["first_double"] = value
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100_000
    if ok:
        assert parse_params(params).annotations.first_double == value
    else:
        with pytest.raises(ParamsError, match=r"^params\.yaml: annotations\.first_double: ") as e:
            parse_params(params)
        assert "\n" not in str(e.value)


def test_first_double_defaults_to_what_params_yaml_says(default_params):
    assert parse_params(default_params).annotations.first_double == default_params["annotations"]["first_double"]
    del default_params["annotations"]["first_double"]
    assert parse_params(default_params).annotations.first_double == 50
