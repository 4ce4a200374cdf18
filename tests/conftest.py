"""Hypothesis profiles: ``ci`` (the default) is derandomized, so ``make test`` passes or fails the
same way on every machine; ``fuzz`` (``make fuzz``) explores with random seeds and many more
examples, and keeps the failures it finds in ``.hypothesis/`` so that they replay first next time.
A failure fuzzing finds becomes a named regression test.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]

# The tests read the engine's English (lifeledger replay's timeline and errors follow the
# environment's language): LANGUAGE, which gettext reads first, is C whatever the machine's
# LANG, for this process and the commands it runs. A test of another language asks for it.
os.environ["LANGUAGE"] = "C"

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SLOW,
)
settings.register_profile(
    "fuzz",
    derandomize=False,
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "1000")),
    deadline=None,
    print_blob=True,
    suppress_health_check=_SLOW,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
