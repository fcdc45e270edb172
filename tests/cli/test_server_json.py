"""server.json, Pinax's entry for the MCP Registry, holds to the registry's schema (the copy in
tests/support/registry/, with its provenance) and to the package it describes: the version
Pinax reports, the distribution's name, options and variables `pinax serve` really takes."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest
import typer

from pinax import __version__
from pinax.cli import app

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "tests" / "support" / "registry" / "server.schema.excerpt.json"


@pytest.fixture(scope="module")
def entry() -> dict:
    return json.loads((ROOT / "server.json").read_text())


def errors(data: dict) -> list[str]:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    validator = jsonschema.Draft7Validator(schema, format_checker=checker)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]


def test_it_validates_against_the_registry_schema(entry: dict) -> None:
    assert errors(entry) == []
    assert entry["$schema"] == json.loads(SCHEMA.read_text())["$id"]


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "pinax"},  # no namespace
        {"name": "io.github.a/b/c"},  # two slashes
        {"description": "x" * 101},
        {"version": None},
        {
            "packages": [
                {
                    "registryType": "pypi",
                    "identifier": "pinax",
                    "version": "latest",
                    "transport": {"type": "stdio"},
                }
            ]
        },
        {"packages": [{"registryType": "pypi", "identifier": "pinax", "version": "0.1.0"}]},
    ],
)
def test_the_schema_copy_refuses_what_the_registry_refuses(entry: dict, bad: dict) -> None:
    changed = {k: v for k, v in {**entry, **bad}.items() if v is not None}
    assert errors(changed)


def test_it_describes_this_package(entry: dict) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (package,) = entry["packages"]
    assert entry["version"] == package["version"] == __version__
    assert package["identifier"] == project["name"]
    assert entry["repository"]["url"] == project["urls"]["Source"]
    assert re.fullmatch(r"io\.github\.[^/]+/" + project["name"], entry["name"])


def test_its_arguments_and_variables_are_real(entry: dict) -> None:
    (package,) = entry["packages"]
    arguments = package["packageArguments"]
    assert arguments[0] == {"type": "positional", "value": "serve"}
    serve = typer.main.get_command(app).commands["serve"]
    options = {opt for param in serve.params for opt in getattr(param, "opts", ())}
    named = [a["name"] for a in arguments if a["type"] == "named"]
    assert named and set(named) <= options
    code = "\n".join(p.read_text() for p in (ROOT / "pinax").rglob("*.py"))
    for variable in package["environmentVariables"]:
        assert variable["name"] in code, variable["name"]
