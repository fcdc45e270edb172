"""`--docs <site URL>` must not widen get_page's reach (issue 19, item 13).

A site's own llms.txt links to a page on another host (here: another loopback server, a
different origin). Built on the fly, that link became a manifest page, so the model could
read the other host without the operator ever naming it. Only the site's own origin is read.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.pages.test_limits import html
from tests.support.http_site import Site
from tests.support.serving import run_pinax


def pinax(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_pinax(*args, env={"PINAX_CACHE_DIR": str(tmp_path / "cache")})


def test_links_to_other_hosts_in_a_sites_llms_txt_stay_unreadable(
    tmp_path: Path, site: Site
) -> None:
    with Site() as other:
        secret = other.add(
            "/internal/secret", html("<main><h1>Secret</h1><p>other host</p></main>")
        )
        own = site.add("/docs/guide", html("<main><h1>Guide</h1><p>the guide text</p></main>"))
        llms = (
            "# Site\n\n> docs\n\n## Docs\n\n"
            f"- [Guide]({own}): the guide\n- [Secret]({secret}): elsewhere\n"
            f"- [Twin]({own}.md): markdown\n"
        )
        source = site.add("/llms.txt", html(llms))
        site.routes["/llms.txt"].headers["Content-Type"] = "text/plain"

        read_own = pinax(tmp_path, "page", own, "--docs", source, "--json")
        assert read_own.returncode == 0, read_own.stderr
        assert "the guide text" in json.loads(read_own.stdout)["markdown"]

        read_other = pinax(tmp_path, "page", secret, "--docs", source, "--json")
        assert read_other.returncode != 0 and "Traceback" not in read_other.stderr
        assert other.hits("/internal/secret") == 0, "the other host was fetched"

        found = pinax(tmp_path, "search", "--docs", source, "--json", "secret elsewhere")
        urls = [r["url"] for r in json.loads(found.stdout)["results"]]
        assert secret not in urls
