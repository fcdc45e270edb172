"""Three real `pinax serve --http` replicas behind real HAProxy (deploy/haproxy.cfg), on
loopback: any replica answers any client, one killed under load costs no call, a manifests
folder swapped under load never gives an answer from two generations. The heavy version (32
clients for 20 s) is bench/speed/replicas.py, run here as a slow test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from mcp import Client

from bench.speed import replicas
from tests.support.serving import INITIALIZE, MCP_HEADERS, ROOT

pytestmark = pytest.mark.skipif(
    shutil.which("haproxy") is None, reason="haproxy is not installed (.ci/run installs it)"
)
CLIENTS = 8
SECONDS = 3.0


@pytest.fixture(scope="module")
def cluster() -> Iterator[replicas.Cluster]:
    with replicas.Cluster(3) as running:
        yield running


def _bearer() -> dict[str, str]:
    return {**MCP_HEADERS, "Authorization": f"Bearer {replicas.TOKEN}"}


def test_every_replica_checks_the_token(cluster: replicas.Cluster) -> None:
    for replica in cluster.replicas:
        refused = httpx.post(f"{replica.base}/mcp", json=INITIALIZE, headers=MCP_HEADERS)
        assert refused.status_code == 401
        assert httpx.get(f"{replica.base}/ready").json()["ready"] is True


def test_a_client_greeted_by_one_replica_is_answered_by_the_others(
    cluster: replicas.Cluster,
) -> None:
    first, *others = cluster.replicas
    hello = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "2025-06-18"}}
    greeted = httpx.post(f"{first.base}/mcp", json=hello, headers=_bearer())
    assert greeted.status_code == 200 and "mcp-session-id" not in greeted.headers
    headers = {**_bearer(), "mcp-protocol-version": "2025-06-18"}
    for number, replica in enumerate(others, 2):
        call = {"jsonrpc": "2.0", "id": number, "method": "tools/call"}
        call["params"] = {"name": "search_pages", "arguments": {"query": "serializers"}}
        answer = httpx.post(f"{replica.base}/mcp", json=call, headers=headers)
        assert answer.status_code == 200
        assert answer.json()["result"]["structuredContent"]["results"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_real_client_through_haproxy_meets_every_replica(
    cluster: replicas.Cluster, mode: str
) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    before = cluster.haproxy.answered()
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {replicas.TOKEN}"})
    transport = streamable_http_client(cluster.haproxy.url, http_client=http)
    async with http, Client(transport, mode=mode) as client:
        for _ in range(6):  # round robin: each replica gets some of them
            found = await client.call_tool("search_pages", {"query": "viewsets"})
            assert not found.is_error and found.structured_content["results"]
    after = cluster.haproxy.answered()
    assert all(after[name] > before[name] for name in after), (before, after)


def test_under_load_no_call_fails_and_every_replica_answers(cluster: replicas.Cluster) -> None:
    result = replicas.steady(cluster, CLIENTS, SECONDS)
    assert result["errors"] == {} and result["calls"] > 0
    assert all(count > 0 for count in result["per_replica"].values()), result["per_replica"]


def test_a_replica_killed_under_load_costs_no_call_and_rejoins(cluster: replicas.Cluster) -> None:
    result = replicas.kill_one(cluster, CLIENTS, SECONDS)
    assert result["errors"] == {}, result
    assert result["rejoined_answers"] > 0 and result["rejoined_errors"] == {}


def test_a_swapped_manifests_folder_never_mixes_generations(cluster: replicas.Cluster) -> None:
    result = replicas.swap(cluster, CLIENTS, SECONDS)
    marks = result["marks"]
    assert result["errors"] == {}, result
    assert not any("+" in key for key in marks), marks  # no answer from both
    assert marks.get("-", 0) == 0 and marks.get("betamark", 0) > 0, marks
    assert len(result["generations_after"]) == 1
    assert result["generations_after"] != result["generations_before"]


@pytest.mark.slow
def test_the_replicas_bench_passes_its_bars() -> None:
    """32 clients for 20 s through 3 replicas: steady, one killed, the manifests swapped."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.speed.replicas", "--replicas", "3", "--clients", "32"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
