"""The app's icons, drawn with the standard library (zlib and struct): the home-screen icons of
the web app manifest (192 and 512 px, and a maskable 512 px one), the Apple touch icon and the
favicon (an ICO holding PNGs). The picture is favicon.svg's: a blue diamond on the page's dark
colour.

    python -m lifeledger_table.icons        # writes them into lifeledger_table/static

The output is deterministic (same bytes every run): tests/table/test_app_install.py checks that
the committed files are what this module draws."""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

__all__ = ["FILES", "draw", "ico", "png", "write_all"]

BACKGROUND = (0x15, 0x17, 0x1C)
ACCENT = (0x4F, 0x9D, 0xFF)
#: Samples per pixel side on an edge (4 x 4 = 16 samples): smooth edges.
SUPERSAMPLE = 4


def _inside(x: float, y: float, size: float, maskable: bool) -> tuple[int, int, int, int]:
    """The colour (RGBA) at point (x, y) of an icon ``size`` wide: in units of favicon.svg's
    64 x 64 box."""
    u = x / size * 64
    v = y / size * 64
    if maskable:
        # Full bleed (the launcher cuts its own shape); the diamond shrunk into the safe zone
        # (a centred circle of radius 40 % of the icon).
        u = 32 + (u - 32) / 0.8
        v = 32 + (v - 32) / 0.8
    else:
        # A rounded square, corner radius 14 (favicon.svg's rect).
        r = 14.0
        cu = min(max(u, r), 64 - r)
        cv = min(max(v, r), 64 - r)
        if (u - cu) ** 2 + (v - cv) ** 2 > r * r:
            return (0, 0, 0, 0)
    du, dv = abs(u - 32), abs(v - 32)
    outer = du / 22 + dv / 24 <= 1  # M32 8 54 32 32 56 10 32Z
    inner = du / 10 + dv / 12 <= 1  # M32 20 42 32 32 44 22 32Z
    if outer and not inner:
        return (*ACCENT, 255)
    return (*BACKGROUND, 255)


def draw(size: int, maskable: bool = False) -> list[bytes]:
    """The icon's rows of RGBA pixels, ``size`` x ``size``."""
    rows: list[bytes] = []
    n = SUPERSAMPLE
    for py in range(size):
        row = bytearray()
        for px in range(size):
            centre = _inside(px + 0.5, py + 0.5, size, maskable)
            # Only a pixel whose corners differ from its centre lies on an edge: sample it.
            corners = {
                _inside(px + dx, py + dy, size, maskable)
                for dx in (0.0, 0.999)
                for dy in (0.0, 0.999)
            }
            if corners == {centre}:
                row += bytes(centre)
                continue
            acc = [0, 0, 0, 0]
            for sy in range(n):
                for sx in range(n):
                    c = _inside(px + (sx + 0.5) / n, py + (sy + 0.5) / n, size, maskable)
                    for i in range(3):
                        acc[i] += c[i] * c[3]
                    acc[3] += c[3]
            alpha = acc[3]
            if alpha == 0:
                row += bytes(4)
            else:
                colour = [round(acc[i] / alpha) for i in range(3)]
                row += bytes([*colour, round(alpha / (n * n))])
        rows.append(bytes(row))
    return rows


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def png(rows: list[bytes]) -> bytes:
    """A PNG file (8-bit RGBA, no interlace) of ``rows``."""
    height = len(rows)
    width = len(rows[0]) // 4
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 on every row
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def ico(images: list[tuple[int, bytes]]) -> bytes:
    """An ICO file holding PNG images (``(size, png bytes)``; sizes up to 256)."""
    out = struct.pack("<HHH", 0, 1, len(images))
    offset = 6 + 16 * len(images)
    for size, data in images:
        side = 0 if size >= 256 else size
        out += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
    return out + b"".join(data for _, data in images)


#: The files written, by name: what each holds.
FILES = {
    "icon-192.png": "the manifest's 192 px icon (purpose any)",
    "icon-512.png": "the manifest's 512 px icon (purpose any)",
    "icon-maskable-512.png": "the manifest's 512 px maskable icon (full bleed, safe zone)",
    "apple-touch-icon.png": "iOS home screen, 180 px, full bleed (iOS rounds the corners)",
    "favicon.ico": "16, 32 and 48 px PNGs in an ICO",
}


def render_all() -> dict[str, bytes]:
    """Every file of :data:`FILES`, drawn."""
    return {
        "icon-192.png": png(draw(192)),
        "icon-512.png": png(draw(512)),
        "icon-maskable-512.png": png(draw(512, maskable=True)),
        "apple-touch-icon.png": png(draw(180, maskable=True)),
        "favicon.ico": ico([(n, png(draw(n))) for n in (16, 32, 48)]),
    }


def write_all(directory: Path) -> list[Path]:
    """Draw every icon into ``directory``; returns the paths written."""
    written = []
    for name, data in render_all().items():
        path = directory / name
        path.write_bytes(data)
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - the command line
    from .pages import STATIC

    for path in write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else STATIC):
        print(path)
