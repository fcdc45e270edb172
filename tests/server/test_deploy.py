"""deploy/ as shipped: HAProxy's own check of its configuration, the compose file and the
Kubernetes manifests parsed as YAML, and the Dockerfile's instructions read one by one."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_haproxy_accepts_its_configuration() -> None:
    if shutil.which("haproxy") is None:
        pytest.skip("haproxy is not installed (apt-get install haproxy; .ci/run does)")
    checked = subprocess.run(
        ["haproxy", "-c", "-f", str(DEPLOY / "haproxy.cfg")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _directives(text: str) -> list[str]:
    return [" ".join(line.split("#")[0].split()) for line in text.splitlines() if line.strip()]


def test_haproxy_balances_checks_ready_and_retries_elsewhere() -> None:
    lines = _directives((DEPLOY / "haproxy.cfg").read_text())
    for wanted in (
        "balance roundrobin",
        "option httpchk GET /ready",
        "http-check expect status 200",
        "retry-on conn-failure empty-response",
        "option redispatch 1",
        "option forwardfor",
        "option http-no-delay",
    ):
        assert wanted in lines, wanted
    assert not any(line.startswith("option http-buffer-request") for line in lines)
    assert not any("mcp-method" in line.lower() for line in lines)  # no routing by method
    assert any(line.startswith("server-template pinax 3 pinax:8765 check") for line in lines)


def test_compose_runs_three_replicas_haproxy_and_redis() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"pinax", "haproxy", "redis"}
    pinax = services["pinax"]
    assert pinax["deploy"]["replicas"] == 3
    assert pinax["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert any(v.endswith(":/manifests:ro") for v in pinax["volumes"])
    assert "PINAX_TOKEN" in pinax["environment"]
    assert "redis://redis:6379/0" in pinax["command"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in services["haproxy"]["volumes"]
    assert services["haproxy"]["ports"] == ["8080:8080"]
    assert services["redis"]["image"].startswith("redis:")


def _kinds(documents: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(d["kind"], d["metadata"]["name"]): d for d in documents}


def test_kubernetes_probes_ready_and_health_and_mounts_manifests_read_only() -> None:
    text = (DEPLOY / "kubernetes" / "pinax.yaml").read_text()
    found = _kinds(list(yaml.safe_load_all(text)))
    assert set(found) == {
        ("Deployment", "pinax"),
        ("Service", "pinax"),
        ("Deployment", "pinax-redis"),
        ("Service", "pinax-redis"),
    }
    pod = found[("Deployment", "pinax")]["spec"]["template"]["spec"]
    assert found[("Deployment", "pinax")]["spec"]["replicas"] == 3
    (container,) = pod["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    assert mounts["/manifests"]["readOnly"] is True
    assert pod["securityContext"]["runAsNonRoot"] is True
    token = next(e for e in container["env"] if e["name"] == "PINAX_TOKEN")
    assert token["valueFrom"]["secretKeyRef"]["name"] == "pinax"
    service = found[("Service", "pinax")]["spec"]
    assert service["selector"] == {"app": "pinax"}


def dockerfile(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order: continuation lines joined, comments dropped."""
    steps: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        instruction, _, arguments = line.partition(" ")
        steps.append((instruction.upper(), arguments.strip()))
    assert not pending, "a continuation line ends the Dockerfile"
    return steps


def test_dockerfile_builds_kernels_in_a_builder_and_runs_unprivileged() -> None:
    steps = dockerfile((DEPLOY / "Dockerfile").read_text())
    known = {"FROM", "RUN", "COPY", "ENV", "WORKDIR", "USER", "VOLUME", "EXPOSE", "HEALTHCHECK"}
    assert {name for name, _ in steps} <= known | {"ENTRYPOINT", "CMD"}
    stages = [args for name, args in steps if name == "FROM"]
    assert len(stages) == 2 and stages[0].endswith(" AS builder")
    assert all(stage.split()[0].endswith("-slim") for stage in stages)
    builder = steps[: next(i for i, s in enumerate(steps[1:], 1) if s[0] == "FROM")]
    assert any("build-essential" in args for name, args in builder if name == "RUN")
    assert any("import pinax.search.kernels" in args for name, args in builder if name == "RUN")
    final = steps[len(builder) :]
    assert any(args.startswith("--from=builder ") for name, args in final if name == "COPY")
    users = [args for name, args in final if name == "USER"]
    assert users and users[-1] not in ("root", "0")
    (entrypoint,) = [json.loads(args) for name, args in final if name == "ENTRYPOINT"]
    assert entrypoint[:3] == ["pinax", "serve", "--http"]
    assert entrypoint[entrypoint.index("--docs") + 1] == "/manifests"
    assert "--host" in entrypoint and "0.0.0.0" in entrypoint
    assert all(shlex.split(args) for name, args in steps if name == "RUN")
