"""The soak harness: many MCP clients over HTTP against `pinax serve --http`, every answer kept.

Shared by tests/server/test_soak.py (which asserts) and bench.speed.soak (which prints). The sites
are real loopback servers: the rendered fixture pages (../shared/fixtures/sites), one site per
generator at the pages' own paths, and a `faults` site whose pages are slow, fail (500, 503,
404, connection reset, a redirect off-site, a page that renders only in the browser) or fail
after their first answer (served stale from the cache). The real manifests of
../shared/corpora/manifests carry the search and browse load.

Each client runs a fixed, seeded list of calls, each with the outcome it must get: `ok`,
`stale` (a cached copy while the site fails) or an error code. A call that gets no answer within
`CALL_TIMEOUT` or breaks the transport is `lost`.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client

from bench.harness.timing import percentile
from tests.support.fixture_pages import html_reply
from tests.support.http_site import Reply, Request, Site
from tests.support.raw_server import RawServer, reset
from tests.support.serving import Served, served_http

CORPORA = ("react", "django", "fastapi", "kubernetes", "drf")
FIXTURE_SITES = (
    "docusaurus",
    "hugo-docsy",
    "jekyll-just-the-docs",
    "mdbook",
    "mkdocs-material",
    "sphinx",
    "vitepress",
)
REFETCHED = ("mdbook", "faults")  # TTL 0: every get_page goes to the site (or serves stale)
ERAS = ("auto", "legacy")  # 2026-07-28 and 2025-11-25
CALL_TIMEOUT = 60.0
WARM_CALLS = 20  # per client, before the start RSS is read
OK, STALE, LOST = "ok", "stale", "lost"


@dataclass(frozen=True)
class Call:
    tool: str
    args: dict[str, Any]
    expect: str  # ok, stale or an error code


@dataclass
class Outcome:
    call: Call
    got: str  # ok, stale, an error code, or lost
    seconds: float
    detail: str = ""


@dataclass
class Pages:
    """get_page targets: real pages, slow ones, and (url, what it must answer) for the rest."""

    fixtures: list[str] = field(default_factory=list)
    slow: list[str] = field(default_factory=list)
    faulty: list[tuple[str, str]] = field(default_factory=list)

    def all(self) -> list[str]:
        return [*self.fixtures, *self.slow, *(url for url, _ in self.faulty)]


@dataclass
class Sites:
    manifests: list[Path]
    pages: Pages


def _manifest(folder: Path, name: str, origin: str, pages: list[dict[str, str]]) -> Path:
    path = folder / f"{name}.json"
    data = {"pinax_manifest": 1, "name": name, "url": origin, "pages": pages}
    path.write_text(json.dumps(data))
    return path


def _fixture_site(stack: ExitStack, folder: Path, generator: Path, pages: Pages) -> Path:
    """The generator's real pages at their own paths on one loopback site."""
    site = stack.enter_context(Site())
    rows = []
    for meta_file in sorted(generator.glob("*/meta.json")):
        meta = json.loads(meta_file.read_text())
        url = site.add(meta["url_path"], html_reply(meta_file.parent, meta, site))
        rows.append({"url": url, "title": meta["title"]})
        pages.fixtures.append(url)
    return _manifest(folder, generator.name, site.url("/"), rows)


class FlakyOnce:
    """Answers once, then 503 Service Unavailable: the cache must serve its copy, stale."""

    def __init__(self, reply: Reply) -> None:
        self.reply: Reply | None = reply

    def __call__(self, _request: Request) -> Reply:
        reply, self.reply = self.reply, None
        return reply or Reply(503, b"down for maintenance", {"Content-Type": "text/plain"})


def _slow(reply: Reply, seconds: float):
    def answer(_request: Request) -> Reply:
        time.sleep(seconds)
        return reply

    return answer


def _faults_site(stack: ExitStack, folder: Path, fixtures: Path, pages: Pages) -> Path:
    site = stack.enter_context(Site())
    raw = stack.enter_context(RawServer(lambda _server, connection: reset(connection)))

    def fixture(name: str) -> Reply:
        meta = json.loads((fixtures / name / "meta.json").read_text())
        return html_reply(fixtures / name, meta)

    small = fixture("sphinx/requests-install")
    text = {"Content-Type": "text/plain"}
    rows = []
    for path, reply in {
        "/slow-1s": _slow(small, 1.0),
        "/slow-2s": _slow(small, 2.0),
        "/moved": Reply(301, b"", {"Location": "/slow-1s"}),  # on the site: followed
    }.items():
        pages.slow.append(site.add(path, reply))
        rows.append({"url": pages.slow[-1], "title": path.strip("/")})
    routes: dict[str, tuple[Reply | Any, str]] = {
        "/flaky": (FlakyOnce(fixture("mdbook/format-summary")), STALE),
        "/error-500": (Reply(500, b"internal server error", text), "fetch_failed"),
        "/error-503": (Reply(503, b"service unavailable", text), "fetch_failed"),
        "/gone": (Reply(404, b"not found", text), "fetch_failed"),  # listed, yet 404
        "/off-site": (Reply(302, b"", {"Location": "https://example.com/"}), "fetch_failed"),
        "/app": (fixture("hard-cases/js-shell-docsify"), "fetch_failed"),  # renders in JS
    }
    for path, (reply, expect) in routes.items():
        pages.faulty.append((site.add(path, reply), expect))
        rows.append({"url": pages.faulty[-1][0], "title": path.strip("/")})
    pages.faulty.append((raw.url("/reset"), "fetch_failed"))
    rows.append({"url": raw.url("/reset"), "title": "reset"})
    pages.faulty.append((site.url("/not-listed"), "not_found"))  # not in the manifest: 404
    pages.faulty.append(("https://example.com/docs/", "invalid_args"))  # refused, unfetched
    return _manifest(folder, "faults", site.url("/"), rows)


@contextmanager
def soak_sites(shared: Path, folder: Path) -> Iterator[Sites]:
    """The loopback sites and every manifest to serve (written into `folder`)."""
    fixtures = shared / "fixtures" / "sites"
    pages = Pages()
    with ExitStack() as stack:
        manifests = [shared / "corpora" / "manifests" / f"{name}.json" for name in CORPORA]
        manifests += [_fixture_site(stack, folder, fixtures / g, pages) for g in FIXTURE_SITES]
        manifests.append(_faults_site(stack, folder, fixtures, pages))
        yield Sites(manifests, pages)


@contextmanager
def soak_server(sites: Sites, cache: Path) -> Iterator[Served]:
    args = ["--cache-dir", str(cache), "--allow-private", "127.0.0.1/32"]
    for path in sites.manifests:
        args += ["--docs", str(path)]
    for name in REFETCHED:
        args += ["--ttl", f"{name}=0"]
    with served_http(*args) as served:
        yield served


def queries(shared: Path) -> list[str]:
    """Real questions (and their typo'd twins) from the DEV retrieval sets."""
    found = []
    for name in CORPORA:
        for suffix in ("dev", "dev.typo"):
            path = shared / "corpora" / "eval" / f"{name}.{suffix}.jsonl"
            lines = path.read_text().splitlines() if path.exists() else []
            found += [json.loads(line)["query"] for line in lines[:100] if line.strip()]
    return found or ["getting started", "configuration", "api reference"]


def plan(
    seed: int, calls: int, pages: Pages, sections: dict[str, list[str]], texts: list[str]
) -> list[Call]:
    """A seeded mix of all five tools: mostly search_pages and get_page, some errors on purpose."""
    rng = random.Random(seed)
    names = sorted(sections)

    def one() -> Call:
        roll = rng.random()
        if roll < 0.40:
            args: dict[str, Any] = {"query": rng.choice(texts), "limit": rng.randint(1, 20)}
            if rng.random() < 0.3:
                args["docs"] = rng.choice(CORPORA)
            return Call("search_pages", args, OK)
        if roll < 0.55:
            args = {"url": rng.choice(pages.fixtures)}
            if rng.random() < 0.3:
                args["max_tokens"] = 1000  # a long page comes back as a slice and an outline
            return Call("get_page", args, OK)
        if roll < 0.58:
            return Call("get_page", {"url": rng.choice(pages.slow)}, OK)
        if roll < 0.70:
            url, expect = rng.choice(pages.faulty)
            return Call("get_page", {"url": url}, expect)
        if roll < 0.80:
            docs = rng.choice(names)
            return Call(
                "get_section_pages", {"section": rng.choice(sections[docs]), "docs": docs}, OK
            )
        if roll < 0.86:
            return Call(
                "list_sections", {"docs": rng.choice(names)} if rng.random() < 0.7 else {}, OK
            )
        if roll < 0.90:
            return Call("list_docs", {}, OK)
        return rng.choice(
            [
                Call("search_pages", {"query": "hooks", "docs": "reactt"}, "not_found"),
                Call("search_pages", {"query": "hooks", "limit": 0}, "invalid_args"),
                Call("search_pages", {"query": "hooks", "limit": "ten"}, "invalid_args"),
                Call("search_pages", {"query": "  "}, "invalid_args"),
                Call("list_sections", {"docs": "djangoo"}, "not_found"),
                Call("get_section_pages", {"section": "/no-such-section"}, "not_found"),
                Call(
                    "get_page", {"url": rng.choice(pages.fixtures), "max_tokens": 5}, "invalid_args"
                ),
            ]
        )

    return [one() for _ in range(calls)]


def outcome_of(result: Any) -> tuple[str, str]:
    """(ok | stale | error code, detail) from a tool result."""
    if result.is_error:
        error = json.loads(result.content[0].text)["error"]
        return error["code"], error["message"]
    data = result.structured_content or {}
    return (STALE if data.get("stale") else OK), ""


async def call(client: Client, one: Call) -> Outcome:
    started = time.perf_counter()
    try:
        with anyio.fail_after(CALL_TIMEOUT):
            result = await client.call_tool(one.tool, one.args)
        got, detail = outcome_of(result)
    except Exception as exc:  # a timeout, a broken transport, a protocol error: no answer
        got, detail = LOST, f"{type(exc).__name__}: {exc}"
    return Outcome(one, got, time.perf_counter() - started, detail)


async def warm_up(url: str, pages: Pages) -> dict[str, list[str]]:
    """Every page read once (the flaky one while it still answers), every index built; the
    sections each manifest offers, for the plans."""
    sections: dict[str, list[str]] = {}
    async with Client(url) as client:
        listing = await client.call_tool("list_docs", {})
        for entry in listing.structured_content["docs"]:
            name = entry["name"]
            found = await client.call_tool("list_sections", {"docs": name})
            sections[name] = [s["section"] for s in found.structured_content["sections"]]
            await client.call_tool("search_pages", {"query": "getting started", "docs": name})
        limit = anyio.Semaphore(8)

        async def read(page: str) -> None:
            async with limit:
                await client.call_tool("get_page", {"url": page})

        async with anyio.create_task_group() as group:
            for page in pages.all():
                group.start_soon(read, page)
    return sections


async def drive(url: str, plans: list[list[Call]]) -> tuple[list[Outcome], float]:
    """Each plan on its own client (eras alternate), all at once; (outcomes, wall seconds)."""
    outcomes: list[Outcome] = []

    async def client(index: int, calls: list[Call]) -> None:
        async with Client(url, mode=ERAS[index % len(ERAS)]) as session:
            for one in calls:
                outcomes.append(await call(session, one))

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for index, calls in enumerate(plans):
            group.start_soon(client, index, calls)
    return outcomes, time.perf_counter() - started


def _healthy(base: str) -> bool:
    try:
        return httpx.get(f"{base}/health", timeout=10).status_code == 200
    except httpx.TransportError:
        return False


def rss_kb(pid: int) -> int | None:
    """Resident memory of a process (Linux /proc), else None."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return None


def figures(outcomes: list[Outcome], seconds: float) -> list[str]:
    """Requests, req/s, p50/p99 per tool, answers by outcome, and how many were unexpected."""
    lines = [f"  {len(outcomes)} requests in {seconds:.1f} s: {len(outcomes) / seconds:.1f} req/s"]
    by_tool: dict[str, list[float]] = defaultdict(list)
    for o in outcomes:
        by_tool[o.call.tool].append(o.seconds * 1000)
    for tool, ms in sorted(by_tool.items()):
        lines.append(
            f"  {tool:<18} {len(ms):5} calls  p50 {percentile(ms, 0.5):7.1f} ms  "
            f"p99 {percentile(ms, 0.99):7.1f} ms"
        )
    answers = Counter(o.got for o in outcomes)
    unexpected = sum(o.got != o.call.expect for o in outcomes)
    codes = ", ".join(f"{code} {n}" for code, n in sorted(answers.items()))
    lines.append(f"  answers: {codes}; not as expected: {unexpected}")
    return lines


@dataclass
class Soak:
    clients: int
    calls: int
    outcomes: list[Outcome]
    seconds: float
    settling: list[Outcome]  # the short run before the start RSS: checked, not timed
    rss_kb: list[int]  # the server's, sampled: after warm-up, during the run, at the end
    server_alive: bool
    server_errors: list[str]  # ERROR lines and tracebacks in the server's log

    def mismatches(self) -> list[Outcome]:
        return [o for o in [*self.settling, *self.outcomes] if o.got != o.call.expect]

    def codes(self) -> Counter[str]:
        return Counter(o.got for o in [*self.settling, *self.outcomes])

    @property
    def rss_growth_kb(self) -> int:
        return self.rss_kb[-1] - self.rss_kb[0]

    def report(self) -> str:
        lines = [
            f"soak over HTTP: {self.clients} clients x {self.calls} calls, "
            f"protocol eras alternating {' / '.join(ERAS)}"
        ]
        lines += figures(self.outcomes, self.seconds)
        if self.rss_kb:
            start, peak, end = self.rss_kb[0], max(self.rss_kb), self.rss_kb[-1]
            lines.append(
                f"  server RSS: {start / 1024:.1f} MB after warm-up, peak {peak / 1024:.1f} MB, "
                f"{end / 1024:.1f} MB at the end ({self.rss_growth_kb / 1024:+.1f} MB)"
            )
        else:
            lines.append("  server RSS: not measured (no /proc on this system)")
        lines.append(
            f"  server alive at the end: {self.server_alive}; "
            f"errors in its log: {len(self.server_errors)}"
        )
        return "\n".join(lines)


async def _sample_rss(pid: int, into: list[int], every: float = 0.25) -> None:
    while True:
        await anyio.sleep(every)
        if (kb := rss_kb(pid)) is not None:
            into.append(kb)


async def soak(shared: Path, folder: Path, clients: int, calls: int, seed: int = 6) -> Soak:
    """Serve the soak sites, warm up, run `clients` x `calls`, measure."""
    texts = queries(shared)
    with soak_sites(shared, folder) as sites, soak_server(sites, folder / "cache") as served:
        sections = await warm_up(served.url, sites.pages)
        plans = [plan(seed + i, calls, sites.pages, sections, texts) for i in range(clients)]
        warm = [plan(-1 - i, WARM_CALLS, sites.pages, sections, texts) for i in range(clients)]
        settling, _ = await drive(served.url, warm)  # the same load, briefly: memory settles
        pid = served.process.pid
        rss = [kb] if (kb := rss_kb(pid)) is not None else []
        async with anyio.create_task_group() as group:
            group.start_soon(_sample_rss, pid, rss)
            outcomes, seconds = await drive(served.url, plans)
            group.cancel_scope.cancel()
        if (end := rss_kb(pid)) is not None:
            rss.append(end)
        alive = served.process.poll() is None and _healthy(served.base)
        errors = [line for line in served.log if " ERROR " in line or line.startswith("Traceback")]
    return Soak(clients, calls, outcomes, seconds, settling, rss, alive, errors)
