"""The reading helpers: JSONC as bun writes it, and the generated project of the bench."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench.speed.project import make_project
from pinax.project import read_project
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


def test_the_benchs_generated_project_reads_whole(tmp_path: Path) -> None:
    make_project(tmp_path, locked=30, installed=50)
    project = read_project(tmp_path)
    assert project.warnings == []
    found = Counter((d.ecosystem, d.how) for d in project.dependencies.values())
    assert found == {
        ("pypi", "locked"): 30,  # uv.lock
        ("pypi", "declared"): 10,  # declared in pyproject.toml beyond the 30 locked
        ("npm", "installed"): 50,  # node_modules, every tenth scoped
        ("npm", "locked"): 3,  # locked by their unscoped names, installed scoped
        ("npm", "declared"): 1,
        ("runtime", "declared"): 1,  # requires-python
    }
