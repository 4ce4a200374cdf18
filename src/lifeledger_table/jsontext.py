"""The one reader of JSON text that clients send (request bodies and socket messages)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["strict_json"]


def strict_json(text: str) -> Any:
    """The JSON value of ``text``; ``NaN`` and ``Infinity`` are not JSON (raises ValueError)."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)
