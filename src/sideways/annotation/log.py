"""The label file as an append-only log: labels, skips and undos, replayed in file order.

A line of ``data/labels/<split>.jsonl`` is one event (``data/labels/README.md``):

- a label (``"action": "label"``, or no ``action``: hand-written files need none), with the
  documented columns plus optional ``timestamp`` and ``note``;
- ``"action": "skip"``: the annotator saw the prediction and passed (never shown to them again);
- ``"action": "undo"``: withdraws that annotator's latest surviving label or skip of the same
  (riddle_id, model).

Nothing is ever rewritten, so appends from several annotation apps cannot lose each other's
lines. :func:`replay` turns the lines into the events that survive; the first surviving label
of a prediction is the one calibration uses, a second annotator's label measures agreement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sideways.core.errors import SchemaError

ACTIONS = ("label", "skip", "undo")
#: A labelled prediction: (riddle_id, model).
ItemKey = tuple[str, str]


@dataclass(frozen=True)
class Event:
    """A surviving label or skip, with the 1-based line it came from."""

    action: str
    riddle_id: str
    model: str
    annotator: str
    line: int
    record: Mapping[str, Any]

    @property
    def item(self) -> ItemKey:
        return (self.riddle_id, self.model)


def _action(rec: Mapping[str, Any], line: int, source: str) -> str:
    action = rec.get("action", "label")
    if action not in ACTIONS:
        raise SchemaError(f"{source}: line {line}: action {action!r} is not one of {', '.join(ACTIONS)}")
    if action != "label":
        for key in ("riddle_id", "model", "annotator"):
            if not isinstance(rec.get(key), str) or not rec[key]:
                raise SchemaError(f"{source}: line {line}: a {action} line needs a non-empty string {key!r}")
    return str(action)


class Replay:
    """The log replayed one line at a time: :meth:`feed` returns what a line changed, so a reader
    that keeps up with the file (the annotation app) never replays it from the start again."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._stacks: dict[tuple[str, str, str], list[Event]] = {}
        self._alive: dict[int, Event] = {}  # the surviving events by line, in file order

    def feed(self, rec: Mapping[str, Any], line: int) -> tuple[int, Event]:
        """Apply one line: (+1, the event it adds) or (-1, the event an undo withdraws).

        An undo with nothing to withdraw, or a second label of one prediction by one annotator with
        no undo between them, is an error naming the line(s); the state is then as before the line.
        """
        action = _action(rec, line, self.source)
        key = (str(rec.get("riddle_id")), str(rec.get("model")), str(rec.get("annotator")))
        stack = self._stacks.get(key, [])
        if action == "undo":
            if not stack:
                raise SchemaError(
                    f"{self.source}: line {line}: undo of {key[:2]} by {key[2]!r}, which has nothing to undo")
            gone = stack.pop()
            del self._alive[gone.line]
            return -1, gone
        if action == "label":
            earlier = [e.line for e in stack if e.action == "label"]
            if earlier:
                raise SchemaError(
                    f"{self.source}: duplicate annotations key {key[:2]} by annotator {key[2]!r} on lines "
                    f"{earlier[0]} and {line} (withdraw a label with an \"action\": \"undo\" line)"
                )
        event = Event(action, key[0], key[1], key[2], line, rec)
        self._stacks.setdefault(key, []).append(event)
        self._alive[line] = event
        return 1, event

    def events(self) -> list[Event]:
        """The surviving events, in file order."""
        return list(self._alive.values())


def replay(records: Sequence[Mapping[str, Any]], lines: Sequence[int], source: str) -> list[Event]:
    """The events that survive the undos, in file order (errors as :meth:`Replay.feed`)."""
    state = Replay(source)
    for rec, line in zip(records, lines, strict=True):
        state.feed(rec, line)
    return state.events()


def labels(events: Iterable[Event]) -> list[Event]:
    """The surviving labels (no skips), in file order."""
    return [e for e in events if e.action == "label"]


def primary(events: Iterable[Event]) -> list[Event]:
    """The first surviving label of each prediction: the one calibration uses."""
    seen: set[ItemKey] = set()
    out = []
    for e in labels(events):
        if e.item not in seen:
            seen.add(e.item)
            out.append(e)
    return out
