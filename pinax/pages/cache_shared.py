"""A page cache shared by every Pinax pointed at one Redis (or Valkey): `--cache-redis URL`.

Replicas read a page from their own disk cache first, then from here, then from the site; a
page one replica fetched is written here (and to its disk) and served to all. A cold page is
fetched once however many replicas ask: the first takes a lock (`SET NX PX`) and the others
poll for the value it writes (see reader.py).

What is stored is a page result only (the entry the disk cache holds), as zlib-compressed JSON
under a key that hashes the disk cache's key (the URL in its credentials' namespace, so pages
read behind a login are never shared with a process holding other headers), expiring with the
page's TTL. Everything read back is untrusted: a value bigger than `MAX_VALUE_BYTES`, that does
not decompress within `MAX_JSON_BYTES`, or that is not exactly an entry for the URL asked
(types, fields, its Markdown's hash) is ignored and the page read again.

Redis is an accelerator, never a dependency: every operation has a socket timeout of tens of
milliseconds (`TIMEOUT`; a `?socket_timeout=` in the URL overrides it) and answers "nothing" on
any failure; after `FAILURES_TO_REST` failures in a row to reach it Redis is left alone for
`RETRY_AFTER` seconds (so a dead or hung Redis costs nothing), then tried again, which is how
Pinax finds it again after a restart. One slow answer (a busy machine) costs only that call.
That Redis is unreachable, or refuses a write (full), is logged once a minute at most.

redis-py (with hiredis) is the optional extra `team`, imported only when a URL is given.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pinax.errors import InvalidArgs

log = logging.getLogger("pinax.pages")

PREFIX = "pinax:page:v1:"  # v1: zlib JSON {"key", "entry", "ttl"}; the lock is PREFIX + "lock:"
MAX_VALUE_BYTES = 10 << 20  # stored (compressed); a bigger page stays in the disk cache only
MAX_JSON_BYTES = 64 << 20  # decompressed, as the disk cache's MAX_VALUE_BYTES
TIMEOUT = 0.05  # seconds, to connect and for each answer
RETRY_AFTER = 1.0  # seconds Redis is left alone once it is taken for unreachable
FAILURES_TO_REST = 3  # failures in a row to reach Redis that make it taken for unreachable
LOCK_HOLD = 5.0  # seconds a fetch lock lasts unless its holder renews it (a dead one does not)
WARN_EVERY = 60.0  # seconds between warnings about Redis
SCHEMES = ("redis", "rediss", "unix")
SOURCES = frozenset({"markdown-twin", "markdown-alternate", "negotiated", "html"})
_TEXT_FIELDS = ("url", "title", "source", "source_url", "fetched_at", "content_hash", "markdown")
_KNOWN_FIELDS = frozenset(
    {*_TEXT_FIELDS, "requested_url", "removed_hidden", "validators", "heading_ids", "entries"}
)
# Delete or extend the lock only while it is still ours: it may have expired and been taken.
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""
_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""


@dataclass(frozen=True)
class Claim:
    """What asking for a page's fetch lock came to: `token` when this process holds it (or
    may: the answer was lost), `elsewhere` when another does (wait for its value); neither when
    Redis could not be asked."""

    token: str | None = None
    elsewhere: bool = False


_OPEN: dict[str, SharedCache] = {}
_OPENING = threading.Lock()


def open_shared(url: str) -> SharedCache:
    """The process's one `SharedCache` for `url`: a server that reloads its manifests makes
    new tools each time, and they keep one connection pool (and one view of Redis's health)."""
    with _OPENING:
        found = _OPEN.get(url)
        if found is None:
            found = _OPEN[url] = SharedCache(url)
        return found


class SharedCache:
    """Pages in Redis by cache key; every method answers (None, nothing) when Redis fails."""

    def __init__(self, url: str, timeout: float = TIMEOUT) -> None:
        self.where = describe(url)  # the URL may hold a password: never logged
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:
            raise InvalidArgs(
                "--cache-redis needs the Redis client, which is the optional extra `team`: "
                "pip install 'pinax[team]'"
            ) from None
        try:
            self._redis = redis.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=Retry(NoBackoff(), 0),  # a failure falls back at once, never retried
                health_check_interval=0,
            )
        except ValueError as exc:
            raise InvalidArgs(f"--cache-redis {self.where}: {exc}") from None
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._unreachable = (redis.ConnectionError, redis.TimeoutError, OSError)
        self._release = self._redis.register_script(_RELEASE)
        self._renew = self._redis.register_script(_RENEW)
        self.hold = LOCK_HOLD  # seconds a fetch lock lasts unless renewed
        self._lock = threading.Lock()
        self._resting_until = 0.0  # monotonic: Redis is not asked before then
        self._failures = 0  # in a row, to reach Redis
        self._warned_at = -WARN_EVERY
        self._troubled = False

    def check(self) -> bool:
        """Whether Redis answers (said in the log when not, once a minute at most): a server
        asks at start-up."""
        try:
            self._redis.ping()
        except self._errors as exc:
            now = time.monotonic()
            with self._lock:
                self._troubled = True
                if now - self._warned_at < WARN_EVERY:
                    return False
                self._warned_at = now
            log.warning(
                "the shared page cache (Redis at %s) does not answer: %s; reading pages from the "
                "disk cache and the sites until it does",
                self.where,
                _short(exc),
            )
            return False
        self._fine()
        return True

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        """(entry, age in seconds) when Redis holds a sound copy of the page, else None."""
        if self._resting():
            return None
        name = value_key(key)
        try:
            with self._redis.pipeline(transaction=False) as pipe:
                pipe.getrange(name, 0, MAX_VALUE_BYTES)  # never more than the limit + 1 byte
                pipe.pttl(name)
                data, remaining = pipe.execute()
        except self._errors as exc:
            self._trouble(exc)
            return None
        self._fine()
        if not data:
            return None
        found = decode(data, key)
        if found is None:
            log.warning("ignored a damaged or foreign shared-cache value for %s", _url_of(key))
            return None
        entry, ttl = found
        left = remaining / 1000 if isinstance(remaining, int) and remaining > 0 else 0.0
        return entry, max(0.0, ttl - left)  # by Redis's clock: the replicas' may differ

    def put(self, key: str, entry: dict[str, Any], ttl: float) -> None:
        """Store a page for `ttl` seconds (a page too big for `MAX_VALUE_BYTES` is not)."""
        if ttl <= 0 or self._resting():
            return
        data = encode(key, entry, ttl)
        if data is None:
            log.info("not sharing %s: over %d bytes compressed", _url_of(key), MAX_VALUE_BYTES)
            return
        try:
            self._redis.set(value_key(key), data, px=max(1, int(ttl * 1000)))
        except self._errors as exc:
            self._trouble(exc)
            return
        self._fine()

    def claim(self, key: str, hold: float | None = None) -> Claim:
        """Take the lock on fetching `key` for `hold` seconds (unless renewed), if no one holds
        it. When the answer is lost (a timeout) the lock may be ours: the caller fetches, and
        releases it after, which deletes it only if it is."""
        if self._resting():
            return Claim()
        token = secrets.token_hex(16)
        milliseconds = max(1, int((self.hold if hold is None else hold) * 1000))
        try:
            taken = self._redis.set(lock_key(key), token, nx=True, px=milliseconds)
        except self._errors as exc:
            self._trouble(exc)
            return Claim(token=token) if isinstance(exc, self._unreachable) else Claim()
        self._fine()
        return Claim(token=token) if taken else Claim(elsewhere=True)

    def renew(self, key: str, claim: Claim) -> bool:
        """Extend a lock this process holds by `hold` seconds; False once it is not held."""
        if claim.token is None or self._resting():
            return False
        try:
            held = self._renew(keys=[lock_key(key)], args=[claim.token, int(self.hold * 1000)])
        except self._errors as exc:
            self._trouble(exc)
            return True  # it may still be held: try again at the next turn
        self._fine()
        return bool(held)

    def release(self, key: str, claim: Claim) -> None:
        """Let go of a lock this process holds (and only if it is still the one it took)."""
        if claim.token is None:
            return
        try:
            self._release(keys=[lock_key(key)], args=[claim.token])
        except self._errors as exc:
            self._trouble(exc)  # the lock expires by itself

    def close(self) -> None:
        self._redis.close()

    def _resting(self) -> bool:
        return time.monotonic() < self._resting_until

    def _trouble(self, exc: BaseException) -> None:
        """After `FAILURES_TO_REST` failures in a row to reach Redis, leave it alone a while
        and say so (once a minute at most). A refused command (a full Redis's OOM answer) is
        said too; it only loses that command."""
        now = time.monotonic()
        with self._lock:
            if isinstance(exc, self._unreachable):
                self._failures += 1
                if self._failures < FAILURES_TO_REST:
                    return  # one slow answer is a busy machine, not a dead Redis
                self._failures = 0
                self._resting_until = now + RETRY_AFTER
            self._troubled = True
            if now - self._warned_at < WARN_EVERY:
                return
            self._warned_at = now
        log.warning(
            "the shared page cache (Redis at %s) failed: %s; reading pages from the disk cache "
            "and the sites meanwhile (said at most once a minute)",
            self.where,
            _short(exc),
        )

    def _fine(self) -> None:
        self._failures = 0
        if self._troubled:
            with self._lock:
                if not self._troubled:
                    return
                self._troubled = False
            log.warning("the shared page cache (Redis at %s) answers again", self.where)


def value_key(key: str) -> str:
    """The Redis key of a page: a hash of its cache key (bounded, whatever the URL's length)."""
    return PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()


def lock_key(key: str) -> str:
    return PREFIX + "lock:" + hashlib.sha256(key.encode("utf-8")).hexdigest()


def describe(url: str) -> str:
    """Where a Redis URL points, without its user and password."""
    try:
        parts = urlsplit(url)
        if parts.scheme not in SCHEMES:
            raise ValueError
        host = parts.hostname or "localhost"
        where = parts.path if parts.scheme == "unix" else f"{host}:{parts.port or 6379}"
    except ValueError:
        raise InvalidArgs(
            "--cache-redis: not a Redis URL (redis://host:port/db, rediss://... or "
            "unix:///path/to/socket)"
        ) from None
    return f"{parts.scheme}://{where}"


def encode(key: str, entry: dict[str, Any], ttl: float) -> bytes | None:
    """The stored value, or None when it would be bigger than `MAX_VALUE_BYTES`."""
    text = json.dumps({"key": key, "entry": entry, "ttl": ttl}, ensure_ascii=False)
    data = zlib.compress(text.encode("utf-8"), 6)
    return data if len(data) <= MAX_VALUE_BYTES else None


def decode(data: bytes, key: str) -> tuple[dict[str, Any], float] | None:
    """(entry, ttl) from a stored value, or None unless it is a sound entry for `key`."""
    if len(data) > MAX_VALUE_BYTES:
        return None
    try:
        inflater = zlib.decompressobj()
        text = inflater.decompress(data, MAX_JSON_BYTES + 1)
        if len(text) > MAX_JSON_BYTES or not inflater.eof or inflater.unused_data:
            return None
        stored = json.loads(text.decode("utf-8"))
    except (ValueError, zlib.error, RecursionError):
        return None
    if not isinstance(stored, dict) or set(stored) != {"key", "entry", "ttl"}:
        return None
    entry, ttl = stored["entry"], stored["ttl"]
    if stored["key"] != key or type(ttl) not in (int, float) or not 0 < ttl < 1e9:
        return None
    return (entry, float(ttl)) if sound_entry(entry, _url_of(key)) else None


def sound_entry(entry: Any, url: str) -> bool:
    """Whether `entry` is exactly what the reader stores for `url`: its fields and their
    types, and a content hash that is its Markdown's."""
    if not isinstance(entry, dict) or not set(entry) <= _KNOWN_FIELDS:
        return False
    if not all(isinstance(entry.get(name), str) for name in _TEXT_FIELDS):
        return False
    if entry["source"] not in SOURCES or entry.get("requested_url", entry["url"]) != url:
        return False
    validators = entry.get("validators")
    if not isinstance(validators, dict) or not set(validators) <= {"etag", "last_modified"}:
        return False
    if not all(value is None or isinstance(value, str) for value in validators.values()):
        return False
    removed = entry.get("removed_hidden", 0)
    if type(removed) is not int or removed < 0:
        return False
    if not all(isinstance(entry.get(name, []), list) for name in ("heading_ids", "entries")):
        return False
    try:
        digest = hashlib.sha256(entry["markdown"].encode("utf-8")).hexdigest()
    except UnicodeEncodeError:  # a lone surrogate, which JSON allows and no page holds
        return False
    return entry["content_hash"] == "sha256:" + digest


def _url_of(key: str) -> str:
    """The URL in a cache key (`credentials:NAMESPACE URL` or the URL itself)."""
    return key.split(" ", 1)[1] if key.startswith("credentials:") else key


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "..."
