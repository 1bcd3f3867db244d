"""Channels: TLCP (GB/T 38636-2020) and TLS 1.3 with the ShangMi suites (RFC 8998), shaped like the standard library's ``ssl``.

::

    from shangmi import tls

    ctx = tls.TLSContext("tlcp")
    ctx.load_verify_locations("root.pem")
    with socket.create_connection(("bank.example", 443)) as raw:
        with ctx.wrap_socket(raw, server_hostname="bank.example") as s:
            s.sendall(b"GET / HTTP/1.1\\r\\nHost: bank.example\\r\\n\\r\\n")
            print(s.version(), s.cipher(), s.recv(4096))

The protocol engine is sans-I/O and lives in the Rust core; this package
moves bytes between it and sockets (:class:`TLSSocket`), memory buffers
(:class:`TLSObject`, what ``asyncio`` drives) and HTTP clients.
"""

from __future__ import annotations

from shangmi.exceptions import CertificateVerifyError, TLSError, TLSWantReadError, TLSWantWriteError
from shangmi.tls._aio import open_connection, start_server
from shangmi.tls._context import (
    CERT_NONE,
    CERT_OPTIONAL,
    CERT_REQUIRED,
    PROTOCOLS,
    TLCP_COMPAT,
    TLSContext,
    VerifyMode,
    cipher_names,
)
from shangmi.tls._object import TLSObject
from shangmi.tls._socket import TLSSocket

__all__ = [
    "TLSContext",
    "TLSSocket",
    "TLSObject",
    "VerifyMode",
    "CERT_NONE",
    "CERT_OPTIONAL",
    "CERT_REQUIRED",
    "PROTOCOLS",
    "TLCP_COMPAT",
    "cipher_names",
    "TLSError",
    "CertificateVerifyError",
    "TLSWantReadError",
    "TLSWantWriteError",
    "open_connection",
    "start_server",
    "RequestsAdapter",
    "httpx_transport",
    "httpx_async_transport",
]


def __getattr__(name: str) -> object:
    # The HTTP adapters import requests/httpx, optional extras: only on use.
    if name in ("RequestsAdapter", "httpx_transport", "httpx_async_transport"):
        from shangmi.tls import _http

        return getattr(_http, name)
    raise AttributeError(f"module 'shangmi.tls' has no attribute {name!r}")
