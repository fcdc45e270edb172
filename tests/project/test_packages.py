"""Package ids compared the way their ecosystems compare names, and which docs document what."""

from __future__ import annotations

import pytest

from pinax.errors import InvalidArgs
from pinax.versions import PackageId, documents, package_id, parse_package, runtime


@pytest.mark.parametrize(
    ("text", "ecosystem", "name"),
    [
        ("pypi:django", "pypi", "django"),
        ("pypi:Django", "pypi", "django"),
        ("PyPI:Django_REST.framework", "pypi", "django-rest-framework"),
        ("pypi:zope.interface", "pypi", "zope-interface"),
        ("npm:next", "npm", "next"),
        ("npm:@angular/core", "npm", "@angular/core"),
        ("npm:JSONStream", "npm", "JSONStream"),  # npm is case-sensitive: kept as written
        ("cargo:serde_json", "cargo", "serde_json"),
    ],
)
def test_parse_and_normalise(text: str, ecosystem: str, name: str) -> None:
    found = parse_package(text)
    assert found == PackageId(ecosystem, name)
    assert str(found) == f"{ecosystem}:{name}"


def test_names_compare_as_their_ecosystem_says() -> None:
    assert parse_package("pypi:Django") == parse_package("pypi:django")
    assert parse_package("pypi:ruamel.yaml") == parse_package("pypi:ruamel-yaml")
    assert parse_package("npm:JSONStream") != parse_package("npm:jsonstream")
    assert parse_package("npm:react") != parse_package("pypi:react")


@pytest.mark.parametrize(
    "text",
    [
        "django",
        "pypi:",
        ":django",
        "pypi:-django",
        "pypi:django rest",
        "npm:@scope",
        "npm:@/x",
        "npm:a/b",
        "1pypi:x",
        "pypi:" + "x" * 300,
        "npm:..",
        None,
        5,
    ],
)
def test_not_a_package_id_is_refused_naming_it(text) -> None:
    with pytest.raises(InvalidArgs, match="not a"):
        parse_package(text)


def test_package_id_checks_its_parts() -> None:
    assert package_id("PYPI", " Flask ") == PackageId("pypi", "flask")
    with pytest.raises(InvalidArgs):
        package_id("py pi", "flask")


DJANGO = parse_package("pypi:django")
DRF = parse_package("pypi:djangorestframework")
NEXT = parse_package("npm:next")


@pytest.mark.parametrize(
    ("name", "packages", "wanted", "answer"),
    [
        ("django", None, DJANGO, True),  # no packages: the package of its own name
        ("Django", None, DJANGO, True),
        ("next", None, NEXT, True),  # in any ecosystem
        ("django", None, parse_package("npm:django"), True),
        ("drf", None, DRF, False),
        ("drf", ["pypi:djangorestframework"], DRF, True),
        ("drf", ["pypi:Django-REST-Framework"], parse_package("pypi:django_rest_framework"), True),
        ("django", [], DJANGO, False),  # []: documents no package
        ("django", ["pypi:django"], parse_package("npm:django"), False),
        ("python", None, runtime("python"), True),  # CPython's docs
        ("python", None, parse_package("pypi:python"), False),
        ("node", None, runtime("node"), True),
        ("node", None, parse_package("npm:node"), False),
        ("nodejs", None, runtime("node"), True),
        ("django", None, runtime("python"), False),
        ("cpython-docs", ["runtime:python"], runtime("python"), True),
        ("my team's docs", None, DJANGO, False),  # a name no registry allows documents none
    ],
)
def test_documents(name: str, packages, wanted: PackageId, answer: bool) -> None:
    assert documents(name, packages, wanted) is answer


def test_documents_refuses_a_bad_package_list() -> None:
    with pytest.raises(InvalidArgs):
        documents("x", ["not an id"], DJANGO)


def test_documented_lists_the_packages_per_ecosystem() -> None:
    from pinax.versions import documented

    assert documented("Django", None, ["pypi", "npm", "runtime"]) == {
        parse_package("pypi:django"),
        parse_package("npm:Django"),
    }
    assert documented("python", None, ["pypi"]) == {runtime("python")}
    assert documented("drf", ["pypi:djangorestframework"], ["npm"]) == {DRF}
    assert documented("team docs", None, ["pypi", "npm"]) == set()
    assert documented("x", [], ["pypi"]) == set()
