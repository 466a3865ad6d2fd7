"""README.md is the entry point a newcomer reads first: it must be short, its quick start
must run exactly as written and solve what it says, its table of schemes must be the
registry's, and every page it links must exist."""

import re
from pathlib import Path

import numpy as np
import pyomo.environ as pyo

from pyomo_mbdyn.schemes import scheme_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block(marker):
    """The text between ``<!-- marker -->`` and ``<!-- /marker -->`` (code fences removed)."""
    found = re.search(rf"<!-- {marker} -->\n(.*?)<!-- /{marker} -->", README, re.S)
    assert found, f"README.md has no {marker} block"
    return "\n".join(line for line in found.group(1).splitlines() if not line.startswith("```"))


def test_quick_start_runs_as_written_and_solves_what_it_says(tmp_path, monkeypatch, capsys):
    code = _block("quickstart")
    statements = [line for line in code.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(statements) <= 25, f"the quick start has grown to {len(statements)} lines"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {}
    exec(compile(code, "README.md quick start", "exec"), namespace)
    printed = capsys.readouterr().out
    assert printed.startswith("optimal"), printed
    m, trajectory, arm = namespace["m"], namespace["trajectory"], namespace["arm"]
    # what the text says: J ≈ 9.0, the final configuration reached, T + V + W at round-off
    J = pyo.value(m.ocp.control_effort)
    assert abs(J - 9.0) < 0.05, J
    assert np.allclose(trajectory.q[-1], arm.reparametrise([1.5708, 0.0], arm.q0), atol=1e-8)
    E = trajectory.diagnostics()["E"].to_numpy()
    assert np.abs(E).max() < 1e-9, E
    assert (tmp_path / "controls.png").stat().st_size > 0 and (tmp_path / "motion.png").stat().st_size > 0
    # the last row's T = 1.26·10⁻³ J, which is not motion: the node velocity's part along the
    # joints' free motions vanishes, Pᵀ M v_N = 0 (that the arm then stays put, stepped on, is
    # tests/ocp/test_final_rest_is_rest.py's)
    T_N = trajectory.diagnostics()["T"].to_numpy()[-1]
    assert round(T_N, 5) == 0.00126, T_N
    q_N, v_N = np.asarray(trajectory.q[-1], float), np.asarray(trajectory.v[-1], float)
    P, M = np.asarray(arm.null_space(q_N), float), arm.mass_matrix()
    assert np.abs(P.T @ M @ v_N).max() < 1e-8 * np.abs(M @ v_N).max()


def test_the_schemes_table_is_the_registry_s():
    assert _block("schemes").strip() == scheme_table().strip(), \
        "README.md's table of schemes is stale: paste pyomo_mbdyn.schemes.scheme_table() between the markers"


def test_an_entry_point_not_a_manual():
    lines = README.splitlines()
    assert len(lines) <= 180, f"README.md has {len(lines)} lines; move reference text to docs/guide/"
    first_code = next(i for i, line in enumerate(lines) if line.startswith("```"))
    assert first_code < 50, f"the first command comes at line {first_code + 1}"
    for cited in ("Siebert", "Leyendecker", "Udwadia", "D'Eleuterio"):
        assert cited in README, f"the README does not identify {cited}'s work"


def test_every_linked_page_exists():
    links = re.findall(r"\]\(([^)#]+)\)", README)
    assert links, "the README links its user guide"
    missing = [link for link in links if not link.startswith("http") and not (ROOT / link).exists()]
    assert not missing, f"README.md links pages that do not exist: {missing}"


def test_the_install_command_s_run_prints_what_the_readme_states(capsys, tmp_path, monkeypatch):
    """The ci:main block's ``pyomo-mbdyn run three-link-arm --plot figures/``: optimal, at the J the
    next paragraph states to its printed digits, writing the figures it names."""
    import json

    from pyomo_mbdyn.cli import main

    command = _block("ci:main").split("&&")[-1].split()
    assert command[:3] == ["pyomo-mbdyn", "run", "three-link-arm"] and command[3] == "--plot", command
    after = README[README.index("<!-- /ci:main -->"):].split("\n\n")[1]
    stated = re.search(r"J = (\d)\.(\d+)·10⁶", after)
    assert stated, "the README states the arm's J after its install command"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    assert main(command[1:] + ["--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "optimal"
    digits = len(stated.group(2))
    assert f"{result['objective'] / 1e6:.{digits}f}" == f"{stated.group(1)}.{stated.group(2)}", result["objective"]
    named = re.findall(r"`([\w./-]*_\w+\.png)`", after)
    first = Path(named[0])
    files = {first} | {first.parent / (first.name.split("_")[0] + name) for name in named[1:]}
    written = {p.relative_to(tmp_path) for p in (tmp_path / command[4]).glob("*.png")}
    assert written == files, (written, files)
