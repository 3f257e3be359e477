"""Reading the wiki's Lua puzzle data modules (our own fixture module, Lua like the wiki's)."""

from __future__ import annotations

from pathlib import Path

from sideways.sources.wiki.modules import ModuleEntry, module_entries

LUA = (Path(__file__).parent / "pages" / "puzzle_data_iv.lua").read_text()


def test_entries_by_page_name() -> None:
    got = module_entries(LUA, "Module:PuzzleData/IV")
    assert got["The Crooked Fence"] == ModuleEntry("The Crooked Fence", "027", "Select", 40, "IV")
    assert got["Counting Candles"] == ModuleEntry("Counting Candles", "014", "Write Answer", 30, "IV")
    # a nested variant is an entry of its own, and does not leak its fields into its parent
    assert got["Counting Candles (UK)"].picarats == 35
    assert "Commented Out" not in got  # Lua comments are skipped
    assert set(got) == {"Counting Candles", "Counting Candles (UK)", "The Crooked Fence", "The Missing Key"}


def test_odd_values() -> None:
    lua = r'''return { {number = "1", name = "Say \"hi\"", ['type'] = "X", picarats = "n/a"}, {name = ""}, {x = 1} }'''
    got = module_entries(lua, "Module:PuzzleData/T")
    assert got == {'Say "hi"': ModuleEntry('Say "hi"', "1", "X", None, "T")}
