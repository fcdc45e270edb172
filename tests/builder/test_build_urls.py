"""URL rules of the build, on URLs of the real sites in the corpus."""

from __future__ import annotations

import pytest

from pinax.builder.llmstxt import html_twin
from pinax.builder.local import common_base
from pinax.builder.urls import default_name, in_prefix, readable_title, site_base


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("https://docs.stripe.com", "https://docs.stripe.com/"),
        ("https://adk.dev/api-reference", "https://adk.dev/api-reference/"),
        ("https://docs.stripe.com/llms.txt", "https://docs.stripe.com/"),
        ("https://docs.pytorch.org/ao/stable/objects.inv", "https://docs.pytorch.org/ao/stable/"),
        ("https://pytorch.org/sitemap.xml.gz", "https://pytorch.org/"),
        ("https://docs.python.org/3.12", "https://docs.python.org/3.12/"),  # a version, not a file
        ("https://Docs.Stripe.com/payments#x", "https://docs.stripe.com/payments/"),
    ],
)
def test_site_base(url: str, base: str) -> None:
    assert site_base(url) == base


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://docs.stripe.com/", "stripe"),
        ("https://www.django-rest-framework.org/", "django-rest-framework"),
        ("https://textual.textualize.io/", "textual"),
        ("https://openai.github.io/openai-agents-python/", "openai-agents-python"),
        ("https://modelcontextprotocol.github.io/python-sdk/", "python-sdk"),
        ("https://adk.dev/", "adk"),
    ],
)
def test_default_name(url: str, name: str) -> None:
    assert default_name(url) == name


def test_readable_titles_and_twins() -> None:
    assert readable_title("https://textual.textualize.io/guide/getting_started/") == (
        "Getting started"
    )
    assert readable_title("https://docs.pytorch.org/ao/stable/api/index.html") == "Api"
    assert html_twin("https://docs.stripe.com/testing.md") == "https://docs.stripe.com/testing"
    assert html_twin("https://adk.dev/get-started/index.md") == "https://adk.dev/get-started/"
    assert html_twin("https://www.fastht.ml/docs/a.html.md") == "https://www.fastht.ml/docs/a.html"
    assert html_twin("https://docs.stripe.com/testing") is None


def test_prefix_and_common_base() -> None:
    base = "https://docs.stripe.com/payments/"
    assert in_prefix("https://docs.stripe.com/payments", base)
    assert in_prefix("https://docs.stripe.com/payments/cards", base)
    assert not in_prefix("https://docs.stripe.com/payments-links", base)
    assert not in_prefix("http://docs.stripe.com/payments/cards", base)  # another origin
    assert (
        common_base(
            [
                "https://docs.pytorch.org/ao/stable/quick_start.html",
                "https://github.com/pytorch/ao/blob/main/x.py",
                "https://docs.pytorch.org/ao/main/workflows.html",
            ]
        )
        == "https://docs.pytorch.org/ao/"
    )
