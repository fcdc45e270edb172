"""A throwaway certificate authority and a server certificate for `docs.test`, made with the
`openssl` command (tests that need them skip when it is missing)."""

from __future__ import annotations

import functools
import shutil
import ssl
import subprocess
import tempfile
from pathlib import Path

import pytest


@functools.cache
def _make() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="pinax-tls-"))
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    openssl(
        "req",
        "-x509",
        *key,
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=Pinax test CA",
    )
    openssl("req", *key, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=docs.test")
    (folder / "san.ext").write_text("subjectAltName=DNS:docs.test\n")
    openssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext",
    )  # fmt: skip
    return folder


def certificates() -> Path:
    """The folder with ca.pem, server.pem and server.key (the server's name: docs.test)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make test certificates")
    return _make()


def server_context() -> ssl.SSLContext:
    folder = certificates()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(folder / "server.pem", folder / "server.key")
    return context


def client_context() -> ssl.SSLContext:
    """A client context that trusts the test authority (and nothing else)."""
    return ssl.create_default_context(cafile=str(certificates() / "ca.pem"))
