"""Bulk manifest validation (for large builds) accepts and rejects exactly what
`manifest.loads` does, with the same messages."""

from __future__ import annotations

import json

import pytest

from pinax import manifest as manifest_io
from pinax.errors import ManifestError
from pinax.manifest import columns
from pinax.manifest.columns import PageColumns
from pinax.manifest.pagetable import raw_path
from pinax.search.indexing import page_path, page_paths
from tests.conftest import shared_path


def document(*pages: object, **header: object) -> bytes:
    data = {
        "pinax_manifest": 1,
        "name": "x",
        "url": "https://x.org",
        **header,
        "pages": list(pages),
    }
    return json.dumps(data).encode()


GOOD = [
    document({"url": "https://x.org/a", "title": "A"}),
    document({"url": "https://x.org/guide/getting_started.html", "title": "  "}),  # slug title
    document({"url": "HTTPS://X.org:8443/a?q=1#f", "title": "A", "section": "/custom"}),
    document({"url": "https://[::1]/a", "title": "IPv6 host: the careful path"}),
    document({"url": "https://x.org/a", "title": "A", "markdown_url": "https://x.org/a.md"}),
    document({"url": "https://x.org/a", "title": "A", "description": "d", "group": "g"}),
    document({"url": "https://x.org/a", "title": "A", "unknown": 3}),
    document(),
    document(
        {"url": "https://x.org/a", "title": "A", "outline": [{"level": 2, "title": " Caveats "}]},
        {"url": "https://x.org/b", "title": "B", "outline": []},
        {"url": "https://x.org/c", "title": "C", "outline": None},
        {
            "url": "https://x.org/d",
            "title": "D",
            "outline": [
                {"level": 2, "title": "Usage", "anchor": "usage"},
                {"level": 6, "title": "Deep", "anchor": "json.dumps", "extra": 1},
            ],
        },
    ),
    b"\xef\xbb\xbf" + document({"url": "https://x.org/a", "title": "A"}),  # UTF-8 BOM
]

BAD = [
    b"{not json",
    b"\xff\xfe{}",
    b"[]",
    document({"url": "https://x.org/a", "title": "A"}, name="bad name!"),
    document({"url": "https://x.org/a", "title": "A"}, pinax_manifest=2),
    document("not an object"),
    document({"title": "A"}),
    document({"url": "/relative", "title": "A"}),
    document({"url": "https://x.org/a b", "title": "A"}),
    document({"url": "ftp://x.org/a", "title": "A"}),
    document({"url": "https://x.org/a", "title": 3}),
    document({"url": "https://x.org/a"}),
    document({"url": "https://x.org/a", "title": "A", "section": "no-slash"}),
    document({"url": "https://x.org/a", "title": "A", "description": 1}),
    document({"url": "https://x.org/a", "title": "A", "markdown_url": "x.md"}),
    document({"url": "https://x.org/a", "title": "A"}, {"url": "https://x.org/a", "title": "B"}),
    document({"url": "https://[::1/a", "title": "A"}),
    *(
        document({"url": "https://x.org/a", "title": "A", "outline": outline})
        for outline in [
            "Caveats",
            [{"level": 1, "title": "Top"}],
            [{"level": 7, "title": "Below"}],
            [{"level": 2.0, "title": "Float"}],
            [{"level": True, "title": "Bool"}],
            [{"level": 2, "title": "  "}],
            [{"level": 2}],
            [{"level": 2, "title": "x" * 501}],
            [{"level": 2, "title": "A", "anchor": "a b"}],
            [{"level": 2, "title": "A", "anchor": "#a"}],
            [{"level": 2, "title": "A", "anchor": ""}],
            [{"level": 2, "title": "A", "anchor": 3}],
            [{"level": 2, "title": "A", "anchor": "a" * 501}],
            [{"level": 2, "title": "A"}, "B"],
            [{"level": 2, "title": "A"}] * 5001,
        ]
    ),
]


@pytest.mark.parametrize("raw", GOOD)
def test_accepts_what_manifest_accepts(raw: bytes) -> None:
    expected = manifest_io.loads(raw, "m.json")
    found = columns.loads(raw, "m.json")
    assert found.pages == PageColumns.of(expected.pages)
    assert (found.name, found.url, found.title, found.description) == (
        expected.name,
        expected.url,
        expected.title,
        expected.description,
    )


@pytest.mark.parametrize("raw", BAD)
def test_rejects_with_the_same_message(raw: bytes) -> None:
    with pytest.raises(ManifestError) as expected:
        manifest_io.loads(raw, "m.json")
    with pytest.raises(ManifestError) as found:
        columns.loads(raw, "m.json")
    assert found.value.message == expected.value.message


def test_real_manifests() -> None:
    for path in sorted(shared_path("corpora", "manifests").glob("*.json")):
        raw = path.read_bytes()
        assert columns.loads(raw, str(path)).pages == PageColumns.of(
            manifest_io.loads(raw, str(path)).pages
        )


@pytest.mark.parametrize("base", ["", "/en/dev"])
def test_page_paths_in_bulk_as_one_by_one(base: str) -> None:
    urls = [
        "https://x.org",
        "https://x.org/en/dev",
        "https://x.org/en/dev/a%2F/",
        "https://x.org/en/devx/y",
        "https://x.org/en/dev/caf%C3%A9//",
        "https://x.org/x%2/",
        "https://x.org/en/dev/topics/a/",
    ]
    for path in sorted(shared_path("corpora", "manifests").glob("*.json")):
        urls += columns.loads(path.read_bytes(), str(path)).pages.url
    assert page_paths([raw_path(u) for u in urls], base) == [page_path(u, base) for u in urls]


def dump_layout(raw: bytes) -> bytes:
    """The same manifest as `manifest.dump` lays it out (one page a line), without checking
    it: bad pages stay bad."""
    data = json.loads(raw.decode("utf-8-sig"))
    pages = data.pop("pages") if isinstance(data, dict) else None
    if not isinstance(pages, list) or not pages:
        return raw
    head = "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in data.items())
    rows = ",\n".join(f"    {json.dumps(p, sort_keys=True)}" for p in pages)
    return f'{{\n{head}  "pages": [\n{rows}\n  ]\n}}\n'.encode()


@pytest.mark.parametrize("raw", GOOD)
def test_the_dump_layout_is_read_in_batches_alike(
    raw: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(columns, "CHUNK", 150)
    laid_out = dump_layout(raw)
    expected = manifest_io.loads(raw, "m.json")
    assert columns.loads(laid_out, "m.json").pages == PageColumns.of(expected.pages)


@pytest.mark.parametrize("raw", BAD)
def test_the_dump_layout_rejects_with_the_same_message(
    raw: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(columns, "CHUNK", 150)
    assert_refused_alike(raw)


def assert_refused_alike(raw: bytes) -> None:
    """A bad manifest, in the dump layout where it is JSON, is refused by the batched reader
    with the same message as by `manifest.loads`."""
    try:
        laid_out = dump_layout(raw)
    except ValueError:  # not JSON at all
        laid_out = raw
    with pytest.raises(ManifestError) as expected:
        manifest_io.loads(laid_out, "m.json")
    with pytest.raises(ManifestError) as found:
        columns.loads(laid_out, "m.json")
    assert found.value.message == expected.value.message


def test_a_duplicate_url_in_another_batch_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(columns, "CHUNK", 150)
    pages = [{"url": f"https://x.org/{i}", "title": "T"} for i in range(5)]
    raw = dump_layout(document(*pages, {"url": "https://x.org/0", "title": "again"}))
    with pytest.raises(ManifestError, match=r"pages\[5\]\.url: duplicate of pages\[0\]\.url"):
        columns.loads(raw, "m.json")


def test_real_manifests_with_outlines_in_the_dump_layout() -> None:
    shared_path("corpora", "outlines")
    from bench.harness.corpora import outlined_manifest

    for name in ("react", "django"):
        manifest = outlined_manifest(name)
        text = manifest_io.dump(manifest).encode()
        split = columns._dump_layout(text)
        assert split is not None and columns._batched(text, *split, name) is not None
        assert columns.loads(text, name).pages == PageColumns.of(manifest.pages)


@pytest.fixture
def parsed_by_workers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Manifests in the dump layout parsed a line or two at a time by two worker processes
    (however many CPUs there are); the list counts the worker pools started."""
    from pinax import workers as content_workers

    started: list[int] = []

    class Counted(content_workers.Workers):
        def __init__(self, count: int, job: str = "content") -> None:
            started.append(count)
            super().__init__(count, job)

    monkeypatch.setattr(content_workers, "Workers", Counted)
    monkeypatch.setattr(columns, "CHUNK", 150)
    monkeypatch.setattr(columns, "WORKERS_FROM", 2)
    monkeypatch.setattr(content_workers, "worth_starting", lambda most: 2)
    return started


def many_pages(count: int) -> bytes:
    """A manifest of `count` pages with outlines and symbols whose texts repeat across
    batches (so that renumbering them matters), in the dump layout."""
    pages = [
        {
            "url": f"https://x.org/p/{i}",
            "title": f"Page {i % 7}",
            "outline": [
                {"level": 2 + i % 3, "title": f"Usage {i % 5}", "anchor": f"usage-{i % 4}"},
                {"level": 3, "title": "Caveats"},
            ],
            "symbols": [{"name": f"m.f{i % 6}", "kind": "function", "anchor": f"m.f{i % 3}"}],
        }
        for i in range(count)
    ]
    return dump_layout(document(*pages))


def test_a_large_manifest_is_parsed_by_workers_alike(parsed_by_workers: list[int]) -> None:
    raw = many_pages(40)
    found = columns.loads(raw, "m.json")
    assert parsed_by_workers == [2]
    assert found.pages == PageColumns.of(manifest_io.loads(raw, "m.json").pages)


@pytest.mark.parametrize("raw", BAD)
def test_workers_reject_with_the_same_message(raw: bytes, parsed_by_workers: list[int]) -> None:
    assert_refused_alike(raw)


def test_a_bad_page_among_many_is_refused_by_name(parsed_by_workers: list[int]) -> None:
    pages = json.loads(many_pages(30))
    pages["pages"][23]["outline"][1]["anchor"] = "two words"
    with pytest.raises(ManifestError, match=r"pages\[23\]\.outline\[1\]\.anchor"):
        columns.loads(dump_layout(json.dumps(pages).encode()), "m.json")
    assert parsed_by_workers == [2]


def test_batches_a_worker_fails_are_parsed_here(
    parsed_by_workers: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures import Future

    from pinax import workers as content_workers

    submit = content_workers.Workers.submit
    calls = []

    def failing(self: content_workers.Workers, item: object) -> Future[object]:
        calls.append(item)
        if len(calls) % 3:
            return submit(self, item)
        failed: Future[object] = Future()
        failed.set_exception(content_workers.WorkerError("gone"))
        return failed

    monkeypatch.setattr(content_workers.Workers, "submit", failing)
    raw = many_pages(40)
    assert columns.loads(raw, "m.json").pages == PageColumns.of(
        manifest_io.loads(raw, "m.json").pages
    )
    assert len(calls) > 3


def test_real_manifests_with_outlines_by_workers(parsed_by_workers: list[int]) -> None:
    shared_path("corpora", "outlines")
    from bench.harness.corpora import outlined_manifest

    manifest = outlined_manifest("react")
    text = manifest_io.dump(manifest).encode()
    assert columns.loads(text, "react").pages == PageColumns.of(manifest.pages)
    assert parsed_by_workers == [2]


def test_workers_that_cannot_start_leave_the_parse_here(
    parsed_by_workers: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pinax import workers as content_workers

    def cannot(self: content_workers.Workers, count: int, job: str = "content") -> None:
        raise content_workers.WorkerError("no processes here")

    monkeypatch.setattr(content_workers.Workers, "__init__", cannot)
    raw = many_pages(20)
    assert columns.loads(raw, "m.json").pages == PageColumns.of(
        manifest_io.loads(raw, "m.json").pages
    )
