"""A manifests folder swapped whole (a symlink flipped to a new folder, or Kubernetes'
`..data` behind a ConfigMap's files) is read whole: one load, one generation, named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pinax.server.reload import LiveTools, generation, one_generation
from pinax.tools import Tools


def _manifest(folder: Path, name: str, title: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "pinax_manifest": 1,
        "name": name,
        "url": "http://127.0.0.1:9/",
        "pages": [{"url": f"http://127.0.0.1:9/{name}", "title": title}],
    }
    (folder / f"{name}.json").write_text(json.dumps(manifest))


def _flip(link: Path, target: Path) -> None:
    new = link.with_name(link.name + ".new")
    new.symlink_to(target)
    os.replace(new, link)


def test_a_folder_symlink_resolves_to_one_folders_files(tmp_path: Path) -> None:
    for gen in ("a", "b"):
        for name in ("one", "two"):
            _manifest(tmp_path / gen, name, f"{name} {gen}")
    link = tmp_path / "manifests"
    _flip(link, tmp_path / "a")
    assert one_generation([str(link)]) == [
        str(tmp_path / "a" / n) for n in ("one.json", "two.json")
    ]
    _flip(link, tmp_path / "b")
    assert {Path(p).parent.name for p in one_generation([str(link)])} == {"b"}
    assert one_generation(["https://docs.example.com/"]) == ["https://docs.example.com/"]


def test_configmap_style_file_links_resolve_through_data(tmp_path: Path) -> None:
    """A ConfigMap volume: each file a symlink through `..data`, itself one symlink."""
    volume = tmp_path / "volume"
    volume.mkdir()
    for gen in ("..2026_a", "..2026_b"):
        _manifest(volume / gen, "one", f"one {gen}")
    _flip(volume / "..data", volume / "..2026_a")
    (volume / "one.json").symlink_to(Path("..data") / "one.json")
    assert one_generation([str(volume)]) == [str(volume / "..2026_a" / "one.json")]
    _flip(volume / "..data", volume / "..2026_b")
    assert one_generation([str(volume)]) == [str(volume / "..2026_b" / "one.json")]


@pytest.mark.anyio
async def test_a_flip_reloads_the_other_generation_and_names_it(tmp_path: Path) -> None:
    for gen in ("a", "b"):
        _manifest(tmp_path / gen, "one", f"alpha {gen}")
        _manifest(tmp_path / gen, "two", f"beta {gen}")
    link = tmp_path / "manifests"
    _flip(link, tmp_path / "a")

    def load() -> Tools:
        return Tools.open([Path(p) for p in one_generation([str(link)])])

    live = LiveTools(load, [link], interval=0.05)
    first = live.generation
    assert first == generation(live.tools) and len(first) == 12
    titles = {p["title"] for d in ("one", "two") for p in _pages(live.tools, d)}
    assert titles == {"alpha a", "beta a"}
    _flip(link, tmp_path / "b")
    assert await live.check()
    assert live.generation != first and live.generation == generation(live.tools)
    titles = {p["title"] for d in ("one", "two") for p in _pages(live.tools, d)}
    assert titles == {"alpha b", "beta b"}
    assert not await live.check()  # nothing changed since


def _pages(tools: Tools, docs: str) -> list[dict]:
    return tools.search_pages("alpha beta", docs=docs)["results"]
