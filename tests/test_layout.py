"""The house's rooms and arrows: who may import whom, and what each door offers.

Read from the source (every import, those inside functions and under TYPE_CHECKING too), so a
new module cannot reach behind a door or point an arrow upwards unnoticed.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import pinax

PACKAGE = Path(pinax.__file__).parent
ROOMS = ("manifest", "search", "pages", "builder", "server", "versions", "project", "cli")
# Each part and the parts it may import ("pinax" is the package root: its version).
MAY_IMPORT = {
    "errors": set(),
    "hints": set(),
    "lazy": set(),
    "files": {"errors"},
    "workers": {"errors"},
    "arguments": {"errors", "search"},
    "manifest": {"errors", "files", "lazy", "workers"},
    "search": {"manifest", "pages", "files", "errors", "lazy", "workers"},
    "pages": {"pinax", "errors", "lazy", "files"},
    "versions": {"errors"},
    "project": {"versions", "errors", "files"},
    "library": {"search", "manifest", "project", "versions", "errors", "hints"},
    "tools": {
        "arguments",
        "library",
        "project",
        "versions",
        "search",
        "pages",
        "manifest",
        "errors",
        "hints",
    },
    "builder": {"manifest", "pages", "errors", "lazy", "files"},
    "server": {"pinax", "tools", "search", "pages", "manifest", "errors", "hints", "lazy"},
    "cli": {
        "pinax",
        "server",
        "tools",
        "search",
        "builder",
        "pages",
        "manifest",
        "errors",
        "hints",
    },
    "__main__": {"cli"},
    "__init__": set(),
}


def modules() -> list[tuple[str, ast.Module]]:
    """(dotted name, parsed source) of every module of the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((name, ast.parse(path.read_text(), str(path))))
    return found


def imported(module: str, tree: ast.Module) -> set[str]:
    """The pinax modules (or package attributes) a module imports, as dotted names."""
    names: set[str] = set()
    package = module if module.count(".") and _is_package(module) else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            for alias in node.names:  # `from pinax import manifest` imports a module
                whole = f"{base}.{alias.name}"
                names.add(whole if _is_module(whole) else base)
    return {name for name in names if name == "pinax" or name.startswith("pinax.")}


def _is_package(module: str) -> bool:
    return (PACKAGE.parent / module.replace(".", "/") / "__init__.py").exists()


def _is_module(module: str) -> bool:
    return _is_package(module) or (PACKAGE.parent / (module.replace(".", "/") + ".py")).exists()


def part_of(module: str) -> str:
    """The spine module or room a dotted name belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pinax"


def test_every_part_of_the_package_is_known() -> None:
    parts = {part_of(name) for name, _ in modules()} - {"pinax"}
    assert parts == set(MAY_IMPORT) - {"__init__"}


def test_nothing_reaches_behind_a_rooms_door() -> None:
    breaches = []
    for name, tree in modules():
        for target in imported(name, tree):
            room = part_of(target)
            behind = room in ROOMS and target.count(".") >= 2
            if behind and part_of(name) != room:
                breaches.append(f"{name} imports {target}")
    assert breaches == []


def test_arrows_point_down() -> None:
    upwards = []
    for name, tree in modules():
        here = part_of(name) if name != "pinax" else "__init__"
        for target in imported(name, tree):
            there = part_of(target)
            if there != here and there not in MAY_IMPORT[here]:
                upwards.append(f"{name} imports {target}")
    assert upwards == []


@pytest.mark.parametrize("room", ROOMS[:-1])
def test_each_door_lists_names_that_resolve(room: str) -> None:
    door = importlib.import_module(f"pinax.{room}")
    assert door.__all__ == sorted(door.__all__, key=lambda n: (not n.isupper(), n))
    for name in door.__all__:
        assert getattr(door, name) is not None, name


@pytest.mark.parametrize("room", ROOMS[:-1])
def test_no_door_name_is_also_a_module_name(room: str) -> None:
    """Importing a module binds its name on the package, which would hide a door's name."""
    door = importlib.import_module(f"pinax.{room}")
    submodules = {info.name for info in pkgutil.iter_modules(door.__path__)}
    assert set(door.__all__) & submodules == set()


# tests/ and bench/ keep the same doors. A test under tests/<room>/ may read that room's
# insides; every other test, tests/support/ and bench/ go through doors. The exceptions, each
# with why: a bench that measures a room's internals, or a test that checks one room's rule
# beside another's.
REPO = PACKAGE.parent
TEST_ROOMS = ("search", "manifest", "pages", "builder", "server", "cli", "project", "tools")
INSIDES_ALLOWED = {
    # Benches that measure what is behind a door, because that is what they measure:
    "bench/quality/eval_search.py": (
        {"pinax.search.index", "pinax.search.indexing", "pinax.search.tokens"},
        "its ablation switches each ranking part off in place (stemmer, fields, phrases, ...)",
    ),
    "bench/quality/short_queries.py": (
        {"pinax.search.content", "pinax.search.tokens"},
        "picks the body-only words as the content index reads text: its plain text and stems",
    ),
    "bench/quality/eval_semantic.py": (
        {"pinax.search.tokens"},
        "picks the queries that share no stemmed word with their page, with search's own stems",
    ),
    "bench/quality/eval_symbols.py": (
        {"pinax.builder.inventory", "pinax.builder.symbols", "pinax.search.symbol_field"},
        "reads real inventories as the builder does and gives rank-bm25 the symbol field's text",
    ),
    "bench/experiments/embedding_variants.py": (
        {"pinax.search.semantic", "pinax.search.tokens"},
        "re-embeds the candidates with the model itself, in variants the index does not build",
    ),
    "bench/quality/extract.py": (
        {"pinax.pages.extract"},
        "times and scores the extraction alone, without fetching or the token budget",
    ),
    "bench/speed/page.py": (
        {"pinax.pages.extract"},
        "times the cold extraction alone beside get_page's whole path",
    ),
    "bench/quality/outline.py": (
        {
            "pinax.builder.core",
            "pinax.builder.report",
            "pinax.pages.main_content",
            "pinax.pages.extract",
            "pinax.pages.outline",
        },
        "names the anchor rule each generator's headings took, and builds with a recording report",
    ),
    "bench/quality/content_build.py": (
        {"pinax.builder.core", "pinax.builder.report"},
        "builds in process with a recording report, to count failures by kind",
    ),
    "bench/speed/build.py": (
        {"pinax.builder.core", "pinax.builder.report"},
        "builds in process with a recording report, beside plain httpx on the same sitemap",
    ),
    "bench/speed/folder.py": (
        {"pinax.builder.report"},
        "builds a docs folder in process with a recording report",
    ),
    "bench/speed/limits.py": (
        {"pinax.pages.fetch"},
        "times the gzip bomb's decompression alone",
    ),
    "bench/experiments/tune_semantic.py": (
        {"pinax.search.semantic"},
        "embeds each query with the model itself, to score every share of meaning in one pass",
    ),
    "bench/experiments/tune_factors.py": (
        {"pinax.search.members", "pinax.search.surface"},
        "searches only the DEV rows each word-shape rule looks at, picked by the rules themselves",
    ),
    "bench/speed/http.py": (
        {"pinax.server.http_app", "pinax.cli.common"},
        "builds the ASGI app as `pinax serve --http` does, to serve it under each ASGI server",
    ),
    "bench/harness/runs.py": (
        {"pinax.search.semantic"},
        "hides the embedding model to measure words alone in the same process",
    ),
    "bench/harness/synth.py": (
        {"pinax.builder.inventory"},
        "gives synthetic pages real symbols, read from the shared inventories as the builder does",
    ),
    # Test helpers and tests that check one room's rule beside another's:
    "tests/support/build_support.py": (
        {"pinax.builder.core", "pinax.builder.report"},
        "builds for the builder's and the CLI's tests with a report that records every line",
    ),
    "tests/cli/test_first_hour.py": (
        {"pinax.builder.html"},
        "the title-suffix rule checked directly beside the CLI run that shows it",
    ),
    "tests/pages/test_page_outline.py": (
        {"pinax.builder.markdown_outline"},
        "get_page's sections of a Markdown page against the builder's outline of the same page",
    ),
    "tests/search/test_search_symbols.py": (
        {"pinax.builder.inventory"},
        "a real inventory's symbols, read as the builder reads them, found by every form",
    ),
    "tests/bench/test_bench_semantic.py": (
        {"pinax.search.semantic"},
        "checks the tuning study's scores with queries embedded by the model itself",
    ),
    "tests/search/test_ranking_sheet.py": (
        {"pinax.server.toolspecs", "pinax.server.reference"},
        "the sheet's defaults and formulas against the tool specs and reference clients read",
    ),
    "tests/manifest/test_index_columns.py": (
        {"pinax.search.indexing"},
        "the page table's paths against the paths the index is built from, page for page",
    ),
    "tests/pages/test_plain_text.py": (
        {"pinax.search.content"},
        "the section text the content index stores, against get_page's cleaning rules",
    ),
}


def outside_modules() -> list[tuple[str, str | None, ast.Module]]:
    """(path from the checkout, the test room it is in or None, parsed source) of every module
    of tests/ and bench/."""
    found = []
    for folder in ("tests", "bench"):
        for path in sorted((REPO / folder).rglob("*.py")):
            relative = path.relative_to(REPO)
            if "node_modules" in relative.parts:
                continue
            parts = relative.parts
            room = parts[1] if folder == "tests" and parts[1] in TEST_ROOMS else None
            found.append((relative.as_posix(), room, ast.parse(path.read_text(), str(path))))
    return found


def test_tests_and_benches_read_insides_only_of_their_own_room() -> None:
    breaches = []
    for path, home, tree in outside_modules():
        allowed = INSIDES_ALLOWED.get(path, (set(), ""))[0]
        for target in imported(path.removesuffix(".py").replace("/", "."), tree):
            room = part_of(target)
            behind = room in ROOMS and target.count(".") >= 2
            if behind and room != home and ".".join(target.split(".")[:3]) not in allowed:
                breaches.append(f"{path} imports {target}")
    assert breaches == []


def test_every_exception_is_still_needed() -> None:
    """An exception nobody uses any more is a door left open: it goes."""
    used: dict[str, set[str]] = {}
    for path, _, tree in outside_modules():
        used[path] = {".".join(t.split(".")[:3]) for t in imported(path, tree)}
    stale = {
        path: sorted(modules - used.get(path, set()))
        for path, (modules, _) in INSIDES_ALLOWED.items()
        if modules - used.get(path, set())
    }
    assert stale == {}


def test_tests_mirror_the_rooms() -> None:
    """Every test module lives in a room's folder (or tests/bench/ for the benches' own tests);
    only this one, about the whole house, and the suite's own skip summary stay at the top."""
    top = sorted(p.name for p in (REPO / "tests").glob("test_*.py"))
    assert top == ["test_layout.py", "test_skip_summary.py"]
    folders = {p.parent.name for p in (REPO / "tests").rglob("test_*.py")} - {"tests"}
    assert folders <= set(TEST_ROOMS) | {"bench"}
    for folder in ["support", *folders]:
        assert (REPO / "tests" / folder / "__init__.py").read_text() == "", folder


def test_the_search_door_offers_what_its_clients_use() -> None:
    """search/'s door names exactly what modules outside it import (it once offered 17 names,
    some used by nobody outside)."""
    used: set[str] = set()
    for name, tree in modules():
        if part_of(name) == "search":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "pinax.search":
                used.update(alias.name for alias in node.names)
    door = importlib.import_module("pinax.search")
    assert set(door.__all__) == used


MAX_MODULE_LINES = 600  # the house's bound: a longer module mixes jobs (kernels.pyx aside)


def test_no_module_is_over_the_bound() -> None:
    """pages/budget.py once held both the heading finding and the budget (670 lines)."""
    long = {
        str(path.relative_to(PACKAGE.parent)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


@pytest.mark.parametrize("room", ROOMS)
def test_no_circle_inside_a_room(room: str) -> None:
    """No module of the room imports, directly or through others, a module that imports it
    back, with imports inside functions counted (search's content and content_build, builder's
    core, folder and docs, outlines and markdown_outline, pages' rest and sourcetext were such
    circles, papered over with lazy imports)."""
    graph = {
        name: {t for t in imported(name, tree) if part_of(t) == room and t != name}
        for name, tree in modules()
        if part_of(name) == room and name != f"pinax.{room}"
    }
    circles = []
    for start in graph:
        stack, seen = [start], set()
        while stack:
            for target in graph.get(stack.pop(), ()):
                if target == start:
                    circles.append(start)
                elif target not in seen:
                    seen.add(target)
                    stack.append(target)
    assert sorted(set(circles)) == []


def test_the_layout_picture_names_every_module() -> None:
    """The development page's picture of the house lists each module of every room."""
    readme = (PACKAGE.parent / "docs" / "development.md").read_text()
    block = readme[readme.index("\npinax/\n") : readme.index("```", readme.index("\npinax/\n"))]
    words = set(re.findall(r"[a-z_0-9]+", block))
    missing = [
        str(path.relative_to(PACKAGE).with_suffix(""))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.stem not in ("__init__", "__main__") and path.stem not in words
    ]
    assert missing == []
