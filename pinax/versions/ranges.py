"""Version ranges a project declares (PEP 440 specifiers, npm semver ranges) as intervals.

A range is a union of intervals of release numbers, each led by its PEP 440 epoch (0 unless
written, and always in npm: `1!2.0` is above every `2024.x`); pre-release tags are ignored (docs are
published per release). A loaded docs version is inside a range when what it documents meets
the range: a version of one or two numbers documents its series (`5.2` every `5.2.x`, `5`
every `5.x`), one of three or more numbers that release alone. `VersionRange.select` takes
the highest such version, and `None` when none is inside (refuse; never substitute).

The npm grammar is node-semver's (`^ ~ >= > <= < =`, x-ranges `1.x` `1.2.*` `*`, partial
versions, hyphen ranges `1.2 - 2.3.4`, `||`), parsed here in one pass over a bounded string: no
dependency, linear time. Dist-tags (`latest`), URLs, `file:`, `git+`, `workspace:` and
`npm:alias@` specs are not ranges (`parse_range` returns `None`). PEP 440 is read by
`packaging`; `!=` exclusions are ignored (they rule out a bad release, not the docs of its
series) and `===` is a plain equality.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from pinax.errors import InvalidArgs
from pinax.versions.core import Version, as_version, bump, stripped

MAX_RANGE_CHARS = 1000  # longer than any range a real manifest declares
Release = tuple[int, ...]


@dataclass(frozen=True)
class Interval:
    """Releases between `low` and `high` (`None`: unbounded), each end in or out."""

    low: Release | None = None
    low_in: bool = True
    high: Release | None = None
    high_in: bool = False

    def __post_init__(self) -> None:  # compare releases as versions: 5.2 = 5.2.0
        if self.low is not None:
            object.__setattr__(self, "low", stripped(self.low))
        if self.high is not None:
            object.__setattr__(self, "high", stripped(self.high))

    def is_empty(self) -> bool:
        if self.low is None or self.high is None:
            return False
        return self.low > self.high or (
            self.low == self.high and not (self.low_in and self.high_in)
        )

    def meets(self, start: Release, end: Release | None) -> bool:
        """Whether the releases from `start` (in) to `end` (out; `None`: `start` alone) meet it."""
        start = stripped(start)
        if self.high is not None and (
            start > self.high or (start == self.high and not self.high_in)
        ):
            return False
        if self.low is None:
            return True
        if end is None:
            return start > self.low or (start == self.low and self.low_in)
        return self.low < stripped(end)

    def __and__(self, other: Interval) -> Interval:
        low, low_in = self.low, self.low_in
        if other.low is not None and (low is None or other.low > low):
            low, low_in = other.low, other.low_in
        elif other.low is not None and other.low == low:
            low_in = low_in and other.low_in
        high, high_in = self.high, self.high_in
        if other.high is not None and (high is None or other.high < high):
            high, high_in = other.high, other.high_in
        elif other.high is not None and other.high == high:
            high_in = high_in and other.high_in
        return Interval(low, low_in, high, high_in)


ANY = Interval()
NOTHING = Interval((0,), False, (0,), False)


@dataclass(frozen=True)
class VersionRange:
    """A declared range as written, and the intervals it allows."""

    text: str
    ecosystem: str
    intervals: tuple[Interval, ...]

    def contains(self, version: Version | str) -> bool:
        """Whether a docs version documents a release inside the range (labels never do)."""
        version = as_version(version)
        if version.is_label:
            return False
        start = (version.epoch, *version.release)
        end = bump(start) if len(version.release) < 3 else None
        return any(interval.meets(start, end) for interval in self.intervals)

    def select(self, loaded: Iterable[Version | str]) -> Version | None:
        """The highest loaded version inside the range, or `None`."""
        inside = [v for v in map(as_version, loaded) if self.contains(v)]
        return max(inside, key=Version.sort_key) if inside else None

    def __str__(self) -> str:
        return self.text


def parse_range(ecosystem: str, text: str) -> VersionRange | None:
    """The range `text` declares in `ecosystem` (`pypi`, `npm`), or `None` when it is not a
    range there (a dist-tag, a URL, a path, garbage, or another ecosystem)."""
    if not isinstance(text, str) or len(text) > MAX_RANGE_CHARS:
        return None
    if ecosystem == "pypi":
        intervals = _pep440(text)
    elif ecosystem == "npm":
        intervals = _npm(text)
        intervals = None if intervals is None else [_epoch_zero(i) for i in intervals]
    else:
        return None
    if intervals is None:
        return None
    kept = tuple(i for i in intervals if not i.is_empty())
    return VersionRange(text.strip(), ecosystem, kept)


def _epoch_zero(interval: Interval) -> Interval:
    """An interval of releases as one of epoch 0 (npm has no epochs)."""
    low = None if interval.low is None else (0, *interval.low)
    high = None if interval.high is None else (0, *interval.high)
    return Interval(low, interval.low_in, high, interval.high_in)


# PEP 440 -------------------------------------------------------------------------------------


def _pep440(text: str) -> list[Interval] | None:
    try:
        specifiers = SpecifierSet(text.strip())
    except InvalidSpecifier:
        return None
    whole = ANY
    for spec in specifiers:
        piece = _pep440_one(spec.operator, spec.version)
        if piece is None:
            return None
        whole = whole & piece
    return [whole]


def _pep440_one(operator: str, text: str) -> Interval | None:
    wildcard = text.endswith(".*")
    try:
        version = Version(text[:-2] if wildcard else text)
    except InvalidArgs:
        return None
    if not version.release:
        return None
    release = (version.epoch, *version.release)  # intervals lead with the epoch
    if operator == "==" and wildcard:
        return Interval(release, True, bump(release), False)
    if operator in ("==", "==="):
        return Interval(release, True, release, True)
    if operator == "!=":
        return ANY
    if operator == "~=":
        series = bump(release[:-1]) if len(version.release) > 1 else None
        return Interval(release, True, series, False)
    return {
        ">=": Interval(release, True, None),
        ">": Interval(release, False, None),
        "<=": Interval(None, True, release, True),
        "<": Interval(None, True, release, False),
    }.get(operator)


# npm (node-semver) ---------------------------------------------------------------------------

_XR = r"(?:\d{1,15}|[xX*])"
_PRE = r"(-[0-9A-Za-z.\-]+)?(?:\+[0-9A-Za-z.\-]*)?"  # a pre-release tag, then build metadata
_PARTIAL = rf"[vV]?({_XR})(?:\.({_XR})(?:\.({_XR}){_PRE})?)?"
_COMPARATOR = re.compile(rf"(<=|>=|<|>|=|~>|~|\^)?=?{_PARTIAL}")
_PARTIAL_RE = re.compile(_PARTIAL)
_HYPHEN = re.compile(r"(\S+)\s+-\s+(\S+)")
_OPERATOR_SPACE = re.compile(r"(<=|>=|<|>|=|~>|~|\^)\s+")
Parts = tuple[int | None, int | None, int | None]
# A comparator on a pre-release (`>1.2.3-beta`) compared to releases only: above it lies
# 1.2.3 itself; at or below it only what is below 1.2.3; equal to it no release at all.
_ON_PRERELEASE = {">": ">=", "<=": "<", "=": "nothing"}


def _npm(text: str) -> list[Interval] | None:
    intervals = []
    for alternative in text.split("||"):
        alternative = alternative.strip()
        hyphen = _HYPHEN.fullmatch(alternative)
        if hyphen:
            low, high = _PARTIAL_RE.fullmatch(hyphen[1]), _PARTIAL_RE.fullmatch(hyphen[2])
            if low is None or high is None:
                return None
            intervals.append(_hyphen(_numbers(*low.groups()[:3]), high))
            continue
        whole = ANY
        for token in _OPERATOR_SPACE.sub(r"\1", alternative).split():
            found = _COMPARATOR.fullmatch(token)
            if not found:
                return None
            operator = found[1] or "="
            if found[5]:
                operator = _ON_PRERELEASE.get(operator, operator)
            whole = whole & _comparator(operator, _numbers(found[2], found[3], found[4]))
        intervals.append(whole)
    return intervals


def _numbers(*texts: str | None) -> Parts:
    """Major, minor, patch, each `None` from the first wildcard or missing part on."""
    numbers: list[int | None] = []
    for text in texts:
        if text is None or not text.isdigit() or (numbers and numbers[-1] is None):
            numbers.append(None)
        else:
            numbers.append(int(text))
    return numbers[0], numbers[1], numbers[2]


def _given(parts: Parts) -> Release:
    return tuple(n for n in parts if n is not None)


def _comparator(operator: str, parts: Parts) -> Interval:
    major, minor, patch = parts
    given = _given(parts)
    if operator == "nothing":
        return NOTHING
    if major is None:  # `*`, `x`: everything, or nothing for `<*` and `>*`
        return NOTHING if operator in ("<", ">") else ANY
    if operator == "=":
        return Interval(given, True, given, True) if patch is not None else _series(given)
    if operator in ("~", "~>"):
        return Interval(given, True, bump(given[:2]) if minor is not None else bump(given), False)
    if operator == "^":
        if minor is None or major > 0:
            return Interval(given, True, (major + 1,), False)
        if minor > 0 or patch is None:
            return Interval(given, True, (0, minor + 1), False)
        return Interval(given, True, (0, 0, patch + 1), False)
    full = patch is not None
    return {
        ">=": Interval(given, True, None),
        ">": Interval(given, False, None) if full else Interval(bump(given), True, None),
        "<": Interval(None, True, given, False),
        "<=": Interval(None, True, given, True) if full else Interval(None, True, bump(given)),
    }[operator]


def _series(given: Release) -> Interval:
    return Interval(given, True, bump(given), False)


def _hyphen(low: Parts, found: re.Match[str]) -> Interval:
    high = _numbers(*found.groups()[:3])
    bottom = Interval(_given(low), True, None) if low[0] is not None else ANY
    if high[0] is None:
        top = ANY
    elif high[2] is not None:
        top = Interval(None, True, _given(high), not found[4])  # below a pre-release: below it
    else:
        top = Interval(None, True, bump(_given(high)), False)
    return bottom & top
