"""Bad requests to the command line (issue 29): refused by name before any work, one JSON object.

Each case of :data:`CASES` is a command line that must end with exit status 2 and,
with ``--json``, exactly one line on stdout: a JSON object with ``status`` "error"
and an ``error`` that names the option and the bad value — whatever Pyomo logs while
the model is built (its "ERROR: Constructing component ..." line used to come first).
Without ``--json`` the answer is one line on stderr.  None of these requests builds
more than the tiny models the size guard extrapolates from, so the catalogue runs in
seconds per case.
"""

import importlib
import json
import numbers
import re

import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import MODELS, options
from pyomo_mbdyn.studies.size import BYTES_PER_UNKNOWN, check_size, estimate

#: (id, arguments, pattern of the error)
CASES = [
    ("steps-zero", ["run", "three-link-arm", "--steps", "0"], r"steps must be a whole number ≥ 1.*got 0"),
    ("set-steps-negative", ["run", "three-link-arm", "--set", "steps=-5"], r"steps must be a whole number ≥ 1.*got -5"),
    ("set-steps-overflow", ["run", "three-link-arm", "--set", "steps=1e400"], r"steps must be a whole number ≥ 1.*got inf"),
    ("set-steps-text", ["run", "three-link-arm", "--set", 'steps="ten"'], r"steps must be a whole number ≥ 1.*got 'ten'"),
    ("set-steps-bool", ["run", "three-link-arm", "--set", "steps=true"], r"steps must be a whole number ≥ 1.*got True"),
    ("set-scheme-number", ["run", "three-link-arm", "--set", "scheme=5"], r"scheme must be a scheme name.*got 5"),
    ("scheme-not-offered", ["run", "sphere", "--scheme", "gc"], r"sphere: scheme 'gc' not offered"),
    ("scheme-forward-only", ["run", "sphere", "--scheme", "quaternion"], r"sphere: scheme 'quaternion' not offered"),
    ("configurations-list", ["run", "three-link-arm", "--set", "configurations=[1,2]"],
     r"rem block: option 'configurations': value \[1, 2\] not in domain"),
    ("bool-mass", ["run", "minimum-time-mass", "--set", "mass=true"], r"minimum-time-mass: option 'mass' must be a number, got True"),
    ("bool-gravity", ["run", "three-link-arm", "--set", "gravity=true"], r"three-link-arm: option 'gravity' must be a number, got True"),
    ("coarsest-negative", ["run", "sphere", "--steps", "10", "--coarsest", "-5"],
     r"coarsest .* must be an integer of at least 2 steps, got -5"),
    ("size-guard", ["run", "three-link-arm", "--steps", "100000"],
     r"100000 steps is about 4,499,997 unknowns and needs an estimated .* GiB.*--force"),
    ("sweep-steps-zero", ["sweep", "three-link-arm", "--steps", "20,0"], r"steps must be a whole number ≥ 1.*got 0"),
    ("multistart-steps-zero", ["multistart", "three-link-arm", "--steps", "0"], r"steps must be a whole number ≥ 1.*got 0"),
    ("diagnose-steps-zero", ["diagnose", "three-link-arm", "--steps", "0"], r"steps must be a whole number ≥ 1.*got 0"),
    ("diagnose-configurations", ["diagnose", "three-link-arm", "--set", "configurations=[1,2]"],
     r"option 'configurations'"),
    ("multistart-seed-negative", ["multistart", "three-link-arm", "--seed", "-1"], r"seed must be an integer.*-1"),
    ("scheduler-not-an-address", ["multistart", "three-link-arm", "--scheduler", "notaurl"],
     r"--scheduler 'notaurl': not a scheduler address"),
    # was a RecursionError in the JSON decoder ("internal error")
    ("set-deeply-nested", ["run", "particle", "--set", "gradient=" + "[" * 5000 + "]" * 5000],
     r"--set gradient=\[\[\[.*\(10000 characters\): lists nested 5000 deep; .*at most 8 levels"),
    ("set-nested-beyond-a-matrix", ["run", "particle", "--set", 'gradient=[[[[[[[[["]]]]]]]]]]"]]]]]]]]]'],
     r"lists nested 9 deep"),
    # was "dnco block: the dnco scheme takes no option 'controls'"
    ("scheme-cannot-run-the-case", ["run", "satellite-spin", "--scheme", "dnco"],
     r"satellite-spin: scheme 'dnco' cannot run the 'friction' case .*use one of \['bem', 'rem', 'gc'\]"),
    ("scheme-without-friction", ["run", "satellite-spin", "--scheme", "dmocc"],
     r"satellite-spin: scheme 'dmocc' cannot run the 'friction' case .*joint friction"),
]


@pytest.mark.parametrize("argv, pattern", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_json_request_refused_with_exactly_one_object(capsys, argv, pattern):
    assert main(argv + ["--json"]) == 2
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 1, out
    answer = json.loads(lines[0])
    assert answer["status"] == "error"
    assert re.search(pattern, answer["error"]), answer["error"]
    assert "Traceback" not in err and "Constructing component" not in out + err


@pytest.mark.parametrize("argv, pattern", [c[1:] for c in CASES[:6]], ids=[c[0] for c in CASES[:6]])
def test_plain_request_refused_with_one_line(capsys, argv, pattern):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("pyomo-mbdyn: ")


def _numeric_options():
    """(model, option) for every model option whose default is a number (not a bool)."""
    found = []
    for name in MODELS:
        for row in options(name):
            default = row["default"]
            if isinstance(default, numbers.Real) and not isinstance(default, bool) and row["name"] != "steps":
                found.append((name, row["name"]))
    return found


@pytest.mark.parametrize("model, option", _numeric_options())
def test_every_numeric_model_option_refuses_a_bool(model, option):
    """``--set mass=true`` was a 1 kg mass: a bool is not a number, for any model's option."""
    module = importlib.import_module(MODELS[model])
    with pytest.raises(ConfigurationError, match=rf"{option}.*True|True.*{option}"):
        module.build(**{option: True})


def test_size_estimate_is_the_built_count():
    """The estimate extrapolates two small builds linearly: exact at another N."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.models import three_link_arm as arm
    from pyomo_mbdyn.studies.size import count_components

    unknowns, needed = estimate(arm.build, {}, 48)
    assert unknowns == count_components(arm.build(steps=48), pyo.Var)
    assert needed == unknowns * BYTES_PER_UNKNOWN


def test_size_guard_refuses_beyond_memory_and_yields_to_force():
    from pyomo_mbdyn.models import three_link_arm as arm

    kwds = {"steps": 2000}
    unknowns, needed = check_size("three-link-arm", arm.build, kwds, memory=10**15)
    assert unknowns == 45 * 2000 - 3  # the arm's REM: 45 unknowns per step
    with pytest.raises(ConfigurationError, match=r"2000 steps is about 89,997 unknowns.*--force"):
        check_size("three-link-arm", arm.build, kwds, memory=needed - 1)
    assert check_size("three-link-arm", arm.build, kwds, force=True, memory=1) is None
    assert check_size("three-link-arm", arm.build, {"steps": 999}, memory=1) is None  # below CHECK_FROM


def test_set_values_as_deep_as_a_matrix_are_parsed():
    """Nesting up to MAX_SET_DEPTH is JSON as before; brackets inside a JSON string do not count."""
    from pyomo_mbdyn.cli.common import MAX_SET_DEPTH, parse_settings

    deep = "[" * MAX_SET_DEPTH + "1" + "]" * MAX_SET_DEPTH
    settings = parse_settings(["m=[[1, 2], [3, 4]]", f"d={deep}", 'name="[[[[[[[[[[x"', "text=plain"])
    assert settings["m"] == [[1, 2], [3, 4]] and settings["name"] == "[[[[[[[[[[x" and settings["text"] == "plain"
    value = settings["d"]
    for _ in range(MAX_SET_DEPTH):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == 1


def test_satellite_spin_offers_the_schemes_of_its_case():
    """Friction needs a scheme that takes Rayleigh friction; the torque case any forward
    multibody scheme with controls; never the DNCO (a Hamiltonian OCP) or the top's quaternions."""
    spin = importlib.import_module("pyomo_mbdyn.models.satellite_spin")
    assert spin.schemes("friction") == ("bem", "rem", "gc")
    torque = spin.schemes("torque")
    assert {"bem", "rem", "gc", "dmocc", "dmocc_lm", "rattle"} <= set(torque)
    assert "dnco" not in torque and "quaternion" not in torque
    with pytest.raises(ConfigurationError, match=r"'direct-midpoint' cannot run the 'torque' case"):
        spin.build("direct-midpoint", steps=5, case="torque")
