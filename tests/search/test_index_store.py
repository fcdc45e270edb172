"""The on-disk index: built once per manifest content, memory-mapped after, rebuilt when the
manifest changes or the file is damaged, safe with two processes starting at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pinax.errors import ManifestError
from pinax.library import Library
from pinax.manifest import load
from pinax.search.store import FORMAT, StoreError
from pinax.search.store import load as load_index
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]


def write_manifest(path: Path, titles: list[str]) -> Path:
    pages = [
        {
            "url": f"https://docs.example.org/guide/{i}-{t.lower().replace(' ', '-')}",
            "title": t,
            "group": "Guides",
        }
        for i, t in enumerate(titles)
    ]
    data = {"pinax_manifest": 1, "name": "demo", "url": "https://docs.example.org", "pages": pages}
    path.write_text(json.dumps(data))
    return path


def index_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.pxi"))


def titles(library: Library, query: str) -> list[str]:
    return [hit.title for hit in library.search(query, 5).hits]


def test_round_trip_through_the_index_file(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "demo.json", ["Installation", "Configuration", "Routing"])
    folder = tmp_path / "indexes"
    first = Library.load([manifest], index_dir=folder)
    [built] = index_files(folder)
    stamp = built.stat().st_mtime_ns
    second = Library.load([manifest], index_dir=folder)
    assert index_files(folder) == [built] and built.stat().st_mtime_ns == stamp  # reused
    for library in (first, second):
        assert titles(library, "configure") == ["Configuration"]
        docs = library.get("demo")
        assert docs.pages[1].group == "Guides" and docs.title == "demo"
    assert not list(folder.glob("*.tmp"))


def test_real_manifest_pages_survive_the_store(tmp_path: Path) -> None:
    path = shared_path("corpora", "manifests", "kubernetes.json")
    manifest = load(path)
    docs = Library.load([path], index_dir=tmp_path).get("kubernetes")
    assert list(docs.pages) == list(manifest.pages)  # every field of every page
    assert docs.source == str(path)
    some = manifest.pages[123]
    assert docs.find(some.url) == some and docs.find(some.url + "x") is None
    in_memory = Library([manifest]).get("kubernetes")
    assert docs.top_sections == in_memory.top_sections
    assert docs.section_pages("/docs/concepts") == in_memory.section_pages("/docs/concepts")


def test_a_changed_manifest_gets_a_new_index(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "demo.json", ["Installation", "Routing"])
    folder = tmp_path / "indexes"
    assert titles(Library.load([manifest], index_dir=folder), "caching") == []
    time.sleep(0.01)
    write_manifest(manifest, ["Installation", "Routing", "Caching"])
    assert titles(Library.load([manifest], index_dir=folder), "caching") == ["Caching"]
    assert len(index_files(folder)) == 1  # the index of the old content is gone


def test_same_content_new_timestamp_reuses_the_index(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "demo.json", ["Installation"])
    folder = tmp_path / "indexes"
    Library.load([manifest], index_dir=folder)
    [built] = index_files(folder)
    stamp = built.stat().st_mtime_ns
    os.utime(manifest, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert titles(Library.load([manifest], index_dir=folder), "installation") == ["Installation"]
    assert index_files(folder) == [built] and built.stat().st_mtime_ns == stamp


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: b"\0" * len(data),  # zeroed
        lambda data: data[:-40] + b"x" * 40,  # header and trailer garbled
        lambda data: b"PINAXIDX" + data[8:].replace(f'"format": {FORMAT}'.encode(), b'"format": 9'),
        lambda data: data.replace(b'"dtype": "<f4"', b'"dtype": "|O8"', 1),  # Python objects
    ],
)
def test_a_damaged_index_is_rebuilt(tmp_path: Path, damage, caplog) -> None:
    manifest = write_manifest(tmp_path / "demo.json", ["Installation", "Routing"])
    folder = tmp_path / "indexes"
    Library.load([manifest], index_dir=folder)
    [built] = index_files(folder)
    built.write_bytes(damage(built.read_bytes()))
    with pytest.raises(StoreError):
        load_index(built)
    library = Library.load([manifest], index_dir=folder)
    assert titles(library, "routing") == ["Routing"]
    assert "rebuilding" in caplog.text
    load_index(built)  # sound again


def test_a_broken_manifest_loads_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    data = {
        "pinax_manifest": 1,
        "name": "bad",
        "url": "https://x.org",
        "pages": [
            {"url": "https://x.org/a", "title": "A"},
            {"url": "https://x.org/a", "title": "B"},
        ],
    }
    path.write_text(json.dumps(data))
    folder = tmp_path / "indexes"
    with pytest.raises(
        ManifestError, match=r"bad.json: pages\[1\]\.url: duplicate of pages\[0\]\.url"
    ):
        Library.load([path], index_dir=folder)
    assert index_files(folder) == []
    with pytest.raises(ManifestError, match="no such file"):
        Library.load([tmp_path / "missing.json"], index_dir=folder)


def test_an_unwritable_index_folder_still_serves(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "demo.json", ["Installation"])
    blocker = tmp_path / "indexes"
    blocker.write_text("a file where the folder should be")
    library = Library.load([manifest], index_dir=blocker)
    assert titles(library, "installation") == ["Installation"]


def test_two_processes_starting_at_once(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "demo.json", [f"Page {i}" for i in range(3000)])
    folder = tmp_path / "indexes"
    code = (
        "import sys; from pathlib import Path; from pinax.library import Library; "
        "lib = Library.load([Path(sys.argv[1])], index_dir=Path(sys.argv[2])); "
        "print(len(lib.get('demo').pages), lib.search('page 2999', 1).hits[0].title)"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(manifest), str(folder)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for run in runs:
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
        assert out.split()[:1] == ["3000"] and out.strip().endswith("Page 2999")
    assert len(index_files(folder)) == 1
    assert not list(folder.glob("*.tmp"))
    load_index(index_files(folder)[0])


def test_warm_up_reads_the_mapped_index_file(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "demo.json", ["Installation", "Routing"])
    library = Library.load([manifest], index_dir=tmp_path / "indexes")
    [built] = index_files(tmp_path / "indexes")
    assert library.get("demo").index_file == built
    library.warm()
    assert library.ready and titles(library, "routing") == ["Routing"]
    built.unlink()  # gone under a running server: the warm-up says nothing, search goes on
    library.warm()
    assert titles(library, "install") == ["Installation"]


@pytest.mark.parametrize("missing", ["outline_start", "term_text", "terms"])
def test_an_index_lacking_an_array_is_rebuilt(tmp_path: Path, missing: str, caplog) -> None:
    """A sound file of another build (or a planted one) that lacks an array the code needs."""
    from pinax.search.store import Writer

    manifest = write_manifest(tmp_path / "demo.json", ["Installation", "Routing"])
    folder = tmp_path / "indexes"
    Library.load([manifest], index_dir=folder)
    [built] = index_files(folder)
    arrays, header = load_index(built)
    kept = {name: array.copy() for name, array in arrays.items() if name != missing}
    del arrays
    writer = Writer(built)
    for name, array in kept.items():
        writer.add(name, array)
    writer.commit(header)
    library = Library.load([manifest], index_dir=folder)
    assert titles(library, "routing") == ["Routing"]
    assert "rebuilding" in caplog.text
    assert missing in load_index(built)[0]
