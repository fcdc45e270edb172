"""Redirects to nowhere (issue 19, item 10): a `Location` httpx cannot read as a URL.

`data:...`, `http:x`, `javascript:`, `mailto:`, a malformed IDNA host... httpx raised inside
its client (not an `HTTPError`), which ended as `internal` and made `pinax page` print a
traceback. Each is `fetch_failed` with the reason, through Tools and the real command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pinax.errors import FetchFailed, InvalidArgs
from tests.pages.test_limits import open_tools, read
from tests.support.http_site import Reply, Site
from tests.support.serving import ROOT, server_env

LOCATIONS = [
    "data:text/html,<h1>hi</h1>",
    "http:x",
    "https:x/y",
    "javascript:alert(1)",
    "mailto:someone@example.com",
    "http://xn--/",
    "http://[::1",
    "http://xn--ls8h.xn--/",
    "about:blank",
]


@pytest.mark.parametrize("location", LOCATIONS)
def test_a_redirect_to_nowhere_is_fetch_failed(tmp_path: Path, site: Site, location: str) -> None:
    url = site.add("/moved", Reply(302, b"", {"Location": location}))
    with pytest.raises(FetchFailed, match=r"(?i)redirect|location"):
        read(open_tools(tmp_path, [url]), url)


@pytest.mark.parametrize("url", ["http://xn--/", "http://xn--ls8h.xn--/x", "https://a..b/"])
def test_a_url_idna_refuses_is_invalid_args(tmp_path: Path, site: Site, url: str) -> None:
    tools = open_tools(tmp_path, [site.url("/p")])
    with pytest.raises(InvalidArgs):
        read(tools, url)


def test_pinax_page_prints_the_reason_not_a_traceback(tmp_path: Path, site: Site) -> None:
    urls = [
        site.add(f"/moved{i}", Reply(302, b"", {"Location": loc}))
        for i, loc in enumerate(LOCATIONS)
    ]
    manifest = tmp_path / "site.json"
    pages = [{"url": url, "title": f"moved {i}"} for i, url in enumerate(urls)]
    manifest.write_text(
        json.dumps({"pinax_manifest": 1, "name": "site", "url": urls[0], "pages": pages})
    )
    for url in urls[:5]:  # a process each: the first five kinds
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pinax",
                "page",
                url,
                "--docs",
                str(manifest),
                "--cache-dir",
                str(tmp_path / "c"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
            env=server_env(),
        )
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert "redirect" in done.stderr, done.stderr
