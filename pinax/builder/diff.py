"""What a rebuild changes in a manifest, told so a reviewer (or CI) can judge it.

Pages are matched by URL: added, removed, retitled, or otherwise changed (description,
group, section, markdown_url, lastmod, outline); a changed page names what changed, and
changed outlines are counted on their own (`--outline` rebuilds: the headings moved). A
rebuild that loses more than a set share of the pages is flagged loudly: a site that is
half down must not silently halve its manifest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinax.manifest import Manifest, Page

SHOWN = 20  # lines listed per kind of change; the rest are counted


@dataclass
class ManifestDiff:
    old_count: int
    new_count: int
    added: list[Page] = field(default_factory=list)
    removed: list[Page] = field(default_factory=list)
    retitled: list[tuple[Page, Page]] = field(default_factory=list)
    changed: list[tuple[Page, Page]] = field(default_factory=list)
    header: list[str] = field(default_factory=list)  # name, title, url, description changes

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.retitled or self.changed or self.header)

    @property
    def removed_share(self) -> float:
        return len(self.removed) / self.old_count if self.old_count else 0.0

    def too_many_removed(self, max_share: float) -> bool:
        return self.removed_share > max_share

    @property
    def outlines_changed(self) -> int:
        return sum(old.outline != new.outline for old, new in (*self.retitled, *self.changed))

    @property
    def symbols_changed(self) -> int:
        """Symbols added or removed over the pages both builds have."""
        return sum(
            len(set(old.symbols) ^ set(new.symbols)) for old, new in (*self.retitled, *self.changed)
        )

    def summary(self) -> str:
        outlines, symbols = self.outlines_changed, self.symbols_changed
        return (
            f"{self.old_count} -> {self.new_count} pages: {len(self.added)} added, "
            f"{len(self.removed)} removed, {len(self.retitled)} retitled, "
            f"{len(self.changed)} otherwise changed"
            + (f" ({outlines} with a changed outline)" if outlines else "")
            + (f" ({symbols} symbols added or removed)" if symbols else "")
        )

    def report(self, max_share: float) -> str:
        """A readable report; a loud warning first when too many pages disappeared."""
        lines: list[str] = []
        if self.too_many_removed(max_share):
            lines += [
                "!" * 72,
                f"!! WARNING: {len(self.removed)} of {self.old_count} pages "
                f"({self.removed_share:.0%}) disappeared, more than the allowed "
                f"{max_share:.0%}.",
                "!! Is the site (or its sitemap) partly down? Check before accepting this.",
                "!" * 72,
            ]
        lines.append(self.summary())
        lines += [f"  {change}" for change in self.header]
        lines += _listed("+", [p.url for p in self.added])
        lines += _listed("-", [p.url for p in self.removed])
        lines += _listed(
            "~", [f"{new.url}: {old.title!r} -> {new.title!r}" for old, new in self.retitled]
        )
        lines += _listed(
            "*", [f"{new.url}: {_what_changed(old, new)}" for old, new in self.changed]
        )
        return "\n".join(lines)


def compare(old: Manifest, new: Manifest) -> ManifestDiff:
    diff = ManifestDiff(len(old.pages), len(new.pages))
    for key in ("name", "title", "url", "description"):
        before, after = getattr(old, key), getattr(new, key)
        if before != after:
            diff.header.append(f"{key}: {before!r} -> {after!r}")
    before_pages = {page.url: page for page in old.pages}
    after_pages = {page.url: page for page in new.pages}
    for url, page in after_pages.items():
        previous = before_pages.get(url)
        if previous is None:
            diff.added.append(page)
        elif previous.title != page.title:
            diff.retitled.append((previous, page))
        elif previous != page:
            diff.changed.append((previous, page))
    diff.removed = [page for url, page in before_pages.items() if url not in after_pages]
    return diff


def _what_changed(old: Page, new: Page) -> str:
    """The fields that differ, with the outline's heading counts ("outline 12 -> 13")."""
    names = [
        name
        for name in ("section", "description", "group", "markdown_url", "lastmod")
        if getattr(old, name) != getattr(new, name)
    ]
    if old.outline != new.outline:
        names.append(f"outline {len(old.outline)} -> {len(new.outline)} headings")
    if old.symbols != new.symbols:
        names.append(f"symbols {len(old.symbols)} -> {len(new.symbols)}")
    return ", ".join(names) or "changed"


def _listed(mark: str, items: list[str]) -> list[str]:
    lines = [f"  {mark} {item}" for item in items[:SHOWN]]
    if len(items) > SHOWN:
        lines.append(f"  {mark} ... and {len(items) - SHOWN} more")
    return lines
