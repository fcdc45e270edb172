"""Quality benches. Until bench/quality.py (the extraction metrics) moves into this package,
its names are loaded here, so `from bench.quality import fixtures` keeps working beside
`bench.quality.generators`. On merge, once that file has moved, this file is empty again."""

import importlib.util as _util
from pathlib import Path as _Path

_legacy = _Path(__file__).resolve().parent.parent / "quality.py"
if _legacy.is_file():
    _spec = _util.spec_from_file_location("bench._quality_metrics", _legacy)
    assert _spec is not None and _spec.loader is not None
    _module = _util.module_from_spec(_spec)
    import sys as _sys

    _sys.modules[_spec.name] = _module  # dataclasses look their module up while created
    _spec.loader.exec_module(_module)
    globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
