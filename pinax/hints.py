""" "Did you mean": the known choices closest to a miss, and the one way every answer says it.

Two measures, by what was mistyped. A name (a manifest, a tool, an option) is matched whole: a
near spelling ('raect' -> 'react') or one starting the other ('react-docs' -> 'react'); a
partial match would offer 'kubernetes' for 'vue' (the 'ue'), and a wrong name is worse than
none. A longer text (a section path, a heading, a URL) is matched by its best-aligned part
(rapidfuzz's WRatio), as a mistyped path or heading mostly differs in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rapidfuzz import fuzz, process

NAME_CUTOFF = 70.0  # fuzz.ratio of a name and a choice to suggest it
PREFIX_SCORE = 75.0  # a name that starts the other (3 characters or more) scores at least this
TEXT_CUTOFF = 60.0  # WRatio of a text and a choice to suggest it


def closest_names(name: str, names: Iterable[str], limit: int = 1) -> list[str]:
    """The names `name` was probably meant as, best first."""
    wanted = name.lower()
    scored: list[tuple[float, str]] = []
    for choice in names:
        lowered = choice.lower()
        score = fuzz.ratio(wanted, lowered)
        prefix = lowered.startswith(wanted) or wanted.startswith(lowered)
        if prefix and min(len(wanted), len(lowered)) >= 3:
            score = max(score, PREFIX_SCORE)
        if score >= NAME_CUTOFF:
            scored.append((-score, choice))
    return [choice for _, choice in sorted(scored)[:limit]]


def closest_texts(
    text: str, choices: Iterable[str], limit: int = 1, cutoff: float = TEXT_CUTOFF
) -> list[str]:
    """The choices most like `text`, best first."""
    found = process.extract(
        text, list(choices), scorer=fuzz.WRatio, score_cutoff=cutoff, limit=limit
    )
    return [choice for choice, _, _ in found]


def did_you_mean(choices: Sequence[str]) -> str:
    """` (did you mean 'a' or 'b'?)`, or nothing when there is no choice to offer."""
    if not choices:
        return ""
    return f" (did you mean {' or '.join(repr(choice) for choice in choices)}?)"
