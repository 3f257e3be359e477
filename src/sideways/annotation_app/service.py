"""The annotation app without HTTP: sessions, the next item, labels, skips, undos, progress.

One service serves one annotator on one split. The model's identity is never in what
:meth:`LabelService.next` returns; :meth:`LabelService.label` reveals it once the label is on
disk. Item ids are opaque (an HMAC of riddle and model under a key drawn at start), tokens are
per session. Methods block (file lock, fsync): the HTTP layer runs them in a worker thread,
one at a time per service. The state comes from a :class:`~sideways.annotation_app.tally.Tally`
the store keeps up to date, so no request replays the label log.

A session holds the item it was given while its page keeps beating (:meth:`LabelService.beat`,
every few seconds): a closed tab's item is back in the queue ``HOLD_S`` seconds later. A session
that went away (evicted when ``MAX_SESSIONS`` are open) is never an error: asking again opens it
anew, and a label it sent is saved.
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

from sideways.annotation.log import Event, ItemKey
from sideways.annotation_app.audit_field import audit_field
from sideways.annotation_app.items import Item
from sideways.annotation_app.queue import Plan
from sideways.annotation_app.store import LabelStore
from sideways.annotation_app.tally import Tally
from sideways.annotation_app.uncertain import Scores

MAX_NOTE = 2000
MAX_SESSIONS = 1000  # a script calling GET /api/next without its token opens a session each time
# A session whose page has not beaten (nor asked for an item) for this long no longer holds its
# item: the page beats every BEAT_S seconds, so a closed tab frees its item within seconds.
HOLD_S = 30.0
BEAT_S = 10.0


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
    """Labels of ``annotator`` on ``items`` (one split), appended to ``store``. ``empty_bins_fail``:
    the interval in use fails on an empty jury-score bin (the published one with ``empty_bin: error``).
    ``scores``: the ``uncertain`` queue's (refitted in the background as labels come)."""

    def __init__(self, items: Sequence[Item], plan: Plan, store: LabelStore, annotator: str,
                 clock: Callable[[], str] = utc_now, monotonic: Callable[[], float] = time.monotonic,
                 empty_bins_fail: bool = False, scores: Scores[Any] | None = None) -> None:
        self.items = {i.candidate.key: i for i in items}
        self.candidates = [i.candidate for i in items]
        self.plan, self.store, self.annotator, self.clock = plan, store, annotator, clock
        self.monotonic, self.empty_bins_fail = monotonic, empty_bins_fail
        key = secrets.token_bytes(16)
        self.ids = {k: hmac.new(key, "\x1f".join(k).encode(), hashlib.sha256).hexdigest()[:24] for k in self.items}
        self.keys = {v: k for k, v in self.ids.items()}
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()
        self.scores = scores
        self.tally = Tally(plan, self.candidates, annotator, None if scores is None else scores.current)
        store.subscribe(self.tally)
        store.sync()  # the whole log, once: from here on only what is appended is read

    def open_session(self) -> str:
        with self.lock:
            return self._open_session()

    def _open_session(self, token: str | None = None) -> str:
        token = token or secrets.token_urlsafe(32)
        while len(self.sessions) >= MAX_SESSIONS:
            del self.sessions[next(iter(self.sessions))]  # the oldest
        self.sessions[token] = Session(seen=self.monotonic())
        return token

    def valid(self, token: str | None) -> bool:
        """Whether ``token`` is a live session's (a dict lookup: atomic, and safe from the event loop)."""
        return token is not None and token in self.sessions

    def _session(self, token: str) -> Session:
        """The session of ``token``, opened anew if it was evicted since the token was checked."""
        session = self.sessions.get(token)
        if session is None:
            self._open_session(token)
            session = self.sessions[token]
        return session

    def beat(self, token: str) -> dict[str, Any]:
        """The page is still open: its session keeps holding its item."""
        with self.lock:
            session = self._session(token)
            session.seen = self.monotonic()
            return {"held": session.held is not None and self.tally.is_open(session.held)}

    def next(self, token: str) -> dict[str, Any] | None:
        """The next item for this session (the one it holds, if still open), or None when done."""
        with self.lock:
            session = self._session(token)
            session.seen = now = self.monotonic()
            self.store.sync()
            for key in (session.pinned, session.held):
                if key is not None and self.tally.is_open(key):
                    session.held = key
                    break
            else:
                others = [s.held for t, s in self.sessions.items()
                          if t != token and s.held is not None and now - s.seen < HOLD_S]
                if self.scores is not None:
                    self.scores.refresh(self.tally.n_labels, self._labels)
                chosen = self.tally.next(others)
                session.held = None if chosen is None else chosen.key
            session.pinned = None
            if session.held is None:
                return None
            item = self.items[session.held]
            return {
                "item_id": self.ids[session.held],
                "riddle": item.riddle,
                "prediction": {"answer": item.answer, "justification": item.justification},
                "progress": self._progress(),
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

    def _append(self, record: dict[str, Any], key: ItemKey) -> None:
        def check() -> None:
            if not self.tally.is_open(key):
                raise Conflict(f"item {self.ids[key]} is no longer open to {self.annotator!r} "
                               "(labelled or skipped already, or it has all its labels)")
        self.store.append_if(record, check)

    def _release(self, token: str) -> None:
        """The session holds nothing now (a session evicted meanwhile holds nothing anyway)."""
        session = self.sessions.get(token)
        if session is not None:
            session.held = None

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
            self._append(record, key)
            self._release(token)
            if self.scores is not None:  # the background update starts with the label, not at the next request
                self.scores.refresh(self.tally.n_labels, self._labels)
            return {"saved": True, "item_id": self.ids[key], "riddle_id": c.riddle_id, "model": c.model,
                    "model_name": self.items[key].model_name, "provider": c.provider,
                    "progress": self._progress()}

    def skip(self, token: str, body: Any) -> dict[str, Any]:
        """Pass on an item: never shown to this annotator again (unless undone)."""
        key = self._item(body, {"item_id"})
        record = {"action": "skip", "riddle_id": key[0], "model": key[1], "annotator": self.annotator,
                  "timestamp": self.clock()}
        with self.lock:
            self._append(record, key)
            self._release(token)
            return {"skipped": True, "item_id": self.ids[key], "progress": self._progress()}

    def undo(self, token: str) -> dict[str, Any]:
        """Withdraw this annotator's latest label or skip; that item is the session's next."""
        with self.lock:
            self.store.sync()
            last = self.tally.last_mine()
            if last is None:
                raise Conflict(f"nothing of {self.annotator!r} to undo")

            def check() -> None:
                now = self.tally.last_mine()
                if now is None or now.line != last.line:
                    raise Conflict("the label file changed meanwhile; undo again")

            record = {"action": "undo", "riddle_id": last.riddle_id, "model": last.model,
                      "annotator": self.annotator, "timestamp": self.clock()}
            self.store.append_if(record, check)
            self._session(token).pinned = last.item if last.item in self.items else None
            return {"undone": last.action, "item_id": self.ids.get(last.item), "progress": self._progress()}

    def _progress(self) -> dict[str, Any]:
        out = self.tally.progress()
        out["annotator"] = self.annotator
        out["mine"] = self.tally.mine_labels
        out["holes_fail"] = self.empty_bins_fail
        out["agreement"] = [
            {"annotators": list(a.annotators), "n": a.n, "kappa": a.kappa} for a in self.tally.agreement()
        ]
        out["audit"] = audit_field(self, self.tally.n_labels, self._labels)  # refreshed in the background
        return out

    def _labels(self) -> list[Event]:
        """The surviving label events, from the tally (no replay of the log): what the audit reads."""
        return [e for events in self.tally.labels_of.values() for e in events]

    def progress(self) -> dict[str, Any]:
        with self.lock:
            self.store.sync()
            return self._progress()
