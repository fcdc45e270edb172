"""`pinax build --versions`: the versions a site publishes, in the shapes the generators write
them (mike's versions.json, Read the Docs' addons answer and `/<lang>/` index, a Docusaurus
folder's versions.json beside versioned_docs/), served on loopback; one manifest per version
into the -o folder, and hostile lists that never escape it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinax.builder import version_file
from pinax.errors import InvalidArgs
from pinax.manifest import load
from tests.support.http_site import Reply, Site
from tests.support.serving import run_pinax

XML = {"Content-Type": "application/xml"}
JSON = {"Content-Type": "application/json"}


def _sitemap(site: Site, base: str, pages: list[str]) -> None:
    """A version's own sitemap.xml under `base` (mike and Read the Docs publish one each)."""
    locs = "".join(f"<url><loc>{site.url(base + p)}</loc></url>" for p in pages)
    body = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'
    site.add(base + "sitemap.xml", Reply(200, body.encode(), XML))


def _mike(site: Site, entries: list[dict]) -> None:
    """A mike deployment under /proj/: versions.json at its root, a folder per version."""
    site.add("/proj/versions.json", Reply(200, json.dumps(entries).encode(), JSON))
    for entry in entries:
        version = entry["version"]
        if isinstance(version, str) and "/" not in version and len(version) < 100:
            _sitemap(site, f"/proj/{version}/", ["", "guide/", f"api-{version}/"])


MIKE = [  # mike's own format: newest first, aliases as mike writes them
    {"version": "2.0", "title": "2.0 (latest)", "aliases": ["latest"]},
    {"version": "1.1", "title": "1.1", "aliases": []},
    {"version": "1.0", "title": "1.0", "aliases": ["old"]},
]


def test_mike_versions_are_listed_from_any_page_of_the_site(site: Site) -> None:
    _mike(site, MIKE)
    for start in ("/proj/", "/proj/2.0/", "/proj/1.0/guide/"):
        done = run_pinax("build", site.url(start), "--versions", "list")
        assert done.returncode == 0, done.stderr
        lines = [line.split("\t") for line in done.stdout.splitlines()]
        assert [line[0] for line in lines] == ["2.0", "1.1", "1.0"]
        assert lines[0][1:] == [site.url("/proj/2.0/"), "(latest)"]
        assert "3 versions, from mike: " + site.url("/proj/versions.json") in done.stderr


def test_mike_versions_built_one_manifest_each(site: Site, tmp_path: Path) -> None:
    _mike(site, MIKE)
    out = tmp_path / "out"
    common = ["build", site.url("/proj/"), "--name", "proj", "-o", str(out), "-q"]
    done = run_pinax(*common, "--versions", "2.0,old")
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in out.iterdir())
    assert files == ["proj@1.0.json", "proj@2.0.json"]
    for version in ("1.0", "2.0"):
        manifest = load(out / f"proj@{version}.json")
        assert manifest.version == version
        urls = [page.url for page in manifest.pages]
        assert site.url(f"/proj/{version}/api-{version}/") in urls
        assert all(f"/proj/{version}/" in url for url in urls)  # never another version's page
    done = run_pinax(*common, "--versions", "all")
    assert done.returncode == 0, done.stderr
    assert len(list(out.iterdir())) == 3


def test_a_version_not_published_is_refused_with_the_published_ones(site: Site) -> None:
    _mike(site, MIKE)
    done = run_pinax("build", site.url("/proj/"), "--versions", "3.0", "-o", "/nonexistent/x")
    assert done.returncode == 2
    assert "--versions 3.0: not published by" in done.stderr
    assert "published: 2.0, 1.1, 1.0" in done.stderr
    assert not Path("/nonexistent/x").exists()


def test_versions_need_an_output_folder_and_a_list_to_read(site: Site, tmp_path: Path) -> None:
    _mike(site, MIKE)
    done = run_pinax("build", site.url("/proj/"), "--versions", "all")
    assert done.returncode == 2 and "give the folder with -o DIR" in done.stderr
    file = tmp_path / "one.json"
    file.write_text("{}")
    done = run_pinax("build", site.url("/proj/"), "--versions", "all", "-o", str(file))
    assert done.returncode == 2 and "-o names a folder" in done.stderr
    site.add("/plain/", Reply(200, b"<html><title>x</title></html>", {"Content-Type": "text/html"}))
    done = run_pinax("build", site.url("/plain/"), "--versions", "list")
    assert done.returncode == 2 and "no list of versions found" in done.stderr
    done = run_pinax("build", site.url("/proj/"), "--versions", "all", "--version", "2.0")
    assert done.returncode == 2 and "give one" in done.stderr


def test_hostile_version_names_never_leave_the_output_folder(site: Site, tmp_path: Path) -> None:
    hostile = [
        {"version": "../../escaped", "title": "x", "aliases": []},
        {"version": "a/b", "title": "x", "aliases": []},
        {"version": "/etc/passwd", "title": "x", "aliases": []},
        {"version": "..", "title": "x", "aliases": []},
        {"version": "x" * 500, "title": "x", "aliases": []},
        {"version": 12, "title": "x", "aliases": []},
        {"version": "2.0\n", "title": "x", "aliases": []},
        {"version": "1.0", "title": "1.0", "aliases": ["../up", "ok"]},
    ]
    _mike(site, hostile)
    out = tmp_path / "deep" / "out"
    common = ["build", site.url("/proj/"), "--name", "proj", "-o", str(out)]
    done = run_pinax(*common, "--versions", "all")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["proj@1.0.json"]
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["proj@1.0.json"]
    assert "'../../escaped' is not a version; left out" in done.stderr
    listed = run_pinax("build", site.url("/proj/"), "--versions", "list")
    assert listed.stdout == f"1.0\t{site.url('/proj/1.0/')}\t(ok)\n"


@pytest.mark.parametrize("name", ["..", "a/b", "", "x/../../y"])
@pytest.mark.parametrize("version", ["1.0", "../1.0", "a/b", "..", "1.0\n", "1.0\x00"])
def test_a_version_file_is_inside_its_folder_or_refused(
    tmp_path: Path, name: str, version: str
) -> None:
    try:
        path = version_file(tmp_path, name, version)
    except InvalidArgs:
        return
    assert path.resolve().parent == tmp_path.resolve()


def test_a_list_of_too_many_versions_is_read_to_a_bound(site: Site) -> None:
    many = [{"version": f"1.{i}", "title": "", "aliases": []} for i in range(5_000)]
    site.add("/proj/versions.json", Reply(200, json.dumps(many).encode(), JSON))
    done = run_pinax("build", site.url("/proj/"), "--versions", "list")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 200
    assert "5000 versions; only the first 200 are read" in done.stderr
    huge = json.dumps([{"version": "1.0", "title": "x" * (2 << 20), "aliases": []}])
    site.add("/big/versions.json", Reply(200, huge.encode(), JSON))
    done = run_pinax("build", site.url("/big/"), "--versions", "list")
    assert done.returncode == 2 and "no list of versions found" in done.stderr


def _read_the_docs(site: Site, versions: list[str]) -> None:
    """A Read the Docs layout: /en/<version>/ each with its sitemap, an /en/ index linking
    them (as a flyout or a versions page does), other links beside."""
    links = "".join(f'<a href="/en/{v}/">{v}</a>' for v in versions)
    links += '<a href="/fr/latest/">fr</a><a href="https://elsewhere.org/en/9.9/">x</a>'
    body = f"<html><body><div class='rst-versions'>{links}</div></body></html>".encode()
    site.add("/en/", Reply(200, body, {"Content-Type": "text/html"}))
    for version in versions:
        _sitemap(site, f"/en/{version}/", ["", "intro/"])


def test_read_the_docs_versions_from_the_language_index(site: Site, tmp_path: Path) -> None:
    _read_the_docs(site, ["stable", "latest", "4.2", "5.2"])
    done = run_pinax("build", site.url("/en/5.2/"), "--versions", "list")
    assert done.returncode == 0, done.stderr
    assert [line.split("\t")[0] for line in done.stdout.splitlines()] == [
        "stable",
        "latest",
        "4.2",
        "5.2",
    ]
    assert "from Read the Docs" in done.stderr
    out = tmp_path / "out"
    done = run_pinax(
        "build", site.url("/en/5.2/"), "--versions", "4.2,5", "--name", "django", "-o", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["django@4.2.json", "django@5.2.json"]
    manifest = load(out / "django@4.2.json")
    assert manifest.version == "4.2"
    assert {p.url for p in manifest.pages} == {site.url("/en/4.2/"), site.url("/en/4.2/intro/")}


def test_read_the_docs_addons_answer_is_read_first(site: Site) -> None:
    answer = {  # the shape of Read the Docs' /_/addons/ (api-version 1), cut to what is read
        "versions": {
            "active": [
                {"slug": "stable", "urls": {"documentation": site.url("/en/stable/")}},
                {"slug": "3.1", "urls": {"documentation": site.url("/en/3.1/")}},
                {"slug": "../x", "urls": {"documentation": site.url("/en/x/")}},
                {"slug": "2.0", "urls": {"documentation": "javascript:alert(1)"}},
            ]
        }
    }
    site.add("/_/addons/", Reply(200, json.dumps(answer).encode(), JSON))
    done = run_pinax("build", site.url("/en/stable/"), "--versions", "list")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"stable\t{site.url('/en/stable/')}",
        f"3.1\t{site.url('/en/3.1/')}",
    ]
    asked = [r.path for r in site.requests if r.path.startswith("/_/addons/")]
    assert len(asked) == 1 and "version-slug=stable" in asked[0]


def _docusaurus(root: Path) -> Path:
    """A Docusaurus site folder: versions.json (newest first) beside versioned_docs/."""
    site = root / "my-site"
    (site / "docs").mkdir(parents=True)
    (site / "docs" / "intro.md").write_text("# Intro (next)\n\nUnreleased.\n")
    for version in ("3.0.0", "2.0.0"):
        folder = site / "versioned_docs" / f"version-{version}"
        folder.mkdir(parents=True)
        (folder / "intro.md").write_text(f"# Intro {version}\n\nReleased.\n")
        (folder / f"only-{version}.md").write_text(f"# Only in {version}\n\nText.\n")
    (site / "versions.json").write_text(json.dumps(["3.0.0", "2.0.0", "../../../tmp/x"]))
    return site


def test_docusaurus_versioned_docs_build_one_manifest_each(tmp_path: Path) -> None:
    site = _docusaurus(tmp_path)
    done = run_pinax("build", str(site), "--versions", "list")
    assert done.returncode == 0, done.stderr
    assert [line.split("\t")[0] for line in done.stdout.splitlines()] == [
        "3.0.0",
        "2.0.0",
        "next",
    ]
    out = tmp_path / "out"
    url = "https://example.org/docs/"
    done = run_pinax("build", str(site), "--versions", "all", "--url", url, "-o", str(out), "-q")
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["my-site@2.0.0.json", "my-site@3.0.0.json", "my-site@next.json"]
    newest, older = load(out / "my-site@3.0.0.json"), load(out / "my-site@2.0.0.json")
    assert (newest.version, older.version) == ("3.0.0", "2.0.0")
    assert {p.title for p in newest.pages} == {"Intro 3.0.0", "Only in 3.0.0"}
    assert all(p.url.startswith(url) and "/2.0.0/" not in p.url for p in newest.pages)
    assert all(p.url.startswith(url + "2.0.0/") for p in older.pages)
    assert all(p.url.startswith(url + "next/") for p in load(out / "my-site@next.json").pages)
    assert not (tmp_path / "tmp").exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{not json", "not a Docusaurus versions.json"),
        ('{"3.0.0": true}', "a list of version strings"),
        ("[" + '"1.0",' * 400_000 + '"1.0"]', "not a Docusaurus versions.json"),  # over 1 MB
    ],
)
def test_a_broken_docusaurus_versions_json_is_an_error_naming_it(
    tmp_path: Path, content: str, said: str
) -> None:
    site = _docusaurus(tmp_path)
    (site / "versions.json").write_text(content)
    done = run_pinax("build", str(site), "--versions", "list")
    assert done.returncode == 2
    assert str(site / "versions.json") in done.stderr and said in done.stderr
