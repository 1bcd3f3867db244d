"""General names (RFC 5280 section 4.2.1.6) for :mod:`shangmi.x509`, pyca-shaped."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from shangmi._x509_ext import Name, ObjectIdentifier


class _StrName:
    _kind = ""

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"{type(self).__name__} value must be a str")
        self.value = value

    def _wire(self) -> tuple[str, object]:
        return (self._kind, self.value)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.value == self.value

    def __hash__(self) -> int:
        return hash((self._kind, self.value))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}(value={self.value!r})>"


class DNSName(_StrName):
    _kind = "dns"


class RFC822Name(_StrName):
    _kind = "email"


class UniformResourceIdentifier(_StrName):
    _kind = "uri"


class IPAddress:
    def __init__(self, value: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
        self.value = value

    def _wire(self) -> tuple[str, object]:
        return ("ip", self.value.packed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IPAddress) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"<IPAddress(value={self.value})>"


class DirectoryName:
    def __init__(self, value: Name) -> None:
        self.value = value

    def _wire(self) -> tuple[str, object]:
        return ("dirname", self.value.public_bytes())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DirectoryName) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


class RegisteredID:
    def __init__(self, value: ObjectIdentifier) -> None:
        self.value = value

    def _wire(self) -> tuple[str, object]:
        return ("rid", self.value.dotted_string)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RegisteredID) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


class OtherGeneralName:
    """A general name of another form (otherName, x400Address, ...), as its DER."""

    def __init__(self, der: bytes) -> None:
        self.value = bytes(der)

    def _wire(self) -> tuple[str, object]:
        return ("other", self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OtherGeneralName) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


GeneralName = Union[DNSName, RFC822Name, UniformResourceIdentifier, IPAddress, DirectoryName, RegisteredID, OtherGeneralName]


def _gn_from_wire(kind: str, value: Any) -> GeneralName:
    if kind == "dns":
        return DNSName(value)
    if kind == "email":
        return RFC822Name(value)
    if kind == "uri":
        return UniformResourceIdentifier(value)
    if kind == "ip":
        return IPAddress(ipaddress.ip_address(bytes(value)))
    if kind == "dirname":
        from shangmi._x509_ext import Name

        return DirectoryName(Name._from_der(value))
    if kind == "rid":
        from shangmi._x509_ext import ObjectIdentifier

        return RegisteredID(ObjectIdentifier(value))
    return OtherGeneralName(value)


def _gns_wire(names: Iterable[GeneralName]) -> list[tuple[str, object]]:
    return [n._wire() for n in names]
