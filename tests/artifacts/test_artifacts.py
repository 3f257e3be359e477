import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from helpers import ROOT
from sideways.artifacts import io as artifacts
from sideways.artifacts.schema import ANNOTATIONS, RIDDLES
from sideways.core.errors import SchemaError

SRC = ROOT / "src"


def _labels(n=3):
    return pd.DataFrame(
        {
            "riddle_id": [f"r{i}" for i in range(n)],
            "model": ["m"] * n,
            "provider": ["p"] * n,
            "human_answer_correct": [True] * n,
            "human_justification_correct": [False] * n,
            "human_both_correct": [False] * n,
            "annotator": ["a"] * n,
        }
    )


def test_round_trip_keeps_types_and_bytes_are_stable(tmp_path, riddles):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    artifacts.write_table(riddles, RIDDLES, a)
    artifacts.write_table(riddles, RIDDLES, b)
    assert a.read_bytes() == b.read_bytes()
    back = artifacts.read_table(a, RIDDLES)
    pd.testing.assert_frame_equal(back, riddles)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda df: df.drop(columns=["annotator"]), r"missing column\(s\) annotator"),
        (lambda df: df.assign(model=[None, "m", "m"]), r"column 'model' is null at row 0"),
        (lambda df: df.assign(human_answer_correct=["yes", True, True]), r"'human_answer_correct' at row 0 should be bool"),
        (lambda df: df.assign(riddle_id=["r0", "r0", "r2"]), r"duplicate annotations key \{'riddle_id': 'r0', 'model': 'm'\}"),
    ],
)
def test_bad_tables_are_named_and_nothing_is_written(tmp_path, mutate, message):
    target = tmp_path / "out" / "labels.parquet"
    with pytest.raises(SchemaError, match=message) as err:
        artifacts.write_table(mutate(_labels()), ANNOTATIONS, target)
    assert str(target) in str(err.value)
    assert not target.exists()


def test_failed_write_leaves_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "x.json"
    artifacts.write_json(target, {"a": 1})

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(artifacts.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        artifacts.write_json(target, {"a": 2})
    assert target.read_text().strip().endswith("}") and '"a": 1' in target.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_read_rejects_non_parquet(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    with pytest.raises(SchemaError, match=r"bad\.parquet: not a readable Parquet file"):
        artifacts.read_table(bad, ANNOTATIONS)


def test_numpy_scalars_are_accepted_and_python_types_checked():
    import numpy as np

    from sideways.artifacts.schema import conform

    df = _labels(2).assign(human_answer_correct=[np.True_, np.False_])
    assert conform(df, ANNOTATIONS, "x")["human_answer_correct"].tolist() == [True, False]
    with pytest.raises(SchemaError, match="should be bool"):
        conform(_labels(2).assign(human_answer_correct=[1, 0]), ANNOTATIONS, "x")


def test_require_complete_names_the_source_each_incomplete_model_and_the_count():
    from sideways.artifacts.checks import require_complete

    preds = pd.DataFrame({"model": ["a", "a", "b", "c"], "riddle_id": ["1", "2", "1", "9"]})
    require_complete(preds[preds["model"] == "a"], ["1", "2"], "f.parquet", models=["a"])
    with pytest.raises(SchemaError, match=r"^f.parquet: model 'b' has no prediction for 1 of 2 riddle\(s\): 2; "
                                          r"model 'c' has no prediction for 2 of 2 riddle\(s\): 1, 2$"):
        require_complete(preds, ["1", "2"], "f.parquet")
    with pytest.raises(SchemaError, match="model 'a' has predictions for unknown riddle"):
        require_complete(preds, ["1"], "f.parquet", models=["a"])
    with pytest.raises(SchemaError, match="model 'x' has no prediction for 2 of 2"):  # an empty table fails too
        require_complete(preds.iloc[:0], ["1", "2"], "f.parquet", models=["x"])


def test_require_each_complete_names_the_file_of_each_incomplete_model():
    from sideways.artifacts.checks import require_each_complete

    preds = pd.DataFrame({"model": ["a", "a", "b"], "riddle_id": ["1", "2", "1"]})
    sources = {"a": Path("p/a.parquet"), "b": Path("p/b.parquet"), "c": Path("p/c.parquet")}
    require_each_complete(preds, ["1", "2"], {"a": sources["a"]})
    with pytest.raises(SchemaError, match=r"^p/b.parquet: model 'b' has no prediction for 1 of 2 riddle\(s\): 2; "
                                          r"p/c.parquet: model 'c' has no prediction for 2 of 2 riddle\(s\): 1, 2$"):
        require_each_complete(preds, ["1", "2"], sources)


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_artifacts_are_written_0644_less_the_umask_like_dvc_restores_them(tmp_path, riddles, umask, mode):
    """mkstemp alone gives 0600; DVC checks files out 0644 (with the usual umask 022)."""
    table = tmp_path / "t.parquet"
    artifacts.write_table(riddles, RIDDLES, table)  # this process's umask
    assert table.stat().st_mode & 0o777 == 0o644 & ~artifacts._UMASK
    code = (f"import os; os.umask({umask}); from sideways.artifacts.io import write_json; "
            f"write_json({str(tmp_path / 'm.json')!r}, {{'a': 1}})")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == mode


def _same(a, b) -> bool:
    if a is None or b is None or a is pd.NaT:
        return a is b
    if isinstance(a, float) and a != a:
        return isinstance(b, float) and b != b
    return type(a) is type(b) and a == b


def test_records_gives_what_to_dict_gives_for_every_dtype(riddles):
    """records() converts column by column for speed; the values must be to_dict's, missing ones too."""
    import numpy as np

    from sideways.artifacts.schema import records

    odd = pd.DataFrame({
        "int": pd.array([1, None, 3], dtype="Int64"), "bool": pd.array([True, None, False], dtype="boolean"),
        "float": [1.5, np.nan, 2.0], "pystr": pd.array(["x", None, "z"], dtype="string[python]"),
        "nanstr": pd.array(["x", None, "z"], dtype="str"), "when": pd.to_datetime(["2020-01-01", None, "2021-02-03"]),
        "cat": pd.Categorical(["a", None, "b"]), "obj": [b"\x89PNG", None, {"k": 1}], "np": np.array([1, 2, 3]),
    })
    for frame in (riddles, odd, pd.DataFrame(index=range(2)), odd.iloc[:0]):
        expected, got = frame.to_dict("records"), records(frame)
        assert len(got) == len(expected)
        for want, row in zip(expected, got, strict=True):
            assert list(row) == list(want)
            assert all(_same(want[k], row[k]) for k in want), (want, row)


def test_records_by_gives_what_set_index_to_dict_gives(riddles):
    """records_by() is built on records(): the same keys and values as ``set_index(key).to_dict("index")``."""
    from sideways.artifacts.schema import records_by

    odd = pd.DataFrame({"k": ["é", "b", "𝔞"], "int": pd.array([1, None, 3], dtype="Int64"),
                        "float": [1.5, float("nan"), 2.0], "nanstr": pd.array(["x", None, "z"], dtype="str")})
    for frame, key in ((riddles, "riddle_id"), (odd, "k"), (odd.iloc[:0], "k")):
        expected, got = frame.set_index(key).to_dict("index"), records_by(frame, key)
        assert list(got) == list(expected)
        for k, want in expected.items():
            assert list(got[k]) == list(want) and all(_same(want[c], got[k][c]) for c in want), (want, got[k])
    with pytest.raises(ValueError, match="twice"):
        records_by(odd.assign(k=["a", "a", "b"]), "k")
