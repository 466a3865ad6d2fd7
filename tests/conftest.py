"""Shared pytest configuration for the pyomo_mbdyn test suite."""

import os

import pytest
from hypothesis import settings

# Property tests: enough examples to find counterexamples, bounded run time.
settings.register_profile("default", max_examples=40, deadline=None)
settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default"))

# The suite evaluates the step Functions with CasADi's interpreter: the default "auto" would
# start a background compile for every large model family the tests build (robots: 8–110 s
# of a core each), loading the machine the tests share.  Compiled and interpreted evaluation
# give the same numbers bit for bit (tests/solvers/test_compiled.py, which sets its own mode),
# so no verdict depends on this.  Set PYOMO_MBDYN_COMPILE to run the suite compiled.
os.environ.setdefault("PYOMO_MBDYN_COMPILE", "never")


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path, monkeypatch):
    """Run every test in its own directory so solver files never collide."""
    monkeypatch.chdir(tmp_path)
