"""``TLSSocket``: a channel over a stream socket, as ``ssl.SSLSocket``."""

from __future__ import annotations

import errno
import socket as _socket
from typing import Any

from shangmi.exceptions import InvalidInputError, ShangmiTypeError, TLSError, TLSWantReadError, TLSWantWriteError
from shangmi.tls._channel import Channel, Described

# Network bytes per receive: 16 records' worth (header + the largest
# ciphertext the engine accepts), what the TLCP engine buffers ahead and
# opens side by side.
_RECV_SIZE = 16 * (5 + 16384 + 2048)
# Plaintext accepted per send() call: 16 full records, which the TLCP
# engine seals side by side (CBC records are serial inside).
_SEND_CHUNK = 16 * 16384


class TLSSocket(Described, _socket.socket):
    """A TLCP connection over a TCP socket. Made by
    :meth:`TLSContext.wrap_socket`, which takes the socket over (as
    ``ssl`` does). Blocking sockets honour their timeout; non-blocking ones
    raise :class:`TLSWantReadError` / :class:`TLSWantWriteError`."""

    _ch: Channel
    _out: bytes
    _do_handshake_on_connect: bool
    suppress_ragged_eofs: bool
    _eof: bool
    _closed_notify: bool
    _connected: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ShangmiTypeError(f"{type(self).__name__} has no public constructor; use TLSContext.wrap_socket()")

    @classmethod
    def _create(
        cls,
        sock: _socket.socket,
        context: Any,
        server_side: bool,
        server_hostname: str | None,
        do_handshake_on_connect: bool,
        suppress_ragged_eofs: bool,
        session: Any,
    ) -> TLSSocket:
        if not isinstance(sock, _socket.socket):
            raise ShangmiTypeError(f"sock: expected a socket.socket, got {type(sock).__name__}")
        if sock.type != _socket.SOCK_STREAM:
            raise InvalidInputError("only stream sockets are supported")
        if server_side and server_hostname:
            raise InvalidInputError("server_hostname can only be given on the client side")
        conn = context._connection(server_side, server_hostname, session)
        kwargs = dict(family=sock.family, type=sock.type, proto=sock.proto, fileno=sock.fileno())
        self = cls.__new__(cls, **kwargs)
        _socket.socket.__init__(self, **kwargs)
        timeout = sock.gettimeout()
        sock.detach()
        self.settimeout(timeout)
        self._ch = Channel(conn, context, server_side, server_hostname)
        self._out = b""
        self._do_handshake_on_connect = do_handshake_on_connect
        self.suppress_ragged_eofs = suppress_ragged_eofs
        self._eof = False
        self._closed_notify = False
        try:
            self.getpeername()
            connected = True
        except OSError as e:
            if e.errno != errno.ENOTCONN:
                raise
            connected = False
        self._connected = connected
        if connected and do_handshake_on_connect:
            timeout = self.gettimeout()
            if timeout == 0.0:
                raise InvalidInputError("do_handshake_on_connect should not be used with non-blocking sockets")
            try:
                self.do_handshake()
            except BaseException:
                self.close()
                raise
        return self

    # -- moving bytes ----------------------------------------------------

    def _flush(self) -> None:
        """Sends every byte the engine has for the peer (blocking sockets
        wait, honouring the timeout; non-blocking ones keep the rest)."""
        self._out += self._ch.outgoing()
        while self._out:
            try:
                n = _socket.socket.send(self, self._out)
            except BlockingIOError:
                raise TLSWantWriteError("the socket is not writable yet") from None
            self._out = self._out[n:]

    def _fill(self) -> bool:
        """Processes queued input if the engine takes it now, else receives
        network bytes and processes them; False at EOF."""
        if self._ch.has_queued_input():
            if self._ch.feed(b""):
                self._flush_quietly()
                return True
        try:
            data = _socket.socket.recv(self, _RECV_SIZE)
        except BlockingIOError:
            raise TLSWantReadError("the socket has no bytes yet") from None
        if not data:
            self._eof = True
            return False
        try:
            self._ch.feed(data)
        finally:
            # The engine's answer (an alert when feed raised) goes out.
            self._flush_quietly()
        return True

    def _flush_quietly(self) -> None:
        try:
            self._flush()
        except (OSError, TLSWantWriteError):
            pass

    def do_handshake(self, block: bool = False) -> None:
        conn = self._ch.conn
        while True:
            self._flush()
            if not conn.is_handshaking():
                return
            if not self._fill():
                raise TLSError("connection closed by the peer during the handshake")

    def _ensure_handshake(self) -> None:
        if self._ch.conn.is_handshaking():
            self.do_handshake()

    def connect(self, address: Any) -> None:
        _socket.socket.connect(self, address)
        self._connected = True
        if self._do_handshake_on_connect:
            self.do_handshake()

    def connect_ex(self, address: Any) -> int:
        rc = _socket.socket.connect_ex(self, address)
        if rc == 0:
            self._connected = True
            if self._do_handshake_on_connect:
                self.do_handshake()
        return rc

    def accept(self) -> tuple[TLSSocket, Any]:
        newsock, addr = _socket.socket.accept(self)
        return (
            self._ch.context.wrap_socket(
                newsock,
                server_side=self._ch.server_side,
                do_handshake_on_connect=self._do_handshake_on_connect,
                suppress_ragged_eofs=self.suppress_ragged_eofs,
            ),
            addr,
        )

    # -- plaintext -------------------------------------------------------

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        if flags:
            raise InvalidInputError("non-zero flags are not allowed in calls to recv_into() on a TLS socket")
        view = memoryview(buffer).cast("B")
        want = nbytes or len(view)
        data = self.recv(want)
        view[: len(data)] = data
        return len(data)

    def recv(self, buflen: int = 1024, flags: int = 0) -> bytes:
        if flags:
            raise InvalidInputError("non-zero flags are not allowed in calls to recv() on a TLS socket")
        if not self._connected:
            raise OSError(errno.ENOTCONN, "socket is not connected")
        self._ensure_handshake()
        conn = self._ch.conn
        while True:
            if conn.plaintext_available():
                return bytes(conn.read_plaintext(buflen))
            if conn.peer_closed():
                return b""
            if self._eof or not self._fill():
                if self.suppress_ragged_eofs:
                    return b""
                raise TLSError("EOF occurred in violation of protocol (no close_notify)")

    def read(self, len: int = 1024, buffer: Any = None) -> Any:
        if buffer is not None:
            return self.recv_into(buffer, len)
        return self.recv(len)

    def send(self, data: Any, flags: int = 0) -> int:
        if flags:
            raise InvalidInputError("non-zero flags are not allowed in calls to send() on a TLS socket")
        self._ensure_handshake()
        if self._out:
            self._flush()
        view = memoryview(data).cast("B")
        n = self._ch.conn.write_plaintext(view[:_SEND_CHUNK])
        try:
            self._flush()
        except TLSWantWriteError:
            pass  # accepted: the ciphertext leaves with the next call
        return int(n)

    def write(self, data: Any) -> int:
        return self.send(data)

    def sendall(self, data: Any, flags: int = 0) -> None:
        view = memoryview(data).cast("B")
        sent = 0
        while sent < len(view):
            sent += self.send(view[sent:], flags)
        self._flush()

    def sendfile(self, file: Any, offset: int = 0, count: int | None = None) -> int:
        return self._sendfile_use_send(file, offset, count)  # type: ignore[attr-defined,no-any-return]

    def pending(self) -> int:
        return int(self._ch.conn.plaintext_available())

    def unwrap(self) -> _socket.socket:
        """Sends close_notify, waits for the peer's, and returns the plain
        socket."""
        conn = self._ch.conn
        conn.send_close_notify()
        self._closed_notify = True
        self._flush()
        while not conn.peer_closed() and not self._eof:
            if conn.plaintext_available():
                conn.read_plaintext(conn.plaintext_available())
                continue
            self._fill()
        plain = _socket.socket(self.family, self.type, self.proto, fileno=self.detach())
        plain.settimeout(self.gettimeout())
        return plain

    def _real_close(self) -> None:
        # close_notify on the way out, best effort and without waiting: a
        # peer that stopped reading must not hang close().
        ch = getattr(self, "_ch", None)
        if ch is not None and not self._closed_notify and self.fileno() >= 0:
            self._closed_notify = True
            try:
                if not ch.conn.is_handshaking():
                    ch.conn.send_close_notify()
                    out = self._out + ch.outgoing()
                    if out:
                        _socket.socket.send(self, out, _socket.MSG_DONTWAIT)
            except (OSError, TLSError):
                pass
        _socket.socket._real_close(self)  # type: ignore[attr-defined]

    def dup(self) -> TLSSocket:
        raise NotImplementedError(f"Can't dup() {type(self).__name__} instances")

    # -- descriptions ----------------------------------------------------
