"""The CLI reference page, generated from the typer app so the docs cannot drift.

`python -m pinax.cli.reference` prints it; `--write docs/reference/cli.md` writes it;
tests/cli/test_docs_reference.py fails when the committed page differs from what this makes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from pinax.cli import app

HEADER = """# Command line

Generated from the code by `python -m pinax.cli.reference --write docs/reference/cli.md`;
a test fails when this page and the commands disagree. `-h` is `--help` on every command.
"""


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _commands(group: Any) -> list[tuple[str, Any]]:
    """Every command as (its words after `pinax`, the command), groups opened, in app order."""
    found: list[tuple[str, Any]] = []
    for name, command in group.commands.items():
        if getattr(command, "commands", None):
            found += [(f"{name} {sub}", c) for sub, c in _commands(command)]
        else:
            found.append((name, command))
    return found


def _section(words: str, command: Any, root: Any) -> list[str]:
    parent = root.context_class(root, info_name="pinax")
    context = command.context_class(command, info_name=words, parent=parent)
    usage = command.get_usage(context).replace("Usage: pinax " + words, "pinax " + words)
    lines = [f"## `pinax {words}`", "", (command.help or "").strip(), "", "```", usage, "```", ""]
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    options = [p for p in command.params if p.param_type_name == "option" and not p.hidden]
    if arguments:
        lines += ["| argument | meaning |", "|---|---|"]
        for param in arguments:
            record = param.get_help_record(context)
            name = record[0].split()[0] if record else param.name.upper()
            meaning = _cell(record[1]) if record else ""
            required = " (required)" if param.required else ""
            lines.append(f"| `{name}`{required} | {meaning} |")
        lines.append("")
    rows = [r for r in (p.get_help_record(context) for p in options) if r]
    if rows:
        lines += ["| option | meaning |", "|---|---|"]
        lines += [f"| `{_cell(names)}` | {_cell(meaning)} |" for names, meaning in rows]
        lines.append("")
    return lines


def render() -> str:
    """The whole page, one section a command."""
    root = typer.main.get_command(app)
    lines = [HEADER]
    lines += [
        f"- [`pinax {words}`](#pinax-{words.replace(' ', '-')})" for words, _ in _commands(root)
    ]
    lines.append("")
    for words, command in _commands(root):
        lines += _section(words, command, root)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if args[:1] == ["--write"] and len(args) == 2:
        Path(args[1]).write_text(text, encoding="utf-8")
        return 0
    if args:
        print("usage: python -m pinax.cli.reference [--write PATH]", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
