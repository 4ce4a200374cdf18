"""Client addresses behind reverse proxies (``lifeledger serve --trusted-proxy``).

Behind a reverse proxy every connection comes from the proxy, so the per-address limits would
count every client as one. A proxy says who its client was in ``X-Forwarded-For``: a list of
addresses, each proxy adding the one it was connected from on the right. Only the proxies
themselves can be believed; a client may send the header too, with anything in it. So:

- from a peer that is not a trusted proxy, the header is ignored: the client is the peer;
- from a trusted proxy, the list is read from the right, skipping trusted proxies: the first
  address that is not one is the client (the left-most is never taken just for being first:
  it is what the client said). If every address in the list is a trusted proxy, the client is
  the left-most (each hop to its right vouches for it). No header: the client is the peer.

An address is written as the app writes it elsewhere (``str`` of :mod:`ipaddress`, an
IPv4-mapped IPv6 address as IPv4); ``[2001:db8::1]``, ``[2001:db8::1]:443`` and
``192.0.2.1:443`` (a port, as some proxies add) are read as their address.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence

from aiohttp import web

__all__ = ["PROXIES_KEY", "TrustedProxies", "parse_address"]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_PORT = re.compile(r"[0-9]{1,5}")


def parse_address(text: str) -> Address:
    """The address ``text`` names (``[v6]``, ``[v6]:port`` and ``v4:port`` too); an
    IPv4-mapped IPv6 address is its IPv4 address. Raises :class:`ValueError`."""
    given = text.strip()
    text = given
    if text.startswith("["):
        text, closed, rest = text[1:].partition("]")
        if not closed or (rest and not (rest[0] == ":" and _PORT.fullmatch(rest[1:]))):
            raise ValueError(f"{given!r} is not an address")
    elif text.count(":") == 1:
        text, _, port = text.partition(":")
        if not _PORT.fullmatch(port):
            raise ValueError(f"{given!r} is not an address")
    ip = ipaddress.ip_address(text)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` is believed: addresses or networks (CIDR), as
    ``--trusted-proxy`` gives them. Empty (the default): no header is ever believed."""

    def __init__(self, specs: Iterable[str] = ()) -> None:
        networks: list[Network] = []
        for spec in specs:
            try:
                networks.append(ipaddress.ip_network(spec.strip()))
            except ValueError as exc:
                raise ValueError(
                    f"a trusted proxy is an address or a network (10.0.0.5, 10.0.0.0/8, "
                    f"fd00::/8): {exc}"
                ) from None
        self.networks = tuple(networks)
        #: Whether a malformed header was logged already (it is logged once).
        self.warned = False

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, address: str | Address | None) -> bool:
        """Whether ``address`` (a peer's) is a trusted proxy's."""
        if not self.networks or address is None:
            return False
        if isinstance(address, str):
            try:
                address = parse_address(address)
            except ValueError:
                return False
        return any(address in network for network in self.networks)

    def client(self, peer: str, forwarded: Sequence[str]) -> str:
        """The client's address, for a request from ``peer`` (a trusted proxy) carrying the
        ``X-Forwarded-For`` headers ``forwarded`` (several are one list, in order). Raises
        :class:`ValueError` if an address it has to read is not one; those left of the client
        (anything the client itself sent) are never read."""
        hops = [hop.strip() for value in forwarded for hop in value.split(",")]
        hops = [hop for hop in hops if hop]  # an empty list item is no item (RFC 9110 5.6.1)
        if not hops:
            return peer
        for hop in reversed(hops):
            address = parse_address(hop)
            if not self.trusts(address):
                return str(address)
        return str(parse_address(hops[0]))


#: The reverse proxies whose ``X-Forwarded-For`` is believed (none unless configured).
PROXIES_KEY = web.AppKey("proxies", TrustedProxies)
