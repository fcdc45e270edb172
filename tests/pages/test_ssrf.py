"""Outbound safety: hostile URLs are refused before any byte leaves, by a table of cases.

Every case goes through `Tools.get_page` wired as `Tools.open` wires it, with two spies:
a resolver stub that records each DNS lookup (and answers from the table), and a spy on
`anyio.connect_tcp`, the one place httpcore opens a socket. A refused case must show no
connection attempt and no request on the loopback site; a spelling case not even a lookup.
The policies here are built explicitly, never from `PINAX_ALLOW_PRIVATE`.
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from pinax.errors import FetchFailed, InvalidArgs
from pinax.library import Library
from pinax.pages.fetch import Fetcher
from pinax.pages.policy import AddressPolicy, UrlPolicy, networks_from_env, site_origins
from pinax.pages.reader import PageReader
from pinax.tools import Tools
from tests.conftest import LOOPBACK, ROOT
from tests.support.http_site import Reply, Site
from tests.support.raw_server import RawServer, head
from tests.support.tls_certs import client_context, server_context

PAGE = Reply(
    200, b"<main><h1>Page</h1><p>on the docs site</p></main>", {"Content-Type": "text/html"}
)


class Resolver:
    """DNS from a table: host -> addresses, or a list of answers, one per lookup."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.table = table
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        answer = self.table.get(host)
        if answer is None:
            raise OSError(f"[Errno -2] Name or service not known: {host}")
        if isinstance(answer[0], list):  # answers in turn; the last one stays
            return answer.pop(0) if len(answer) > 1 else answer[0]
        return answer


@pytest.fixture
def dialed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every address a socket was opened to (httpcore dials through anyio.connect_tcp)."""
    calls: list[str] = []
    real = anyio.connect_tcp

    async def spy(remote_host: str, remote_port: int, **kwargs):
        calls.append(str(remote_host))
        return await real(remote_host, remote_port, **kwargs)

    monkeypatch.setattr(anyio, "connect_tcp", spy)
    return calls


def wire(
    tmp_path: Path,
    sites: list[str],
    resolver: Resolver,
    allow: tuple[str, ...] = (),
    verify: ssl.SSLContext | bool = True,
) -> Tools:
    """Tools over a manifest with one page on each site, wired as Tools.open wires them."""
    pages = [{"url": f"{site}/page", "title": f"Page {i}"} for i, site in enumerate(sites)]
    manifest = tmp_path / "docs.json"
    manifest.write_text(
        json.dumps({"pinax_manifest": 1, "name": "docs", "url": sites[0], "pages": pages})
    )
    library = Library.load([manifest])
    policy = UrlPolicy(site_origins(library.site_urls()), AddressPolicy(allow))
    fetcher = Fetcher(policy.check, addresses=policy.addresses, resolver=resolver, verify=verify)
    return Tools(library, PageReader(policy, None, fetcher))


def get(tools: Tools, url: str) -> dict:
    return anyio.run(tools.get_page, url)


@pytest.fixture
def site() -> Iterator[Site]:
    with Site() as running:
        running.add("/page", PAGE)
        yield running


def port_of(site: Site) -> int:
    return int(site.url("/").split(":")[2].split("/")[0])


# Hostile spellings of the two allowed sites, http://docs.test:{port} and http://127.0.0.1:{port}
# (loopback allowed, as for an intranet site): a naive fetcher would reach the site with each.
SPELLINGS = [
    "http://2130706433:{port}/page",  # decimal IPv4
    "http://0x7f000001:{port}/page",  # hex IPv4
    "http://0x7f.0.0.1:{port}/page",  # hex octet
    "http://0177.0.0.1:{port}/page",  # octal octet
    "http://017700000001:{port}/page",  # octal IPv4
    "http://127.1:{port}/page",  # short form
    "http://127.0.1:{port}/page",  # short form
    "http://127.000.000.001:{port}/page",  # zero-padded
    "http://1.1.1.1.1:{port}/page",  # five numeric labels
    "http://docs.test@127.0.0.1:{port}/page",  # userinfo
    "http://user:secret@docs.test:{port}/page",  # credentials
    "http://127.0.0.1:{port}@docs.test:{port}/page",  # userinfo that looks like a host
    "http://docs.test%2f@127.0.0.1:{port}/page",  # encoded slash in userinfo
    "http://docs.test\\@127.0.0.1:{port}/page",  # backslash (WHATWG parsers split here)
    "http:\\\\docs.test:{port}\\page",  # backslashes for slashes
    "http://%64ocs.test:{port}/page",  # percent-encoded host
    "http://%31%32%37.0.0.1:{port}/page",  # percent-encoded IP
    "http://docs.test.:{port}/page",  # trailing dot
    "http://127.0.0.1.:{port}/page",  # trailing dot on an IP
    "http://dоcs.test:{port}/page",  # Cyrillic o: an IDN look-alike
    "http://xn--dcs-sed.test:{port}/page",  # the same look-alike in punycode
    "http://ｄｏｃｓ.test:{port}/page",  # fullwidth letters
    "http://docs。test:{port}/page",  # ideographic full stop
    "http://docs\u200b.test:{port}/page",  # zero-width space
    "http://ⅾocs.test:{port}/page",  # roman numeral small d
    "http://[::ffff:127.0.0.1]:{port}/page",  # IPv4-mapped loopback
    "http://[0:0:0:0:0:ffff:7f00:1]:{port}/page",  # the same, spelled out
    "http://[::1]:{port}/page",  # IPv6 loopback
    "http://[fe80::1%25lo]:{port}/page",  # zone id
    "http://0.0.0.0:{port}/page",  # unspecified (reaches loopback on Linux)
    "http://0:{port}/page",  # unspecified, short
    "http://127.0.0.2:{port}/page",  # loopback outside the allowance
    "http://localhost:{port}/page",  # a name for loopback, not the manifest's
    "http://docs.test.evil.test:{port}/page",  # manifest host as a prefix
    "http://evil.test/docs.test:{port}/page",  # manifest host in the path
    "http://docs.test:{other}/page",  # another port
    "https://docs.test:{port}/page",  # another scheme
    "http://docs.test:65536/page",  # impossible port
    "http://docs.test:{port}:{port}/page",  # two ports
    "ftp://docs.test:{port}/page",
    "file:///etc/passwd",
    "gopher://docs.test:{port}/_GET%20/page",
    "dict://docs.test:{port}/info",
    "javascript:alert(1)",
    "data:text/html,<h1>hi</h1>",
    "//docs.test:{port}/page",  # scheme-relative
    "http:docs.test:{port}/page",  # no slashes
    "http:///docs.test:{port}/page",  # empty host
    "http://docs.test:{port}/page\r\nX-Injected: 1",  # header injection
    "http://docs.test:{port}/pa ge",  # whitespace
    "http://docs.test:{port}/page\x00",  # NUL
    "http://docs.test:{port}/" + "a" * 5000,  # over-long
    "",
]


@pytest.mark.parametrize("template", SPELLINGS)
def test_hostile_spellings_are_refused_before_any_lookup_or_connection(
    tmp_path: Path, site: Site, dialed: list[str], template: str
) -> None:
    port = port_of(site)
    resolver = Resolver({"docs.test": ["127.0.0.1"], "evil.test": ["127.0.0.1"]})
    tools = wire(
        tmp_path, [f"http://docs.test:{port}", f"http://127.0.0.1:{port}"], resolver, (LOOPBACK,)
    )
    with pytest.raises(InvalidArgs):
        get(tools, template.format(port=port, other=port + 1))
    assert (resolver.lookups, dialed, site.requests) == ([], [], [])


@pytest.mark.parametrize(
    "url",
    [
        "http://docs.test:{port}/page",
        "http://DOCS.test:{port}/page",
        "http://127.0.0.1:{port}/page",
    ],
)
def test_the_plain_spellings_reach_the_site_at_the_checked_address(
    tmp_path: Path, site: Site, dialed: list[str], url: str
) -> None:
    """The control: the harness does see lookups and connections, and dials the IP it checked."""
    port = port_of(site)
    resolver = Resolver({"docs.test": ["127.0.0.1"]})
    tools = wire(
        tmp_path, [f"http://docs.test:{port}", f"http://127.0.0.1:{port}"], resolver, (LOOPBACK,)
    )
    assert get(tools, url.format(port=port))["title"] == "Page"
    assert dialed == ["127.0.0.1"] and site.hits("/page") == 1
    assert resolver.lookups == ([] if "127.0.0.1" in url else ["docs.test"])


# What a manifest host may resolve to (DNS is the attacker's): every one is refused.
ADDRESSES = [
    ["127.0.0.1"],
    ["127.255.255.254"],
    ["10.0.0.1"],
    ["172.16.0.1"],
    ["172.31.255.255"],
    ["192.168.1.1"],
    ["169.254.169.254"],  # cloud metadata
    ["100.64.0.1"],  # carrier-grade NAT
    ["0.0.0.0"],
    ["224.0.0.251"],  # multicast
    ["255.255.255.255"],
    ["198.18.0.1"],  # benchmarking
    ["::1"],
    ["::"],
    ["fc00::1"],
    ["fd12:3456:789a::1"],
    ["fe80::1"],
    ["fe80::1%lo"],  # link-local with a scope, as getaddrinfo writes it
    ["::ffff:127.0.0.1"],  # IPv4-mapped
    ["::ffff:169.254.169.254"],
    ["::127.0.0.1"],  # IPv4-compatible
    ["64:ff9b::a9fe:a9fe"],  # NAT64 to the metadata address
    ["2002:a9fe:a9fe::1"],  # 6to4 to the metadata address
    ["2001:0:53aa:64c::1"],  # Teredo
    ["ff02::1"],  # multicast
    ["93.184.216.34", "10.0.0.1"],  # one bad address among good ones
    ["2606:4700::1111", "fd00::1"],
]


@pytest.mark.parametrize("answer", ADDRESSES, ids=lambda a: ",".join(a))
def test_hosts_resolving_to_non_public_addresses_are_refused_before_connecting(
    tmp_path: Path, site: Site, dialed: list[str], answer: list[str]
) -> None:
    port = port_of(site)
    resolver = Resolver({"docs.test": answer})
    tools = wire(tmp_path, [f"http://docs.test:{port}"], resolver)
    with pytest.raises(FetchFailed, match=r"resolves to .*refused .*--allow-private"):
        get(tools, f"http://docs.test:{port}/page")
    assert resolver.lookups == ["docs.test"]
    assert (dialed, site.requests) == ([], [])


@pytest.mark.parametrize(
    "origin",
    [
        "http://169.254.169.254",
        "http://10.0.0.1:8080",
        "http://[::1]:{port}",
        "http://127.0.0.1:{port}",
    ],
)
def test_a_manifest_on_a_non_public_ip_is_refused_without_an_allowance(
    tmp_path: Path, site: Site, dialed: list[str], origin: str
) -> None:
    origin = origin.format(port=port_of(site))
    resolver = Resolver({})
    tools = wire(tmp_path, [origin], resolver)
    with pytest.raises(InvalidArgs, match=r"refused .*--allow-private"):
        get(tools, f"{origin}/page")
    assert (resolver.lookups, dialed, site.requests) == ([], [], [])


@pytest.mark.parametrize(
    "location",
    [
        "http://169.254.169.254/latest/meta-data/",  # off-site
        "http://2130706433:{port}/page",  # a hostile spelling of the site
        "http://inside.test:{port}/page",  # a manifest site whose host is private
        "http://user@docs.test:{port}/page",
    ],
)
def test_every_redirect_hop_is_checked_again(
    tmp_path: Path, site: Site, dialed: list[str], location: str
) -> None:
    port = port_of(site)
    site.add("/jump", Reply(302, b"", {"Location": location.format(port=port)}))
    resolver = Resolver({"docs.test": ["127.0.0.1"], "inside.test": ["10.1.2.3"]})
    tools = wire(
        tmp_path, [f"http://docs.test:{port}", f"http://inside.test:{port}"], resolver, (LOOPBACK,)
    )
    with pytest.raises(FetchFailed, match="refused"):
        get(tools, f"http://docs.test:{port}/jump")
    assert dialed == ["127.0.0.1"] and [r.path for r in site.requests] == ["/jump"]


def test_a_rebinding_answer_is_checked_again_and_the_checked_address_is_dialed(
    tmp_path: Path, site: Site, dialed: list[str]
) -> None:
    """DNS answers loopback (allowed), then a private address: each connection looks up
    once and dials exactly the address it checked, so the second answer is refused."""
    port = port_of(site)
    resolver = Resolver({"docs.test": [["127.0.0.1"], ["10.0.0.7"]]})
    tools = wire(tmp_path, [f"http://docs.test:{port}"], resolver, (LOOPBACK,))
    assert get(tools, f"http://docs.test:{port}/page")["title"] == "Page"
    with pytest.raises(FetchFailed, match=r"resolves to 10.0.0.7"):
        get(tools, f"http://docs.test:{port}/page")
    assert resolver.lookups == ["docs.test", "docs.test"]
    assert dialed == ["127.0.0.1"] and site.hits("/page") == 1


def test_tls_is_verified_for_the_host_name_while_the_checked_address_is_dialed(
    tmp_path: Path, dialed: list[str]
) -> None:
    """Dialing by IP keeps TLS honest: the certificate must name the URL's host (SNI)."""

    def page(server: RawServer, connection) -> None:
        length = str(len(PAGE.body))
        server.send(connection, head(content_type="text/html", content_length=length) + PAGE.body)

    with RawServer(page, tls=server_context()) as server:
        port = server.port
        resolver = Resolver({"docs.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
        sites = [f"https://docs.test:{port}", f"https://other.test:{port}"]
        tools = wire(tmp_path, sites, resolver, (LOOPBACK,), verify=client_context())
        assert get(tools, f"https://docs.test:{port}/page")["title"] == "Page"
        with pytest.raises(FetchFailed, match=r"(?i)hostname mismatch|doesn't match"):
            get(tools, f"https://other.test:{port}/page")
    assert dialed == ["127.0.0.1", "127.0.0.1"]


def test_the_allowance_opens_only_its_network(
    tmp_path: Path, site: Site, dialed: list[str]
) -> None:
    port = port_of(site)
    resolver = Resolver({"docs.test": ["127.0.0.1"], "other.test": ["127.0.0.2"]})
    sites = [f"http://docs.test:{port}", f"http://other.test:{port}"]
    tools = wire(tmp_path, sites, resolver, ("127.0.0.1/32",))
    assert get(tools, f"http://docs.test:{port}/page")["title"] == "Page"
    with pytest.raises(FetchFailed, match=r"resolves to 127.0.0.2, a loopback address"):
        get(tools, f"http://other.test:{port}/page")
    assert dialed == ["127.0.0.1"]


def test_dns_failure_is_a_fetch_failure(tmp_path: Path, dialed: list[str]) -> None:
    tools = wire(tmp_path, ["http://gone.test"], Resolver({}), (LOOPBACK,))
    with pytest.raises(FetchFailed, match=r"cannot resolve gone.test"):
        get(tools, "http://gone.test/page")
    assert dialed == []


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("8.8.8.8", None),
        ("2606:4700:4700::1111", None),
        ("169.254.169.254", "a link-local address (cloud metadata lives here)"),
        ("::ffff:10.1.1.1", "a private address"),
        ("not-an-ip", "not an IP address"),
    ],
)
def test_address_policy_reasons(address: str, reason: str | None) -> None:
    assert AddressPolicy().refusal(address) == reason


def test_allowances_from_the_environment_and_their_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINAX_ALLOW_PRIVATE", " 10.20.0.0/16, fd00::/8 ,")
    assert [str(n) for n in networks_from_env()] == ["10.20.0.0/16", "fd00::/8"]
    policy = AddressPolicy.from_env(["192.168.5.0/24"])
    assert policy.refusal("10.20.3.4") is None and policy.refusal("192.168.5.9") is None
    assert policy.refusal("10.21.0.1") == "a private address"
    monkeypatch.setenv("PINAX_ALLOW_PRIVATE", "10.0.0.1/8")
    with pytest.raises(InvalidArgs, match=r"PINAX_ALLOW_PRIVATE: '10.0.0.1/8' is not a network"):
        networks_from_env()
    with pytest.raises(InvalidArgs, match="--allow-private: 'intranet'"):
        AddressPolicy(["intranet"])


def pinax_page(url: str, manifest: Path, *args: str, env_allow: str | None = None):
    env = {k: v for k, v in os.environ.items() if k != "PINAX_ALLOW_PRIVATE"}
    if env_allow is not None:
        env["PINAX_ALLOW_PRIVATE"] = env_allow
    return subprocess.run(
        [sys.executable, "-m", "pinax", "page", url, "--docs", str(manifest), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )


def test_the_cli_refuses_loopback_unless_the_operator_allows_it(tmp_path: Path, site: Site) -> None:
    url = site.url("/page")
    manifest = tmp_path / "local.json"
    manifest.write_text(
        json.dumps(
            {
                "pinax_manifest": 1,
                "name": "local",
                "url": site.url("/"),
                "pages": [{"url": url, "title": "Page"}],
            }
        )
    )
    cache = ("--cache-dir", str(tmp_path / "cache"))
    refused = pinax_page(url, manifest, *cache)
    assert refused.returncode == 1 and "--allow-private" in refused.stderr
    assert site.requests == []
    allowed = pinax_page(url, manifest, *cache, "--allow-private", "127.0.0.1/32", "--ttl", "0")
    assert allowed.returncode == 0 and "on the docs site" in allowed.stdout
    from_env = pinax_page(url, manifest, *cache, "--ttl", "0", env_allow="10.0.0.0/8,127.0.0.1")
    assert from_env.returncode == 0 and site.hits("/page") == 2
    bad = pinax_page(url, manifest, *cache, "--allow-private", "everything")
    assert bad.returncode == 2 and "'everything' is not a network" in bad.stderr
