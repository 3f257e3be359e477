"""Issue 27: credentials in a model's base_url would go to git (params.yaml) and dvc.lock: refused."""

from __future__ import annotations

import pytest

from helpers import project_params
from sideways.config.options import _base_url
from sideways.core.errors import ParamsError


@pytest.mark.parametrize("url", [
    "https://alice:sk-secret@gw.example/v1",
    "https://sk-secret@gw.example/v1",
    "https://gw.example/v1?api-key=sk-secret",
    "https://gw.example/v1?x=1&access_token=abc",
    "http://gw.example/v1?sig=abc",
])
def test_credentials_in_base_url_are_refused(url):
    with pytest.raises(ParamsError, match=r"models\.m\.base_url: base_url holds .*api_key_env"):
        _base_url(url, "models.m.base_url")


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "https://gw.example/openai/v1?api-version=2024-10-21",
                                 "http://[::1]:8000/v1"])
def test_ordinary_base_urls_pass(url):
    assert _base_url(url, "models.m.base_url") == url


def test_sideways_check_names_the_model(tmp_path, capsys):
    import yaml

    from sideways.cli import main

    params = project_params()
    params["models"] = {"m": {"backend": "openai-compatible", "provider": "local", "name": "x",
                              "base_url": "https://alice:sk-1234@gw.example/v1", "api_key_env": "K"}}
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    assert main(["check", "--params", str(path)]) == 2
    err = capsys.readouterr().err
    assert "base_url holds a user or password" in err and "sk-1234" not in err
