"""Versions as docs and projects write them, and the one rule that matches them.

A `Version` keeps its text as written (`"5.2"`, `"v15.1.8"`, `"0_13_1"`, `"stable"`) and
compares by its release numbers where it has them: `5.2` equals `5.2.0`, `v15.1.8` equals
`15.1.8`, `1.20` is not `1.2`. A PEP 440 epoch (`1!2.0`) is compared first: `1!1.0` is above
`2024.1`, and matches only versions of its own epoch. A version without numbers is a label
(`stable`, `latest`, `dev`) that equals only itself.

Matching (`matches`, `select`): a requested version matches a loaded one when the release
numbers of one are a prefix of the other's (`5.2` matches `5.2.19`; `5.2.4` matches docs `5.2`).
When several loaded versions match, the one written equal wins, else the one sharing the most
numbers with the request, and a tie is no match: `5` matches `5.2` only when no `5` is loaded
and exactly one `5.x` is. `select` never substitutes: no match is `None`, and the caller refuses.

Ranges are `ranges.VersionRange`, beside this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from pinax.errors import InvalidArgs

MAX_VERSION_CHARS = 100  # a version longer than this is not one anybody publishes
_NUMBERED = re.compile(r"[vV]?(\d{1,18}(?:[._]\d{1,18})*)(.*)", re.DOTALL)
_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+\-]*")
_SEPARATORS = re.compile(r"[._]")
_EPOCH = re.compile(r"(\d{1,9})!(?=\d)")  # PEP 440's `N!` before the release numbers
# A suffix orders after the release it follows when it says so (PEP 440 post-releases);
# any other suffix (rc, beta, dev, -alpha.1) is a pre-release and orders before it.
_POST = re.compile(r"[.\-_]?(post|rev|r)\d*$|-\d+$", re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class Version:
    """A version as written; `release` its numbers (`()` for a label such as `stable`),
    `epoch` its PEP 440 epoch (`1` of `1!2.0`; 0 when none is written)."""

    text: str
    release: tuple[int, ...] = field(init=False)
    suffix: str = field(init=False)
    epoch: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        text = self.text.strip() if isinstance(self.text, str) else ""
        epoch = _EPOCH.match(text)
        rest = text[epoch.end() :] if epoch else text
        if not text or len(text) > MAX_VERSION_CHARS or not _LABEL.fullmatch(rest.lstrip("vV")):
            shown = repr(self.text)[:60]
            raise InvalidArgs(f"not a version: {shown} (expected e.g. '5.2', 'v15.1.8', 'stable')")
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "epoch", int(epoch[1]) if epoch else 0)
        numbered = _NUMBERED.fullmatch(rest)
        if numbered and (not numbered[2] or not numbered[2][0].isdigit()):
            release = tuple(int(part) for part in _SEPARATORS.split(numbered[1]))
            object.__setattr__(self, "release", release)
            object.__setattr__(self, "suffix", numbered[2])
        else:
            object.__setattr__(self, "release", ())
            object.__setattr__(self, "suffix", text.lower())
            if epoch:
                raise InvalidArgs(f"not a version: {text[:60]!r} (an epoch needs numbers after it)")

    @property
    def is_label(self) -> bool:
        """A version without release numbers (`stable`, `latest`, `dev`)."""
        return not self.release

    def sort_key(self) -> tuple[int, tuple[int, ...], int, str]:
        """The epoch, the release numbers without trailing zeros, then pre-release < release <
        post-release."""
        release = self.release
        suffix = self.suffix.partition("+")[0].lower()  # build metadata orders nothing
        release = stripped(release)
        if not suffix:
            rank = 1
        elif _POST.search(suffix):
            rank = 2
        else:
            rank = 0
        return self.epoch, release, rank, suffix

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        if self.is_label or other.is_label:
            return self.is_label and other.is_label and self.suffix == other.suffix
        return self.sort_key() == other.sort_key()

    def __hash__(self) -> int:
        return hash(("label", self.suffix) if self.is_label else self.sort_key())

    def __lt__(self, other: Version) -> bool:
        return _order(self) < _order(other)

    def __le__(self, other: Version) -> bool:
        return self == other or self < other

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Version({self.text!r})"


def _order(version: Version) -> tuple[int, tuple[int, tuple[int, ...], int, str]]:
    """Numbered versions above labels; labels by `_LABEL_RANK`, then by text."""
    if version.is_label:
        rank = _LABEL_RANK.get(version.suffix, 0)
        return 0, (0, (rank,), 0, version.suffix)
    return 1, version.sort_key()


# Among labels alone, the published one is the one a reader means by "the docs".
_LABEL_RANK = {"stable": 3, "latest": 2, "current": 2, "main": 1, "master": 1}


def as_version(value: Version | str) -> Version:
    """A `Version` from a string (raising `InvalidArgs` with the text), or itself."""
    return value if isinstance(value, Version) else Version(value)


def matches(asked: Version | str, loaded: Version | str) -> bool:
    """Whether `loaded` can answer for `asked`: the release numbers of one are a prefix of the
    other's (in the same epoch), or both are the same label."""
    asked, loaded = as_version(asked), as_version(loaded)
    if asked.is_label or loaded.is_label:
        return asked == loaded
    if asked.epoch != loaded.epoch:
        return False
    shorter = min(len(asked.release), len(loaded.release))
    return asked.release[:shorter] == loaded.release[:shorter]


def select(asked: Version | str, loaded: Iterable[Version | str]) -> Version | None:
    """The one loaded version that answers for `asked`, or `None` (refuse; never substitute).

    Written equal beats equal by numbers (`5.2` and `5.2.0`), which beats the match sharing the
    most numbers with the request; two matches tied there are no match.
    """
    asked = as_version(asked)
    candidates = [v for v in map(as_version, loaded) if matches(asked, v)]
    for version in candidates:
        if version.text == asked.text:
            return version
    equal = [v for v in candidates if v == asked]
    if equal:
        return equal[0] if len(equal) == 1 else None
    if not candidates:
        return None
    shared = [min(len(asked.release), len(v.release)) for v in candidates]
    best = max(shared)
    closest = [v for v, n in zip(candidates, shared, strict=True) if n == best]
    return closest[0] if len(closest) == 1 else None


def highest(loaded: Iterable[Version | str]) -> Version | None:
    """The highest loaded version: numbered above labels; among labels only, `stable` above
    `latest` above `main`, then by text. `None` for nothing loaded."""
    versions = list(map(as_version, loaded))
    return max(versions, key=_order) if versions else None


def identity(name: str, version: Version | str | None) -> str:
    """A manifest's identity: `name@version`, or `name` without a version."""
    return f"{name}@{version}" if version else name


def split_identity(text: str) -> tuple[str, Version | None]:
    """`"django@5.2"` as (`"django"`, `Version("5.2")`), `"django"` as (`"django"`, `None`);
    `InvalidArgs` for a version that is not one (`"django@"`, `"django@5 2"`)."""
    name, at, version = text.rpartition("@")
    if not at or not name:
        return text, None
    return name, Version(version)


def refusal(name: str, asked: Version | str, loaded: Iterable[Version | str]) -> str:
    """The message that refuses a version not loaded, naming those that are."""
    shown = ", ".join(v.text for v in sorted(map(as_version, loaded))) or "none"
    return f"no docs for {name} {as_version(asked).text}; loaded: {shown}"


def stripped(release: tuple[int, ...]) -> tuple[int, ...]:
    """Release numbers without trailing zeros, so tuples compare as versions (`5.2` = `5.2.0`)."""
    while release and release[-1] == 0:
        release = release[:-1]
    return release


def bump(release: tuple[int, ...]) -> tuple[int, ...]:
    """The release just past a series (`5.2` -> `5.3`, `5` -> `6`)."""
    return (*release[:-1], release[-1] + 1)
