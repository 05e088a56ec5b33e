"""The Hypothesis profiles of every property test and machine: `ci` (derandomized, so a red CI run reproduces, and many short
examples: a search of many places near the start rather than a few deep ones) and `long` (random, deeper). Chosen
by GRAPEVINE_HYPOTHESIS_PROFILE or pytest's `--hypothesis-profile` (registered here, before pytest reads it:
tests/conftest.py imports this module); anything else runs `ci`. GRAPEVINE_HYPOTHESIS_NO_SHRINK (the mutation
runs) stops at the first failure: a kill is enough, not its smallest form; GRAPEVINE_HYPOTHESIS_VERBOSE prints
every example's steps."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, Verbosity, settings

COMMON = {"deadline": None, "suppress_health_check": list(HealthCheck), "print_blob": True}
settings.register_profile("ci", derandomize=True, database=None, **COMMON)  # type: ignore[arg-type]
settings.register_profile("long", **COMMON)  # type: ignore[arg-type]
PROFILE = os.environ.get("GRAPEVINE_HYPOTHESIS_PROFILE") or ("long" if settings.get_current_profile_name() == "long" else "ci")
# every property test, not only the machines: a CI run searches what the last one searched, so red means the change
settings.load_profile(PROFILE)


def profile(*, ci: tuple[int, int], long: tuple[int, int]) -> settings:
    """The chosen profile with the machine's (examples, steps per example)."""
    examples, steps = ci if PROFILE != "long" else long
    chosen = settings(settings.get_profile(PROFILE), max_examples=examples, stateful_step_count=steps)
    if os.environ.get("GRAPEVINE_HYPOTHESIS_VERBOSE"):  # every example's steps printed (with `pytest -s`)
        chosen = settings(chosen, verbosity=Verbosity.verbose)
    if os.environ.get("GRAPEVINE_HYPOTHESIS_NO_SHRINK"):
        return settings(chosen, phases=[Phase.explicit, Phase.generate])
    return chosen
