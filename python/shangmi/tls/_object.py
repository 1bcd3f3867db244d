"""``TLSObject``: a channel over two memory buffers, as ``ssl.SSLObject``.

asyncio's TLS machinery (and anyio's) drives exactly this interface, which
is how :func:`shangmi.tls.open_connection` runs TLCP on an event loop."""

from __future__ import annotations

import ssl as _ssl
from typing import Any

from shangmi.exceptions import ShangmiTypeError, TLSError, TLSWantReadError
from shangmi.tls._channel import Channel, Described


class TLSObject(Described):
    """A TLCP connection reading network bytes from ``incoming`` and writing
    them to ``outgoing`` (both ``ssl.MemoryBIO``). Made by
    :meth:`TLSContext.wrap_bio`. Methods that need bytes not yet in
    ``incoming`` raise :class:`TLSWantReadError` (an
    ``ssl.SSLWantReadError``)."""

    _ch: Channel
    _incoming: _ssl.MemoryBIO
    _outgoing: _ssl.MemoryBIO

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ShangmiTypeError(f"{type(self).__name__} has no public constructor; use TLSContext.wrap_bio()")

    @classmethod
    def _create(
        cls, conn: Any, incoming: _ssl.MemoryBIO, outgoing: _ssl.MemoryBIO, context: Any, server_side: bool, server_hostname: str | None
    ) -> TLSObject:
        self = cls.__new__(cls)
        self._ch = Channel(conn, context, server_side, server_hostname)
        self._incoming = incoming
        self._outgoing = outgoing
        return self

    def _pump(self) -> None:
        # Whatever happens, the engine's output (an alert included) reaches
        # the outgoing buffer.
        try:
            data = self._incoming.read()
            if data or self._ch._rest:
                self._ch.feed(data)
        finally:
            out = self._ch.outgoing()
            if out:
                self._outgoing.write(out)


    def do_handshake(self) -> None:
        self._pump()
        if self._ch.conn.is_handshaking():
            if self._incoming.eof:
                raise TLSError("connection closed by the peer during the handshake")
            raise TLSWantReadError("the handshake needs more bytes from the peer")

    def read(self, len: int = 1024, buffer: Any = None) -> Any:
        """Up to ``len`` bytes of plaintext (into ``buffer`` when given,
        returning the count); ``b""``/0 once the peer sent close_notify."""
        conn = self._ch.conn
        if conn.plaintext_available() == 0 and not conn.peer_closed():
            self._pump()
            if conn.is_handshaking():
                raise TLSWantReadError("the handshake is not complete")
        if conn.plaintext_available() == 0:
            if conn.peer_closed():
                return 0 if buffer is not None else b""
            if self._incoming.eof:
                raise TLSError("EOF occurred in violation of protocol (no close_notify)")
            raise TLSWantReadError("no plaintext available yet")
        if buffer is not None:
            n = min(len, memoryview(buffer).nbytes) if len else memoryview(buffer).nbytes
            data = conn.read_plaintext(n)
            memoryview(buffer).cast("B")[: data.__len__()] = data
            return data.__len__()
        return bytes(conn.read_plaintext(len))

    def write(self, data: Any) -> int:
        n = self._ch.conn.write_plaintext(data)
        out = self._ch.outgoing()
        if out:
            self._outgoing.write(out)
        return int(n)

    def unwrap(self) -> None:
        """Sends close_notify; raises :class:`TLSWantReadError` until the
        peer's close_notify has arrived."""
        conn = self._ch.conn
        conn.send_close_notify()
        self._pump()
        if not conn.peer_closed():
            if self._incoming.eof:
                return
            raise TLSWantReadError("waiting for the peer's close_notify")

    def pending(self) -> int:
        return int(self._ch.conn.plaintext_available())
