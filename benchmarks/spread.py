"""The spread of a benchmark's figure over its runs, as the benchmarks print it."""

from __future__ import annotations

import statistics


def summary(values: list[float], unit: str = "ms", digits: int = 0) -> str:
    """``min … median … max …`` of ``values``, each with ``unit`` and ``digits`` decimals."""
    f = f"8.{digits}f"
    return (
        f"min {min(values):{f}} {unit}  median {statistics.median(values):{f}} {unit}"
        f"  max {max(values):{f}} {unit}"
    )
