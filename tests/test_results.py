"""SolvedTrajectory: construction checks, save/load bit for bit, from_block, to_dataframe."""

import json
import math
import zipfile

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import assume, given

from pyomo_mbdyn.errors import ConfigurationError, ModellingWarning
from pyomo_mbdyn.results import SolvedTrajectory, load

DTYPES = st.sampled_from(["<f8", ">f8", "<f4", "<f2", "<c16", "<i8", ">i4", "<u2", "|b1", "|i1"])
#: the motion's arrays t, q, v, u, nu are real; bool and complex stay for extras
REAL_DTYPES = st.sampled_from(["<f8", ">f8", "<f4", "<f2", "<i8", ">i4", "<u2", "|i1"])


def _same_bits(a, b):
    """Bit-for-bit equality, and the numpy view of it (NaN-aware, dtype and shape)."""
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()
    assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def _assert_round_trip(traj, path):
    written = traj.save(path)
    back = load(written)
    for name in ("t", "q", "v", "u", "nu"):
        _same_bits(getattr(traj, name), getattr(back, name))
    assert back.extras.keys() == traj.extras.keys()
    for key in traj.extras:
        _same_bits(traj.extras[key], back.extras[key])
    assert (back.coordinates, back.controls, back.velocities) == (traj.coordinates, traj.controls, traj.velocities)
    assert json.dumps(back.metadata, sort_keys=True) == json.dumps(traj.metadata, sort_keys=True)
    assert back.identical(traj)
    return back


def _trajectory(N=3, n=2, n_act=1, dof=2, **kwds):
    rng = np.random.default_rng(0)
    fields = dict(t=np.linspace(0, 1, N + 1), q=rng.normal(size=(N + 1, n)), v=rng.normal(size=(N + 1, n)),
                  u=rng.normal(size=(N, n_act)), nu=rng.normal(size=(N, dof)),
                  coordinates=[f"c{i}" for i in range(n)], controls=[f"a{i}" for i in range(n_act)],
                  velocities=[f"w{i}" for i in range(dof)], metadata={"model": "test"})
    fields.update(kwds)
    return SolvedTrajectory(**fields)


@st.composite
def trajectories(draw):
    N = draw(st.integers(0, 5))
    n, n_act, dof = (draw(st.integers(0, 4)) for _ in range(3))
    dtype = draw(REAL_DTYPES)

    def array(shape):
        return draw(hnp.arrays(dtype, shape, elements=None if dtype != "<f2" else st.floats(width=16)))

    extras = {}
    for j in range(draw(st.integers(0, 3))):
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
        extras[f"extra_{j}.x"] = draw(hnp.arrays(draw(DTYPES), shape))
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers(-2**60, 2**60) | st.floats() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=8)
    # 'h' is the step size, a positive number (tested with the other constructor checks)
    metadata = draw(st.dictionaries(st.text(max_size=10).filter(lambda key: key != "h"), json_values, max_size=6))
    names = st.text(max_size=6)
    # node times: finite and strictly increasing, in any real dtype of the list
    t_dtype = draw(st.sampled_from(["<f8", ">f8", "<f4", "<f2", "<i8", ">i4", "<u2", "|i1"]))
    times = np.sort(draw(hnp.arrays(t_dtype, (N + 1,), unique=True, elements=(
        st.floats(-1e4, 1e4, width=8 * int(t_dtype[-1])).map(lambda x: x + 0.0) if "f" in t_dtype else None))))
    q = array((N + 1, n))
    assume(q.size == 0 or np.isfinite(q).any())  # a q without one finite entry is refused (tested below)
    return SolvedTrajectory(
        t=times, q=q, v=array((N + 1, n)), u=array((N, n_act)), nu=array((N, dof)),
        coordinates=draw(st.lists(names, min_size=n, max_size=n, unique=True)),
        controls=draw(st.lists(names, min_size=n_act, max_size=n_act, unique=True)),
        velocities=draw(st.lists(names, min_size=dof, max_size=dof, unique=True)),
        metadata=metadata, extras=extras)


@given(traj=trajectories())
def test_round_trip_is_bit_for_bit(traj, tmp_path_factory):
    _assert_round_trip(traj, tmp_path_factory.mktemp("rt") / "trajectory.npz")


def test_round_trip_special_values(tmp_path):
    """NaN payloads, signed zeros, infinities, empty arrays and non-contiguous input."""
    payload_nan = np.array([0x7FF8000000000123], dtype="<u8").view("<f8")[0]
    q = np.array([[np.nan, -0.0, np.inf], [payload_nan, 0.0, -np.inf]])
    u = np.empty((1, 0))
    traj = _trajectory(N=1, n=3, n_act=0, dof=0, q=q, v=np.asfortranarray(q[:, ::-1]), u=u,
                       nu=np.zeros((1, 0), dtype=np.float32),
                       extras={"costate": np.full((2, 3), np.nan), "empty": np.zeros((0, 5)),
                               "scalar": np.float64(-0.0)},
                       metadata={"objective": float("nan"), "status": "optimal", "solver": None,
                                 "iterations": np.int64(19), "grid": (0.0, 0.5), "φ": "ünïcode"})
    back = _assert_round_trip(traj, tmp_path / "special")  # numpy appends .npz
    assert math.isnan(back.metadata["objective"])
    assert back.metadata["iterations"] == 19 and type(back.metadata["iterations"]) is int
    assert back.metadata["grid"] == [0.0, 0.5]
    assert np.signbit(back.q[0, 1]) and np.signbit(back.extras["scalar"])
    assert back.q[1, 0].view("<u8") == 0x7FF8000000000123


def test_archive_holds_no_pickles(tmp_path):
    path = _trajectory(extras={"lam": np.ones(3)}).save(tmp_path / "a.npz")
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == sorted(
            ["header.npy", "t.npy", "q.npy", "v.npy", "u.npy", "nu.npy", "extra.lam.npy"])
    with np.load(path, allow_pickle=False) as data:
        assert all(data[k].dtype != object for k in data.files)
        header = json.loads(str(data["header"][()]))
    assert header["metadata"] == {"model": "test"} and header["extras"] == ["lam"]


@pytest.mark.parametrize("change, field", [
    (dict(t=np.zeros((2, 2))), "t must be a 1-D"),
    (dict(t=np.zeros(0)), "t must be a 1-D"),
    (dict(q=np.zeros((3, 2))), "q must have shape"),
    (dict(v=np.zeros((4, 3))), "v must have the shape of q"),
    (dict(u=np.zeros((4, 1))), "u must have shape"),
    (dict(nu=np.zeros(3)), "nu must have shape"),
    (dict(q=np.array([["a", "b"]] * 4)), "q must hold numbers"),
    (dict(u=np.empty((3, 1), dtype=object)), "u must hold numbers"),
    (dict(coordinates=["c0"]), "coordinates has 1 names but q has 2"),
    (dict(controls="a0"), "controls must be a sequence"),
    (dict(velocities=["w0", 1]), "velocities must be strings"),
    (dict(metadata={"objective": np.zeros(2)}), "metadata['objective']"),
    (dict(metadata={"a": {1: 2}}), "key 1"),
    (dict(metadata=[("a", 1)]), "metadata must be a dict"),
    (dict(extras={"bad/name": np.zeros(1)}), "extras name 'bad/name'"),
    (dict(extras={"x": np.array(["s"])}), "extras['x'] must hold numbers"),
])
def test_bad_input_names_the_field(change, field):
    with pytest.raises(ConfigurationError, match=field.replace("[", r"\[").replace("(", r"\(")):
        _trajectory(**change)
    with pytest.raises(ValueError):  # also the builtin type
        _trajectory(**change)


def test_load_rejects_other_archives(tmp_path):
    np.savez(tmp_path / "plain.npz", t=np.zeros(2))
    with pytest.raises(ConfigurationError, match="no 'header'"):
        load(tmp_path / "plain.npz")
    np.savez(tmp_path / "future.npz", header=np.array(json.dumps({"format": "pyomo_mbdyn.SolvedTrajectory",
                                                                  "version": 99})))
    with pytest.raises(ConfigurationError, match="version 99"):
        load(tmp_path / "future.npz")
    # a file of the version before the controls became the applied forces: refused, and why
    old = _trajectory().save(tmp_path / "old.npz")
    with np.load(old) as archive:
        members = {name: archive[name] for name in archive.files}
    header = json.loads(str(members["header"][()]))
    members["header"] = np.array(json.dumps({**header, "version": 1}))
    np.savez(tmp_path / "old.npz", **members)
    with pytest.raises(ConfigurationError, match="version 1, written before the controls became the applied"):
        load(tmp_path / "old.npz")


def test_identical_detects_any_difference():
    a = _trajectory()
    assert a.identical(_trajectory())
    assert not a.identical(_trajectory(metadata={"model": "other"}))
    assert not a.identical(_trajectory(q=a.q.astype(np.float32)))
    flipped = a.q.copy()
    flipped[0, 0] = np.nextafter(flipped[0, 0], np.inf)
    assert not a.identical(_trajectory(q=flipped))
    assert not a.identical(_trajectory(extras={"x": np.zeros(1)}))


@pytest.fixture(scope="module")
def arm_model():
    """A BEM block (3 steps) on a pendulum of a rigid link and a point mass, not
    solved: from_block reads whatever values the variables hold."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics import MultibodySystem, PointMass, Revolute, RigidBody, Spherical
    from pyomo_mbdyn.schemes import scheme_block

    link = RigidBody("link", 1.0, (0.01, 0.1, 0.1), position=(0.5, 0, 0))
    bob = PointMass("bob", 0.5, position=(1.0, 0, 0))
    system = MultibodySystem("pendulum", gravity=(0, -9.81, 0))
    system.add_bodies(link, bob)
    system.add_joints(Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1)),
                      Spherical("ball", link, bob, location=(1, 0, 0)))
    system.actuate("hinge")
    m = pyo.ConcreteModel("pendulum-test")
    m.dyn = scheme_block("bem", system=system, steps=3, horizon=0.3)
    for i in m.dyn.intervals:
        m.dyn.u[i, "hinge.angle"].value = 0.5 * i
    return m


def test_from_block_reads_the_block(arm_model, tmp_path):
    dyn = arm_model.dyn
    traj = SolvedTrajectory.from_block(dyn, solver="casadi_ipopt", status="optimal", objective=None,
                                       iterations=np.int64(7), extras={"lam": np.arange(6.0).reshape(2, 3)})
    tr_dyn = dyn.trajectory()
    t, q, v, u, nu = tr_dyn.t, tr_dyn.q, tr_dyn.v, tr_dyn.u, tr_dyn.nu
    for mine, theirs in ((traj.t, t), (traj.q, q), (traj.v, v), (traj.u, u), (traj.nu, nu)):
        _same_bits(mine, theirs)
    np.testing.assert_array_equal(traj.u[:, 0], [0.0, 0.5, 1.0])
    assert traj.coordinates == ("link.x", "link.y", "link.z", "link.d1x", "link.d1y", "link.d1z",
                                "link.d2x", "link.d2y", "link.d2z", "link.d3x", "link.d3y", "link.d3z",
                                "bob.x", "bob.y", "bob.z")
    assert traj.controls == ("hinge.angle",)
    assert traj.velocities == ("hinge.angle",)  # a point mass on a ball joint at its centre adds none
    assert traj.metadata == {"model": "pendulum-test", "system": "pendulum", "scheme": "bem", "steps": 3,
                             "horizon": 0.3, "h": pytest.approx(0.1), "solver": "casadi_ipopt",
                             "status": "optimal", "objective": None, "iterations": 7,
                             # set by hand, never solved: the block says so whatever the caller claims
                             "solved": False, "solution_status": None}
    with pytest.warns(ModellingWarning, match="not a solver's solution"):
        assert _assert_round_trip(traj, tmp_path / "pendulum.npz").steps == 3


def test_from_block_rejects_other_objects():
    with pytest.raises(ConfigurationError, match="not a scheme block"):
        SolvedTrajectory.from_block(object())


def test_to_dataframe_layout():
    traj = _trajectory(N=3, n=2, n_act=1, dof=2, extras={"lam": np.ones((3, 2)), "cost": np.arange(4.0),
                                                         "tensor": np.zeros((4, 2, 2))})
    df = traj.to_dataframe()
    assert df.index.name == "k" and len(df) == 4
    np.testing.assert_array_equal(df["t"].to_numpy().ravel(), traj.t)
    np.testing.assert_array_equal(df["q"].to_numpy(), traj.q)
    np.testing.assert_array_equal(df[("v", "c1")].to_numpy(), traj.v[:, 1])
    assert list(df["u"].columns) == ["a0"] and list(df["nu"].columns) == ["w0", "w1"]
    np.testing.assert_array_equal(df["u"].to_numpy()[:3], traj.u)
    assert np.isnan(df["u"].to_numpy()[3]).all() and np.isnan(df["lam"].to_numpy()[3]).all()
    np.testing.assert_array_equal(df[("cost", "0")].to_numpy(), np.arange(4.0))
    assert "tensor" not in df.columns.get_level_values(0)
