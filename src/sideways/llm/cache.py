"""The request cache: one durable JSON record per answered request, addressed by its content.

The key is the SHA-256 of the canonical JSON of the request's key parts: provider, endpoint,
model and the full request body (generation parameters, prompt text, images as base64). Keys,
headers and base URLs are not part of it, so rotating a key or moving a local server does not
invalidate anything. Records are written atomically (temporary file, fsync, rename). A run
first appends each answer to its journal (:mod:`sideways.llm.journal`), so a run killed with
SIGKILL loses only the requests that were in flight: the next run turns the journal into records.

A record keeps a readable copy of its key parts (images replaced by their digest) and a label
such as ``predict/gpt-5-1/riddle-017``, so :func:`explain` can show which part changed when a
request misses the cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from sideways.artifacts.io import atomic_write_bytes
from sideways.core.errors import SchemaError
from sideways.core.jsonl import dumps_line

CACHE_VERSION = 1
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]{256,}$")
_KEY = re.compile(r"[0-9a-f]{64}")


def is_key(key: object) -> TypeGuard[str]:
    """Whether ``key`` is a cache key (64 lowercase hex digits): nothing else names a file under the cache."""
    return isinstance(key, str) and _KEY.fullmatch(key) is not None


def check_key(key: object, where: str = "request cache") -> str:
    """``key`` if it is a cache key; a :class:`SchemaError` naming ``where`` otherwise (a record from a
    pulled file must not choose where it is written: ``../../x`` would land outside the cache)."""
    if not is_key(key):
        raise SchemaError(f"{where}: 'key' must be 64 lowercase hex digits (a SHA-256), got {str(key)[:80]!r}")
    return key


def canonical_json(obj: Any) -> bytes:
    """Sorted keys, no whitespace, UTF-8: equal objects give equal bytes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def key_parts(provider: str, endpoint: str, model: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """What identifies a request: everything that can change the answer, nothing secret."""
    return {"v": CACHE_VERSION, "provider": provider, "endpoint": endpoint, "model": model, "body": body}


def request_key(parts: Mapping[str, Any]) -> str:
    """The cache key (also the ``request_hash`` column of predictions and judgments)."""
    return hashlib.sha256(canonical_json(parts)).hexdigest()


def payload_key(provider: str, endpoint: str, model: str, payload: bytes) -> str:
    """:func:`request_key` of :func:`key_parts` from the body's canonical JSON, without encoding it again.

    The canonical JSON of the parts is their keys in sorted order (``body`` < ``endpoint`` <
    ``model`` < ``provider`` < ``v``), so it can be assembled around ``payload``
    (``canonical_json(body)``), which is also what the request sends: the body is encoded once.
    """
    digest = hashlib.sha256(b'{"body":')
    digest.update(payload)
    digest.update(b',"endpoint":%b,"model":%b,"provider":%b,"v":%d}' % (
        canonical_json(endpoint), canonical_json(model), canonical_json(provider), CACHE_VERSION))
    return digest.hexdigest()


def readable(obj: Any) -> Any:
    """``obj`` with base64 blobs (images) replaced by ``sha256:<digest> (<n> chars)``."""
    kind = type(obj)  # exact types first: a record is built per answer, on the event loop
    if kind is str:
        return _digest(obj) if len(obj) >= 256 and _is_blob(obj) else obj
    if kind is dict:
        return {k: readable(v) for k, v in obj.items()}
    if kind is list:
        return [readable(v) for v in obj]
    if kind in _SCALARS:
        return obj
    if isinstance(obj, str):
        return _digest(obj) if len(obj) >= 256 and _is_blob(obj) else obj
    if isinstance(obj, Mapping):
        return {k: readable(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [readable(v) for v in obj]
    return obj


_SCALARS = frozenset({int, float, bool, type(None)})


def _is_blob(text: str) -> bool:
    return (text.startswith("data:") and ";base64," in text[:80]) or _BASE64.match(text[:400]) is not None


def _digest(text: str) -> str:
    return f"sha256:{hashlib.sha256(text.encode()).hexdigest()[:16]} ({len(text)} chars)"


@dataclass(frozen=True)
class Difference:
    """One key part that differs between a cached request and the current one."""

    path: str
    cached: Any
    current: Any


class RequestCache:
    """Records under ``root/<2 hex>/<key>.json``; safe to share between concurrent runs."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._prefix = str(self.root)

    def path(self, key: str) -> Path:
        check_key(key)
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The record for ``key``, or None (an unreadable record counts as a miss)."""
        if not is_key(key):
            return None
        try:
            with open(f"{self._prefix}/{key[:2]}/{key}.json", "rb") as fh:
                record = json.loads(fh.read())
        except (FileNotFoundError, NotADirectoryError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("key") == key else None

    def put(self, record: Mapping[str, Any]) -> None:
        """Write ``record`` (which names its ``key``) durably and atomically."""
        atomic_write_bytes(self.path(record["key"]), encode(record))

    def write_encoded(self, key: str, data: bytes) -> None:
        """Like :meth:`put` for a record already encoded: temporary file, every byte written, fsync,
        rename; on any failure (a full disk) the temporary file is removed and the error raised.

        Almost only system calls, which release the GIL: the runner calls it from writer
        threads while the event loop keeps requests flowing.
        """
        check_key(key)
        path = f"{self._prefix}/{key[:2]}/{key}.json"
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except FileNotFoundError:
            os.makedirs(f"{self._prefix}/{key[:2]}", exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            try:
                view = memoryview(data)
                while view:  # a full disk may write part of it: never rename a short record into place
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def forget(self, key: str) -> bool:
        """Delete the record for ``key``; True if there was one."""
        try:
            self.path(key).unlink()
            return True
        except FileNotFoundError:
            return False

    def records(self) -> Iterator[dict[str, Any]]:
        """Every readable record, in no particular order."""
        if not self.root.is_dir():
            return
        for path in self.root.glob("??/*.json"):
            try:
                record = json.loads(path.read_bytes())
            except ValueError:
                continue
            if isinstance(record, dict) and "key" in record:
                yield record


def encode(record: Mapping[str, Any]) -> bytes:
    """A record's bytes on disk (sorted keys, UTF-8, one line: :func:`~sideways.core.jsonl.dumps_line`)."""
    return dumps_line(record, sort_keys=True).encode()


def make_record(
    key: str,
    parts: Mapping[str, Any],
    label: str,
    response: Any,
    *,
    input_tokens: int | None,
    output_tokens: int | None,
    cost_usd: float | None,
    batch: bool,
    created_at: str,
    elapsed_s: float,
    attempts: int,
    error: str | None = None,
    status_code: int | None = None,
    readable_parts: bool = False,
) -> dict[str, Any]:
    """A cache record: the answer (or a deterministic rejection), what it cost, when, and the
    key parts that addressed it."""
    return {
        "error": error,
        "status_code": status_code,
        "version": CACHE_VERSION,
        "key": key,
        "label": label,
        "parts": parts if readable_parts else readable(parts),
        "response": response,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": cost_usd,
        "batch": batch,
        "created_at": created_at,
        "elapsed_s": round(elapsed_s, 4),
        "attempts": attempts,
    }


def differences(cached: Any, current: Any, path: str = "") -> list[Difference]:
    """Leaf-by-leaf differences between two readable key-part trees."""
    if isinstance(cached, Mapping) and isinstance(current, Mapping):
        out: list[Difference] = []
        for k in sorted(set(cached) | set(current), key=str):
            sub = f"{path}.{k}" if path else str(k)
            if k not in cached:
                out.append(Difference(sub, "<absent>", current[k]))
            elif k not in current:
                out.append(Difference(sub, cached[k], "<absent>"))
            else:
                out.extend(differences(cached[k], current[k], sub))
        return out
    if isinstance(cached, list) and isinstance(current, list) and len(cached) == len(current):
        pairs = enumerate(zip(cached, current, strict=True))
        return [d for i, (a, b) in pairs for d in differences(a, b, f"{path}[{i}]")]
    return [] if cached == current else [Difference(path or "<root>", cached, current)]


def explain(cache: RequestCache, key: str, parts: Mapping[str, Any], label: str) -> list[str]:
    """Lines saying whether ``key`` is cached and, if not, how it differs from the nearest record.

    The nearest record is one with the same label (same stage, model and riddle), else one with
    the same provider, endpoint and model; the lines name each differing key part.
    """
    if cache.get(key) is not None:
        return [f"{label}: hit ({key[:12]})"]
    current = readable(parts)
    same_label, same_model = [], []
    for record in cache.records():
        if record.get("label") == label:
            same_label.append(record)
        else:
            rp = record.get("parts") or {}
            if all(rp.get(f) == current.get(f) for f in ("provider", "endpoint", "model")):
                same_model.append(record)
    candidates = same_label or same_model
    if not candidates:
        return [f"{label}: miss ({key[:12]}): no cached request for this label or for "
                f"{current['provider']}/{current['model']} at all"]
    best = min(candidates, key=lambda r: (len(differences(r.get("parts"), current)), r.get("created_at", "")))
    diffs = differences(best.get("parts"), current)
    kind = "same label" if same_label else "same provider and model"
    lines = [f"{label}: miss ({key[:12]}); nearest cached request ({kind}, {best['key'][:12]}, "
             f"{best.get('created_at', '?')}) differs in {len(diffs)} part(s):"]
    for d in diffs[:20]:
        cached, now = _around_first_change(d.cached, d.current)
        lines.append(f"  {d.path}: cached {cached} -> now {now}")
    return lines


def _around_first_change(a: Any, b: Any, context: int = 30) -> tuple[str, str]:
    """Both values shortened; two long strings are shown around their first differing character."""
    if isinstance(a, str) and isinstance(b, str) and max(len(a), len(b)) > 70:
        i = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        lo = max(0, i - context)
        return (f"@{i} ...{a[lo:i + context]!r}...", f"...{b[lo:i + context]!r}...")
    return _short(a), _short(b)


def _short(value: Any, width: int = 70) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."
