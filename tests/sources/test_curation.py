"""Curation: answers, duplicates, text vs visual, overrides and the report."""

from __future__ import annotations

import pandas as pd
import pytest

from sideways.artifacts.schema import RIDDLES
from sideways.core.errors import RiddleError
from sideways.sources.curation import (
    Override,
    curate,
    find_duplicates,
    jaccard,
    load_overrides,
    normal_title,
    parse_overrides,
    tokens,
    visual_cue,
)

PIC = b"\x89PNG fake but non-empty"  # curation trusts image_error, it does not decode pictures


def riddle(rid: str, **over) -> dict:
    row = {
        "riddle_id": rid, "split": None, "category": "Write Answer", "title": f"Title {rid}",
        "description": f"Riddle {rid}: a baker has {len(rid)} loaves and sells two. How many remain?",
        "answer": f"answer {rid}", "solution": "s", "justification": "j", "first_hint": None,
        "second_hint": None, "third_hint": None, "special_hint": None, "image": PIC, "picarats": 10,
        "game": "Invented Village", "source": "wiki", "url": None, "license": "CC BY-SA 4.0",
        "image_error": None,
    }
    row.update(over)
    return row


def frame(*rows: dict) -> pd.DataFrame:
    return pd.DataFrame(list(rows))


def test_drops_missing_answers_and_descriptions() -> None:
    out = curate(frame(riddle("a"), riddle("b", answer=""), riddle("c", answer=None), riddle("d", description="  ")))
    assert list(out.riddles.riddle_id) == ["a"]
    assert [(d["riddle_id"], d["reason"]) for d in out.report.dropped] == [
        ("b", "no_answer"), ("c", "no_answer"), ("d", "no_description")]


def test_same_title_and_game_is_a_duplicate_even_with_a_qualifier() -> None:
    rows = [riddle("a", title="Counting Candles"), riddle("b", title="Counting candles (UK)", description="other words"),
            riddle("c", title="Counting Candles", game="Another Game", description="different words entirely")]
    dups = find_duplicates(rows)
    assert dups == {"b": ("a", "same title and game")}


def test_title_rule_needs_a_known_game() -> None:
    """The hub dataset has no game: "X" and "X (UF)" there may be two games' puzzles."""
    rows = [riddle("a", title="Bunny-Hop Swap", game=None), riddle("b", title="Bunny-Hop Swap (UF)", game=None,
                                                                   description="entirely other words")]
    assert find_duplicates(rows) == {}


def test_near_identical_description_with_same_answer_is_a_duplicate() -> None:
    text = "A baker lights seven candles on a windowsill and two blow out then one more goes out how many are left"
    rows = [riddle("a", description=text, answer="3"),
            riddle("b", description=text.replace("baker", "Baker,"), answer=" 3 "),  # same tokens
            riddle("c", description=text + " today", answer="3"),                  # 20/21 tokens shared
            riddle("d", description=text.replace("seven", "nine"), answer="5")]    # a sequel: other answer
    dups = find_duplicates(rows, threshold=0.9)
    assert set(dups) == {"b", "c"}
    assert dups["b"] == ("a", "description 1.00 similar (Jaccard), same answer")
    assert dups["c"][0] == "a" and "0.95" in dups["c"][1]


def test_threshold_controls_near_duplicates() -> None:
    text = "one two three four five six seven eight nine ten"
    rows = [riddle("a", description=text, answer="x"), riddle("b", description=text + " eleven twelve", answer="x")]
    assert find_duplicates(rows, threshold=0.9) == {}  # 10/12 = 0.83
    assert set(find_duplicates(rows, threshold=0.8)) == {"b"}
    with pytest.raises(RiddleError, match="threshold"):
        find_duplicates(rows, threshold=0)


def test_tokens_and_titles() -> None:
    assert tokens("Café, 3 cats & 2 DOGS!") == {"cafe", "3", "cats", "2", "dogs"}
    assert jaccard(frozenset("ab"), frozenset("bc")) == pytest.approx(1 / 3)
    assert normal_title("Where's My House? (UF)") == "where s my house"


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("Look at the fence shown below.", "look at"),
        ("The picture has five posts.", "picture"),
        ("Fill in the grid so that...", "grid"),
        ("Which figure comes next?", "figure"),
        ("Can you figure out how many sheep remain?", None),
        ("A farmer has ten sheep. How many remain?", None),
        ("The shapes drawn here overlap.", "drawn"),
    ],
)
def test_visual_cues(text: str, cue: str | None) -> None:
    assert visual_cue(text) == cue


def test_split_rules_source_and_overrides() -> None:
    rows = frame(
        riddle("text"),
        riddle("visual", description="Look at the picture: which post is different?"),
        riddle("given", split="llm", description="Look at the picture, says the published split"),
        riddle("forced", description="A plain riddle whose picture matters anyway."),
        riddle("dropme"),
    )
    overrides = {
        "forced": Override("forced", "the picture carries the numbers", split="vlm"),
        "dropme": Override("dropme", "needs the game's touch screen", drop=True),
        "ghost": Override("ghost", "an id from the other source"),
    }
    out = curate(rows, overrides, source="wiki")
    assert out.riddles.set_index("riddle_id").split.to_dict() == {
        "text": "llm", "visual": "vlm", "given": "llm", "forced": "vlm"}
    assert list(out.riddles.columns) == RIDDLES.names  # extra columns (image_error) are gone
    m = out.report.metrics()
    assert m["split_decided_by"] == {"override": 1, "source": 1, "extract": 0, "rule": 2}
    assert m["dropped_by_reason"]["override"] == 1 and out.report.dropped[0]["detail"] == "needs the game's touch screen"
    assert m["unused_overrides"] == 1 and out.report.unused_overrides == ["ghost"]


def test_visual_riddle_without_a_usable_picture_is_dropped() -> None:
    rows = frame(
        riddle("broken", description="Look at the tiles.", image=None, image_error="not a readable image"),
        riddle("nopic", split="vlm", image=None),
        riddle("textnopic", image=None),
    )
    out = curate(rows)
    assert list(out.riddles.riddle_id) == ["textnopic"]
    assert [(d["riddle_id"], d["reason"], d["detail"]) for d in out.report.dropped] == [
        ("broken", "no_image", "not a readable image"), ("nopic", "no_image", "a visual riddle without a picture")]


def test_report_counts_add_up() -> None:
    rows = frame(riddle("a"), riddle("b", answer=""), riddle("c", title="Title a"),
                 riddle("d", description="See the diagram.", image=None))
    m = curate(rows, source="wiki").report.metrics()
    assert m == {
        "source": "wiki", "input": 4, "kept": 1, "kept_by_split": {"llm": 1, "vlm": 0}, "dropped": 3,
        "dropped_by_reason": {"override": 0, "needs_game_engine": 0, "no_description": 0, "no_answer": 1,
                              "duplicate": 1, "no_image": 1},
        "needs_game_engine": 0, "needs_image": 0, "needs_review": 0,
        "split_decided_by": {"override": 0, "source": 0, "extract": 0, "rule": 1}, "duplicate_threshold": 0.9,
        "unused_overrides": 0,
    }


def test_same_input_same_output() -> None:
    rows = frame(riddle("a"), riddle("b", description="Look at the grid."), riddle("c", answer=""))
    one, two = curate(rows), curate(rows)
    pd.testing.assert_frame_equal(one.riddles, two.riddles)
    assert one.report.metrics() == two.report.metrics()


def test_everything_dropped_gives_an_empty_valid_table() -> None:
    out = curate(frame(riddle("a", answer="")))
    assert len(out.riddles) == 0 and list(out.riddles.columns) == RIDDLES.names


GOOD = """\
# riddle id -> split or drop, with a reason
wiki-101:
  split: vlm
  reason: the numbers are only in the picture
"088-294":
  drop: true
  reason: needs the game's verification engine
"""


def test_parse_overrides() -> None:
    got = parse_overrides(GOOD, "data/curation/overrides.yaml")
    assert got == {
        "wiki-101": Override("wiki-101", "the numbers are only in the picture", split="vlm"),
        "088-294": Override("088-294", "needs the game's verification engine", drop=True),
    }
    assert parse_overrides("", "x") == {} and parse_overrides("{}\n", "x") == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("wiki-1:\n  split: vlm\n", r"o\.yaml:1: riddle wiki-1: key 'reason' must say why"),
        ("wiki-1:\n  split: vlm\n  reason: ok\nwiki-2:\n  split: xlm\n  reason: r\n",
         r"o\.yaml:4: riddle wiki-2: key 'split' must be one of llm, vlm"),
        ("wiki-1:\n  split: vlm\n  drop: true\n  reason: r\n", "give either 'drop: true' or at least one of"),
        ("wiki-1:\n  drop: false\n  reason: r\n", "give either"),
        ("wiki-1:\n  drop: true\n  answer: '4'\n  reason: r\n", r"\(not both\)"),
        ("wiki-1:\n  answer: ''\n  reason: r\n", "key 'answer' must be non-empty text"),
        ("wiki-1:\n  justification: [a]\n  reason: r\n", "key 'justification' must be non-empty text"),
        ("wiki-1:\n  needs_game_engine: maybe\n  reason: r\n", "key 'needs_game_engine' must be true or false"),
        ("wiki-1:\n  drop: yes please\n  reason: r\n", "key 'drop' must be true or false"),
        ("wiki-1:\n  spilt: vlm\n  reason: r\n", r"unknown key\(s\) spilt"),
        ("wiki-1: vlm\n", "expected a mapping with 'split' or 'drop'"),
        ("- wiki-1\n", "expected a mapping of riddle id"),
        ("wiki-1: {split: vlm, reason: r}\nwiki-1: {drop: true, reason: r}\n", r"o\.yaml:2: riddle wiki-1: listed twice"),
        ("wiki-1: [unclosed\n", "not valid YAML"),
    ],
)
def test_overrides_errors_name_line_id_and_key(text: str, message: str) -> None:
    with pytest.raises(RiddleError, match=message):
        parse_overrides(text, "o.yaml")


def test_load_overrides_file(tmp_path) -> None:
    assert load_overrides(tmp_path / "absent.yaml") == {}
    (tmp_path / "o.yaml").write_text(GOOD)
    assert set(load_overrides(tmp_path / "o.yaml")) == {"wiki-101", "088-294"}


def test_an_overrides_file_that_cannot_be_read_is_one_line_naming_it(tmp_path) -> None:
    """Not UTF-8, a folder, a dangling link, broken YAML: one RiddleError line each, no traceback."""
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("wiki-101: {drop: true, reason: caf\xe9}\n".encode("latin-1"))
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    dangling = tmp_path / "dangling.yaml"
    dangling.symlink_to(tmp_path / "nowhere")
    broken = tmp_path / "broken.yaml"
    broken.write_text("wiki-101: {drop: true\n  reason: [\n")
    for path, why in ((bad, "not UTF-8"), (folder, "is a folder"), (dangling, "not found"), (broken, "not valid YAML")):
        with pytest.raises(RiddleError) as err:
            load_overrides(path)
        assert str(err.value).startswith(f"{path}: ") and why in str(err.value) and "\n" not in str(err.value)


def extracted(rid: str, *, engine: bool = False, image: bool = False, review: str | None = None,
              **kw: object) -> dict:
    """A riddle as the extract stage leaves it: with its flags and review mark."""
    return {**riddle(rid, **kw), "needs_game_engine": engine, "needs_image": image,
            "needs_review": review is not None, "review": review}


def test_extract_flags_drop_split_and_are_counted() -> None:
    rows = frame(
        extracted("text"),
        extracted("seen", image=True, description="Which number comes next?"),  # the flag, not the cue, decides
        extracted("plain", description="Look at the picture: which post?"),  # flag False: llm despite the cue
        extracted("drag", engine=True, answer=""),
        extracted("vague", answer="", review="no answer stated in the solution text"),
        extracted("fixed", answer="", review="no answer stated in the solution text"),
        extracted("engine-ok", engine=True),
    )
    overrides = {
        "fixed": Override("fixed", "read the picture of the solution", answer="A and D",
                          justification="A and D only hang at different angles."),
        "engine-ok": Override("engine-ok", "the answer can be written down", needs_game_engine=False),
    }
    out = curate(rows, overrides, source="wiki")
    kept = out.riddles.set_index("riddle_id")
    assert kept.split.to_dict() == {"text": "llm", "seen": "vlm", "plain": "llm", "fixed": "llm", "engine-ok": "llm"}
    assert (kept.loc["fixed"].answer, kept.loc["fixed"].justification) == (
        "A and D", "A and D only hang at different angles.")  # manual curation wins
    m = out.report.metrics()
    assert m["dropped_by_reason"]["needs_game_engine"] == 1 and m["dropped_by_reason"]["no_answer"] == 1
    assert (m["needs_game_engine"], m["needs_image"], m["needs_review"]) == (1, 1, 1)  # after the overrides
    assert m["split_decided_by"] == {"override": 0, "source": 0, "extract": 5, "rule": 0}
    assert {d["riddle_id"]: d["detail"] for d in out.report.dropped}["vague"] == "no answer stated in the solution text"
    assert out.report.review == [{"riddle_id": "vague", "title": "Title vague", "url": "",
                                  "review": "no answer stated in the solution text", "answer": "",
                                  "outcome": "dropped: no_answer"}]


def test_parse_corrections() -> None:
    got = parse_overrides("wiki-3:\n  answer: 24\n  justification: ' Four sixes. '\n  reason: the wiki says so\n"
                          "wiki-4:\n  needs_game_engine: false\n  split: vlm\n  reason: a choice on a picture\n")
    assert got["wiki-3"] == Override("wiki-3", "the wiki says so", answer="24", justification="Four sixes.")
    assert got["wiki-4"] == Override("wiki-4", "a choice on a picture", split="vlm", needs_game_engine=False)
