"""The one sheet of ranking rules: every weight and constant of both indexes and of the fusion.

Each rule says where it was measured (the bench and the figure) or that it was set by hand.
Rules marked BAKED are folded into the on-disk index when it is built: changing one needs a
format bump (`indexing.FORMAT` for the title index, `content.FORMAT` for the content index),
else indexes built before keep the old rule. The others apply at query time.

The CLI's help, the tool specs (hence the docs' tool reference) and `pinax serve`'s
defaults read the defaults and the formulas told to clients from here
(tests/search/test_ranking_sheet.py keeps them in step). Modules of `pinax.search` bind the
rules they use by name from `RANKING`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Ranking:
    """The ranking rules. A search takes one (`RANKING` unless the caller sets its weights)."""

    # -- The fusion: words, meaning and content in one score, across manifests --------------
    # Words beside meaning, (lexical x words + embedding x meaning) / (lexical + embedding):
    # tuned on the even rows of the DEV sets, checked on the odd rows and the typo sets
    # (bench/tune_semantic.py: mean MRR@10 of four sets 0.652 -> 0.676, R@10 0.854 -> 0.859).
    lexical_weight: float = 0.65
    embedding_weight: float = 0.35
    # Content's share for a question (bench/eval_content.py: mean MRR@5 over the DEV
    # questions of four sets 0.658 off -> 0.834).
    content_weight: float = 0.6
    # Query words (stop words aside) at or below which content counts least, and from
    # which it counts in full: a few words name a page, a question describes it (set by hand;
    # bench/eval_content.py: anchor-text sets move by 0 to +0.015 R@10 with content on).
    name_words: int = 2
    question_words: int = 7
    # Content's share at `name_words` words or fewer, as a fraction of `content_weight`: a
    # short query still finds the pages whose text uses its words where titles and headings
    # answer nothing, and a title match (the floor of the fused score) still leads
    # (bench/quality/short_queries.py --shares 0,0.25,0.5,1 on the even rows of seven sets:
    # body-only words found in the top 5 0.757 / 0.957 / 0.957 / 0.962, short anchor-text
    # queries MRR@10 0.759 / 0.768 / 0.770 / 0.770; 0.25, the least that finds them: at 1
    # fastapi's short queries lose R@10 1.000 -> 0.909).
    short_share: float = 0.25
    # A query word that no title, heading or symbol has but some page's text does gives
    # content its whole `content_weight`, whatever the query's length (the text is all that
    # knows it: bench/quality/short_queries.py --shares 0, body-only words found in the top 5
    # on the even rows 0.757 with this rule alone, where content had no share at all before).
    # Lexical candidates each manifest re-scores by meaning (set by hand; bench/eval_semantic.py).
    rerank_pool: int = 30
    # Pages each manifest's content ranking offers the fusion (set by hand; bench/eval_content.py).
    content_pool: int = 30
    # Fanned out, a library whose best pages answer alike loses alike_spread x ln(m): its best
    # alike_depth pages are looked at, one alike_reach or more below its best adds nothing
    # (spread tuned on the even rows of the DEV sets with all eight together, checked on the
    # odd rows: bench/eval_sections.py).
    alike_depth: int = 10
    alike_spread: float = 0.08
    alike_reach: float = 0.5
    # Results scoring below this are left out (search_pages' `threshold`; 0: none).
    threshold: float = 0.0

    # -- The title index (titles, URL, section, headings, symbols): BM25F -------------------
    # BAKED. Field weights of title, slug, section, description, children, phrase, heading,
    # symbol (bench/eval_search.py --ablation: all 1.0, no description, no children each
    # lower R@10; symbols: bench/eval_symbols.py, qualified names Hit@1 0.996).
    field_weights: tuple[float, ...] = (1.0, 1.0, 0.5, 0.5, 0.2, 1.0, 0.5, 1.5)
    # BAKED. BM25's term-frequency saturation and length normalisation (the usual values;
    # bench/eval_search.py: R@10 0.632 to 0.684 on four sets against rank-bm25's 0.483 to 0.576).
    k1: float = 1.2
    b: float = 0.75
    # BAKED. Length normalisation per field: headings and symbols barely normalised, a long
    # outline is a long page, not a weaker match (bench/eval_sections.py: R@10 with outlines
    # 0.838 to 0.884 on four sets).
    field_b: tuple[float, ...] = (0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.1, 0.1)
    # BAKED. A page one URL level deeper weighs 2% less (bench/eval_search.py --ablation).
    depth_penalty: float = 0.02
    # BAKED. An identifier's parts (`payment`, `intent` of `PaymentIntent`) weigh half the
    # whole (bench/eval_search.py --ablation: identifier parts and joins).
    part_weight: float = 0.5
    # A query's adjacent words found as a title phrase (bench/eval_search.py --ablation).
    phrase_weight: float = 0.2
    # A corrected or completed word counts a little less than a typed one (set by hand;
    # bench/eval_search.py typo sets: typo R@10 0.593 to 0.666 against clean 0.613 to 0.684).
    correction_weight: float = 0.8
    # A word found inside longer known words (set by hand; bench/eval_search.py typo sets).
    substring_weight: float = 0.5
    # A plain word's weight in symbols beside elsewhere: prose finds guides before API pages
    # (bench/eval_symbols.py: bare names Hit@1 0.955 with symbols).
    symbol_word_share: float = 0.25
    # A dotted name found whole, as a symbol's name (bench/eval_symbols.py: qualified 0.996).
    name_weight: float = 1.0
    # A query that is exactly a page's title (bench/eval_search.py --ablation: exact-title boost).
    exact_title_boost: float = 1.2
    # A page whose best section's heading is the query (stop words and punctuation aside:
    # "What is Vue?") keeps 1/exact_heading_boost of its distance to 1 (set by hand; checked
    # on bench/quality/eval_content.py and bench/quality/short_queries.py).
    exact_heading_boost: float = 2.0
    # ...for a question of this many words typed or more, stop words included: a name of two
    # words is many pages' heading (bench/quality/short_queries.py, adk's anchor-text set:
    # MRR@10 with content 0.875 boosting every length, 0.898 from three words; off 0.903).
    heading_question_words: int = 3
    # An owner and a kind of member (`str methods`): the page documenting most of that
    # owner's members of that kind scores at least this (set by hand: above a title that
    # merely shares a word, below a title that is the query, 0.9 and up; no DEV row has
    # that shape: bench/experiments/tune_factors.py touches 0 even and 0 odd rows).
    member_score: float = 0.85
    # A typed word whose stem other written words share (`customer`, `custom`): a page whose
    # title and headings lack the form typed keeps this share of its score (tuned on the
    # 673 even DEV rows the rule looks at, bench/experiments/tune_factors.py: MRR@10 0.706
    # at 0.5, 0.708 at 0.85 (the best), 0.706 at 1 (the rule off); on the 679 odd rows
    # 0.688 with it, 0.684 off, R@10 0.853 / 0.857).
    stem_only_share: float = 0.85
    # Words shorter than this are never corrected; words this long may be two edits away
    # (set by hand; bench/eval_search.py typo sets).
    min_typo_length: int = 5
    long_typo_length: int = 9
    # Calibration: a page covering the whole query once (at average length) scores
    # 1 - e^-calibration = 0.9; thresholds and confidence read scores on that scale
    # (set by hand; bench/eval_sections.py: confidence precision with all eight together).
    calibration: float = 2.3
    # Confidence: high at this score and this lead over the next hit, medium at this score
    # (bench/eval_sections.py: top-hit precision of `high` at least 0.80 with all eight).
    high_score: float = 0.8
    high_margin: float = 0.15
    medium_score: float = 0.6

    # -- The content index (what pages say, by section): BM25 -------------------------------
    # BAKED. Content's BM25 saturation and length normalisation (the usual values;
    # bench/eval_content.py: mean MRR@5 0.834 against rank-bm25's 0.746 to 0.803 on sections).
    content_k1: float = 1.2
    content_b: float = 0.75
    # Calibration of content: a section holding every query word once (at average length)
    # scores 1 - e^-content_calibration = 0.9, on the title index's scale (set by hand).
    content_calibration: float = 2.3

    def content_share(
        self, size: int, weight: float | None = None, text_only: bool = False
    ) -> float:
        """Content's share of the score for a query of `size` words (stop words aside):
        `short_share` of `weight` (default `content_weight`) at `name_words` or fewer, all of
        it from `question_words`, in a line between; all of it when a word is known only to
        page text (`text_only`)."""
        weight = self.content_weight if weight is None else weight
        if text_only:
            return weight
        span = self.question_words - self.name_words
        ramp = min(1.0, max(0.0, (size - self.name_words) / span))
        return weight * (self.short_share + (1.0 - self.short_share) * ramp)


RANKING = Ranking()


def content_formula(ranking: Ranking = RANKING) -> str:
    """How content is fused, as told to clients (tool specs, the docs)."""
    return (
        "The score is the larger of the title and heading score and (1 - w) x that score "
        "+ w x the best section's text score, where w is content_weight scaled by the "
        f"query's length: {ranking.short_share} of it at {ranking.name_words} words or "
        f"fewer, all of it from {ranking.question_words} (stop words aside), and all of it "
        "when a word is known only to page text"
    )


def meaning_formula() -> str:
    """How words and meaning are blended, as told to clients."""
    return (
        "The score is (lexical_weight x words + embedding_weight x meaning) / "
        "(lexical_weight + embedding_weight)"
    )
