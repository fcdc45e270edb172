"""`--docs ./docs`: a folder of documentation sources, built in memory for serve, search
and page, and (for serve) rebuilt when its files change, re-reading only the changed ones.

A `--docs` folder is a docs folder when it holds documentation sources rather than
manifests (see `pinax.builder.is_docs_folder`), or when given as `dir:DIR` (`--docs-folder`);
its generator's config gives its pages, URLs and titles (pinax/builder/generators/); `--url`
(else the site the config names) its published site, else its pages are `file:` URLs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from pinax.builder import is_docs_folder

DIR_PREFIX = "dir:"


def split_docs(docs: list[str]) -> tuple[list[str], list[Path]]:
    """(the other `--docs` arguments, the docs folders), in the order given. `dir:DIR` is a
    docs folder whatever it holds."""
    from pinax.errors import InvalidArgs

    others: list[str] = []
    folders: list[Path] = []
    for arg in docs:
        if arg.startswith(DIR_PREFIX):
            path = Path(arg[len(DIR_PREFIX) :]).expanduser()
            if not path.is_dir():
                raise InvalidArgs(f"--docs-folder {path}: not a folder")
            folders.append(path)
            continue
        path = Path(arg).expanduser()
        if "://" not in arg and path.is_dir() and is_docs_folder(path):
            folders.append(path)
        else:
            others.append(arg)
    return others, folders


class DocsFolders:
    """The docs folders of one command, kept between builds so a rebuild is incremental."""

    def __init__(
        self,
        folders: list[Path],
        site_url: str | None = None,
        layout: str | None = None,
        options: Any = None,
        labels: Mapping[Path, tuple[str, str, list[str]]] | None = None,
    ) -> None:
        """`options`: the command's `FolderOptions` (generator, --include, --exclude);
        `labels`: a folder's (name, version, packages) where known (docs a package ships)."""
        self.labels = {Path(k): v for k, v in (labels or {}).items()}
        self.sources: list[Any] = []
        self._looks: tuple[Any, ...] | None = None
        self._built: list[Any] = []  # each source's last build
        if not folders:
            return
        from pinax.builder import BuildOptions, FolderSource  # the build stack: only for folders

        build_options = BuildOptions(
            site_url=site_url,
            layout=layout or (options.layout if options else None),
            include=options.include if options else (),
            exclude=options.exclude if options else (),
        )
        self.sources = [FolderSource(path, build_options) for path in folders]

    def __bool__(self) -> bool:
        return bool(self.sources)

    def build(self) -> list[tuple[Any, Mapping[str, tuple[Path, str]]]]:
        """Each folder's manifest and its pages' files, for `Tools.open(folders=...)`."""
        from pinax.builder import ConsoleReporter

        reporter = ConsoleReporter(quiet=True)
        looks, self._looks = self._looks, None
        built = []
        self._built = []
        for i, source in enumerate(self.sources):
            result = source.build(reporter, looks[i] if looks else None)
            label = self.labels.get(Path(source.root))
            if label is not None:
                name, version, packages = label
                manifest = replace(
                    result.manifest, name=name, version=version, packages=tuple(packages)
                )
                result = replace(result, manifest=manifest)
            self._built.append(result)
            built.append(
                (result.manifest, {url: (source.root, path) for url, path in result.files.items()})
            )
        return built

    def texts(self) -> dict[str, Callable[[], list[Any]]]:
        """For each folder's manifest (by name), what reads its pages' text by section: its
        content, searched without any file (read when the search index warms, in the
        background; unchanged files are not read again)."""
        return {
            result.manifest.name: partial(source.texts, result)
            for source, result in zip(self.sources, self._built, strict=True)
        }

    def signature(self) -> tuple[Any, ...]:
        """What the folders' sources look like now: a change to a page changes this. The
        next build reads the folders as this look saw them (no second scan, and no change
        slipping between the look and the build unseen)."""
        self._looks = tuple(source.signature() for source in self.sources)
        return self._looks
