"""The models' texts state the problem and the mathematics, not how long a run took or which issue
brought a change: both go stale (a timing with the machine and the commit, an issue number with
its tracker).  Timings belong on the benchmark pages (benchmarks/pages/*.md, with their machine
and date), history in CHANGELOG.md and the commit log.

Checked: every string literal (module, class and function docstrings, the spec's ``description``,
which ``pyomo-mbdyn list`` prints) and every comment of ``pyomo_mbdyn/models/*.py``.

The rule that tells a timing from problem data — the models' horizons and steps are times too
("T = 1.5 s", "h = 30 ms"):

* a **time quantity** is a number followed by a unit of time (``ms``, ``s``, ``sec``, ``seconds``,
  ``min``, ``minutes``, ``hours``);
* it is **problem data** when written as a symbol's value: right after ``=``, ``≤``, ``≥``, ``<``,
  ``>`` or ``∈``, or in a list of numbers that follows one ("T = 0.2, 0.3, 0.6 s");
* every other time quantity is a **timing** ("12.6 s", "75 s in all", "under 10 s") and fails;
* so do the words "minute(s)" and "hour(s)" (no model's time is in minutes) and "in / within /
  under a / a few second(s)", a timing without its number.

An **issue reference** is "issue N" / "issues N" (any case, "issue 47.4" included) or "#N".
"""

import io
import re
import tokenize
from pathlib import Path

import pytest

import pyomo_mbdyn

MODELS = Path(pyomo_mbdyn.__file__).parent / "models"

TIME = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:ms|s|secs?|seconds?|mins?|minutes?|hours?)\b")
#: what precedes a time quantity that is a symbol's value (problem data)
DATA = re.compile(r"[=≤≥<>∈]\s*(?:[-−]?\d+(?:\.\d+)?\s*,\s*)*$")
WORDS = re.compile(r"\b(?:minutes?|hours?)\b|\b(?:in|within|under an?|a few)\s+seconds?\b", re.IGNORECASE)
ISSUE = re.compile(r"\bissues?\s+#?\d+|(?<![\w&])#\d+\b", re.IGNORECASE)


def _matches(text):
    yield from (m for m in TIME.finditer(text) if not DATA.search(text[: m.start()]))
    yield from WORDS.finditer(text)
    yield from ISSUE.finditer(text)


def stale(text):
    """The timings and issue references in ``text`` (a list of the matched strings)."""
    return [m.group(0) for m in _matches(text)]


def _texts(path):
    """(line, text) of every string literal and comment of the module at ``path``."""
    kinds = {tokenize.STRING, tokenize.COMMENT} | ({tokenize.FSTRING_MIDDLE} if hasattr(tokenize, "FSTRING_MIDDLE") else set())
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type in kinds:
            yield token.start[0], token.string


@pytest.mark.parametrize("text", [
    "at N = 640 the lifted BEM needs 194 IPOPT iterations from the guess, 12.6 s, where the chart form needs 10, 1.5 s",
    "KKT factorisations take 1.3 s per iteration (REM 75 s in all)",
    "solves the same NLP in 41 iterations and under 10 s",
    "REM build + solve 0.47 s against 1.17 s lifted at N = 20; DMOCC 1.4 s at N = 160",
    "(the table of every node: 0.36 s on the Panda)", "a step of 30ms",
    "reaches the optimum too, in minutes", "IPOPT converges in seconds", "about 105 iterations, under a second",
    "the shared build of the panda and ur5 models (issue 30).", "Steps of the joint angles (Issue 47.4):",
    "as in issues 30 and 31", "fixed in #12",
])
def test_the_rule_finds_timings_and_issue_numbers(text):
    assert stale(text), text


@pytest.mark.parametrize("text", [
    "in T = 1.5 s, at rest at both ends", "N = 50 (h = 30 ms)", "in T = ``horizon`` = 1 s from rest",
    "final time free in [0.05, 1] s", "with T fixed, T = 0.2, 0.3, 0.415, 0.6 s, at 133.8 kg m/s",
    "T ≤ 2 s", "T ∈ 3 s", "to ``target`` in ``horizon`` seconds", "gravity g = 9.81 m/s² along −e₂",
    "the hand speeds (50-80 m/s)", "joint 7 at 22 rad/s", "5 steps of 30 samples", "second order from N = 50 on",
    "the final momentum ~1e-17 N m s", "J = 61.01049171 (5 iterations each)",
])
def test_the_rule_leaves_problem_data_alone(text):
    assert stale(text) == [], text


def test_model_texts_hold_no_timing_and_no_issue_number():
    paths = sorted(MODELS.glob("*.py"))
    assert {"crane.py", "robot_arm.py", "panda.py"} <= {p.name for p in paths}
    found = [f"{path.name}:{line + text.count(chr(10), 0, m.start())}: {m.group(0)!r}"
             for path in paths for line, text in _texts(path) for m in _matches(text)]
    assert not found, ("timings belong on benchmarks/pages/*.md, issue numbers in CHANGELOG.md and the "
                       "commit log; a time that is problem data is written as a symbol's value (T = 1.5 s):\n"
                       + "\n".join(found))
