"""The puzzle-page parser on fixture pages we wrote in the wiki's markup (invented puzzles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sideways.sources.wiki.markup import image_name, parse_puzzle, plain_text, sections, templates

PAGES = Path(__file__).parent / "pages"


def page(name: str) -> str:
    return (PAGES / f"{name}.wiki").read_text()


def test_template_fields_and_section_answer() -> None:
    p = parse_puzzle(page("counting_candles"))
    assert p.number == "014"
    assert p.game == "Invented Village"  # a piped link keeps its label
    assert p.type == "Write Answer"
    assert p.picarats == 30
    assert p.image == "File:IV014 Counting Candles.png"
    assert p.title is None  # the page title is used instead
    assert p.description == (
        "A baker lights seven candles on a windowsill. A draught blows out two of them, and a\n"
        "while later one more goes out.\n\nHow many candles are left in the end?"
    )
    assert p.first_hint == "Think about what happens to a candle that keeps burning."
    assert p.special_hint == "Two went out, then one more."
    assert p.answer == "3"
    assert p.solution == (
        "The four candles that stayed lit burn down completely. The three that were blown out are\n"
        "the only ones left, so the answer is three."
    )


def test_hints_as_sections() -> None:
    p = parse_puzzle(page("crooked_fence"))
    assert (p.first_hint, p.second_hint, p.third_hint, p.special_hint) == (
        "Compare the tops of the posts.",
        "Count the nails in each post.",
        "Four posts have the same number of nails.",
        "It is not the first post.",
    )
    assert p.answer == "Post D" and p.image == "File:IV027 The Crooked Fence.png"
    assert p.picarats is None and p.type is None  # this page leaves them to the data module


def test_missing_answer_and_empty_hints_are_none() -> None:
    p = parse_puzzle(page("missing_key"))
    assert p.answer is None
    assert p.first_hint == "Not in a box." and p.second_hint is None and p.third_hint is None
    assert p.solution is None or "not been written" in p.solution


def test_inline_template_and_image_link() -> None:
    p = parse_puzzle(page("tangled_tiles"))
    assert p.image == "File:IV052 Tangled Tiles.png"
    assert p.third_hint == "Only the outer ring moves." and p.special_hint == "Four."


def test_templates_nest_and_keep_pipes_inside_links() -> None:
    found = templates("{{Outer|a=[[x|y]] and {{Inner|1|b=2}}|c = 3 }} tail {{Solo}}")
    assert [t.name for t in found] == ["Outer", "Inner", "Solo"]
    assert found[0].params == {"a": "[[x|y]] and {{Inner|1|b=2}}", "c": "3"}
    assert found[1].params == {"1": "1", "b": "2"}


def test_unclosed_template_does_not_hang() -> None:
    assert templates("{{Puzzle|number=1") == []
    assert parse_puzzle("{{Puzzle|number=1\n== Puzzle ==\nText").description is not None


def test_sections_first_heading_wins() -> None:
    secs = sections("== A ==\none\n=== B ===\ntwo\n== A ==\nthree")
    assert secs == {"a": "\none\n", "b": "\ntwo\n"}


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        ("'''Bold''' and ''italic''", "Bold and italic"),
        ("[[Luke Triton|Luke]] meets [[Flora]]", "Luke meets Flora"),
        ("Before [[File:X.png|thumb|A [[caption]] here]] after", "Before after"),
        ("a<br>b<br/>c", "a\nb\nc"),
        ("x {{Tooltip|y|z}} w", "x w"),
        ("5 &times; 3 &amp; <span style='c'>more</span>", "5 × 3 & more"),
        ("see [https://example.org the site]", "see the site"),
        (": indented\n* listed", "indented\nlisted"),
        ("text<!-- hidden -->", "text"),
    ],
)
def test_plain_text(markup: str, text: str) -> None:
    assert plain_text(markup) == text


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("[[File:a_b.png|200px]]", "File:A b.png"),
        ("Image:c.jpg", "File:C.jpg"),
        ("d.gif", "File:D.gif"),
        ("", None),
        ("{{PuzzleImage}}", None),
        (None, None),
    ],
)
def test_image_name(value: str | None, name: str | None) -> None:
    assert image_name(value) == name
