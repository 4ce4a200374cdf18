"""The ``fast`` extra of lifeledger (``pip install 'lifeledger[fast]'``): a stream's lines read
by msgspec's JSON decoder, written in C, instead of the json module of the standard library.

The rules package itself stays on the standard library alone, and its own reader stays the
default: this package only hands msgspec's decoder to :func:`lifeledger.record.use_decoder`,
which keeps the json module for every line msgspec can't read or may read differently, so a
replay gives the same result either way (integers of any size are read as integers, as the
json module reads them). ``lifeledger replay --fast`` uses it.
"""

from __future__ import annotations

import msgspec

from lifeledger import record

__all__ = ["install", "uninstall"]


def install() -> None:
    """Read streams with msgspec from now on."""
    record.use_decoder(msgspec.json.Decoder().decode)


def uninstall() -> None:
    """Read streams with the json module again (the default)."""
    record.use_decoder(None)
