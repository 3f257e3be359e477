"""DVC parses params.yaml and dvc.lock around every stage: with ruamel.yaml's C parser, not the pure-Python one.

Without ``ruamel.yaml.clib`` (optional since ruamel.yaml 0.19) a no-op ``dvc repro`` at 48 models
took 2.5 s instead of 1.55 s (issue 18). DVC's own ``parse_yaml`` is what it calls for both files.
"""

from dvc.utils.serialize._yaml import parse_yaml
from ruamel.yaml import YAML
from ruamel.yaml.main import CParser

from helpers import ROOT


def test_dvc_safe_loads_use_the_c_parser_and_read_the_lock_as_before():
    assert CParser is not None, "ruamel.yaml.clib is missing: pip install -e . (pyproject pins it)"
    assert YAML(typ="safe").Parser is CParser
    text = (ROOT / "dvc.lock").read_text()
    pure = YAML(typ="safe", pure=True).load(text)
    assert parse_yaml(text, "dvc.lock") == pure
    assert "predict" in pure["stages"]
