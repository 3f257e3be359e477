"""The same inputs give the same scores, byte for byte, whatever numpy's SIMD kernels and OpenBLAS's core type a
processor gets (docs/design.md, "Same bytes on every machine"): the scores of every posterior computed in
subprocesses with AVX2 and AVX-512 switched off in numpy and OpenBLAS told an old core type, against the same with
the processor's own kernels. Before the posterior's numbers were rounded (posterior.MEAN_DECIMALS,
hierarchy.DIGITS), an AVX-512 machine and an AVX2 one wrote different last bits into the scores table, and a fresh
clone's ``make repro`` on the other kind of machine changed dvc.lock."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from helpers import ROOT

SCRIPT = """
import copy, json, sys
from pathlib import Path

root = sys.argv[1]
sys.path.insert(0, root + "/benchmarks")  # lab, not installed

from sideways.config.params import parse_params, raw_params
from sideways.sources.demo import load_demo
from lab.changes import pipeline_version
from lab.coverage import split_riddles

base = raw_params(Path(root) / "params.yaml")[0]
riddles = split_riddles(load_demo(root + "/data/riddles/demo.jsonl"), "llm")
out = {}
for posterior in ("v1", "hierarchical", "latent"):
    data = copy.deepcopy(base)
    data["calibration"].update(interval="posterior", posterior=posterior)
    scores = pipeline_version(posterior, parse_params(data, source="test"), riddles).scores
    out[posterior] = [[repr(x) for x in scores["posterior_score"]], scores["posterior_prior"].tolist()]
print(json.dumps(out))
"""

#: numpy's dispatched kernels above the x86-64-v2 baseline, and an OpenBLAS core type without AVX.
OLD_PROCESSOR = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL", "OPENBLAS_CORETYPE": "Nehalem"}


def _scores(extra: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")}
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT)], env={**env, **extra}, capture_output=True,
                         text=True, check=False, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the kernels switched off are x86's")
def test_the_scores_do_not_depend_on_the_processors_kernels():
    own = _scores({})
    assert '"latent"' in own and "eta" in own  # the latent posterior's prior is in what is compared
    assert _scores(OLD_PROCESSOR) == own
