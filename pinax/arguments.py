"""The checks every tool applies to what a client sent: strings, bounded integers, flags,
weights, a docs name and a section path, each refused with a message that says what to send.

Arguments come from MCP clients, the CLI and scripts alike, so nothing is assumed of their
types: a number may arrive as a string, a flag as "true", a section without its slash.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from pinax.errors import InvalidArgs
from pinax.search import RANKING

MAX_URL_LENGTH = 4096
LEXICAL_WEIGHT, EMBEDDING_WEIGHT = RANKING.lexical_weight, RANKING.embedding_weight
CONTENT_WEIGHT = RANKING.content_weight
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # control characters but tab, CR, LF
_SURROGATE = re.compile("[\ud800-\udfff]")
_INTEGER = re.compile(r"-?[0-9]+")


def kind(value: Any) -> str:
    return type(value).__name__ if value is not None else "null"


def text_argument(value: Any, name: str, max_length: int) -> str:
    if not isinstance(value, str):
        raise InvalidArgs(f"{name} must be a string, got {kind(value)}")
    text = value.strip()
    if not text:
        raise InvalidArgs(f"{name} must not be empty")
    if len(text) > max_length:
        raise InvalidArgs(f"{name} is {len(text)} characters long; the limit is {max_length}")
    if _CONTROL.search(text):
        raise InvalidArgs(f"{name} contains control characters")
    if _SURROGATE.search(text):
        raise InvalidArgs(f"{name} contains lone surrogates (not valid Unicode text)")
    return text


def bounded_int(value: Any, name: str, low: int, high: int, default: int) -> int:
    if value is None:
        return default
    number = value
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        digits = value.strip().lstrip("-")
        if len(digits) > 18:  # out of range, and past what int() converts if long enough
            raise InvalidArgs(
                f"{name} must be between {low} and {high} (got a number of {len(digits):,} digits)"
            )
        number = int(value.strip())  # ASCII digits only: isdigit() also takes "²" and "①"
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    if isinstance(number, bool) or not isinstance(number, int):
        got = repr(value[:80]) if isinstance(value, str) else kind(value)
        raise InvalidArgs(f"{name} must be an integer, written in digits such as 10 (got {got})")
    if not low <= number <= high:
        digits = int(abs(number).bit_length() * 0.30103) + 1
        shown = number if abs(number) < 10**18 else f"a number of about {digits:,} digits"
        raise InvalidArgs(f"{name} must be between {low} and {high} (got {shown})")
    return number


def flag(value: Any, name: str) -> bool:
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InvalidArgs(f"{name} must be true or false, got {kind(value)}")


def search_weights(
    lexical: Any,
    embedding: Any,
    content: Any = None,
    defaults: tuple[float, float, float] = (LEXICAL_WEIGHT, EMBEDDING_WEIGHT, CONTENT_WEIGHT),
) -> tuple[float, float, float]:
    """(lexical_weight, embedding_weight, content_weight), each 0..1 (None: its default);
    lexical and embedding not both 0."""
    weights = (
        defaults[0] if lexical is None else fraction(lexical, "lexical_weight"),
        defaults[1] if embedding is None else fraction(embedding, "embedding_weight"),
        defaults[2] if content is None else fraction(content, "content_weight"),
    )
    if not any(weights[:2]):
        raise InvalidArgs(
            "lexical_weight and embedding_weight are both 0: at least one must be above 0 "
            "(0 turns one side off)"
        )
    return weights


def fraction(value: Any, name: str) -> float:
    if value is None:
        return 0.0
    number = value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = value
    if isinstance(number, bool) or not isinstance(number, int | float):
        raise InvalidArgs(f"{name} must be a number between 0 and 1, got {kind(value)}")
    if not 0.0 <= number <= 1.0:
        shown = number if abs(number) < 10**18 else "a very large number"
        raise InvalidArgs(f"{name} must be between 0 and 1 (got {shown})")
    return float(number)


def docs_name(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidArgs(f"docs must be a manifest name (a string), got {kind(value)}")
    return value.strip() or None


def section_path(value: Any) -> str:
    text = text_argument(value, "section", MAX_URL_LENGTH)
    if text.startswith(("http://", "https://")):
        try:
            return urlsplit(text).path or "/"
        except ValueError as exc:  # e.g. "https://[::1": an unclosed IPv6 address
            raise InvalidArgs(f"section is not a valid URL ({exc}): {text[:200]!r}") from None
    if "://" in text:
        raise InvalidArgs(
            f"section must be a URL path, e.g. '/api', or an http(s) URL (got {text[:80]!r})"
        )
    # Models send `patterns` for `/patterns`: the same path, the slash implied.
    return text if text.startswith("/") else "/" + text
