"""The reading helpers: JSONC as bun writes it."""

from __future__ import annotations

import json

import pytest

from pinax.project.reading import strip_jsonc


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": [1, 2,],}', {"a": [1, 2]}),
        ('{"a": 1, // a comment, with a comma\n}', {"a": 1}),
        ('{"a": /* inline, */ 1 , }', {"a": 1}),
        ('{"url": "https://x.org/a//b", "s": "a,]"}', {"url": "https://x.org/a//b", "s": "a,]"}),
        ('{"q": "say \\"hi\\", // not a comment",}', {"q": 'say "hi", // not a comment'}),
        ("[1,\n  // last\n]", [1]),
        ('{"a": [1,\n\n\t]}', {"a": [1]}),
        ('{"open": "unterminated', None),
        ("/* never closed", None),
    ],
)
def test_strip_jsonc(text: str, value: object) -> None:
    plain = strip_jsonc(text)
    if value is None:
        with pytest.raises(json.JSONDecodeError):
            json.loads(plain)
    else:
        assert json.loads(plain) == value


def test_strip_jsonc_keeps_plain_json() -> None:
    text = json.dumps({"a": [1, {"b": "c,//d"}], "e": None}, indent=2)
    assert strip_jsonc(text) == text
