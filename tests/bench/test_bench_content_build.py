"""bench.quality.content_build's bars, held by the suite (slow): every generator's fixture
pages built with `pinax build --content` on loopback."""

from __future__ import annotations

import pytest

from tests.conftest import shared_path


@pytest.mark.slow
def test_every_generator_fixture_site_meets_the_bars() -> None:
    """The bench's measure: word F1 >= .95 for each generator, <= 5 KB gzipped a page."""
    shared_path("fixtures", "sites")
    from bench.quality.content_build import F1_BAR as BAR
    from bench.quality.content_build import GZ_BAR, HARD, measure

    tallies, _, _, per_page = measure()
    for name, tally in tallies.items():
        if name != HARD:
            assert tally.mean >= BAR, (name, tally.mean)
            assert tally.mismatched == 0 and tally.failed == 0, name
    assert per_page["generators"] <= GZ_BAR
