"""The bad-input catalogue: every wrong or hostile input answered by name (issue 18).

Each case of :data:`CASES` is ``(id, make, error, pattern)``: ``make(tmp)`` (``tmp``
a fresh directory) feeds one bad input to the library, which must raise ``error``
— an instance of :class:`~pyomo_mbdyn.errors.MbdynError` *and* of a builtin
exception type — with a message matching ``pattern`` that names the object
(body, joint, option, file) and the bad value.  Wherever the library can tell,
the error comes before any solver runs (only the solver-option cases need one).

The inputs that are legal but suspicious get a documented
:class:`~pyomo_mbdyn.errors.ModellingWarning` instead (tested at the end):

* a joint point far from every rigid body it joins (a long massless link).

A final angle more than a turn from the start is no longer a warning: every
scheme carries the turns (the node forms by the row ``ocp.final_turns``), or
raises :class:`~pyomo_mbdyn.errors.NotRepresentableError` (tests/ocp/test_physical_terms.py).

The systems are tiny (one link, three steps) so that the whole catalogue runs in
seconds.
"""

import builtins
import os
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401  (registers the solver plugins)
from pyomo_mbdyn import plotting, results
from pyomo_mbdyn.errors import (
    LoopReductionError,
    NotRepresentableError,
    AssemblyError,
    ConfigurationError,
    DestinationError,
    InputTypeError,
    MbdynError,
    MissingFileError,
    ModellingWarning,
    ResultsFileError,
    SolverUnavailableError,
    UnsupportedModelError,
)
from pyomo_mbdyn.mechanics import (Fixed, MultibodySystem, PointMass, Prismatic, Revolute, RigidBody, Spherical,
                                   examples)
from pyomo_mbdyn.models import pendulum as pendulum_model
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.solvers import get_solver
from pyomo_mbdyn.trajectory import Trajectory

#: the builtin exception types (an error of the library must also be one of these)
BUILTIN_ERRORS = tuple(v for v in vars(builtins).values()
                       if isinstance(v, type) and issubclass(v, Exception) and v is not Exception)


# -- tiny systems and blocks ------------------------------------------------------------------
def link(name="link", **kwds):
    kwds.setdefault("position", (0.5, 0, 0))
    return RigidBody(name, 1.0, (0.1, 0.1, 0.02), **kwds)


def pendulum(actuate=True):
    """One link hinged to the ground at the origin about e3."""
    body = link()
    system = MultibodySystem("pendulum", gravity=(0, -9.81, 0))
    system.add_bodies(body)
    system.add_joints(Revolute("hinge", None, body, location=(0, 0, 0), axis=(0, 0, 1)))
    if actuate:
        system.actuate("hinge")
    return system


def two_links():
    """The pendulum with a second link on a knee."""
    system = pendulum()
    lower = link("lower", position=(1.5, 0, 0))
    system.add_bodies(lower)
    system.add_joints(Revolute("knee", system.bodies["link"], lower, location=(1, 0, 0), axis=(0, 0, 1)))
    return system


def ball_link():
    """One link on a ball joint at the origin."""
    body = link()
    system = MultibodySystem("ball", gravity=(0, -9.81, 0))
    system.add_bodies(body)
    system.add_joints(Spherical("ball", None, body, location=(0, 0, 0)))
    system.actuate("ball")
    return system


def block(scheme="bem", **options):
    m = pyo.ConcreteModel("tiny")
    options.setdefault("system", pendulum())
    options.setdefault("steps", 3)
    options.setdefault("horizon", 1.0)
    m.dyn = scheme_block(scheme, **options)
    return m


def problem(scheme="bem", **options):
    m = block(scheme, **options)
    return OptimalControlProblem(m.dyn)


def twice(first, second):
    """Run ``first`` and then ``second`` on the same fresh problem."""

    def run(tmp):
        p = problem()
        first(p)
        second(p)

    return run


def welded():
    """A base welded to the ground (Fixed 'weld') carrying an arm on the hinge 'elbow'."""
    base, arm = link("base"), link("arm", position=(1.5, 0, 0))
    system = MultibodySystem("welded", gravity=(0, -9.81, 0))
    system.add_bodies(base, arm)
    system.add_joints(Fixed("weld", None, base), Revolute("elbow", base, arm, location=(1, 0, 0), axis=(0, 0, 1)))
    return system


def locked_four_bar():
    """The four-bar with its loop pivot D about e1 instead of e3: the loop holds every joint still."""
    A, B, C, D = (np.array(p, float) for p in ((0, 0, 0), (0, 0.4, 0), (1.6, 1.2, 0), (1.5, 0, 0)))
    crank, coupler, rocker = examples.bar("crank", 1.0, A, B), examples.bar("coupler", 4.0, B, C), \
        examples.bar("rocker", 3.0, D, C)
    system = MultibodySystem("locked-four-bar")
    system.add_bodies(crank, coupler, rocker)
    z = (0, 0, 1)
    system.add_joints(Revolute("A", None, crank, location=A, axis=z), Revolute("B", crank, coupler, location=B, axis=z),
                      Revolute("C", coupler, rocker, location=C, axis=z),
                      Revolute("D", None, rocker, location=D, axis=(1, 0, 0)))
    return system


def non_grashof():
    """A four-bar whose crank (1.0 m, ground 1.5 m) turns from the reference to -1.4 rad, not -2.5."""
    return examples.four_bar(points=((0, 0, 0), (0, 1.0, 0), (1.0, 1.6, 0), (1.5, 0, 0)))


def changed_after_build(scheme, change, then):
    """A block on the pendulum, then ``change(system)``, then ``then(block's model)``."""
    def make(tmp):
        system = pendulum()
        m = block(scheme, system=system)
        change(system)
        then(m)
    return make


def _grow(system):
    lower = link("lower", position=(1.5, 0, 0))
    system.add_bodies(lower)
    system.add_joints(Revolute("knee", system.bodies["link"], lower, location=(1, 0, 0), axis=(0, 0, 1)))


def fix_twice(scheme):
    def run(tmp):
        p = problem(scheme)
        p.fix_final_configuration([1.0])
        p.fix_final_configuration([0.5])

    return run


def crane_with_drawing(drawing):
    """The crane's CoordinateSystem rebuilt with another ``drawing``."""
    from pyomo_mbdyn.mechanics import CoordinateSystem
    from pyomo_mbdyn.models import crane

    return CoordinateSystem(
        "crane", groups={"trolley": (("s",), (1.0,)), "winch": (("beta",), (1.0,)), "load": (("x", "z"), (1.0, 1.0))},
        constraints={"rope": (crane._rope, crane._rope_jacobian)}, velocities=crane.VELOCITIES,
        null_space=crane._null_space, reparametrise=crane._reparametrise, inputs={}, q0=crane.Q0, drawing=drawing)


def joint_on_itself():
    body = link()
    return Spherical("ball", body, body, location=(0, 0, 0))


def system_with(*steps):
    """A system on which the calls ``steps`` (functions of the system) are made in turn."""

    def run(tmp):
        system = MultibodySystem("sys")
        for step in steps:
            step(system)

    return run


def trajectory(steps=3):
    """A consistent trajectory of the pendulum: the rest at q0."""
    system = pendulum()
    q = np.tile(system.q0, (steps + 1, 1))
    return Trajectory.of_system(system, np.linspace(0, 1, steps + 1), q, np.zeros_like(q),
                                np.zeros((steps, 1)), np.zeros((steps, 1)))


def initialize(guess):
    def run(tmp):
        block().dyn.initialize_from(guess() if callable(guess) else guess)

    return run


def nan_guess():
    tr = trajectory()
    tr.q[2, 4] = np.nan
    return tr


# -- files -----------------------------------------------------------------------------------
def saved(tmp):
    return trajectory().save(tmp / "good.npz")


def write(tmp, name, data):
    path = tmp / name
    path.write_bytes(data)
    return path


def truncated(tmp):
    data = saved(tmp).read_bytes()
    return results.load(write(tmp, "truncated.npz", data[: len(data) // 2]))


def corrupted(tmp):
    data = bytearray(saved(tmp).read_bytes())
    data[200:400] = bytes(200)  # inside the first member: its CRC no longer matches
    return results.load(write(tmp, "corrupted.npz", bytes(data)))


def not_ours(tmp):
    np.savez(tmp / "other.npz", a=np.arange(3))
    return results.load(tmp / "other.npz")


def npy(tmp):
    np.save(tmp / "array.npy", np.arange(3))
    return results.load(tmp / "array.npy")


def header_not_json(tmp):
    np.savez(tmp / "header.npz", header=np.array("{not json"))
    return results.load(tmp / "header.npz")


def a_file(tmp, name="a-file"):
    path = tmp / name
    path.write_text("not a directory")
    return path


def unwritable_directory(tmp):
    """A directory the file system refuses to write into (even for root: sysfs)."""
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        directory = tmp / "read-only"
        directory.mkdir()
        directory.chmod(0o500)
        return directory
    for candidate in (Path("/sys"), Path("/proc/sys")):
        probe = candidate / "pyomo-mbdyn-probe"
        try:
            open(probe, "ab").close()
        except OSError:
            return candidate
        probe.unlink()
    pytest.skip("no directory refuses writes here (root without sysfs)")


def animate(path):
    system = pendulum()
    return plotting.animate(system, np.tile(system.q0, (2, 1)), path)


# -- NLPs for the solver plugins --------------------------------------------------------------
def tiny_nlp():
    m = pyo.ConcreteModel("nlp")
    m.x = pyo.Var(initialize=1.0, bounds=(-5, 5))
    m.y = pyo.Var(initialize=0.5)
    return m


def solve_with_option(key, value):
    def run(tmp):
        m = tiny_nlp()
        m.objective = pyo.Objective(expr=(m.x - 2) ** 2)
        solver = get_solver("casadi_ipopt")
        solver.options[key] = value
        solver.solve(m)

    return run


def expr_if(where):
    def run(tmp):
        m = tiny_nlp()
        branch = pyo.Expr_if(IF=m.x >= 0, THEN=m.x, ELSE=-m.x)
        if where == "objective":
            m.objective = pyo.Objective(expr=branch + m.y ** 2)
        else:
            m.objective = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
            m.limit = pyo.Constraint(expr=branch >= 0.5)
        pyo.SolverFactory("casadi_ipopt").solve(m)

    return run


# -- models ----------------------------------------------------------------------------------
def model(name, **options):
    def run(tmp):
        import importlib

        from pyomo_mbdyn.models import MODELS

        return importlib.import_module(MODELS[name]).build(**options)

    return run


def run_model(name, **kwds):
    def run(tmp):
        from pyomo_mbdyn.studies.run import run_model

        return run_model(name, **kwds)

    return run


nan, inf = float("nan"), float("inf")

#: (id, make(tmp), error, pattern)
CASES = [
    # -- bodies --------------------------------------------------------------------------------
    ("body-mass-negative", lambda tmp: RigidBody("arm", -1.0, (1, 1, 1)),
     ConfigurationError, r"RigidBody\('arm'\): mass must be positive, got -1"),
    ("body-mass-zero", lambda tmp: PointMass("bob", 0),
     ConfigurationError, r"PointMass\('bob'\): mass must be positive, got 0"),
    ("body-mass-nan", lambda tmp: RigidBody("arm", nan, (1, 1, 1)),
     ConfigurationError, r"'arm'\): mass must be positive, got nan"),
    ("body-mass-inf", lambda tmp: RigidBody("arm", inf, (1, 1, 1)),
     ConfigurationError, r"'arm'\): mass must be positive, got inf"),
    ("body-mass-text", lambda tmp: RigidBody("arm", "heavy", (1, 1, 1)),
     ConfigurationError, r"'arm'\): mass must be a number, got 'heavy'"),
    ("body-inertia-not-positive-definite", lambda tmp: RigidBody("arm", 1, np.diag([1.0, -1.0, 1.0])),
     ConfigurationError, r"'arm'\): principal moments of inertia must be positive, got \[-1\."),
    ("body-inertia-triangle", lambda tmp: RigidBody("disc", 1, (1.0, 1.0, 3.0)),
     ConfigurationError, r"'disc'\): inertia \(1\.0, 1\.0, 3\.0\) violates the triangle inequality"),
    ("body-inertia-thin-rod", lambda tmp: RigidBody("l", 1.0, (1 / 12, 0, 1 / 12)),
     ConfigurationError, (r"RigidBody\('l'\): principal moments of inertia must be positive, got "
                          r"\[0\.0833\d* 0\. +0\.0833\d*\]: J_2 = 0 is a thin rod along d_2.*small positive "
                          r"axial moment, e\.g\. J_2 = 8\.33e-05 \(1e-3 of the others")),
    ("body-inertia-flat-plate", lambda tmp: RigidBody("plate", 1, (1.0, 1.0, 2.0)),
     ConfigurationError, (r"'plate'\): inertia \(1\.0, 1\.0, 2\.0\) violates the triangle inequality "
                          r"J_3 < J_1 \+ J_2: J_3 = J_1 \+ J_2 is a flat plate.*e\.g\. J_3 = 1\.998")),
    ("body-inertia-triangle-hint", lambda tmp: RigidBody("disc", 1, (1.0, 1.0, 3.0)),
     ConfigurationError, (r"'disc'\): inertia \(1\.0, 1\.0, 3\.0\) violates the triangle inequality "
                          r"J_3 < J_1 \+ J_2: no rigid body has these moments.*J_3 exceeds it by 1\b.*units")),
    ("body-inertia-nan", lambda tmp: RigidBody("arm", 1, (1, nan, 1)),
     ConfigurationError, r"'arm'\): inertia must be 3 finite numbers, got \(1, nan, 1\)"),
    ("body-inertia-tensor-nan", lambda tmp: RigidBody("arm", 1, np.diag([1.0, nan, 1.0])),
     ConfigurationError, r"'arm'\): inertia tensor must be finite, got \[\[1\.0, 0\.0, 0\.0\], \[0\.0, nan"),
    ("body-inertia-text", lambda tmp: RigidBody("arm", 1, "round"),
     ConfigurationError, r"'arm'\): inertia must be 3 principal moments or a 3×3 tensor, got 'round'"),
    ("body-inertia-not-symmetric", lambda tmp: RigidBody("arm", 1, [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]),
     ConfigurationError, r"'arm'\): inertia tensor is not symmetric"),
    ("body-euler-zero", lambda tmp: RigidBody("arm", 1, euler=(0, 1, 1)),
     ConfigurationError, r"'arm'\): Euler-tensor values must be positive, got \[0\. 1\. 1\.\]"),
    ("body-directors-not-orthonormal",
     lambda tmp: RigidBody("arm", 1, (1, 1, 1), directors=[[1, 0, 0], [0, 1, 0], [0, 1, 1]]),
     ConfigurationError, r"'arm'\): directors not orthonormal \(max \|d_i·d_j - δ_ij\| = 1\.0e\+00\)"),
    ("body-directors-left-handed", lambda tmp: RigidBody("arm", 1, (1, 1, 1), directors=np.diag([1, 1, -1])),
     ConfigurationError, r"'arm'\): directors are left-handed"),
    ("body-directors-nan", lambda tmp: RigidBody("arm", 1, (1, 1, 1), directors=np.diag([1.0, nan, 1.0])),
     ConfigurationError, (r"'arm'\): directors must be a 3×3 array of finite numbers, got \[\[1\.0, 0\.0, 0\.0\], "
                          r"\[0\.0, nan")),
    ("body-position-nan", lambda tmp: RigidBody("arm", 1, (1, 1, 1), position=(0, nan, 0)),
     ConfigurationError, r"'arm'\): position must be 3 finite numbers, got \(0, nan, 0\)"),
    ("body-name-empty", lambda tmp: RigidBody("", 1, (1, 1, 1)),
     ConfigurationError, r"body name must be a non-empty string, got ''"),
    ("body-point-nan", lambda tmp: RigidBody("arm", 1, (1, 1, 1), points={"tip": (nan, 0, 0)}),
     ConfigurationError, r"'arm'\): point 'tip' must be 3 finite numbers, got \(nan, 0, 0\)"),
    ("body-point-name-not-text", lambda tmp: RigidBody("arm", 1, (1, 1, 1), points={3: (1, 0, 0)}),
     ConfigurationError, r"'arm'\): point names must be non-empty strings, got 3"),
    ("body-points-not-a-dict", lambda tmp: RigidBody("arm", 1, (1, 1, 1), points=[(1, 0, 0)]),
     InputTypeError, r"'arm'\): points must be a dict .*got list \[\(1, 0, 0\)\]"),
    ("body-point-unknown",
     lambda tmp: Revolute("elbow", None, link(points={"tip": (0.5, 0, 0)}), child_point="toe", axis=(0, 0, 1)),
     ConfigurationError, r"RigidBody\('link'\): no point named 'toe'; known points: \['tip'\]"),
    # -- joints --------------------------------------------------------------------------------
    ("joint-axis-zero", lambda tmp: Revolute("elbow", None, link(), location=(0, 0, 0), axis=(0, 0, 0)),
     ConfigurationError, r"Revolute\('elbow'\): axis must be non-zero"),
    ("joint-axis-nan", lambda tmp: Revolute("elbow", None, link(), location=(0, 0, 0), axis=(0, nan, 1)),
     ConfigurationError, r"Revolute\('elbow'\): axis must be 3 finite numbers, got .*nan"),
    ("joint-axis-missing", lambda tmp: Revolute("elbow", None, link(), location=(0, 0, 0)),
     ConfigurationError, r"Revolute\('elbow'\): a revolute joint needs axis="),
    ("joint-location-nan", lambda tmp: Revolute("elbow", None, link(), location=(0, nan, 0), axis=(0, 0, 1)),
     ConfigurationError, r"Revolute\('elbow'\): location must be 3 finite numbers, got \(0, nan, 0\)"),
    ("joint-location-inf", lambda tmp: Spherical("ball", None, link(), location=(inf, 0, 0)),
     ConfigurationError, r"Spherical\('ball'\): location must be 3 finite numbers, got \(inf, 0, 0\)"),
    ("joint-location-two-numbers", lambda tmp: Revolute("elbow", None, link(), location=(0, 0), axis=(0, 0, 1)),
     ConfigurationError, r"Revolute\('elbow'\): location must be 3 finite numbers, got \(0, 0\)"),
    ("joint-child-a-name", lambda tmp: Revolute("elbow", None, "link", location=(0, 0, 0), axis=(0, 0, 1)),
     InputTypeError, r"Revolute\('elbow'\): child must be a RigidBody or PointMass, got 'link'"),
    ("joint-parent-is-child", lambda tmp: joint_on_itself(),
     ConfigurationError, r"Spherical\('ball'\): parent and child are the same body RigidBody\('link'\)"),
    ("joint-point-mass-on-hinge",
     lambda tmp: Revolute("elbow", None, PointMass("bob", 1.0, position=(1, 0, 0)), location=(1, 0, 0),
                          axis=(0, 0, 1)),
     ConfigurationError, r"Revolute\('elbow'\): the point mass 'bob' lies on the hinge axis .*give location= the "
                         r"hinge point, off the mass"),
    ("joint-point-mass-on-slider",
     lambda tmp: Prismatic("rail", None, PointMass("bob", 1.0, position=(1, 0, 0)), axis=(1, 0, 0)),
     ConfigurationError, r"Prismatic\('rail'\): a point mass \(bob\) can only be attached by a Spherical joint, or "
                         r"hung from a Revolute hinge on a massless rod"),
    ("coordinate-system-drawing-off-its-points",
     lambda tmp: crane_with_drawing(lambda q: ({"trolley": (q[0], 0, 0)}, [("trolley", "hook")])),
     ConfigurationError, r"CoordinateSystem\('crane'\): drawing segment \('trolley', 'hook'\) must join two of "
                         r"the points \['trolley'\]"),
    ("coordinate-system-drawing-point-not-in-space",
     lambda tmp: crane_with_drawing(lambda q: ({"trolley": (q[0], 0)}, [])),
     ConfigurationError, r"CoordinateSystem\('crane'\): drawing point 'trolley' must be 3 finite numbers"),
    ("joint-not-assembled",
     lambda tmp: Revolute("elbow", None, link(), parent_point=(0, 0, 0), child_point=(-0.4, 0, 0), axis=(0, 0, 1)),
     AssemblyError, r"Revolute\('elbow'\): the joint is not assembled .*residual 1\.000e-01"),
    ("joint-unknown-body",
     system_with(lambda s: s.add_bodies(link("arm")),
                 lambda s: s.add_joints(Revolute("elbow", None, link("stranger"), location=(0, 0, 0), axis=(0, 0, 1)))),
     ConfigurationError, (r"Revolute\('elbow'\): child 'stranger' is not a body of MultibodySystem\('sys'\); "
                          r"known bodies: \['arm'\]")),
    ("joint-duplicate-name",
     system_with(lambda s: s.add_bodies(link("a"), link("b", position=(1.5, 0, 0))),
                 lambda s: s.add_joints(Revolute("j", None, s.bodies["a"], location=(0, 0, 0), axis=(0, 0, 1))),
                 lambda s: s.add_joints(Revolute("j", s.bodies["a"], s.bodies["b"], location=(1, 0, 0),
                                                 axis=(0, 0, 1)))),
     ConfigurationError, r"MultibodySystem\('sys'\): name 'j' is already used"),
    # -- assembly ------------------------------------------------------------------------------
    ("system-no-bodies", lambda tmp: block(system=MultibodySystem("empty")),
     AssemblyError, r"MultibodySystem\('empty'\): no bodies"),
    ("system-no-bodies-validate", lambda tmp: MultibodySystem("empty").validate(),
     AssemblyError, r"MultibodySystem\('empty'\): no bodies"),
    ("system-body-a-name", system_with(lambda s: s.add_bodies("arm")),
     InputTypeError, r"MultibodySystem\('sys'\): expected a RigidBody or PointMass, got 'arm'"),
    ("system-joint-a-name", system_with(lambda s: s.add_joints("hinge")),
     InputTypeError, r"MultibodySystem\('sys'\): expected a Joint, got 'hinge'"),
    ("system-body-name-twice", system_with(lambda s: s.add_bodies(link("a"), link("a"))),
     ConfigurationError, r"MultibodySystem\('sys'\): body 'a' added with a name already used"),
    ("system-gravity-nan", lambda tmp: MultibodySystem("sys", gravity=(0, nan, 0)),
     ConfigurationError, r"MultibodySystem\('sys'\): gravity must be 3 finite numbers, got \(0, nan, 0\)"),
    ("actuate-unknown-joint", lambda tmp: pendulum().actuate("knee"),
     ConfigurationError, r"MultibodySystem\('pendulum'\): no joint or body named 'knee'"),
    ("actuate-unknown-coordinate", lambda tmp: pendulum(actuate=False).actuate("hinge", "twist"),
     ConfigurationError, r"hinge has no coordinates \['twist'\]; it has \['angle'\]"),
    ("actuate-twice", lambda tmp: pendulum().actuate("hinge"),
     ConfigurationError, r"MultibodySystem\('pendulum'\): \['hinge\.angle'\] already actuated"),
    ("friction-negative", lambda tmp: pendulum().add_friction("hinge", -1.0),
     ConfigurationError, r"MultibodySystem\('pendulum'\): friction coefficients must be ≥ 0, got -1"),
    # -- grid and horizon -------------------------------------------------------------------------
    ("steps-zero", lambda tmp: block(steps=0),
     ConfigurationError, r"bem block: option 'steps': steps must be a whole number ≥ 1 .*got 0"),
    ("steps-negative", lambda tmp: block(steps=-3),
     ConfigurationError, r"bem block: .*'steps'.*got -3"),
    ("steps-fraction", lambda tmp: block(steps=2.5),
     ConfigurationError, r"bem block: .*'steps'.*steps must be a whole number ≥ 1 .*got 2\.5"),
    ("steps-bool", lambda tmp: block(steps=True),
     ConfigurationError, r"bem block: .*'steps'.*steps must be a whole number ≥ 1 .*got True"),
    ("steps-text", lambda tmp: block(steps="3"),
     ConfigurationError, r"bem block: .*'steps'.*steps must be a whole number ≥ 1 .*got '3'"),
    ("horizon-nan", lambda tmp: block(horizon=nan),
     ConfigurationError, r"bem block: .*'horizon'.*expected a positive finite number, got nan"),
    ("horizon-inf", lambda tmp: block(horizon=inf),
     ConfigurationError, r"bem block: .*'horizon'.*expected a positive finite number, got inf"),
    ("horizon-negative", lambda tmp: block(horizon=-1.0),
     ConfigurationError, r"bem block: .*'horizon'.*got -1\.0"),
    ("horizon-missing", lambda tmp: block(horizon=None),
     ConfigurationError, r"bem block: option 'horizon' is required"),
    ("free-horizon-lower-above-upper", lambda tmp: block(free_horizon=(2.0, 1.0)),
     ConfigurationError, r"bem block: .*'free_horizon'.*0 < lower < upper < inf, got \(2\.0, 1\.0\)"),
    ("free-horizon-nan", lambda tmp: block(free_horizon=(nan, 2.0)),
     ConfigurationError, r"bem block: .*'free_horizon'.*got \(nan, 2\.0\)"),
    # -- schemes --------------------------------------------------------------------------------
    ("scheme-unknown", lambda tmp: block("verlet"),
     ConfigurationError, r"unknown scheme 'verlet'; available: \[.*'bem'"),
    ("scheme-not-a-name", lambda tmp: scheme_block(3, system=pendulum(), steps=3, horizon=1.0),
     ConfigurationError, r"scheme must be a name, got 3"),
    ("scheme-option-not-taken", lambda tmp: block("rattle", contravariant=False),
     ConfigurationError, r"rattle block: the rattle scheme takes no option 'contravariant'"),
    ("scheme-option-bad-value", lambda tmp: block("rem", rotation="euler"),
     ConfigurationError, r"rem block: .*'rotation'.*value euler not in domain \['exp', 'cayley'\]"),
    ("scheme-option-wrong-type", lambda tmp: block("bem", contravariant="maybe"),
     ConfigurationError, r"bem block: .*'contravariant'.*Expected Boolean, but received maybe"),
    ("scheme-system-a-name", lambda tmp: block(system="pendulum"),
     ConfigurationError, r"bem block: .*'system'.*expected a MultibodySystem or CoordinateSystem, got str"),
    ("initial-configuration-length", lambda tmp: block(initial_configuration=np.zeros(5)),
     ConfigurationError, r"MultibodySystem\('pendulum'\): initial state must have length n = 12; .*shape \(5,\)"),
    ("initial-configuration-nan", lambda tmp: block(initial_configuration=np.full(12, nan)),
     ConfigurationError, (r"MultibodySystem\('pendulum'\): the initial configuration must be finite; "
                          r"entry 0 \(link\.phi\.x\) is nan")),
    ("initial-velocity-inf", lambda tmp: block(initial_velocity=np.r_[inf, np.zeros(11)]),
     ConfigurationError, r"the initial velocity must be finite; entry 0 \(link\.phi\.x\) is inf"),
    ("controls-nan", lambda tmp: block(controls=np.full((3, 1), nan)),
     ConfigurationError, r"bem block: controls must be finite; the control of 'hinge\.angle' on interval 0 is nan"),
    ("controls-unactuated", lambda tmp: block(controls={"knee.angle": 1.0}),
     ConfigurationError, r"bem block: controls on unactuated coordinates \['knee\.angle'\]"),
    ("dnco-position-nan",
     lambda tmp: block("dnco", system=pendulum_model.build_system(), initial_position=[nan], final_position=[1.0]),
     ConfigurationError, r"dnco block: .*'initial_position'.*expected finite numbers, got \[nan\]"),
    # -- boundary conditions and targets ----------------------------------------------------------
    ("final-configuration-length", lambda tmp: problem().fix_final_configuration([1.0, 2.0]),
     ConfigurationError, (r"fix_final_configuration: expected 1 finite joint coordinates for \['hinge\.angle'\], "
                          r"got \[1\.0, 2\.0\]")),
    ("final-configuration-unknown-joint", lambda tmp: problem().fix_final_configuration({"knee": 1.0}),
     ConfigurationError, r"fix_final_configuration: 'knee' is neither a joint with coordinates nor a generalised "
                         r"coordinate of .*joints: \['hinge'\]"),
    ("final-configuration-missing", lambda tmp: problem(system=two_links()).fix_final_configuration({"hinge": 1.0}),
     ConfigurationError, r"fix_final_configuration: no value for \['knee\.angle'\]"),
    ("final-configuration-ball-turns", lambda tmp: problem(system=ball_link()).fix_final_configuration([4.0, 0, 0]),
     NotRepresentableError, r"fix_final_configuration \(turns of \['ball\.wx'\]\) on the bem block 'dyn': "
                            r"'ball\.wx' \(spherical\) is a rotation vector.*configurations='absolute'"),
    ("bound-controls-crossed", lambda tmp: problem().bound_controls(2.0, 1.0),
     ConfigurationError, r"bound_controls: lower > upper for \{'hinge\.angle': \(2\.0, 1\.0\)\}"),
    ("bound-controls-unknown", lambda tmp: problem().bound_controls(upper={"knee.angle": 1.0}),
     ConfigurationError, r"bound_controls: upper names \['knee\.angle'\], not among \['hinge\.angle'\]"),
    ("bound-joint-start-outside", lambda tmp: problem().bound_joint("hinge", 0.5, 1.0),
     ConfigurationError, r"bound_joint\('hinge'\): the initial value hinge\.angle = 0 lies outside \[0\.5, 1\.0\]"),
    ("bound-joint-unknown", lambda tmp: problem().bound_joint("knee", 0.5, 1.0),
     ConfigurationError, r"bound_joint: 'knee' is neither a joint"),
    ("bound-joint-ball", lambda tmp: problem(system=ball_link()).bound_joint("ball", -1.0, 1.0),
     NotRepresentableError, r"bound_joint\('ball'\) on the bem block 'dyn': 'ball\.wx' \(spherical\)"),
    ("point-unknown-body", lambda tmp: problem().point("forearm", (0, 0, 1)),
     ConfigurationError, r"point: no body named 'forearm'"),
    ("final-configuration-nan", lambda tmp: problem().fix_final_configuration([nan]),
     ConfigurationError, r"fix_final_configuration: expected 1 finite .*got \[nan\]"),
    # -- closed loops --------------------------------------------------------------------------------
    ("loop-singular-reference", lambda tmp: examples.four_bar(((0, 0, 0), (1, 0, 0), (3, 0, 0), (2, 0, 0))).validate(),
     AssemblyError, r"MultibodySystem\('four-bar'\): q0 is a singular configuration of the loops \['D'\]: the loop "
                    r"constraints have rank 1 there and 2 nearby"),
    ("loop-independent-count", lambda tmp: examples.four_bar().choose_independent("A.angle", "B.angle"),
     LoopReductionError, r"MultibodySystem\('four-bar'\): 2 independent coordinates \['A\.angle', 'B\.angle'\] "
                         r"given; the loops leave 1 degrees of freedom.*bem and dmocc_lm need no reduction"),
    ("loop-independent-unknown", lambda tmp: examples.four_bar().choose_independent("D.angle"),
     ConfigurationError, r"independent coordinates \['D\.angle'\] are not tree coordinates"),
    ("loop-absolute-form", lambda tmp: block("rem", system=examples.four_bar(), configurations="absolute"),
     LoopReductionError, r"rem block: configurations='absolute' cannot close the loops \['D'\] of "
                         r"MultibodySystem\('four-bar'\).*use configurations='lifted'"),
    ("loop-tree-scheme", lambda tmp: block("gc", system=examples.four_bar()),
     ConfigurationError, r"gc block: MultibodySystem\('four-bar'\) has closed loops \['D'\]; the gc scheme needs "
                         r"a tree \(schemes for loops: \['bem', 'rem', 'dmocc', 'dmocc_lm', 'lobatto', 'cg2'\]\)"),
    ("loop-dependent-target", lambda tmp: problem(system=examples.four_bar()).fix_final_configuration({"C": 0.1}),
     ConfigurationError, r"fix_final_configuration: 'C\.angle' is fixed by the closure of the loops \['D'\] "
                         r"\(a dependent coordinate\); give the independent coordinates \['A\.angle'\]"),
    ("loop-turn-target", lambda tmp: problem("rem", system=examples.four_bar()).fix_final_configuration({"A": 4.0}),
     NotRepresentableError, r"fix_final_configuration on the rem block 'dyn': \['A\.angle'\] more than π from "
                            r"the start on a system with closed loops \['D'\]"),
    # a locked joint or body that is actuated (was accepted: a no-op, or a control that solved to u = 0)
    ("actuate-fixed-joint", lambda tmp: welded().actuate("weld"),
     ConfigurationError, r"MultibodySystem\('welded'\): Fixed\('weld'\) locks 'base' to 'ground' and has no "
                         r"coordinates: nothing can act on or damp it"),
    ("actuate-welded-body", lambda tmp: welded().actuate("base"),
     ConfigurationError, r"body 'base' is locked by Fixed\('weld'\) \(no coordinates\)"),
    ("friction-fixed-joint", lambda tmp: welded().add_friction("weld", 1.0),
     ConfigurationError, r"Fixed\('weld'\) locks 'base'"),
    ("actuate-locked-by-loop", lambda tmp: locked_four_bar().actuate("A"),
     ConfigurationError, r"MultibodySystem\('locked-four-bar'\): the loops \['D'\] lock \['A\.angle'\] .*"
                         r"the system has 0 degrees of freedom"),
    # a loop that cannot close at the target (was "do not close for the increments ... take smaller steps")
    ("loop-unreachable-target-bem", lambda tmp: problem(system=non_grashof()).fix_final_configuration({"A": -2.5}),
     ConfigurationError, r"the loops \['D'\] cannot close when \['A\.angle'\] move by \{'A\.angle': -2\.5\} "
                         r"from the given configuration: they close up to \{'A\.angle': -1\.4\}.*outside the "
                         r"linkage's range of motion"),
    ("loop-unreachable-guess", lambda tmp: interpolated_trajectory(non_grashof(), 0.1, 10, [-2.5]),
     ConfigurationError, r"the loops \['D'\] cannot close when \['A\.angle'\] move by .*outside the linkage's "
                         r"range of motion"),
    # the system changed after the block was built (was a numpy broadcast error inside solve, a KeyError)
    ("system-changed-solve", changed_after_build("bem", _grow, lambda m: OptimalControlProblem(m.dyn).solve("casadi_ipopt")),
     ConfigurationError, r"bem block 'dyn': its system MultibodySystem\('pendulum'\) changed since the block was "
                         r"built \(bodies added \['lower'\]; joints added \['knee'\]\); build a new block"),
    ("system-changed-trajectory", changed_after_build("rem", _grow, lambda m: m.dyn.trajectory()),
     ConfigurationError, r"rem block 'dyn': its system .* changed since the block was built \(bodies added"),
    ("system-changed-final", changed_after_build("rem", _grow,
                                                 lambda m: OptimalControlProblem(m.dyn).fix_final_configuration([1.0])),
     ConfigurationError, r"rem block 'dyn': its system .* changed since the block was built"),
    ("system-changed-friction", changed_after_build("gc", lambda s: s.add_friction("hinge", 2.0),
                                                    lambda m: m.dyn.trajectory()),
     ConfigurationError, r"gc block 'dyn': its system .* changed since the block was built \(friction added "
                         r"\['hinge\.angle'\]\)"),
    ("final-configuration-twice-nodes", fix_twice("bem"),
     ConfigurationError, (r"fix_final_configuration: the final configuration of the bem block 'dyn' is already "
                          r"fixed \(θ = \[1\.0\]\)")),
    ("final-configuration-twice-increments", fix_twice("rem"),
     ConfigurationError, r"the final configuration of the rem block 'dyn' is already fixed"),
    ("final-configuration-twice-chart", fix_twice("gc"),
     ConfigurationError, r"the final configuration of the gc block 'dyn' is already fixed"),
    ("final-position-length", lambda tmp: problem().fix_final_position("link", [1.0, 2.0]),
     ConfigurationError, r"fix_final_position of 'link': target must be 3 finite numbers, got \[1\.0, 2\.0\]"),
    ("final-position-nan", lambda tmp: problem().fix_final_position("link", [nan, 0, 0]),
     ConfigurationError, r"fix_final_position of 'link': target must be 3 finite numbers, got \[nan, 0, 0\]"),
    ("final-position-unknown-body", lambda tmp: problem().fix_final_position("arm", [0, 0, 0]),
     ConfigurationError, (r"fix_final_position: no body named 'arm' in MultibodySystem\('pendulum'\); "
                          r"bodies: \['link'\]")),
    ("final-position-unknown-point", lambda tmp: problem().fix_final_position("link", [0, 0, 0], point="tip"),
     ConfigurationError, r"RigidBody\('link'\): no point named 'tip'"),
    ("final-orientation-not-a-rotation", lambda tmp: problem().fix_final_orientation("link", np.ones((3, 3))),
     ConfigurationError, r"fix_final_orientation of 'link': R_target is not a rotation"),
    ("final-orientation-unknown-body", lambda tmp: problem().fix_final_orientation("arm"),
     ConfigurationError, r"fix_final_orientation: no body named 'arm'"),
    ("final-rest-drop-unknown", lambda tmp: problem().require_final_rest(drop=["knee.angle"]),
     ConfigurationError, r"require_final_rest: drop names \['knee\.angle'\], which are not generalised velocities"),
    ("final-rest-twice", twice(lambda p: p.require_final_rest(), lambda p: p.require_final_rest()),
     ConfigurationError, r"require_final_rest: already required on the bem block 'dyn'"),
    ("rotation-increment-bound-nan", lambda tmp: problem("rem").bound_rotation_increments(nan),
     ConfigurationError, r"bound_rotation_increments: limit must be positive, got nan"),
    # -- objectives --------------------------------------------------------------------------------
    ("effort-weight-negative", lambda tmp: problem().minimise_control_effort({"hinge.angle": -1.0}),
     ConfigurationError, (r"minimise_control_effort: weights must be positive and finite, got "
                          r"\{'hinge\.angle': -1\.0\}")),
    ("effort-weight-nan", lambda tmp: problem().minimise_control_effort({"hinge.angle": nan}),
     ConfigurationError, r"minimise_control_effort: weights must be positive and finite, got \{'hinge\.angle': nan\}"),
    ("effort-weight-text", lambda tmp: problem().minimise_control_effort({"hinge.angle": "big"}),
     ConfigurationError, (r"minimise_control_effort: weights must be positive and finite, got "
                          r"\{'hinge\.angle': 'big'\}")),
    ("effort-weights-not-a-dict", lambda tmp: problem().minimise_control_effort(2.0),
     InputTypeError, r"minimise_control_effort: weights must be a dict .*got float 2\.0"),
    ("effort-unknown-actuator", lambda tmp: problem().minimise_control_effort({"knee.angle": 1.0}),
     ConfigurationError, (r"minimise_control_effort: no actuated coordinates \['knee\.angle'\]; "
                          r"actuated: \['hinge\.angle'\]")),
    ("effort-twice", twice(lambda p: p.minimise_control_effort(), lambda p: p.minimise_control_effort()),
     ConfigurationError, r"minimise_control_effort: already called on this problem"),
    ("final-time-weight-negative", lambda tmp: problem(free_horizon=(0.5, 2.0)).minimise_final_time(-1.0),
     ConfigurationError, r"minimise_final_time: weight must be a positive number, got -1\.0"),
    # -- unsupported expressions (casadi_ipopt) -----------------------------------------------------
    ("expr-if-in-objective", expr_if("objective"),
     UnsupportedModelError, r"casadi_ipopt: if-then-else \(Pyomo Expr_if\) in objective 'objective'"),
    ("expr-if-in-constraint", expr_if("constraint"),
     UnsupportedModelError, r"casadi_ipopt: if-then-else \(Pyomo Expr_if\) in constraint 'limit'"),
    # -- blocks that were never solved, guesses of another grid ---------------------------------------
    ("from-block-never-solved", lambda tmp: Trajectory.from_block(block().dyn),
     ConfigurationError, r"Trajectory\.from_block: the bem block 'dyn' of model 'tiny' was never solved"),
    ("initialize-from-another-grid", initialize(lambda: trajectory(steps=5)),
     ConfigurationError, (r"bem block 'dyn': initialize_from: the trajectory's q has shape \(6, 12\), "
                          r"this block needs \(4, 12\)")),
    ("initialize-from-nan", initialize(nan_guess),
     ConfigurationError, r"bem block 'dyn': initialize_from: the trajectory's q\[2, 'link\.d1y'\] is nan"),
    ("initialize-from-not-a-trajectory", initialize("guess.npz"),
     InputTypeError, r"bem block 'dyn': initialize_from needs a Trajectory .*got str"),
    # -- results files ------------------------------------------------------------------------------
    ("results-missing", lambda tmp: results.load(tmp / "nowhere.npz"),
     MissingFileError, r"no results file '.*nowhere\.npz'"),
    ("results-truncated", truncated,
     ResultsFileError, r"truncated\.npz: not a results archive .*BadZipFile"),
    ("results-corrupted", corrupted,
     ResultsFileError, r"corrupted\.npz: corrupted or not written by Trajectory\.save \(BadZipFile: Bad CRC-32"),
    ("results-not-ours", not_ours,
     ResultsFileError, r"other\.npz: not a SolvedTrajectory archive \(no 'header' member\)"),
    ("results-text-file", lambda tmp: results.load(write(tmp, "text.npz", b"hello world\n")),
     ResultsFileError, r"text\.npz: not a results archive \(\.npz written by Trajectory\.save\)"),
    ("results-empty-file", lambda tmp: results.load(write(tmp, "empty.npz", b"")),
     ResultsFileError, r"empty\.npz: not a results archive"),
    ("results-a-directory", lambda tmp: results.load(tmp),
     ResultsFileError, r": is a directory, not a results archive"),
    ("results-npy-array", npy,
     ResultsFileError, r"array\.npy: a single numpy array, not a results archive"),
    ("results-header-not-json", header_not_json,
     ResultsFileError, r"header\.npz: corrupted or not written by Trajectory\.save \(JSONDecodeError"),
    # -- output destinations ------------------------------------------------------------------------
    ("save-missing-directory", lambda tmp: trajectory().save(tmp / "no" / "such" / "t.npz"),
     DestinationError, r"cannot write the results file '.*t\.npz': the directory '.*such' does not exist"),
    ("save-under-a-file", lambda tmp: trajectory().save(a_file(tmp) / "t.npz"),
     DestinationError, r"cannot write the results file '.*t\.npz': '.*a-file' is a file, not a directory"),
    ("save-unwritable", lambda tmp: trajectory().save(unwritable_directory(tmp) / "t.npz"),
     DestinationError, r"cannot write the results file '.*t\.npz': "),
    ("animate-under-a-file", lambda tmp: animate(a_file(tmp) / "sub" / "a.gif"),
     DestinationError, r"cannot write the animation '.*a\.gif': '.*a-file' is a file, not a directory"),
    ("animate-into-a-directory", lambda tmp: animate((tmp / "d.gif", (tmp / "d.gif").mkdir())[0]),
     DestinationError, r"cannot write the animation '.*d\.gif': it is a directory"),
    ("animate-unwritable", lambda tmp: animate(unwritable_directory(tmp) / "a.gif"),
     DestinationError, r"cannot write the animation '.*a\.gif': "),
    ("figures-directory-is-a-file", lambda tmp: plotting.output_directory(a_file(tmp)),
     DestinationError, r"cannot write figures into '.*a-file': it is a file, not a directory"),
    ("figures-directory-unwritable", lambda tmp: plotting.output_directory(unwritable_directory(tmp) / "figs"),
     DestinationError, r"cannot write figures into '.*figs'"),
    # -- solver names and options ---------------------------------------------------------------------
    ("solver-unknown", lambda tmp: get_solver("no_such_solver"),
     SolverUnavailableError, r"solver 'no_such_solver' is not available here; available: .*casadi_ipopt"),
    ("ipopt-unknown-option", solve_with_option("no_such_option", 3),
     ConfigurationError, (r"casadi_ipopt: the solver rejected its options \{'no_such_option': 3\}: "
                          r".*No such IPOPT option: no_such_option")),
    ("ipopt-option-wrong-type", solve_with_option("max_iter", "many"),
     ConfigurationError, r"casadi_ipopt: the solver rejected its options \{'max_iter': 'many'\}"),
    # -- models' build options --------------------------------------------------------------------------
    ("model-unknown", run_model("pendulm"),
     ConfigurationError, r"unknown model 'pendulm'; available: \[.*'pendulum'"),
    ("model-option-unknown", run_model("three-link-arm", options={"speed": 1}),
     ConfigurationError, r"model 'three-link-arm' takes no option 'speed'; its options are \['case', "),
    ("model-option-unknown-forwarded", run_model("satellite-underactuated", options={"rotors": (1,)}),
     ConfigurationError, r"model 'satellite-underactuated' takes no option 'rotors'"),
    ("model-option-unknown-direct", model("three-link-arm", steps=3, speed=1),
     ConfigurationError, r"model 'three-link-arm' takes no option 'speed'; its options are \['case', "),
    ("model-option-unknown-direct-dnco", model("pendulum", weight=2.0),
     ConfigurationError, r"model 'pendulum' takes no option 'weight'; its options are \['gradient'\]"),
    ("three-link-arm-case", model("three-link-arm", steps=3, case="fast"),
     ConfigurationError, r"three-link-arm: unknown case 'fast'; choose from \('free', "),
    ("three-link-arm-keep-motors-too-many", model("three-link-arm", steps=3, keep_motors=5),
     ConfigurationError, r"three-link-arm: keep_motors must be .* an integer in 1\.\.3 .*got 5"),
    ("three-link-arm-keep-motors-text", model("three-link-arm", steps=3, keep_motors="two"),
     ConfigurationError, r"three-link-arm: keep_motors must be .*got 'two'"),
    ("satellite-spin-case", model("satellite-spin", steps=3, case="fast"),
     ConfigurationError, r"satellite-spin: unknown case 'fast'; use one of \('friction', 'torque'\)"),
    ("satellite-guess", model("satellite", steps=3, guess="random"),
     ConfigurationError, r"satellite: guess must be 'simulate' or 'interpolate', got 'random'"),
    ("satellite-rotors", model("satellite", steps=3, rotors=(4,)),
     ConfigurationError, r"satellite: rotors must be distinct rotor numbers from \(1, 2, 3\), .*got \(4,\)"),
    ("satellite-selection-keep", model("satellite-actuator-selection", steps=3, keep=0),
     ConfigurationError, r"satellite-actuator-selection: keep must be .* an integer in 1\.\.3, got 0"),
    ("minimum-time-mass-mass", model("minimum-time-mass", mass=-1),
     ConfigurationError, r"minimum-time-mass: option 'mass' must be a positive number, got -1"),
    ("pitcher-free-time", model("pitcher", steps=3, free_time="yes"),
     ConfigurationError, r"pitcher: free_time must be true or false, got 'yes'"),
    ("sphere-configurations", model("sphere", steps=3, configurations="weird"),
     ConfigurationError, r"dmocc block: .*'configurations'.*value weird not in domain"),
    ("sphere-turns-beyond-increment-bound", model("sphere", steps=10, turns=3),
     ConfigurationError, r"sphere: 3 turns on 10 steps is 1\.88 rad per step, beyond increment_bound=1 rad: "
                         r"use steps >= 19, turns <= 1, or increment_bound >= 1\.88 \(0 or null: no bound\)"),
]


def test_the_catalogue_is_large_and_its_names_are_distinct():
    assert len(CASES) >= 45
    assert len({case[0] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("make, error, pattern", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_is_refused_by_name(make, error, pattern, tmp_path):
    with pytest.raises(error, match=pattern) as info:
        make(tmp_path)
    assert isinstance(info.value, MbdynError), type(info.value).__mro__
    assert isinstance(info.value, BUILTIN_ERRORS), type(info.value).__mro__


# -- documented behaviours with a warning ---------------------------------------------------------
def test_a_joint_far_from_both_bodies_warns_and_is_kept():
    """Legal (a massless link), usually a slip: a ModellingWarning naming the joint and the distances."""
    with pytest.warns(ModellingWarning, match=r"Revolute\('elbow'\): the joint point lies far from the bodies "
                                              r"it joins \(99\.5 from 'link' \(size 0\.574\)\)"):
        joint = Revolute("elbow", None, link(), location=(100, 0, 0), axis=(0, 0, 1))
    system = MultibodySystem("far")
    system.add_bodies(joint.child)
    system.add_joints(joint)
    assert system.validate()["dof"] == 1


def test_joints_near_a_body_or_on_point_masses_do_not_warn(recwarn):
    Revolute("hinge", None, link(), location=(0, 0, 0), axis=(0, 0, 1))  # at the end of the link
    trolley = link("trolley", position=(0, 0, 0))
    Spherical("rope", trolley, PointMass("load", 1.0, position=(0, -50, 0)))  # a crane's 50 m rope
    assert not [w for w in recwarn if issubclass(w.category, ModellingWarning)]


@pytest.mark.parametrize("scheme", ["bem", "dmocc_lm", "rattle"])
def test_turns_in_a_node_form_scheme_are_imposed_by_the_summed_joint_angle(scheme, recwarn):
    """bem, dmocc_lm and rattle fix q(θ), which holds 100 rad as 100 - 16·2π ≈ -0.531 rad; the
    row θ - π ≤ θ_N ≤ θ + π on the summed joint angle selects the turn."""
    p = problem(scheme)
    p.fix_final_configuration([100.0])
    assert p.dyn.body["link"].q[3, "d1x"].fixed
    row = p.block.final_turns["hinge.angle"]
    assert (row.lower, row.upper) == pytest.approx((100.0 - np.pi, 100.0 + np.pi))
    assert not [w for w in recwarn if issubclass(w.category, ModellingWarning)]


@pytest.mark.parametrize("scheme", ["rem", "dmocc", "gc", "bem"])
def test_turns_that_the_scheme_represents_do_not_warn(scheme, recwarn):
    """rem and dmocc sum the increments, gc fixes the angle: 100 rad is 100 rad; within π no form warns."""
    problem(scheme).fix_final_configuration([100.0 if scheme != "bem" else 3.0])
    assert not [w for w in recwarn if issubclass(w.category, ModellingWarning)]


def test_from_block_reads_a_never_solved_block_when_asked():
    dyn = block().dyn
    assert dyn.never_solved
    traj = Trajectory.from_block(dyn, allow_unsolved=True)
    np.testing.assert_array_equal(traj.q, np.tile(dyn.system.q0, (4, 1)))


def test_from_block_reads_a_block_that_was_initialised_or_solved():
    guess = trajectory()
    guess.u[:] = 0.25
    initialised = block().dyn
    initialised.initialize_from(guess)
    assert not initialised.never_solved
    np.testing.assert_array_equal(Trajectory.from_block(initialised).u, guess.u)
    m = block(controls=np.zeros((3, 1)))  # forward simulation: a square system
    result = pyo.SolverFactory("casadi_ipopt").solve(m)
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    assert not m.dyn.never_solved  # the model holds the solver's solution
    assert Trajectory.from_block(m.dyn).q[-1, 1] < 0  # the link fell under gravity


def test_a_missing_animation_directory_is_created(tmp_path):
    """Plotting destinations: a directory that does not exist is created (documented in animate)."""
    path = animate(tmp_path / "new" / "sub" / "a.gif")
    assert path.is_file()
    assert plotting.output_directory(tmp_path / "figures" / "run1").is_dir()
    assert list((tmp_path / "figures" / "run1").iterdir()) == []  # the write test leaves nothing


def test_a_reachable_crank_angle_of_the_non_grashof_four_bar_closes():
    """The refusal above is the range of motion, not the linkage: -1.3 rad closes to round-off."""
    from pyomo_mbdyn.mechanics.loops import move_independent

    system = non_grashof()
    q = move_independent(system, [-1.3], system.q0)
    assert np.abs(np.asarray(system.constraints(q), float)).max() < 1e-12
    free = welded()
    free.actuate("elbow")
    assert free.actuated == ["elbow.angle"]
