"""The bar, on the real Django 4.2 and 5.2 docs (the shared corpora, built once a session):
5.2's new APIs found first on 5.2 when 5.2 is asked (by `docs`, by `version`, by a project's
lockfile), never from 4.2 when 4.2 is asked; `Options.index_together` only on 4.2; every
version not loaded refused with the loaded list; the 20 questions of bench/quality/versions."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.quality.versions import NOT_LOADED, QUESTIONS, answered, build_manifests, refusals
from pinax.errors import NotFound
from pinax.library import Library
from pinax.manifest import load
from pinax.tools import Tools
from tests.conftest import shared_path

FIXTURES = Path(__file__).parent.parent / "project" / "fixtures"
NEW_IN_5 = {
    "GeneratedField": "GeneratedField",
    "CompositePrimaryKey": "CompositePrimaryKey",
    "LoginRequiredMiddleware": "LoginRequiredMiddleware",
    "Field.db_default": "db_default",
}


@pytest.fixture(scope="session")
def manifests(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    shared_path("corpora", "versions", "django-5.2.19-docs.tar.gz")
    return build_manifests(tmp_path_factory.getbasetemp() / "django-versions")


@pytest.fixture(scope="module")
def tools(manifests: dict[str, Path]) -> Tools:
    return Tools(Library([load(path) for path in manifests.values()]))


def _top(answer: dict) -> str:
    top = answer["results"][0]
    return " ".join(str(top.get(k) or "") for k in ("symbol", "heading", "title"))


def test_the_built_manifests_state_their_versions(manifests) -> None:
    for version, path in manifests.items():
        loaded = load(path)
        assert (loaded.name, loaded.version, loaded.packages) == (
            "django",
            version,
            ("pypi:django",),
        )
        assert all(f"/en/{version}/" in page.url for page in loaded.pages)


@pytest.mark.parametrize("query", sorted(NEW_IN_5))
def test_new_in_5_found_first_on_5_2_by_docs_and_by_version(tools, query) -> None:
    for docs, version in (("django@5.2", None), ("django", "5.2"), ("django", None)):
        answer = tools.search_pages(query, docs=docs, version=version)
        assert answer["version"] == "5.2"
        assert NEW_IN_5[query] in _top(answer)
        assert {r["version"] for r in answer["results"]} == {"5.2"}


@pytest.mark.parametrize("query", sorted(NEW_IN_5))
def test_new_in_5_never_answered_from_4_2_when_4_2_is_asked(tools, query) -> None:
    answer = tools.search_pages(query, docs="django@4.2")
    assert {r["version"] for r in answer["results"]} == {"4.2"}
    symbol = NEW_IN_5[query]
    assert not any(symbol in str(r.get("symbol") or "") for r in answer["results"])


def test_index_together_only_on_4_2(tools) -> None:
    old = tools.search_pages("Options.index_together", docs="django@4.2")
    assert old["results"][0]["symbol"] == "django.db.models.Options.index_together"
    new = tools.search_pages("Options.index_together", docs="django@5.2")
    assert all(r.get("symbol") != "django.db.models.Options.index_together" for r in new["results"])


@pytest.mark.parametrize(
    ("make", "version"),
    [
        (lambda root: _copy(FIXTURES / "uv", root), "4.2"),
        (lambda root: _copy(FIXTURES / "poetry", root), "5.2"),
        (lambda root: _copy(FIXTURES / "pipenv", root), "4.2"),
        (lambda root: (root / "requirements.txt").write_text("django==5.2.4\nrequests\n"), "5.2"),
    ],
    ids=["uv.lock", "poetry.lock", "Pipfile.lock", "requirements.txt"],
)
def test_a_project_selects_its_version(manifests, tmp_path, make, version) -> None:
    make(tmp_path)
    tools = Tools(Library([load(path) for path in manifests.values()]))
    tools.use_project_folders([tmp_path])
    answer = tools.search_pages("GeneratedField")
    assert answer["scope"]["project"] == [f"django@{version}"]
    assert {r["version"] for r in answer["results"]} == {version}
    found_new = "GeneratedField" in str(answer["results"][0].get("symbol"))
    assert found_new == (version == "5.2")
    # docs given by the caller always win over the project's scope
    other = "4.2" if version == "5.2" else "5.2"
    chosen = tools.search_pages("GeneratedField", docs=f"django@{other}")
    assert "scope" not in chosen and {r["version"] for r in chosen["results"]} == {other}


def test_a_project_on_a_version_not_loaded_gets_none_of_another(manifests, tmp_path) -> None:
    (tmp_path / "requirements.txt").write_text("Django==3.2.25\n")
    tools = Tools(Library([load(path) for path in manifests.values()]))
    tools.use_project_folders([tmp_path])
    answer = tools.search_pages("GeneratedField")
    assert answer["results"] == []
    assert answer["scope"]["missing"] == [
        {"docs": "django", "version": "3.2.25", "loaded": ["4.2", "5.2"]}
    ]


def test_twenty_questions_and_refusals(tools) -> None:
    passed = sum(answered(tools, *question) for question in QUESTIONS)
    # Measured 18/20 (bench/quality/versions.py, with content); built without content here:
    # 18/20 too. The misses are ranking: a symbol's or a text's dotted name is never indexed
    # by its segments whole (`URLField` of `django.forms.URLField.assume_scheme`).
    assert passed >= 18
    refused, asked = refusals(tools)
    assert (refused, asked) == (len(NOT_LOADED) * 6, len(NOT_LOADED) * 6)


def test_a_refusal_names_the_loaded_versions(tools) -> None:
    with pytest.raises(NotFound, match=r"^no docs for django 3\.2; loaded: 4\.2, 5\.2$"):
        tools.search_pages("GeneratedField", docs="django@3.2")


def _copy(source: Path, target: Path) -> None:
    for path in source.iterdir():
        (target / path.name).write_bytes(path.read_bytes())
