"""Cold start (issue 48): importing the library and building a robot model loads no
table/figure/stats stack. pandas, scipy and matplotlib serve diagnostics, tables,
figures and reference integration only; importing them at module level made the first
model build ~1 s slower than the second. Checked in a fresh interpreter via sys.modules.

``pyomo-mbdyn run --json`` reads the diagnostics as columns
(:func:`pyomo_mbdyn.diagnostics.conservation_columns`, the formulas the pandas table
wraps) and ``pyomo_mbdyn.studies`` imports its pandas-based study modules on first use:
a run of a model whose own evaluation needs no pandas loads none, and reports the
numbers the table gives."""

import json
import subprocess
import sys

import numpy as np
import pytest

HEAVY = ("pandas", "scipy", "matplotlib")

SCRIPT = """
import json, sys
import pyomo.environ
from pyomo_mbdyn.models import panda
model = panda.build()
print(json.dumps(sorted(m for m in ("pandas", "scipy", "matplotlib") if m in sys.modules)))
"""

RUN_SCRIPT = """
import json, sys
heavy = ("pandas", "scipy", "matplotlib")
import pyomo_mbdyn.cli, pyomo_mbdyn.studies
after_import = sorted(m for m in heavy if m in sys.modules)
code = pyomo_mbdyn.cli.main(["run", sys.argv[1], "--steps", "10", "--json"])
print(json.dumps({"code": code, "after_import": after_import,
                  "after_run": sorted(m for m in heavy if m in sys.modules)}))
"""

STUDIES_SCRIPT = """
import json, sys
import pyomo_mbdyn.studies as studies
before = "pyomo_mbdyn.studies.study" in sys.modules
sweep = studies.sweep
from pyomo_mbdyn.studies import study
namespace = {}
exec("from pyomo_mbdyn.studies import *", namespace)
print(json.dumps({"before": before, "same": sweep is study.sweep,
                  "star": sorted(n for n in studies.__all__ if n in namespace), "all": sorted(studies.__all__)}))
"""


def _last_json_line(script, *args):
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_building_the_panda_model_imports_no_pandas_scipy_or_matplotlib():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


@pytest.mark.parametrize("model", ["three-link-arm", "panda"])
def test_run_json_imports_no_pandas_scipy_or_matplotlib(model):
    """The command line and the studies package load none of them, nor does ``run --json`` of a
    model whose evaluation needs none (its conservation numbers come as columns, not a table;
    the robots' evaluation reads joint rates, not the joint-space table)."""
    answer = _last_json_line(RUN_SCRIPT, model)
    assert answer == {"code": 0, "after_import": [], "after_run": []}


def test_the_studies_names_are_imported_on_first_use():
    answer = _last_json_line(STUDIES_SCRIPT)
    assert answer["before"] is False and answer["same"] is True
    assert answer["star"] == answer["all"]


def test_an_unknown_studies_name_is_an_attribute_error():
    import pyomo_mbdyn.studies as studies

    with pytest.raises(AttributeError, match="no attribute 'sweeep'"):
        studies.sweeep  # noqa: B018


def _pendulum_motion():
    from pyomo_mbdyn.mechanics import examples
    from pyomo_mbdyn.simulate import simulate

    pendulum = examples.pendulum()
    tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 6, controls=[[-0.5]] * 6)
    return pendulum, tr


def test_the_columns_are_the_table_s_columns_exactly():
    """Every column, and any selection of them, equals the DataFrame's column bit for bit; the
    dictionary keeps the table's column order."""
    from pyomo_mbdyn.diagnostics import COLUMNS, conservation_columns, conservation_table

    pendulum, tr = _pendulum_motion()
    args = (pendulum, 0.1, tr.q, tr.v, tr.nu, tr.u)
    table = conservation_table(*args)
    columns = conservation_columns(*args)
    assert list(columns) == list(table.columns) == list(COLUMNS)
    for name, values in columns.items():
        assert values.dtype == np.float64 and np.array_equal(values, table[name].to_numpy()), name
    picked = conservation_columns(*args, columns=["constraint_residual", "Lz", "E"])
    assert list(picked) == ["E", "Lz", "constraint_residual"]
    for name, values in picked.items():
        assert np.array_equal(values, table[name].to_numpy()), name
    work = np.full(6, 0.25)  # a scheme's own work per interval enters W and E alike
    assert np.array_equal(conservation_columns(*args, work=work, columns=["E"])["E"],
                          conservation_table(*args, work=work)["E"].to_numpy())


def test_an_unknown_column_is_refused_by_name():
    from pyomo_mbdyn.diagnostics import conservation_columns
    from pyomo_mbdyn.errors import ConfigurationError

    pendulum, tr = _pendulum_motion()
    with pytest.raises(ConfigurationError, match="'Energy'"):
        conservation_columns(pendulum, 0.1, tr.q, tr.v, tr.nu, tr.u, columns=["E", "Energy"])


@pytest.mark.parametrize("name", ["satellite-spin", "three-link-arm", "particle"])
def test_run_reports_the_numbers_of_the_diagnostics_table(name):
    """``run``'s energy balance, momentum error and constraint residual, read from the columns
    (satellite-spin: conserved L; the arm: energy balance), or from a scheme's own table (the
    particle's DNCO block), equal those computed from ``dyn.diagnostics()`` as before."""
    from pyomo_mbdyn.plugins import model_spec
    from pyomo_mbdyn.studies.run import solve_model

    result, model = solve_model(name, steps=10)
    spec = model_spec(name)
    table = model.dyn.diagnostics()
    energy = table["E"].to_numpy()
    conserved = list(spec.conserved_momenta)
    L = table[conserved].to_numpy() if conserved else None
    assert result["constraint_residual"] == float(table["constraint_residual"].max())
    if spec.energy_balance:
        scale = max(1.0, np.abs(energy).max())
        assert result["energy_balance_error"] == float((energy.max() - energy.min()) / scale)
    else:
        assert result["energy_balance_error"] is None
    if L is None:
        assert result["momentum_error"] is None
    else:
        assert result["momentum_error"] == float(np.abs(L - L[0]).max())


LEAVE_SCRIPT = """
import atexit, sys
atexit.register(lambda: print("exit handler ran", file=sys.stderr, flush=True))


class Teardown:  # freed by the interpreter's teardown, which the console script's run skips
    def __del__(self):
        print("torn down", file=sys.stderr, flush=True)


kept = Teardown()
import _pyomo_mbdyn_launch
path = sys.argv[1]
sys.argv = ["pyomo-mbdyn", "run", "three-link-arm", "--steps", "10", "--json", "--save", path]
sys.exit(_pyomo_mbdyn_launch.main())
"""


def test_the_console_script_s_run_leaves_at_once_with_its_answer_and_files_complete(tmp_path):
    """The console script's ``run`` ends its process without the interpreter's teardown (an
    object the script keeps is never freed): the exit handlers still run, the one JSON object
    arrives whole through the pipe, the saved trajectory is on disk, and the exit status is
    the command's."""
    from pyomo_mbdyn import results

    path = tmp_path / "arm.npz"
    out = subprocess.run([sys.executable, "-c", LEAVE_SCRIPT, str(path)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["status"] == "optimal" and answer["saved"] == str(path)
    assert results.load(path).steps == 10
    assert "exit handler ran" in out.stderr and "torn down" not in out.stderr
