"""Versions answered from the right one: Django 4.2 and 5.2 loaded side by side, 20 questions
whose answer differs by version, each asked at one version; a question passes when the top hit
comes from the asked version and names the API (or heading) that answers there. Then every
version that is not loaded, asked every way, must be refused with the loaded list.

    python -m bench.quality.versions [--manifests DIR]

Without `--manifests`, the two manifests are built (about a minute each) from the docs folders
in $PINAX_SHARED/corpora/versions into a temporary folder, with their content (`--content`:
an answer the docs give only in a page's text, such as a deprecation in the release notes, is
found by it); with it, `DIR/django-4.2.json` and `DIR/django-5.2.json` (and their
`.content.jsonl.gz`) are used, built there first when missing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pinax.errors import NotFound
from pinax.tools import Tools

SHARED = Path(os.environ.get("PINAX_SHARED", "/work/shared"))
RELEASES = {"4.2": "django-4.2.30", "5.2": "django-5.2.19"}
# (query, version asked, words the top hit's symbol, heading or title must hold there)
QUESTIONS = [
    ("GeneratedField", "5.2", "GeneratedField"),
    ("CompositePrimaryKey", "5.2", "CompositePrimaryKey"),
    ("LoginRequiredMiddleware", "5.2", "LoginRequiredMiddleware"),
    ("Field.db_default", "5.2", "db_default"),
    ("querystring template tag", "5.2", "querystring"),
    ("URLField assume_scheme", "5.2", "assume_scheme"),
    ("login_not_required decorator", "5.2", "login_not_required"),
    ("Django 5.2 release notes", "5.2", "5.2 release notes"),
    ("Django 5.0 release notes", "5.2", "5.0 release notes"),
    # A topic query ("facet filters"): no symbol has "filters", so no hit can name
    # ModelAdmin.show_facets; what answers at 5.2 is a facets heading or name (4.2 has none).
    ("facet filters admin show_facets", "5.2", "facet"),
    ("Options.index_together", "4.2", "index_together"),
    ("USE_L10N setting", "4.2", "USE_L10N"),
    ("DEFAULT_FILE_STORAGE", "4.2", "DEFAULT_FILE_STORAGE"),
    ("STATICFILES_STORAGE setting", "4.2", "STATICFILES_STORAGE"),
    ("length_is filter", "4.2", "length_is"),
    ("USE_DEPRECATED_PYTZ", "4.2", "USE_DEPRECATED_PYTZ"),
    ("CSRF_COOKIE_MASKED setting", "4.2", "CSRF_COOKIE_MASKED"),
    ("Django 4.2 release notes", "4.2", "4.2 release notes"),
    ("alter_index_together", "4.2", "alter_index_together"),
    # 4.2 names it only in its release notes' text (no heading or symbol does): the answer
    # there is the section that deprecates it, found through the pages' content.
    ("SHA1PasswordHasher", "4.2", "deprecated in 4.2"),
]
NOT_LOADED = ["1.11", "3.2", "4.0", "4.1", "5.0", "5.1", "5.3", "6.0", "stable", "dev", "2"]


def build_manifests(folder: Path, content: bool = False) -> dict[str, Path]:
    """`folder/django-<version>.json` for both versions, built from the shared docs where
    missing (in parallel: each is about a minute of reST reading); with `content`, their
    content files too (a minute more)."""
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {v: folder / f"django-{v}.json" for v in RELEASES}

    def one(version: str) -> None:
        out = wanted[version]
        if out.exists() and (not content or out.with_suffix(".content.jsonl.gz").exists()):
            return
        release = RELEASES[version]
        with tarfile.open(SHARED / "corpora" / "versions" / f"{release}-docs.tar.gz") as tar:
            tar.extractall(folder / "src", filter="data")
        url = f"https://docs.djangoproject.com/en/{version}/"
        docs = folder / "src" / release / "docs"
        command = [sys.executable, "-m", "pinax", "build", str(docs), "--url", url]
        command += ["--version", version, "--package", "pypi:django", "-o", str(out), "-q"]
        command += ["--content"] if content else []
        subprocess.run(command, check=True, capture_output=True, timeout=900)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(one, RELEASES))
    return wanted


def answered(tools: Tools, query: str, version: str, words: str) -> bool:
    """Whether the top hit comes from `version` and names `words`."""
    results = tools.search_pages(query, limit=3, docs="django", version=version)["results"]
    if not results:
        return False
    top = results[0]
    said = " ".join(str(top.get(k) or "") for k in ("symbol", "heading", "title"))
    return top.get("version") == version and words.lower() in said.lower()


def refusals(tools: Tools) -> tuple[int, int]:
    """(refused with the loaded list, asked) over every version not loaded and every way."""
    refused = asked = 0
    for version in NOT_LOADED:
        for docs, given in (("django@" + version, None), ("django", version)):
            for call, args in (
                ("search_pages", ("field",)),
                ("list_sections", ()),
                ("get_section_pages", ("/en",)),
            ):
                asked += 1
                try:
                    getattr(tools, call)(*args, docs=docs, version=given)
                except NotFound as exc:
                    refused += exc.message.endswith("loaded: 4.2, 5.2")
    return refused, asked


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifests", type=Path, help="where the two manifests are (or go)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        paths = build_manifests(args.manifests or Path(scratch), content=True)
        cache = Path(scratch) / "cache"
        tools = Tools.open(list(paths.values()), cache_dir=cache, read_pages=False)
        tools.library.load_contents()
        assert all(d.content is not None for d in tools.library.all()), "content not loaded"
        passed = 0
        for query, version, words in QUESTIONS:
            ok = answered(tools, query, version, words)
            passed += ok
            print(f"{'ok  ' if ok else 'MISS'} {version} {query}")
        print(f"answered from the right version: {passed}/{len(QUESTIONS)}")
        refused, asked = refusals(tools)
        print(f"versions not loaded refused with the loaded list: {refused}/{asked}")


if __name__ == "__main__":
    main()
