"""Phones on the same Wi-Fi (``lifeledger serve --host 0.0.0.0``, what ``make run`` does): the
machine's LAN address, the origin a table's links and QR code point at, and what the terminal
says at start-up (the address phones open, with a QR code of it; or, on a server only this
machine can reach, how to let the phones in).

Whoever opens a table on the serving machine itself uses ``localhost`` or ``127.0.0.1``; a
link or QR code made from that address leads a phone nowhere. When the server listens on
every interface, such links are made with the machine's LAN address instead (the port the
opener used is kept). A request through a trusted reverse proxy is left as it is: its
``Host`` is the proxy's business, as it was before.
"""

from __future__ import annotations

import io
import ipaddress
import re
import socket
from typing import TYPE_CHECKING

import segno
from aiohttp import web

from lifeledger.sentences import Sentence

from .addresses import PROXIES_KEY, TrustedProxies, parse_address

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "LAN_KEY",
    "LOCAL_ONLY",
    "host_parts",
    "is_loopback_host",
    "lan_address",
    "link_origin",
    "listens_everywhere",
    "phone_url",
    "terminal_qr",
]

#: The machine's LAN address, when the server listens on every interface and one was found.
LAN_KEY = web.AppKey("lan", str)

#: Private addresses a UDP socket is "connected" to, to learn which local address the
#: system would send from (a UDP connect sends nothing: it only chooses a route).
PROBES = ("10.255.255.255", "172.31.255.255", "192.168.255.255")


def listens_everywhere(host: str) -> bool:
    """Whether ``--host`` means every interface (``0.0.0.0``, ``::``, empty)."""
    return host.strip() in ("", "0.0.0.0", "::", "*", "[::]")


def _usable(text: str) -> bool:
    """Whether a phone on the same network could reach the machine at ``text``."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def lan_address(
    make_socket: Callable[[int, int], socket.socket] = socket.socket,
    lookup: Callable[[str], list[str]] | None = None,
) -> str | None:
    """The machine's address on its local network (IPv4), or ``None`` if it has none.

    Found with the standard library alone: a UDP socket "connected" to a private address
    (no packet is sent) says which local address the route to the LAN goes from; failing
    that, the addresses the machine's host name resolves to (``lookup``, for tests).
    """
    for probe in PROBES:
        try:
            with make_socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                address = str(udp.getsockname()[0])
        except OSError:
            continue
        if _usable(address):
            return address
    try:
        found = (lookup or _host_addresses)(socket.gethostname())
    except OSError:
        return None
    return next((a for a in found if _usable(a)), None)


def _host_addresses(name: str) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(name, None, socket.AF_INET)]


def phone_url(scheme: str, address: str, port: int) -> str:
    """The URL a phone opens to reach the server at ``address`` (an IP) and ``port``."""
    host = f"[{address}]" if ":" in address else address
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}/" if port == default else f"{scheme}://{host}:{port}/"


#: What a server listening on this machine only (``--host 127.0.0.1``) says under its first
#: line: no phone can open its links, and how to change that.
LOCAL_ONLY = Sentence(
    "Only this machine can open it: phones can't. To let phones on the same Wi-Fi join, "
    "start it with `make run` (or `lifeledger serve --host 0.0.0.0`)."
)


def terminal_qr(url: str) -> str:
    """A QR code of ``url`` drawn with block characters, for a phone to scan off the terminal
    (two rows of modules a line; the light modules are the block characters, so light text on
    a dark terminal shows it the right way round, and phones' cameras read it either way)."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    return out.getvalue().rstrip("\n")


def _split_host(host: str) -> tuple[str, str]:
    """``Host`` header -> (host name or address, ``":port"`` or ``""``)."""
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return name, rest
    name, colon, port = host.rpartition(":")
    return (name, f":{port}") if colon and ":" not in name else (host, "")


def is_loopback_host(name: str) -> bool:
    """Whether a ``Host`` header's name is this machine's loopback (``localhost``,
    ``127.0.0.1``, ``[::1]``): an address no other device can open."""
    name = name.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _through_proxy(request: web.Request, proxies: TrustedProxies) -> bool:
    if not proxies or request.transport is None:
        return False
    peer = request.transport.get_extra_info("peername")
    if not isinstance(peer, tuple) or not peer:
        return False
    try:
        return proxies.trusts(parse_address(str(peer[0])))
    except ValueError:
        return False


#: A ``Host`` header a link may be made of: a host name (labels of letters, digits, ``-`` and
#: ``_``), an IPv4 address or a bracketed IPv6 address, and an optional port. Anything else
#: (``localhost:8000@evil.example``, a path, a space...) would make a link to somewhere else.
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST = re.compile(rf"(?:(?P<name>{_LABEL}(?:\.{_LABEL})*\.?)|\[(?P<ip6>[0-9A-Fa-f:.]+)\])")
_PORT = re.compile(r"[0-9]{1,5}")


def host_parts(host: str) -> tuple[str, str] | None:
    """A ``Host`` header as (host name or address, ``":port"`` or ``""``), or ``None`` if it
    is not one a link can be made of (see :data:`_HOST`)."""
    name, port = _split_host(host)
    if len(name) > 253 or (port and not (_PORT.fullmatch(port[1:]) and 0 < int(port[1:]) < 65536)):
        return None
    found = _HOST.fullmatch(f"[{name}]" if host.startswith("[") else name)
    if found is None:
        return None
    if found["ip6"] is not None:
        try:
            ipaddress.IPv6Address(found["ip6"])
        except ValueError:
            return None
    return name, port


def _local_parts(request: web.Request) -> tuple[str, str]:
    """The address and port the request's connection was made to (for a request whose
    ``Host`` can't make a link: the machine's own address, never one a client wrote)."""
    sock = request.transport.get_extra_info("sockname") if request.transport else None
    if isinstance(sock, tuple) and len(sock) >= 2:
        return str(sock[0]), f":{sock[1]}"
    return "127.0.0.1", ""


def link_origin(request: web.Request) -> str:
    """``scheme://host[:port]`` for a table's links and QR code: the address the request
    was made to, or, when the server listens on every interface and the request named the
    loopback (the opener is on the serving machine), the machine's LAN address with the
    same port. A request through a trusted proxy keeps its ``Host``. A ``Host`` that is not
    a host name or address with an optional port (:func:`host_parts`) is never written into
    a link: the address the connection was made to is used instead."""
    lan = request.app.get(LAN_KEY)
    proxies = request.app.get(PROXIES_KEY) or TrustedProxies()
    name, port = host_parts(request.host) or _local_parts(request)
    if (
        lan is not None
        and (is_loopback_host(name) or _unspecified(name))
        and not _through_proxy(request, proxies)
    ):
        name = lan
    host = f"[{name}]" if ":" in name else name
    return f"{request.scheme}://{host}{port}"


def _unspecified(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_unspecified
    except ValueError:
        return False
