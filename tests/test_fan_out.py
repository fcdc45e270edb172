"""Search over several manifests at once: one reference for every page's 0..1 score."""

from __future__ import annotations

from pinax.library import Library
from pinax.manifest import Manifest, Page
from pinax.search import pooled


def _manifest(name: str, titles: list[str]) -> Manifest:
    site = f"https://{name}.example"
    pages = tuple(Page(f"{site}/{i}", title, "/") for i, title in enumerate(titles))
    return Manifest(name, site, name.title(), pages)


def test_a_word_one_manifest_lacks_counts_by_its_pooled_frequency() -> None:
    """ "guidelines" is in one manifest only: pooled, both measure their pages against the
    same reference, so a page covering the same words scores the same in either (their
    titles are alike in length, so length normalisation treats them alike too)."""
    library = Library(
        [
            _manifest("big", ["Contribution guidelines", "Guidelines", "Contribution"]),
            _manifest("small", ["Contribution", "Release notes", "Changelog"]),
        ]
    )
    indexes = [docs.index for docs in library.all()]
    plans = pooled([index.plan("contribution guidelines") for index in indexes], indexes)
    assert plans[0].reference == plans[1].reference
    big, small = (index.run(plan, 10) for index, plan in zip(indexes, plans, strict=True))
    alone = {doc: score for doc, score in zip(big.docs, big.scores, strict=True)}
    assert alone[2] == dict(zip(small.docs, small.scores, strict=True))[0]  # "Contribution"
