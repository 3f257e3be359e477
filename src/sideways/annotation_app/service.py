"""The annotation app without HTTP: sessions, the next item, labels, skips, undos, progress.

One service serves one annotator on one split. The model's identity is never in what
:meth:`LabelService.next` returns; :meth:`LabelService.label` reveals it once the label is on
disk. Item ids are opaque (an HMAC of riddle and model under a key drawn at start), tokens are
per session. Methods block (file lock, fsync): the HTTP layer runs them in a worker thread,
one at a time per service.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sideways.annotation.agreement import agreement
from sideways.annotation.log import Event, ItemKey
from sideways.annotation_app.audit_field import audit_field
from sideways.annotation_app.items import Item
from sideways.annotation_app.queue import Plan, State, eligible, next_item, progress
from sideways.annotation_app.store import LabelStore

MAX_NOTE = 2000
MAX_SESSIONS = 1000  # a script calling GET /api/next without its token opens a session each time
# A session that has not asked for an item for this long no longer holds one: a reload opens a
# new session, and the old one's item must not stay hidden from everyone else forever.
HOLD_S = 300.0


class BadRequest(ValueError):
    """A malformed request body; ``field`` names what is wrong (HTTP 400)."""

    def __init__(self, field: str, message: str) -> None:
        field = field if field.isidentifier() else repr(field)[:60]  # a client's key, shown on one line
        super().__init__(f"{field}: {message}")
        self.field = field


class Conflict(RuntimeError):
    """The request cannot apply to the label file as it now is (HTTP 409)."""


@dataclass
class Session:
    """One browser or script: the item it holds, an item to show first (after an undo), and when
    it last asked for an item (``time.monotonic``)."""

    held: ItemKey | None = None
    pinned: ItemKey | None = None
    seen: float = 0.0


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _flag(body: Mapping[str, Any], field: str) -> bool:
    value = body.get(field)
    if not isinstance(value, bool):
        raise BadRequest(field, "required, true or false")
    return value


class LabelService:
    """Labels of ``annotator`` on ``items`` (one split), appended to ``store``."""

    def __init__(self, items: Sequence[Item], plan: Plan, store: LabelStore, annotator: str,
                 clock: Callable[[], str] = utc_now, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.items = {i.candidate.key: i for i in items}
        self.candidates = [i.candidate for i in items]
        self.plan, self.store, self.annotator, self.clock = plan, store, annotator, clock
        self.monotonic = monotonic
        key = secrets.token_bytes(16)
        self.ids = {k: hmac.new(key, "\x1f".join(k).encode(), hashlib.sha256).hexdigest()[:24] for k in self.items}
        self.keys = {v: k for k, v in self.ids.items()}
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()

    def open_session(self) -> str:
        token = secrets.token_urlsafe(32)
        with self.lock:
            while len(self.sessions) >= MAX_SESSIONS:
                del self.sessions[next(iter(self.sessions))]  # the oldest
            self.sessions[token] = Session(seen=self.monotonic())
        return token

    def valid(self, token: str | None) -> bool:
        """Whether ``token`` is a live session's (a dict lookup: atomic, and safe from the event loop)."""
        return token is not None and token in self.sessions

    def _open(self, events: list[Event]) -> set[ItemKey]:
        return {c.key for c in eligible(self.plan, self.candidates, State.of(events), self.annotator)}

    def next(self, token: str) -> dict[str, Any] | None:
        """The next item for this session (the one it holds, if still open), or None when done."""
        with self.lock:
            session = self.sessions[token]
            session.seen = now = self.monotonic()
            events = self.store.events()
            open_ = self._open(events)
            for key in (session.pinned, session.held):
                if key is not None and key in open_:
                    session.held = key
                    break
            else:
                others = [s.held for t, s in self.sessions.items()
                          if t != token and s.held is not None and now - s.seen < HOLD_S]
                chosen = next_item(self.plan, self.candidates, events, self.annotator, others)
                session.held = None if chosen is None else chosen.key
            session.pinned = None
            if session.held is None:
                return None
            item = self.items[session.held]
            return {
                "item_id": self.ids[session.held],
                "riddle": item.riddle,
                "prediction": {"answer": item.answer, "justification": item.justification},
                "progress": self._progress(events),
            }

    def _item(self, body: Any, allowed: set[str]) -> ItemKey:
        if not isinstance(body, dict):
            raise BadRequest("body", "expected a JSON object")
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise BadRequest(unknown[0], "unknown field")
        item_id = body.get("item_id")
        if not isinstance(item_id, str) or item_id not in self.keys:
            raise BadRequest("item_id", "required, an item_id from GET /api/next of this server")
        return self.keys[item_id]

    def _append(self, record: dict[str, Any], key: ItemKey) -> list[Event]:
        def check(events: list[Event]) -> None:
            if key not in self._open(events):
                raise Conflict(f"item {self.ids[key]} is no longer open to {self.annotator!r} "
                               "(labelled or skipped already, or it has all its labels)")
        return self.store.append(record, check)

    def label(self, token: str, body: Any) -> dict[str, Any]:
        """Append a label; the answer reveals the model. ``body``: item_id, answer_correct,
        justification_correct, note (optional)."""
        key = self._item(body, {"item_id", "answer_correct", "justification_correct", "note"})
        answer, justification = _flag(body, "answer_correct"), _flag(body, "justification_correct")
        note = body.get("note", "")
        if not isinstance(note, str) or len(note) > MAX_NOTE:
            raise BadRequest("note", f"a string of at most {MAX_NOTE} characters")
        c = self.items[key].candidate
        record: dict[str, Any] = {
            "riddle_id": c.riddle_id, "model": c.model, "provider": c.provider,
            "human_answer_correct": answer, "human_justification_correct": justification,
            "human_both_correct": answer and justification, "annotator": self.annotator, "timestamp": self.clock(),
        }
        if note.strip():
            record["note"] = note.strip()
        with self.lock:
            events = self._append(record, key)
            self.sessions[token].held = None
            return {"saved": True, "item_id": self.ids[key], "riddle_id": c.riddle_id, "model": c.model,
                    "model_name": self.items[key].model_name, "provider": c.provider,
                    "progress": self._progress(events)}

    def skip(self, token: str, body: Any) -> dict[str, Any]:
        """Pass on an item: never shown to this annotator again (unless undone)."""
        key = self._item(body, {"item_id"})
        record = {"action": "skip", "riddle_id": key[0], "model": key[1], "annotator": self.annotator,
                  "timestamp": self.clock()}
        with self.lock:
            events = self._append(record, key)
            self.sessions[token].held = None
            return {"skipped": True, "item_id": self.ids[key], "progress": self._progress(events)}

    def undo(self, token: str) -> dict[str, Any]:
        """Withdraw this annotator's latest label or skip; that item is the session's next."""
        with self.lock:
            mine = [e for e in self.store.events() if e.annotator == self.annotator]
            if not mine:
                raise Conflict(f"nothing of {self.annotator!r} to undo")
            last = mine[-1]

            def check(events: list[Event]) -> None:
                now = [e for e in events if e.annotator == self.annotator]
                if not now or now[-1].line != last.line:
                    raise Conflict("the label file changed meanwhile; undo again")

            record = {"action": "undo", "riddle_id": last.riddle_id, "model": last.model,
                      "annotator": self.annotator, "timestamp": self.clock()}
            events = self.store.append(record, check)
            self.sessions[token].pinned = last.item if last.item in self.items else None
            return {"undone": last.action, "item_id": self.ids.get(last.item), "progress": self._progress(events)}

    def _progress(self, events: list[Event]) -> dict[str, Any]:
        out = progress(self.plan, self.candidates, events)
        out["annotator"] = self.annotator
        out["mine"] = sum(1 for e in events if e.annotator == self.annotator and e.action == "label")
        out["agreement"] = [
            {"annotators": list(a.annotators), "n": a.n, "kappa": a.kappa} for a in agreement(events)
        ]
        out["audit"] = audit_field(self, events)  # the annotators' audit, refreshed in the background
        return out

    def progress(self) -> dict[str, Any]:
        with self.lock:
            return self._progress(self.store.events())
