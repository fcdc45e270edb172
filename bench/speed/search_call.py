"""One `search_pages` call's CPU, in a loop: this tree beside older trees, in the same run.

    python -m bench.speed.search_call
    python -m bench.speed.search_call --baseline /work/wt/main-10b99e9 --baseline /tmp/c0b5ade
    python -m bench.speed.search_call --manifest manifests/adk.json --docs adk --queries adk

`Tools.search_pages(docs=..., query=q, limit=5)` over one manifest (default the repository's
drf.json), for each of the set's DEV queries (../shared/corpora/eval/<set>.dev.jsonl), warm:
every query once, then `--rounds` rounds of `--loops` passes over them; each round's time a
call, and the best and median round. This is the search the HTTP bench (`bench.speed.http`)
calls; the server pays about twice the loop's figure for it (its caches are cold between the
SDK's work). Each tree runs in a process of its own with its code first on PYTHONPATH (a
worktree or an exported commit with its compiled kernels built or copied in), one after
another, so that the figures compare on the same machine at the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.harness.corpora import SHARED

ROOT = Path(__file__).resolve().parents[2]

# Runs inside each tree's process: only what every tree since 10b99e9 has.
CHILD = """
import json, sys, time
from pinax.cli.common import load_tools
manifest, docs, queries, rounds, loops = json.loads(sys.argv[1])
tools = load_tools([manifest], None, None, None, need_docs=True)
tools.library.warm()
for query in queries:
    tools.search_pages(docs=docs, query=query, limit=5)
times = []
for _ in range(rounds):
    started = time.process_time()
    for _ in range(loops):
        for query in queries:
            tools.search_pages(docs=docs, query=query, limit=5)
    times.append((time.process_time() - started) / loops / len(queries) * 1e6)
print(json.dumps(times))
"""


def per_call(tree: Path, manifest: Path, docs: str, queries: list[str], args: Any) -> list[float]:
    """Each round's CPU microseconds a call, measured in a process running `tree`'s code."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PINAX_SHARED": str(SHARED)}
    payload = json.dumps([str(manifest), docs, queries, args.rounds, args.loops])
    done = subprocess.run(
        [sys.executable, "-c", CHILD, payload],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", action="append", type=Path, default=[], help="a tree")
    parser.add_argument("--manifest", type=Path, default=ROOT / "manifests" / "drf.json")
    parser.add_argument("--docs", default="drf", help="the manifest's name")
    parser.add_argument("--queries", default="drf", help="the DEV set (corpora/eval)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--loops", type=int, default=20)
    args = parser.parse_args()
    path = SHARED / "corpora" / "eval" / f"{args.queries}.dev.jsonl"
    lines = path.read_text().splitlines()
    queries = [json.loads(line)["query"] for line in lines if line.strip()]
    manifest = args.manifest.resolve()
    print(
        f"search_pages over {manifest.name} ({len(queries)} {args.queries} DEV queries, "
        f"limit 5): CPU us a call, best / median of {args.rounds} rounds of {args.loops} passes"
    )
    for tree in [ROOT, *args.baseline]:
        times = sorted(per_call(tree.resolve(), manifest, args.docs, queries, args))
        name = "this tree" if tree == ROOT else str(tree)
        print(f"{name:40s} {times[0]:7.1f} / {times[len(times) // 2]:7.1f} us")


if __name__ == "__main__":
    main()
