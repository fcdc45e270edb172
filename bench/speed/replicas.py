"""Pinax replicas behind HAProxy on loopback: load, a replica killed, the manifests swapped.

    python -m bench.speed.replicas [--replicas 3] [--clients 32] [--seconds 20] [--json]
    python -m bench.speed.replicas --memory manifests/drf.json MDN.json SYNTH-100K.json

Starts N `pinax serve --http` replicas (stateless, a bearer token, reading one manifests
folder through a symlink) and HAProxy with deploy/haproxy.cfg (its server lines swapped for
the replicas, a stats page added), then drives `search_pages` through HAProxy with the
light load generator of bench/speed/http.py (`python -m bench.speed.http load`):

1. steady: no failed call, and every replica answered some (HAProxy's own counts);
2. kill: one replica killed (SIGKILL) a third of the way in and started again at two
   thirds: no call fails beyond HAProxy's retries, and the replica answers again;
3. swap: the manifests symlink flipped to a new folder halfway: no answer carries both
   generations' marks, every answer carries one, and every /ready names the new generation.

On a 2-core machine the replicas share the cores with the load generator and HAProxy, so
the rates say nothing about scaling; on a bigger machine, compare `--replicas 1` with
`--replicas N` at the same `--clients`. Exit status 1 if a bar fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DRF = ROOT / "manifests" / "drf.json"
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
TOKEN = "replica-bench-token-0123456789"
MARKS = ("alphamark", "betamark")
# Words every generation finds pages for: each answer shows one generation's marks.
ALWAYS_FOUND = ("serializers", "viewsets", "routers", "authentication", "pagination")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_generation(folder: Path, mark: str) -> Path:
    """Two copies of the drf manifest (drf and drfcopy) whose every title carries `mark`:
    an answer, which searches both, shows which generation each half came from."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("drf", "drfcopy"):
        manifest = json.loads(DRF.read_text())
        manifest["name"] = name
        for page in manifest["pages"]:
            page["title"] = f"{page['title']} {mark}"
        (folder / f"{name}.json").write_text(json.dumps(manifest))
    return folder


def flip(link: Path, target: Path) -> None:
    """Point `link` at `target` in one step (a new symlink renamed over the old)."""
    temporary = link.with_name(link.name + ".new")
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(target)
    os.replace(temporary, link)


def get_json(url: str, timeout: float = 2.0) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


@dataclass
class Replica:
    """One `pinax serve --http` process on its own port."""

    docs: Path
    workdir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        argv = [sys.executable, "-m", "pinax", "serve", "--http", "--port", str(self.port)]
        argv += ["--docs", str(self.docs), "--watch-interval", "0.2"]
        argv += ["--cache-dir", str(self.workdir / f"cache-{self.port}")]
        argv += ["--forwarded-allow-ips", "127.0.0.1"]
        env = {**os.environ, "PINAX_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
        log = open(self.workdir / f"replica-{self.port}.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(argv, env=env, cwd=ROOT, stderr=log, stdout=log)
        log.close()

    def wait_ready(self, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"replica {self.port} exited with {self.process.returncode}")
            try:
                status, body = get_json(f"{self.base}/ready")
                if status == 200:
                    return body
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"replica {self.port} never became ready")

    def ready(self) -> dict[str, Any]:
        return get_json(f"{self.base}/ready")[1]

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def haproxy_config(replicas: list[Replica], port: int, stats_port: int) -> str:
    """deploy/haproxy.cfg itself, bound to loopback, its servers the replicas, plus stats."""
    text = HAPROXY_CFG.read_text()
    text = re.sub(r"(?m)^resolvers docker\n(?:[ \t]+.*\n)*", "", text)
    text = re.sub(r"(?m)^(\s*)bind :8080", rf"\1bind 127.0.0.1:{port}", text)
    servers = "".join(
        f"    server pinax{i + 1} 127.0.0.1:{r.port} check\n" for i, r in enumerate(replicas)
    )
    text, count = re.subn(r"(?m)^\s*server-template .*\n", servers, text)
    if count != 1:
        raise RuntimeError("deploy/haproxy.cfg has no server-template line to replace")
    text = text.replace("log stdout format raw local0 warning", "log stderr format raw local0 err")
    return text + (
        f"\nlisten stats\n    bind 127.0.0.1:{stats_port}\n    stats enable\n    stats uri /stats\n"
    )


@dataclass
class Haproxy:
    replicas: list[Replica]
    workdir: Path
    port: int = field(default_factory=free_port)
    stats_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        config = self.workdir / "haproxy.cfg"
        config.write_text(haproxy_config(self.replicas, self.port, self.stats_port))
        check = subprocess.run(["haproxy", "-c", "-q", "-f", str(config)], capture_output=True)
        if check.returncode:
            raise RuntimeError(f"haproxy -c: {check.stderr.decode()[-500:]}")
        log = open(self.workdir / "haproxy.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(["haproxy", "-db", "-f", str(config)], stderr=log)
        log.close()

    def servers(self) -> dict[str, dict[str, str]]:
        """Each replica's row of HAProxy's statistics (status, 2xx answers, retries)."""
        url = f"http://127.0.0.1:{self.stats_port}/stats;csv"
        with urllib.request.urlopen(url, timeout=2) as answer:
            lines = answer.read().decode().lstrip("# ").splitlines()
        names = lines[0].split(",")
        rows = [dict(zip(names, line.split(","), strict=False)) for line in lines[1:]]
        return {
            r["svname"]: r for r in rows if r.get("pxname") == "pinax" and r["svname"] != "BACKEND"
        }

    def wait_all_up(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                rows = self.servers()
                if rows and all(r["status"].startswith("UP") for r in rows.values()):
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"not every replica is UP in HAProxy: {self.servers()}")

    def answered(self) -> dict[str, int]:
        return {name: int(row["hrsp_2xx"] or 0) for name, row in self.servers().items()}

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def start_load(
    url: str, clients: int, seconds: float, marks: bool = False, docs: str = "drf"
) -> subprocess.Popen[str]:
    """The load generator of bench/speed/http.py, started; `marks`: count the generations'
    marks in answers that search both docs sets."""
    argv = [sys.executable, "-m", "bench.speed.http", "load", url, "--clients", str(clients)]
    argv += ["--seconds", str(seconds), "--token", TOKEN, "--docs", docs]
    if marks:
        for mark in MARKS:
            argv += ["--mark", mark]
        for query in ALWAYS_FOUND:
            argv += ["--query", query]
        argv[argv.index("--docs") + 1] = ""  # both docs sets in each answer
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)


def finish_load(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = process.communicate(timeout=300)
    if process.returncode:
        raise RuntimeError(f"the load generator failed ({process.returncode})")
    return json.loads(out.strip().splitlines()[-1])


class Cluster:
    """Replicas over one manifests symlink, behind HAProxy, in a temporary folder."""

    def __init__(self, count: int) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="pinax-replicas-"))
        self.generations = [write_generation(self.workdir / f"gen-{mark}", mark) for mark in MARKS]
        self.link = self.workdir / "manifests"
        flip(self.link, self.generations[0])
        self.replicas = [Replica(self.link, self.workdir) for _ in range(count)]
        self.haproxy = Haproxy(self.replicas, self.workdir)

    def __enter__(self) -> Cluster:
        try:
            for replica in self.replicas:
                replica.start()
            for replica in self.replicas:
                replica.wait_ready()
            self.haproxy.start()
            self.haproxy.wait_all_up()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.haproxy.stop()
        for replica in self.replicas:
            replica.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


def steady(cluster: Cluster, clients: int, seconds: float) -> dict[str, Any]:
    before = cluster.haproxy.answered()
    result = finish_load(start_load(cluster.haproxy.url, clients, seconds))
    after = cluster.haproxy.answered()
    result["per_replica"] = {name: after[name] - before.get(name, 0) for name in after}
    result["passed"] = not result["errors"] and all(result["per_replica"].values())
    return result


def kill_one(cluster: Cluster, clients: int, seconds: float) -> dict[str, Any]:
    victim = cluster.replicas[-1]
    load = start_load(cluster.haproxy.url, clients, seconds)
    time.sleep(0.5 + seconds / 3)
    victim.kill()
    time.sleep(seconds / 3)
    victim.start()
    result = finish_load(load)
    victim.wait_ready()
    cluster.haproxy.wait_all_up()
    name = f"pinax{len(cluster.replicas)}"
    before = cluster.haproxy.answered()[name]
    rejoined = finish_load(start_load(cluster.haproxy.url, clients, 2))
    result["rejoined_answers"] = cluster.haproxy.answered()[name] - before
    result["rejoined_errors"] = rejoined["errors"]
    retries = {n: int(r.get("wretr") or 0) for n, r in cluster.haproxy.servers().items()}
    result["haproxy_retries"] = retries
    result["passed"] = not result["errors"] and result["rejoined_answers"] > 0
    return result


def swap(cluster: Cluster, clients: int, seconds: float) -> dict[str, Any]:
    before = {r.ready()["generation"] for r in cluster.replicas}
    load = start_load(cluster.haproxy.url, clients, seconds, marks=True)
    time.sleep(0.5 + seconds / 2)
    flip(cluster.link, cluster.generations[1])
    result = finish_load(load)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # every replica reloads within a second or two
        after = {r.ready()["generation"] for r in cluster.replicas}
        if len(after) == 1 and after != before:
            break
        time.sleep(0.2)
    result["generations_before"], result["generations_after"] = sorted(before), sorted(after)
    marks = result["marks"]
    mixed = sum(n for k, n in marks.items() if "+" in k)
    result["passed"] = (
        not result["errors"]
        and mixed == 0
        and marks.get("-", 0) == 0
        and len(after) == 1
        and after != before
    )
    return result


def run(replicas: int, clients: int, seconds: float) -> dict[str, Any]:
    with Cluster(replicas) as cluster:
        return {
            "replicas": replicas,
            "clients": clients,
            "seconds": seconds,
            "steady": steady(cluster, clients, seconds),
            "kill": kill_one(cluster, clients, seconds),
            "swap": swap(cluster, clients, seconds),
        }


def status_mb(pid: int, key: str) -> float:
    """A /proc status figure (VmRSS: now; VmHWM: the peak) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory(manifests: list[Path]) -> list[dict[str, Any]]:
    """What one replica costs: for each manifest alone, the resident memory once /ready
    answers and the page text is indexed, and after 3 s of searches by 4 clients (its
    peak too)."""
    rows = []
    for manifest in manifests:
        workdir = Path(tempfile.mkdtemp(prefix="pinax-memory-"))
        replica = Replica(manifest, workdir)
        replica.start()
        try:
            state = replica.wait_ready(timeout=600)
            while state.get("content_pending"):
                time.sleep(0.5)
                state = replica.ready()
            assert replica.process is not None
            pid = replica.process.pid
            ready_mb = status_mb(pid, "VmRSS")
            searched = finish_load(start_load(f"{replica.base}/mcp", 4, 3.0, docs=""))
            if searched["errors"] or not searched["calls"]:
                raise RuntimeError(f"searches failed: {searched}")
            rows.append(
                {
                    "manifest": manifest.name,
                    "pages": state["pages"],
                    "ready_mb": round(ready_mb),
                    "after_calls_mb": round(status_mb(pid, "VmRSS")),
                    "peak_mb": round(status_mb(pid, "VmHWM")),
                }
            )
        finally:
            replica.stop()
            shutil.rmtree(workdir, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--json", action="store_true", help="one JSON object, nothing else")
    parser.add_argument(
        "--memory",
        type=Path,
        nargs="+",
        help="instead: what one replica costs in memory with each of these manifests",
    )
    args = parser.parse_args()
    if args.memory:
        for row in memory(args.memory):
            print(json.dumps(row) if args.json else "  ".join(f"{k} {v}" for k, v in row.items()))
        return
    if shutil.which("haproxy") is None:
        sys.exit("haproxy is not installed (apt-get install haproxy)")
    report = run(args.replicas, args.clients, args.seconds)
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"{args.replicas} replicas behind HAProxy, {args.clients} clients, {args.seconds:g} s"
        )
        for name in ("steady", "kill", "swap"):
            part = report[name]
            extra = {
                k: v for k, v in part.items() if k not in ("calls", "rate", "p50_ms", "p99_ms")
            }
            print(
                f"{name:<7} {part['rate']:6.0f} req/s  p50 {part['p50_ms']:6.1f} ms  "
                f"p99 {part['p99_ms']:6.1f} ms  {json.dumps(extra)}"
            )
    sys.exit(0 if all(report[n]["passed"] for n in ("steady", "kill", "swap")) else 1)


if __name__ == "__main__":
    main()
