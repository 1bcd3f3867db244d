"""HTTP over TLCP with the clients people use (``requests``, ``httpx``),
both optional extras: this module imports them only when asked for."""

from __future__ import annotations

from typing import Any

from shangmi.exceptions import ShangmiTypeError


def _check(context: Any) -> None:
    from shangmi.tls._context import TLSContext

    if not isinstance(context, TLSContext):
        raise ShangmiTypeError(f"context: expected a shangmi.tls.TLSContext, got {type(context).__name__}")


class _Urllib3View:
    """What urllib3 sees of a :class:`TLSContext`: it may set
    ``verify_mode`` and load certifi's bundle into an ``ssl`` context it was
    given, but the caller's TLCP context is the one authority on trust, so
    those writes are ignored here and everything else is passed through."""

    def __init__(self, context: Any) -> None:
        self._context = context

    @property
    def verify_mode(self) -> Any:
        return self._context.verify_mode

    @verify_mode.setter
    def verify_mode(self, value: Any) -> None:
        pass

    @property
    def check_hostname(self) -> bool:
        return bool(self._context.check_hostname)

    @check_hostname.setter
    def check_hostname(self, value: bool) -> None:
        pass

    def load_verify_locations(self, *args: Any, **kwargs: Any) -> None:
        pass

    def load_default_certs(self, *args: Any, **kwargs: Any) -> None:
        pass

    def set_alpn_protocols(self, protocols: Any) -> None:
        pass

    def wrap_socket(self, sock: Any, server_hostname: str | None = None, **kwargs: Any) -> Any:
        return self._context.wrap_socket(sock, server_hostname=server_hostname)


def _requests_adapter_class() -> type:
    try:
        from requests.adapters import HTTPAdapter
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("RequestsAdapter needs requests: pip install 'shangmi[http]'") from e

    class RequestsAdapter(HTTPAdapter):
        """A ``requests`` transport adapter that speaks TLCP with ``context``::

            session = requests.Session()
            session.mount("https://", tls.RequestsAdapter(ctx))
        """

        def __init__(self, context: Any, **kwargs: Any) -> None:
            _check(context)
            self._tls_view = _Urllib3View(context)
            super().__init__(**kwargs)

        def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
            pool_kwargs["ssl_context"] = self._tls_view
            super().init_poolmanager(connections, maxsize, block, **pool_kwargs)

        def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
            proxy_kwargs["ssl_context"] = self._tls_view
            return super().proxy_manager_for(proxy, **proxy_kwargs)

        def __getstate__(self) -> dict[str, Any]:
            state = super().__getstate__()
            state["_tls_view"] = self._tls_view
            return state

    return RequestsAdapter


_ADAPTER: type | None = None


def __getattr__(name: str) -> Any:
    global _ADAPTER
    if name == "RequestsAdapter":
        if _ADAPTER is None:
            _ADAPTER = _requests_adapter_class()
        return _ADAPTER
    raise AttributeError(name)


def httpx_transport(context: Any, **kwargs: Any) -> Any:
    """An ``httpx.HTTPTransport`` speaking TLCP with ``context``::

        client = httpx.Client(transport=tls.httpx_transport(ctx))
    """
    _check(context)
    try:
        import httpx
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("httpx_transport needs httpx: pip install 'shangmi[http]'") from e
    return httpx.HTTPTransport(verify=context, **kwargs)


def httpx_async_transport(context: Any, **kwargs: Any) -> Any:
    """An ``httpx.AsyncHTTPTransport`` speaking TLCP with ``context``
    (``httpx.AsyncClient(transport=...)``)."""
    _check(context)
    try:
        import httpx
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("httpx_async_transport needs httpx: pip install 'shangmi[http]'") from e
    return httpx.AsyncHTTPTransport(verify=context, **kwargs)
