"""The shape of a tool spec: its arguments (`Arg`), the spec itself (`ToolSpec`), the JSON
Schema they publish, `bind` (what a client sent -> the implementation's keyword arguments,
aliases resolved, every unknown name refused) and the schema building blocks. toolspecs.py
declares the five tools with these.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pinax.errors import InvalidArgs

Schema = dict[str, Any]


@dataclass(frozen=True)
class Arg:
    name: str
    schema: Schema  # JSON schema of the value, with a description and examples
    required: bool = False
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    args: tuple[Arg, ...]
    output: Schema  # JSON schema of a successful result; undeclared fields validate too
    open_world: bool = False  # reaches outside the loaded manifests (the live web)

    def accepted(self, implementation: Callable[..., Any]) -> tuple[Arg, ...]:
        """The arguments the implementation takes (all of them if it takes **kwargs)."""
        params = inspect.signature(implementation).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return self.args
        return tuple(arg for arg in self.args if arg.name in params)


def input_schema(args: tuple[Arg, ...]) -> Schema:
    schema: Schema = {"type": "object", "properties": {a.name: a.schema for a in args}}
    required = [a.name for a in args if a.required]
    if required:
        schema["required"] = required
    return schema


def bind(spec: ToolSpec, args: tuple[Arg, ...], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments for the implementation: aliases resolved, nulls dropped, all checked."""
    names = {a.name: a.name for a in args} | {alias: a.name for a in args for alias in a.aliases}
    given: dict[str, tuple[str, Any]] = {}
    for key, value in arguments.items():
        name = names.get(key)
        if name is None:
            takes = ", ".join(a.name for a in args) or "no arguments"
            raise InvalidArgs(f"{spec.name} has no argument {key!r}; it takes: {takes}")
        if value is None:
            continue
        if name in given and given[name][1] != value:
            raise InvalidArgs(f"{given[name][0]!r} and {key!r} both set {name}; give it once")
        given[name] = (key, value)
    for arg in args:
        if arg.required and arg.name not in given:
            raise InvalidArgs(f"{spec.name} needs {arg.name!r}: {arg.schema['description']}")
    return {name: value for name, (_, value) in given.items()}


def string_schema(description: str, **extra: Any) -> Schema:
    return {"type": "string", "description": description, **extra}


def integer_schema(description: str, **extra: Any) -> Schema:
    return {"type": "integer", "description": description, **extra}


def object_schema(description: str, required: tuple[str, ...] = (), **properties: Schema) -> Schema:
    """An object with these known fields; further fields are allowed (newer servers add some)."""
    schema: Schema = {"type": "object", "description": description, "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema | {"additionalProperties": True}


def list_schema(description: str, items: Schema) -> Schema:
    return {"type": "array", "description": description, "items": items}
