"""A project with a 2+1 cascaded jury on fake OpenAI-compatible judges: the cascade's and the cost table's
pipeline tests share it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

SPLIT = ("Three Lamps, One Flask", "Parcels Weighed in Pairs")  # titles of two llm riddles the judges split on
SPLIT_REPLY = '{"is_answer_correct": true, "is_justification_correct": false}'


def cascade_project(urls: Mapping[str, str], prices: Mapping[str, Any] | None = None) -> Callable[[dict], None]:
    """params.yaml: two simulated models on llm, no exam, a pool of three judges on ``urls``, a 2+1 cascade
    (judge-c and judge-a first), and ``prices`` when given."""
    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        p["models"] = {k: v for k, v in p["models"].items() if k in ("atlas-large", "quill-max")}
        p["exams"] = {}
        p["jury"]["judges"] = 3
        p["jury"]["pool"] = {key: {"backend": "openai-compatible", "base_url": url, "api_key_env": "LOCAL_LLM_KEY",
                                   "provider": f"{key}-co", "name": f"{key}-1"} for key, url in urls.items()}
        p["jury"]["cascade"] = {"first": 2, "order": ["judge-c", "judge-a"]}
        p["requests"].update(backoff_s=0.01, max_backoff_s=0.02, max_attempts=2, timeout_s=5.0)
        if prices is not None:
            p["prices"] = dict(prices)
    return change
