"""An option table that takes every option: Sphinx directives carry many (`:linenos:`,
`:caption:`, `:no-index:`, a theme's own), and an unknown one must not turn the directive
into an error. Every value is kept as its text; none is converted by an importing
converter (docutils' `:parser:` option would import a module by name)."""

from __future__ import annotations

from docutils.parsers.rst import directives


class AnyOption(dict):
    """`option_spec` that knows every option: each as plain text (a flag as None)."""

    def __missing__(self, key: str):
        return _text


def _text(argument: str | None) -> str | None:
    return None if argument is None else directives.unchanged(argument)


ANY = AnyOption(name=_text)  # one entry: docutils reads an empty table as "no options"
