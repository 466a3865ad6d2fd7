"""The Examples sections of the mechanics docstrings run and print what they say."""

import doctest

import pytest

from pyomo_mbdyn.mechanics import bodies, system


@pytest.mark.parametrize("module", [bodies, system])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
