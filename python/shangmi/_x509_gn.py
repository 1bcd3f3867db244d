"""General names (RFC 5280 section 4.2.1.6) for :mod:`shangmi.x509`, pyca-shaped."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any, Protocol, Union

from shangmi._buffer import as_bytes
from shangmi.exceptions import ShangmiTypeError


class _NameLike(Protocol):
    """What a directory name needs of :class:`shangmi.x509.Name` (this module
    does not import it: the name classes import this one)."""

    def public_bytes(self) -> bytes: ...


class _OidLike(Protocol):
    """What a registered ID needs of :class:`shangmi.x509.ObjectIdentifier`."""

    @property
    def dotted_string(self) -> str: ...


class _GeneralName:
    """What every general name shares: a ``value``, equality and hashing by
    type and value, and its wire form ``(kind, payload)`` for the core
    (``_kind`` names the form, ``_payload`` gives the bytes or text)."""

    _kind = ""
    value: Any

    def _payload(self) -> object:
        return self.value

    def _wire(self) -> tuple[str, object]:
        return (self._kind, self._payload())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _GeneralName) and type(other) is type(self) and other.value == self.value

    def __hash__(self) -> int:
        return hash((self._kind, self.value))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}(value={self.value!r})>"


class _StrName(_GeneralName):
    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise ShangmiTypeError(f"{type(self).__name__} value must be a str, got {type(value).__name__}")
        self.value = value


class DNSName(_StrName):
    _kind = "dns"


class RFC822Name(_StrName):
    _kind = "email"


class UniformResourceIdentifier(_StrName):
    _kind = "uri"


class IPAddress(_GeneralName):
    _kind = "ip"

    def __init__(self, value: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
        self.value = value

    def _payload(self) -> object:
        return self.value.packed

    def __repr__(self) -> str:
        return f"<IPAddress(value={self.value})>"


class DirectoryName(_GeneralName):
    _kind = "dirname"

    def __init__(self, value: _NameLike) -> None:
        self.value = value

    def _payload(self) -> object:
        return self.value.public_bytes()


class RegisteredID(_GeneralName):
    _kind = "rid"

    def __init__(self, value: _OidLike) -> None:
        self.value = value

    def _payload(self) -> object:
        return self.value.dotted_string


class OtherGeneralName(_GeneralName):
    """A general name of another form (otherName, x400Address, ...), as its DER."""

    _kind = "other"

    def __init__(self, der: bytes) -> None:
        self.value = as_bytes(der, "der")


GeneralName = Union[DNSName, RFC822Name, UniformResourceIdentifier, IPAddress, DirectoryName, RegisteredID, OtherGeneralName]


def _gns_wire(names: Iterable[GeneralName]) -> list[tuple[str, object]]:
    return [n._wire() for n in names]
