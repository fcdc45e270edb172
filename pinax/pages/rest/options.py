"""An option table that takes every option: Sphinx directives carry many (`:linenos:`,
`:caption:`, `:no-index:`, a theme's own), and an unknown one must not turn the directive
into an error. Every value is kept as its text; none is converted by an importing
converter (docutils' `:parser:` option would import a module by name). And `:dedent:`, the
one option both the code directives and `literalinclude` apply."""

from __future__ import annotations

import textwrap

from docutils.parsers.rst import directives


class AnyOption(dict):
    """`option_spec` that knows every option: each as plain text (a flag as None)."""

    def __missing__(self, key: str):
        return _text


def _text(argument: str | None) -> str | None:
    return None if argument is None else directives.unchanged(argument)


ANY = AnyOption(name=_text)  # one entry: docutils reads an empty table as "no options"


def dedent(text: str, amount: str | None) -> str:
    """`:dedent:` (a number of columns, or all common indentation when empty)."""
    if amount is None:
        return text
    if not amount.strip():
        return textwrap.dedent(text)
    try:
        columns = max(0, int(amount))
    except ValueError:
        return text
    return "\n".join(
        line[columns:] if not line[:columns].strip() else line for line in text.split("\n")
    )
