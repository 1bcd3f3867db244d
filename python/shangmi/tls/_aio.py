"""asyncio streams over TLCP: the event loop's own TLS machinery drives a
:class:`~shangmi.tls.TLSObject` (``TLSContext.wrap_bio``), so flow control,
timeouts and shutdown behave exactly as they do with ``ssl``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable, Union

from shangmi.exceptions import ShangmiTypeError

if TYPE_CHECKING:
    # asyncio is imported on first use, not by `import shangmi` (it costs
    # tens of milliseconds).
    import asyncio

ClientConnected = Callable[["asyncio.StreamReader", "asyncio.StreamWriter"], Union[Awaitable[None], None]]


def _check(context: Any) -> None:
    from shangmi.tls._context import TLSContext

    if not isinstance(context, TLSContext):
        raise ShangmiTypeError(f"context: expected a shangmi.tls.TLSContext, got {type(context).__name__}")


async def open_connection(
    host: str | None = None, port: int | None = None, *, context: Any, server_hostname: str | None = None, **kwargs: Any
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """``asyncio.open_connection`` over TLCP: the ``(reader, writer)`` pair,
    after the handshake. ``server_hostname`` defaults to ``host``."""
    _check(context)
    import asyncio

    return await asyncio.open_connection(
        host, port, ssl=context, server_hostname=server_hostname or host, **kwargs
    )


async def start_server(
    client_connected_cb: ClientConnected, host: Any = None, port: int | None = None, *, context: Any, **kwargs: Any
) -> asyncio.Server:
    """``asyncio.start_server`` over TLCP (``context`` holds the server's
    certificates): ``client_connected_cb(reader, writer)`` per connection,
    after its handshake."""
    _check(context)
    import asyncio

    return await asyncio.start_server(client_connected_cb, host, port, ssl=context, **kwargs)
