"""Pages from an llms.txt, following links to other llms files one level down.

A link to another `llms.txt` on the site (Svelte lists one per package) is read too, its
pages grouped under the link's title; full-text variants (`llms-full.txt`...) are the docs
themselves, not an index, and are skipped. Links into the site to a `.md` twin keep the
HTML page as `url` and the twin as `markdown_url`; links elsewhere are kept as written.
"""

from __future__ import annotations

from dataclasses import replace

from pinax.errors import FetchFailed, InvalidArgs
from pinax.manifest import Page

from . import llmstxt
from .content import decode_text, looks_like_html
from .model import BuildOptions, Found
from .net import SiteAccess
from .report import Reporter


async def read(
    location: str,
    body: bytes,
    base_url: str,
    access: SiteAccess,
    options: BuildOptions,
    reporter: Reporter,
) -> Found:
    """Read the llms.txt at `location` (whose links resolve against `base_url`)."""
    doc = _parse(body, location, base_url)
    pages: list[Page] = []
    followed = 0
    for link in doc.links:
        if not llmstxt.is_llms_file(link.url):
            pages.append(llmstxt.to_page(link, access.allows(link.url)))
        elif llmstxt.is_full_text(link.url):
            reporter.note(f"{location}: skipped {link.url} (the full text, not an index)")
        elif followed >= options.limits.max_followed_llms or not access.allows(link.url):
            reporter.warn(
                f"{location}: did not follow {link.url} (another host, or over the limit of "
                f"{options.limits.max_followed_llms} llms files)"
            )
        else:
            followed += 1
            pages.extend(await _follow(link, access, reporter))
    sections = len(dict.fromkeys(doc.groups))
    reporter.note(
        f"{location}: {len(doc.links)} links in {sections} sections"
        + (f", {followed} llms files followed" if followed else "")
    )
    return Found("llms.txt", location, pages, title=doc.title, description=doc.summary)


async def _follow(link: llmstxt.Link, access: SiteAccess, reporter: Reporter) -> list[Page]:
    try:
        response = await access.get(link.url)
        child = _parse(response.body, response.url, response.url)
    except (FetchFailed, InvalidArgs) as exc:
        reporter.warn(f"could not read the llms file {link.url}: {exc.message}")
        return []
    pages = []
    for sub in child.links:
        if llmstxt.is_llms_file(sub.url):
            continue  # one level only
        group = f"{link.title} / {sub.group}" if sub.group else link.title
        pages.append(replace(llmstxt.to_page(sub, access.allows(sub.url)), group=group))
    return pages


def _parse(body: bytes, location: str, base_url: str) -> llmstxt.LlmsTxt:
    if looks_like_html(body):
        raise InvalidArgs(f"{location}: an HTML page was served where an llms.txt was expected")
    doc = llmstxt.parse(decode_text(body), base_url)
    if not doc.links:
        raise InvalidArgs(f"{location}: no '- [Title](url)' links found; is it an llms.txt?")
    return doc
