"""animate_html and ``pyomo-mbdyn run MODEL --html FILE``: one self-contained page, drawn by a browser.

The browser tests run Debian's ``chromium`` headless on the written page.  On a
machine without it they skip, saying so (``apt-get install -y chromium`` runs them);
``.ci/run`` installs it and sets ``PYOMO_MBDYN_REQUIRE_BROWSER=1``, under which a
missing browser fails instead of skipping.  A small script put in front of a copy of the page
reports console errors, uncaught exceptions and the state of the plot through
the console, which Chromium prints on stderr; ``test_console_capture_sees_errors``
shows that this capture does catch errors.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import types

import numpy as np
import pytest
from PIL import Image

from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import ConfigurationError, DestinationError, InputTypeError
from pyomo_mbdyn.plotting import BODY_COLORS, DIRECTOR_COLORS, animate_html
from pyomo_mbdyn.mechanics import MultibodySystem, PointMass, Revolute, RigidBody, Spherical
from pyomo_mbdyn.plotting import animate_html as exported
from pyomo_mbdyn.simulate import simulate
from pyomo_mbdyn.trajectory import Trajectory

STEPS = 40
#: the frame the browser is moved to before the screenshot (a user dragging the slider)
SHOWN = 25


@pytest.fixture(scope="module")
def arm():
    """README's two-link arm swinging under gravity with an elbow torque (stepper, BEM)."""
    upper = RigidBody("upper_arm", 2.1, inertia=(0.013, 0.002, 0.013), position=(0.2, 0, 1.25))
    fore = RigidBody("forearm", 1.6, inertia=(0.010, 0.002, 0.010), position=(0.2, 0, 0.97))
    system = MultibodySystem("arm", gravity=(0, 0, -9.81))
    system.add_bodies(upper, fore)
    system.add_joints(Spherical("shoulder", None, upper, location=(0.2, 0, 1.4)),
                      Revolute("elbow", upper, fore, location=(0.2, 0, 1.1), axis=(0, 1, 0)))
    system.actuate("shoulder")
    system.actuate("elbow")
    q = system.reparametrise([0.3, -0.2, 0.1, 0.5], system.q0)
    v0 = system.null_space(q) @ np.array([0.0, 1.0, 0.0, 2.0])
    controls = np.zeros((STEPS, 4))
    controls[:, 3] = 0.5
    return simulate(system, q, v0, h=0.0125, steps=STEPS, controls=controls, scheme="bem")


def _plot_arguments(text):
    """(data, frames) of the plotly call in a page written by animate_html."""
    decoder = json.JSONDecoder()
    tail = text[text.rindex("Plotly.newPlot("):]
    data, _ = decoder.raw_decode(tail, re.search(r'Plotly\.newPlot\(\s*"[^"]+",\s*', tail).end())
    frames, _ = decoder.raw_decode(tail, re.search(r'Plotly\.addFrames\(\s*["\'][^"\']+["\'],\s*', tail).end())
    return data, frames


def _values(array):
    """A plotly array as numpy: a list, or a typed array ``{"dtype", "bdata"[, "shape"]}`` (base64)."""
    if isinstance(array, dict):
        values = np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"]))
        return values.reshape([int(n) for n in str(array.get("shape", values.size)).split(",")])
    return np.array(array, dtype=float)


def _frames_in(path):
    return _plot_arguments(path.read_text(encoding="utf-8"))[1]


# -- the file ---------------------------------------------------------------------------------
def test_page_is_self_contained_with_one_frame_per_node(arm, tmp_path):
    path = animate_html(arm, tmp_path / "arm.html")
    assert exported is animate_html
    text = path.read_text(encoding="utf-8")
    assert "plotly.js v" in text and len(text) > 1_000_000  # the library itself, not a link to it
    assert not re.search(r"<script[^>]*\bsrc\s*=", text), "a script is loaded from elsewhere"
    markup = re.sub(r"<script[^>]*>.*?</script>", "", text, flags=re.S)  # the page without its scripts
    assert not re.search(r"https?:", markup), "the page links to the network"
    data, frames = _plot_arguments(text)
    assert [f["name"] for f in frames] == [str(k) for k in range(STEPS + 1)]
    # each frame is its node: the centres of mass and the time markers
    upper = [arm.coordinates.index(f"upper_arm.{c}") for c in "xyz"]
    for k in (0, SHOWN, STEPS):
        traces = frames[k]["data"]
        centres = next(tr for tr in traces if tr.get("hovertemplate", "").endswith("centre of mass<extra></extra>"))
        assert np.allclose([_values(centres[c])[0] for c in "xyz"], arm.q[k, upper])
        markers = [tr for tr in traces if tr.get("xaxis") in ("x2", "x3")]
        assert len(markers) == 2 and all(np.allclose(_values(tr["x"]), arm.t[k]) for tr in markers)
    # the controls and the energy with their units
    names = [tr.get("name") for tr in data]
    assert "elbow.angle (N m)" in names and "T + V" in names and "T + V + W" in names
    assert '"energy (J)"' in text and '"u (N m)"' in text and '"x (m)"' in text
    assert "<title>arm, bem, N = 40</title>" in text
    from pyomo_mbdyn.plotting.html_view import html_figure

    assert html_figure(arm).layout.scene.camera.eye.x is None  # a motion in space: plotly's oblique view
    # time ticks on both panels: the controls' x axis shows its labels too (in s)
    assert re.search(r'"xaxis2":\{[^}]*"showticklabels":true[^}]*"ticksuffix":" s"', text)


def test_energy_curve_is_the_diagnostics_table(arm, tmp_path):
    data, _ = _plot_arguments(animate_html(arm, tmp_path / "arm.html").read_text(encoding="utf-8"))
    table = arm.diagnostics()
    balance = next(tr for tr in data if tr.get("name") == "T + V + W")
    energy = _values(balance["y"])
    assert np.allclose(energy, table["E"])
    assert np.ptp(energy) < 1e-6 * abs(energy[0])  # BEM: T + V + W is conserved


def test_refusals_name_the_problem(arm, tmp_path):
    with pytest.raises(ConfigurationError, match="must end in .html"):
        animate_html(arm, tmp_path / "arm.png")
    with pytest.raises(InputTypeError, match="Trajectory"):
        animate_html(arm.q, tmp_path / "arm.html")
    (tmp_path / "dir.html").mkdir()
    with pytest.raises(DestinationError, match="is a directory"):
        animate_html(arm, tmp_path / "dir.html")
    loaded = Trajectory.load(arm.save(tmp_path / "arm.npz"))
    with pytest.raises(ConfigurationError, match="pass system="):
        animate_html(loaded, tmp_path / "loaded.html")
    assert _frames_in(animate_html(loaded, tmp_path / "loaded.html", system=arm.system))
    ball = MultibodySystem("ball")
    ball.add_bodies(PointMass("ball", 1.0, position=(0, 0, 0)))
    with pytest.raises(ConfigurationError, match="n = 3 coordinates"):
        animate_html(loaded, tmp_path / "wrong.html", system=ball)
    assert not (tmp_path / "wrong.html").exists()


def test_a_coordinate_system_is_drawn_by_its_points(tmp_path):
    """The crane (a CoordinateSystem given by formulas) is drawn by its drawing: in every frame
    the trolley and the load where its coordinates put them, the rope between them; without a
    drawing the same system is refused."""
    from pyomo_mbdyn.models import crane

    system = crane.build_system()
    motion = simulate(system, system.q0, np.zeros(4), 0.1, 6, np.tile([[-50.0, 0.0]], (6, 1)), scheme="bem")
    _, frames = _plot_arguments(animate_html(motion, tmp_path / "crane.html").read_text(encoding="utf-8"))
    assert len(frames) == 7
    for k in (0, 6):
        s, _, x, z = motion.q[k]
        centres = next(tr for tr in frames[k]["data"]
                       if tr.get("hovertemplate", "").endswith("centre of mass<extra></extra>"))
        assert np.allclose([_values(centres[c]) for c in "xyz"], [[s, x], [0, 0], [0, -z]])
        rope = next(tr for tr in frames[k]["data"] if tr.get("name") == "joint" and tr.get("mode") == "lines")
        assert np.allclose(_values(rope["x"])[:2], [s, x]) and np.allclose(_values(rope["z"])[:2], [0, -z])
    # the crane moves in its vertical plane y = 0: the view opens square-on to it, from -y
    from pyomo_mbdyn.plotting.html_view import html_figure

    camera = html_figure(motion).layout.scene.camera
    assert (camera.eye.x, camera.eye.y, camera.eye.z) == (0.0, -2.2, 0.0) and camera.up.z == 1.0
    assert camera.projection.type == "orthographic"
    bare = crane.build_system()
    bare.drawing = None
    with pytest.raises(ConfigurationError, match="no bodies to draw \\(give a CoordinateSystem a drawing=\\)"):
        animate_html(Trajectory.of_system(bare, motion.t, motion.q, motion.v, motion.u, motion.nu),
                     tmp_path / "bare.html")


def test_systems_without_bodies_in_space_are_refused(tmp_path):
    from pyomo_mbdyn.models.pendulum import build_system

    pendulum = build_system()
    motion = Trajectory.of_system(pendulum, [0.0, 0.1], np.zeros((2, 1)), np.zeros((2, 1)), np.zeros((1, 1)),
                                  np.zeros((1, 1)))
    with pytest.raises(ConfigurationError, match="no bodies to draw.*plot_coordinates"):
        animate_html(motion, tmp_path / "pendulum.html")
    assert not (tmp_path / "pendulum.html").exists()


# -- the command line --------------------------------------------------------------------------
def test_run_html_writes_the_solved_motion(tmp_path, capsys):
    path = tmp_path / "views" / "arm.html"  # a missing directory is created
    assert main(["run", "three-link-arm", "--steps", "10", "--json", "--html", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "optimal" and result["html"] == str(path) and "error" not in result
    assert len(_frames_in(path)) == 11


def _fake_solve(arm, monkeypatch):
    """``solve_model`` that returns at once a solved-looking result and a model with the arm."""
    model = types.SimpleNamespace(dyn=types.SimpleNamespace(trajectory=lambda: arm, system=arm.system))
    monkeypatch.setattr("pyomo_mbdyn.cli.run_commands.solve_model", lambda *a, **k: (
        {"model": "arm", "scheme": "bem", "steps": STEPS, "status": "optimal", "objective": 1.5}, model))


def test_run_html_table_prints_the_path(arm, tmp_path, capsys, monkeypatch):
    _fake_solve(arm, monkeypatch)
    assert main(["run", "arm", "--html", str(tmp_path / "arm.html")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[-1] for line in lines if line.startswith("html ")] == [str(tmp_path / "arm.html")]
    assert "<title>arm: bem, N = 40, optimal, J = 1.5</title>" in (tmp_path / "arm.html").read_text()


def test_run_html_failure_is_like_a_plot_failure(arm, tmp_path, capsys, monkeypatch):
    """The solve stands (its result is printed), ``error`` names --html, exit status 1."""
    _fake_solve(arm, monkeypatch)
    (tmp_path / "taken.html").mkdir()
    assert main(["run", "arm", "--json", "--html", str(tmp_path / "taken.html")]) == 1
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["status"] == "optimal" and result["html"] is None
    assert result["error"].startswith(f"--html {tmp_path / 'taken.html'}: DestinationError")
    assert "--html" in captured.err


# -- the browser ------------------------------------------------------------------------------
#: put in front of the page: report errors and, after moving to frame SHOWN, the plot's state
_PROBE = """<script>
(function () {
  function report(kind, text) { console.log("PAGE-" + kind + " " + text); }
  var error = console.error;
  console.error = function () {
    report("ERROR", Array.prototype.join.call(arguments, " "));
    error.apply(console, arguments);
  };
  window.addEventListener("error", function (e) { report("ERROR", "uncaught: " + e.message); });
  window.addEventListener("unhandledrejection", function (e) { report("ERROR", "unhandled rejection: " + e.reason); });
  window.addEventListener("load", function () { setTimeout(function () {
    var gd = document.querySelector(".plotly-graph-div");
    if (!gd || !window.Plotly) { report("STATE", JSON.stringify({plot: false})); return; }
    Plotly.animate(gd, ["FRAME"], {frame: {duration: 0, redraw: true}, transition: {duration: 0}, mode: "immediate"})
      .then(function () {
        var dpr = window.devicePixelRatio || 1;
        var legends = Array.prototype.map.call(gd.querySelectorAll(".legend"), function (el) {
          var r = el.getBoundingClientRect(); return [r.left * dpr, r.top * dpr, r.right * dpr, r.bottom * dpr]; });
        var scene = gd.querySelector(".gl-container canvas");
        report("STATE", JSON.stringify({plot: true, frames: gd._transitionData._frames.length,
          active: gd._fullLayout.sliders[0].active, canvas: !!scene, legends: legends,
          width: gd._fullLayout.width * dpr, scene: gd._fullLayout.scene.domain.x}));
      });
  }, 300); });
})();
</script>"""


def _chromium():
    path = shutil.which("chromium")
    if path is None:
        reason = ("the browser test needs Debian's chromium: apt-get install -y chromium "
                  "(.ci/run installs it when it is missing)")
        if os.environ.get("PYOMO_MBDYN_REQUIRE_BROWSER"):
            pytest.fail(reason + "; PYOMO_MBDYN_REQUIRE_BROWSER is set")
        pytest.skip(reason)
    return path


def _browse(page, tmp_path, frame=SHOWN):
    """Screenshot ``page`` (a copy with the probe) in headless Chromium; (PNG path, errors, state)."""
    probed = tmp_path / f"probed-{page.name}"
    probed.write_text(page.read_text(encoding="utf-8").replace("<head>", "<head>" + _PROBE.replace(
        "FRAME", str(frame)), 1), encoding="utf-8")
    png = tmp_path / f"{page.stem}.png"
    command = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
               "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", f"--user-data-dir={tmp_path / 'chromium-profile'}", "--window-size=1280,900",
               "--virtual-time-budget=5000", "--enable-logging=stderr", "--v=0", f"--screenshot={png}",
               probed.as_uri()]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line]
    errors = [line for line in console if '"PAGE-ERROR ' in line]
    states = [json.loads(re.search(r'"PAGE-STATE (.*)", source:', line).group(1)) for line in console
              if '"PAGE-STATE ' in line]
    assert run.returncode == 0 and png.is_file(), f"chromium failed ({run.returncode}):\n{run.stderr[-3000:]}"
    return png, errors, (states[0] if states else None)


def _near(pixels, color, tolerance=25):
    """How many pixels are within ``tolerance`` per channel of ``color`` ("#rrggbb")."""
    rgb = np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)])
    return int(np.sum(np.abs(pixels.astype(int) - rgb).max(axis=-1) <= tolerance))


def test_console_capture_sees_errors(tmp_path):
    """The capture used below is not blind: it reports console.error and an uncaught exception."""
    page = tmp_path / "broken.html"
    page.write_text("<html><head></head><body><script>console.error('probe error'); null.x;</script></body></html>")
    _, errors, state = _browse(page, tmp_path)
    assert any("probe error" in line for line in errors), errors
    assert any("uncaught" in line for line in errors), errors
    assert state == {"plot": False}


def test_browser_draws_the_bodies_without_errors(arm, tmp_path):
    page = animate_html(arm, tmp_path / "arm.html")
    png, errors, state = _browse(page, tmp_path)
    assert not errors, "console errors:\n" + "\n".join(errors)
    assert state is not None, "the page never reported its state (plotly did not load?)"
    assert state["frames"] == STEPS + 1 and state["active"] == SHOWN and state["canvas"]
    pixels = np.asarray(Image.open(png).convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 200, "a blank page"
    # the 3-D scene (its part of the page), legends painted over with white: WebGL drew the bodies
    scene = pixels[:, : int(state["scene"][1] * state["width"])].copy()
    for left, top, right, bottom in state["legends"]:
        scene[int(top):int(bottom) + 2, int(left):int(right) + 2] = 255
    for b, name in enumerate(arm.system.bodies):
        assert _near(scene, BODY_COLORS[b]) > 300, f"body {name} ({BODY_COLORS[b]}) not drawn in the scene"
    # the triads: short lines (d1 and d3 of a thin link are its narrow half-edges), counted together
    directors = [_near(scene, color) for color in DIRECTOR_COLORS]
    assert sum(directors) > 30, f"director triads not drawn in the scene: {directors} pixels of d1, d2, d3"
