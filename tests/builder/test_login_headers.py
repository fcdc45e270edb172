"""A site behind a login: `--header ORIGIN=Name: value` reaches that origin only.

Real HTTP on loopback: a site that demands a token serves with it and refuses without it; a
second origin, reached by a redirect or named by an llms.txt link, never receives it; pages
read with it are cached apart; the secret shows up in no error, manifest or output.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from pinax.builder import BuildOptions, build_manifest
from pinax.builder.report import Reporter
from pinax.errors import FetchFailed, InvalidArgs
from pinax.manifest import dump
from pinax.pages import Credentials
from pinax.tools import Tools
from tests.support.http_site import Reply, Request, Site
from tests.support.serving import run_pinax

SECRET = "s3cret-token-value"
HTML = {"Content-Type": "text/html; charset=utf-8"}


def guarded(body: bytes) -> object:
    def handler(request: Request) -> Reply:
        if request.headers.get("authorization") != f"Bearer {SECRET}":
            return Reply(401, b"login first", {"Content-Type": "text/plain"})
        return Reply(200, body, HTML)

    return handler


@pytest.fixture
def other() -> Iterator[Site]:
    """A second loopback origin (another port)."""
    with Site() as running:
        yield running


def manifest_of(path: Path, site: Site, *urls: str) -> Path:
    pages = [{"url": url, "title": url.rsplit("/", 1)[-1] or "home"} for url in urls]
    data = {"pinax_manifest": 1, "name": "private", "url": site.url("/"), "pages": pages}
    path.write_text(json.dumps(data))
    return path


def login(site: Site, token: str = SECRET) -> Credentials:
    return Credentials.parse(
        [f"{site.origin}=Authorization: Bearer ${{DOCS_TOKEN}}"], {"DOCS_TOKEN": token}
    )


def read(tools: Tools, url: str) -> dict:
    return anyio.run(lambda: tools.get_page(url))


def test_a_guarded_site_serves_with_the_header_and_refuses_without(
    site: Site, tmp_path: Path
) -> None:
    url = site.add("/guide", guarded(b"<main><h1>Guide</h1><p>Private words.</p></main>"))
    manifest = manifest_of(tmp_path / "m.json", site, url)
    cache = tmp_path / "cache"
    with_login = Tools.open([manifest], cache, credentials=login(site))
    assert "Private words." in read(with_login, url)["markdown"]
    assert read(with_login, url)["cache"] == "hit"

    # Without credentials: the cached copy is not served, and the site refuses.
    anonymous = Tools.open([manifest], cache)
    with pytest.raises(FetchFailed) as refused:
        read(anonymous, url)
    message = refused.value.message
    assert "HTTP 401" in message and "wants credentials" in message and "--header" in message
    # Other credentials: another namespace, and the site says no to them.
    wrong = Tools.open([manifest], cache, credentials=login(site, "wrong-token"))
    with pytest.raises(FetchFailed, match="refused the credentials") as bad:
        read(wrong, url)
    assert "wrong-token" not in bad.value.message and SECRET not in bad.value.message
    assert site.hits("/guide") == 3


def test_a_redirect_to_another_origin_goes_without_the_header(
    site: Site, other: Site, tmp_path: Path
) -> None:
    target = other.add("/landing", Reply(200, b"<main><h1>Landing</h1><p>Out.</p></main>", HTML))
    start = site.add("/moved", Reply(302, b"", {"Location": target}))
    manifest = manifest_of(tmp_path / "m.json", site, start, target)
    tools = Tools.open([manifest], tmp_path / "cache", credentials=login(site))
    page = read(tools, start)
    assert page["url"] == target and "Out." in page["markdown"]
    assert site.requests[-1].headers["authorization"] == f"Bearer {SECRET}"
    assert other.requests and all("authorization" not in r.headers for r in other.requests)


def test_a_public_page_redirecting_behind_the_login_is_not_cached_for_everyone(
    site: Site, other: Site, tmp_path: Path
) -> None:
    guarded_url = site.add("/inside", guarded(b"<main><h1>Inside</h1><p>Private.</p></main>"))
    public_url = other.add("/door", Reply(302, b"", {"Location": guarded_url}))
    manifest = manifest_of(tmp_path / "m.json", other, public_url, guarded_url)
    cache = tmp_path / "cache"
    with_login = Tools.open([manifest], cache, credentials=login(site))
    assert "Private." in read(with_login, public_url)["markdown"]
    anonymous = Tools.open([manifest], cache)
    with pytest.raises(FetchFailed, match="wants credentials"):
        read(anonymous, public_url)


def test_a_build_sends_the_header_to_its_site_only(site: Site, other: Site, tmp_path: Path) -> None:
    elsewhere = other.add("/page", Reply(200, b"<title>Elsewhere</title><h1>E</h1>", HTML))
    own = site.add("/own", guarded(b"<title>Own page</title><main><h1>Own</h1></main>"))
    llms = f"# Private\n\n- [Own]({own})\n- [Elsewhere]({elsewhere})\n".encode()
    site.add("/llms.txt", guarded(llms))
    options = BuildOptions(
        outline=True,  # every page read: the llms.txt's own and the other origin's
        cache_dir=tmp_path,
        credentials=login(site),
        allow_hosts=(other.origin,),
        delay=0,
    )
    manifest = asyncio.run(build_manifest(site.url("/llms.txt"), options, Reporter()))
    text = dump(manifest)
    assert SECRET not in text and "Own" in text and site.hits("/own") >= 1
    assert other.requests and all("authorization" not in r.headers for r in other.requests)


def test_credentials_parse_by_exact_origin_and_never_show_a_value() -> None:
    env = {"T": SECRET}
    creds = Credentials.parse(
        ["docs.corp.com=Authorization: Bearer ${T}", "http://127.0.0.1:8123=X-Key: k"], env
    )
    assert creds.for_url("https://docs.corp.com/a") == {"Authorization": f"Bearer {SECRET}"}
    assert creds.for_url("http://docs.corp.com/a") == {}  # another scheme: another origin
    assert creds.for_url("https://docs.corp.com:8443/a") == {}
    assert creds.for_url("https://evil.docs.corp.com/a") == {}
    assert creds.for_url("http://127.0.0.1:8123/x") == {"X-Key": "k"}
    assert SECRET not in repr(creds)
    assert creds.namespace and SECRET not in creds.namespace
    assert Credentials().namespace is None
    assert Credentials.parse(["docs.corp.com=Authorization: other"]).namespace != creds.namespace
    for bad, why in (
        (f"docs.corp.com Authorization {SECRET}", "expected ORIGIN=Name: value"),
        (f"https://docs.corp.com/path=Authorization: {SECRET}", "not an origin"),
        (f"X-Token: {SECRET}=a:b", "not an origin"),  # the origin left out
        (f"docs.corp.com=Bearer {SECRET}: x", "not a header name"),
        (f"docs.corp.com=Host: {SECRET}", "Host is a header Pinax sets itself"),
        ("docs.corp.com=Authorization: ${MISSING}", "MISSING is not set"),
    ):
        with pytest.raises(InvalidArgs, match=why) as raised:
            Credentials.parse([bad], env)
        assert SECRET not in raised.value.message


def test_the_command_line_takes_headers_and_a_private_headers_file(
    site: Site, tmp_path: Path
) -> None:
    url = site.add("/guide", guarded(b"<main><h1>Guide</h1><p>Private words.</p></main>"))
    manifest = manifest_of(tmp_path / "m.json", site, url)
    env = {"DOCS_TOKEN": SECRET}
    header = f"{site.origin}=Authorization: Bearer ${{DOCS_TOKEN}}"
    result = run_pinax(
        "page", url, "--docs", str(manifest), "--header", header, "--log-level", "debug", env=env
    )
    assert result.returncode == 0, result.stderr
    assert "HTTP Request" in result.stderr  # the debug log ran, and holds no secret
    assert "Private words." in result.stdout and SECRET not in result.stdout + result.stderr

    refused = run_pinax("page", url, "--docs", str(manifest), env=env)
    assert refused.returncode == 1 and "--header" in refused.stderr

    headers_file = tmp_path / "headers"
    headers_file.write_text(f"# the docs site\n{header}\n")
    os.chmod(headers_file, 0o644)
    args = ("page", url, "--docs", str(manifest), "--headers-file", str(headers_file))
    public = run_pinax(*args, env=env)
    assert public.returncode == 2 and "chmod 600" in public.stderr
    os.chmod(headers_file, 0o600)
    private = run_pinax(*args, env=env)
    assert private.returncode == 0 and "Private words." in private.stdout
