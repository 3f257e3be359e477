"""The annotation page in a real Chromium (its Content-Security-Policy on: waits use no eval), driven by the keyboard only: ten labels (one note, one
undo), kill -9 of the server, restart, finish the queue, then the label file is checked."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from helpers.browser import ConsoleLog
from helpers.label_project import MODELS, Served, label_project
from sideways.annotation.labels import read_label_file
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import RIDDLES

BUDGET = 14


def _label_with_keys(page, done: int, answer_key: str, justification_key: str) -> str:
    """Label the shown item with the keyboard; returns the status line that reveals the model."""
    title = page.locator("#title").text_content()
    assert not any(f"{m}-v1" in page.locator("#item").inner_text() for m in MODELS)  # hidden before saving
    page.keyboard.press(answer_key)
    page.keyboard.press(justification_key)
    page.keyboard.press("Enter")
    expect(page.locator("#totals")).to_contain_text(f" {done} yours")
    status = page.locator("#status").text_content()
    assert status.startswith("saved: that was ") and title is not None
    return status


def test_label_ten_with_the_keyboard_kill_restart_and_finish(browser, tmp_path):
    project = label_project(tmp_path / "project", n_riddles=6, annotations={"budget": BUDGET, "double_share": 0.0})
    server = Served(project, "ana").start()
    page = browser.new_page()
    log = ConsoleLog(page)
    try:
        page.goto(server.url)
        expect(page.locator("#title")).not_to_be_empty()
        # untrusted text is shown as text: the prediction's "<img onerror>" is not an element
        assert "<img src=x onerror=alert(1)>" in page.locator("#justification").text_content()
        assert page.locator("img").count() == 1
        page.keyboard.press("n")
        page.keyboard.type("ambiguous wording")
        page.keyboard.press("Escape")
        revealed = [_label_with_keys(page, 1, "1", "4")]
        page.keyboard.press("u")  # undo: the same item comes back
        expect(page.locator("#totals")).to_contain_text(" 0 yours")
        for done in range(1, 11):
            revealed.append(_label_with_keys(page, done, "1" if done % 3 else "2", "3" if done % 2 else "4"))
        assert all(any(f"{m}-v1" in r for m in MODELS) for r in revealed)
        server.kill()
        acknowledged = (project / "data/labels/llm.jsonl").read_text().splitlines()
        assert len(acknowledged) == 12  # 11 labels and an undo, all on disk before their 200

        server = Served(project, "ana", port=server.port).start()
        page.reload()
        expect(page.locator("#title")).not_to_be_empty()
        for done in range(11, BUDGET + 1):
            _label_with_keys(page, done, "1", "3")
        page.wait_for_selector("#done:not([hidden])")
        assert log.errors == []
    finally:
        page.close()
        server.kill()

    lines = [json.loads(x) for x in (project / "data/labels/llm.jsonl").read_text().splitlines()]
    assert [x.get("action", "label") for x in lines[:2]] == ["label", "undo"]
    assert lines[0]["note"] == "ambiguous wording" and lines[0]["human_justification_correct"] is False
    labels = read_label_file(project / "data/labels/llm.jsonl", read_table(project / "data/split/llm.parquet", RIDDLES))
    assert len(labels) == BUDGET and set(labels["annotator"]) == {"ana"}
    assert labels["human_answer_correct"].sum() == BUDGET - 3  # the "2" key on labels 3, 6 and 9
