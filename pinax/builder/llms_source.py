"""Pages from an llms.txt, following links to other llms files one level down.

A link to another `llms.txt` on the site (Svelte lists one per package) is read too, its
pages grouped under the link's title; full-text variants (`llms-full.txt`...) are the docs
themselves, not an index, and are skipped (with `--outline`, the pages an llms-full.txt
names by `Source:` lines get their outlines from it). Links into the site to a `.md` twin keep the
HTML page as `url` and the twin as `markdown_url`; links elsewhere are kept as written.
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urljoin

from pinax.errors import FetchFailed, InvalidArgs
from pinax.manifest import Heading, Page
from pinax.pages import clean_markdown

from . import llmstxt
from .markdown_outline import full_text_pages
from .model import BuildOptions, Found
from .net import SiteAccess
from .outlines import markdown_read
from .report import Reporter
from .sections import Sections, fetched_at
from .sniff import decode_text, looks_like_html
from .urls import is_url


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
    found = Found("llms.txt", location, pages, title=doc.title, description=doc.summary)
    if options.outline:
        found.outlines, found.texts = await _full_text_outlines(
            location, doc, pages, access, reporter, options.content
        )
    return found


async def _full_text_outlines(
    location: str,
    doc: llmstxt.LlmsTxt,
    pages: list[Page],
    access: SiteAccess,
    reporter: Reporter,
    content: bool = False,
) -> tuple[dict[str, tuple[Heading, ...]], dict[str, Sections]]:
    """The outlines (and with `content` the texts) an llms-full.txt gives (linked from the
    llms.txt, else beside it), by page URL: those pages need no fetch for `--outline`. Its
    text is read as get_page reads served Markdown (what a rendered page hides left out)."""
    candidates = [link.url for link in doc.links if llmstxt.is_full_text(link.url)]
    if is_url(location):
        candidates.append(urljoin(location, "llms-full.txt"))
    by_url = {}
    for page in pages:
        for url in (page.url, page.markdown_url):
            if url:
                by_url.setdefault(_same_page(url), page.url)
    for candidate in dict.fromkeys(candidates):
        if not access.allows(candidate):
            continue
        try:
            response = await access.get_optional(candidate)
        except (FetchFailed, InvalidArgs) as exc:
            reporter.warn(f"could not read {candidate}: {exc.message}")
            continue
        if response is None or looks_like_html(response.body):
            continue
        outlines: dict[str, tuple[Heading, ...]] = {}
        texts: dict[str, Sections] = {}
        when = fetched_at(response.headers.get("last-modified"), None)
        for url, text in full_text_pages(clean_markdown(decode_text(response.body))):
            page_url = by_url.get(_same_page(url))
            if page_url is not None and page_url not in outlines:
                _, outlines[page_url], sections = markdown_read(text, content)
                if sections is not None:
                    texts[page_url] = replace(sections, fetched_at=when)
        what = "outlines and texts" if content else "outlines"
        reporter.note(f"{candidate}: the {what} of {len(outlines)} of {len(pages)} pages")
        return outlines, texts
    return {}, {}


def _same_page(url: str) -> str:
    """A page URL and its Markdown twin's, alike: `.md`, `/index`, a trailing '/' dropped."""
    for suffix in (".md", "/index", "/"):
        if url.endswith(suffix):
            url = url[: -len(suffix)]
    return url


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
