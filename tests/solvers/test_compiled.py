"""Step derivatives as native code (pyomo_mbdyn.solvers.compiled): the same NLP to the
last bit, the same solve, a disk cache used by the next translation, and every way it
can fail ending in the interpreter with one named line, never in a failed solve."""

import logging
import os
import time

import casadi as ca
import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import three_link_arm
from pyomo_mbdyn.solvers import compiled, native_build
from pyomo_mbdyn.solvers.pyomo_to_casadi import translate

pytestmark = pytest.mark.skipif(compiled.compiler() is None, reason="no C compiler on PATH")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("PYOMO_MBDYN_CACHE", str(folder))
    monkeypatch.setattr(compiled, "_LOADED", {})
    return folder


def _derivatives(nlp, x, lam):
    fun = nlp.extras["functions"]
    P = ca.DM(0, 1)
    g, jac = fun["jac_g"](x, P)
    return [np.asarray(a.full()) for a in (g, jac, fun["hess_lag"](x, P, 0.7, lam))]


def _libraries(folder):
    return sorted(p for p in os.listdir(folder) if p.endswith(".so")) if folder.exists() else []


def test_compiled_derivatives_equal_the_interpreted_ones_bit_for_bit(cache):
    """The generated C performs CasADi's operations in the same order: g, ∇g and ∇²L of
    the arm's REM (composed charts) and BEM NLPs are identical, not merely close."""
    for scheme in ("rem", "bem"):
        m = three_link_arm.build(scheme, steps=6)
        plain = translate(m, compiled="never")
        native = translate(m, compiled="always")
        rng = np.random.default_rng(1)
        x = plain.x0 + 1e-2 * rng.standard_normal(plain.n_var)
        lam = rng.standard_normal(plain.n_con)
        for a, b in zip(_derivatives(plain, x, lam), _derivatives(native, x, lam)):
            np.testing.assert_array_equal(a, b)
    assert len(_libraries(cache)) >= 2  # one family per scheme at least


def test_the_same_solve_and_the_cache_serves_the_next_translation(cache, monkeypatch):
    m = three_link_arm.build("rem", steps=10)
    results = {}
    for mode in ("never", "always"):
        m2 = three_link_arm.build("rem", steps=10)
        solver = pyo.SolverFactory("casadi_ipopt", compiled=mode)
        r = solver.solve(m2)
        n_native, n_groups = solver.native_groups
        assert n_groups > 0 and n_native == (n_groups if mode == "always" else 0)
        results[mode] = (str(r.solver.termination_condition), r.solver.iterations, pyo.value(next(m2.component_data_objects(pyo.Objective, active=True))))
    assert results["never"] == results["always"]
    built = _libraries(cache)
    assert built
    # a new process (no library loaded) with no way to compile still gets it from disk
    monkeypatch.setattr(compiled, "_LOADED", {})
    monkeypatch.setattr(native_build, "build", lambda *a, **k: pytest.fail("compiled again"))
    nlp = translate(m, compiled="always")
    assert any(isinstance(f, ca.Function) and f.class_name() == "External"
               for f in compiled._LOADED.get(built[0][:-3], ()))
    assert _libraries(cache) == built
    assert nlp.n_var > 0


def test_auto_compiles_large_steps_in_the_background_and_small_ones_never(cache, monkeypatch):
    m = three_link_arm.build("gc", steps=6)
    translate(m, compiled="auto")  # the arm's step is far below the threshold
    assert not cache.exists() or not os.listdir(cache)
    monkeypatch.setattr(compiled, "AUTO_MIN_INSTRUCTIONS", 0)
    t0 = time.perf_counter()
    nlp = translate(m, compiled="auto")  # this translation interprets; a process compiles
    assert not compiled._LOADED
    deadline = t0 + 300
    while not _libraries(cache) and time.perf_counter() < deadline:
        time.sleep(0.2)
    assert _libraries(cache), "the background compile left no library"
    while any(p.endswith(".lock") or p.startswith(".") for p in os.listdir(cache)):
        assert time.perf_counter() < deadline, os.listdir(cache)
        time.sleep(0.2)
    again = translate(m, compiled="auto")
    assert compiled._LOADED
    x = nlp.x0 + 0.01
    lam = np.linspace(-1, 1, nlp.n_con)
    for a, b in zip(_derivatives(nlp, x, lam), _derivatives(again, x, lam)):
        np.testing.assert_array_equal(a, b)


def test_without_a_compiler_one_line_and_the_interpreter(cache, monkeypatch, caplog):
    monkeypatch.setattr(compiled, "compiler", lambda: None)
    monkeypatch.setattr(compiled, "_NOTED", set())
    m = three_link_arm.build("rem", steps=6)
    with caplog.at_level(logging.WARNING, logger="pyomo_mbdyn.solvers"):
        translate(m, compiled="always")
        translate(m, compiled="always")
    notes = [r.getMessage() for r in caplog.records if "no C compiler" in r.getMessage()]
    assert len(notes) == 1
    assert not compiled._LOADED and not _libraries(cache)


def test_a_failing_compiler_is_named_and_the_solve_goes_on(cache, monkeypatch, caplog, tmp_path):
    broken = tmp_path / "broken-cc"
    broken.write_text("#!/bin/sh\necho 'broken-cc: cannot compile' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("CC", str(broken))
    monkeypatch.setattr(compiled, "_NOTED", set())
    m = three_link_arm.build("rem", steps=6)
    with caplog.at_level(logging.WARNING, logger="pyomo_mbdyn.solvers"):
        r = pyo.SolverFactory("casadi_ipopt", compiled="always").solve(m)
    assert str(r.solver.termination_condition) == "optimal"
    assert any("broken-cc: cannot compile" in rec.getMessage() for rec in caplog.records)
    assert not _libraries(cache) and not [p for p in os.listdir(cache) if p.startswith(".")]


def test_a_damaged_library_is_compiled_again(cache, monkeypatch, tmp_path):
    """A file in the cache that is not a library (a disk fault, a truncated copy) is
    compiled again, not loaded.  (Its names are learnt in a first cache: a library once
    loaded stays mapped in this process, and a file is never rewritten in place.)"""
    m = three_link_arm.build("rem", steps=6)
    translate(m, compiled="always")
    libraries = _libraries(cache)
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for library in libraries:
        (damaged / library).write_bytes(b"not a shared object")
    monkeypatch.setenv("PYOMO_MBDYN_CACHE", str(damaged))
    compiled._LOADED.clear()
    nlp = translate(m, compiled="always")
    assert len(compiled._LOADED) == len(libraries) and nlp.n_var > 0
    assert all((damaged / library).read_bytes()[:4] == b"\x7fELF" for library in libraries)


@pytest.mark.parametrize("value", ["sometimes", 2, ""])
def test_a_bad_mode_is_named(value):
    with pytest.raises(ConfigurationError, match="compiled"):
        compiled.resolve_mode(value if value != "" else "fast")
    m = three_link_arm.build("rem", steps=4)
    with pytest.raises(ConfigurationError, match=repr(value if value != "" else "fast")):
        pyo.SolverFactory("casadi_ipopt", compiled=value if value != "" else "fast").solve(m)


def test_the_environment_sets_the_default(monkeypatch):
    monkeypatch.setenv("PYOMO_MBDYN_COMPILE", "Never")
    assert compiled.resolve_mode(None) == "never"
    monkeypatch.setenv("PYOMO_MBDYN_COMPILE", "quick")
    with pytest.raises(ConfigurationError, match="PYOMO_MBDYN_COMPILE = 'quick'"):
        compiled.resolve_mode(None)
    monkeypatch.delenv("PYOMO_MBDYN_COMPILE")
    assert compiled.resolve_mode(None) == "auto"
    assert compiled.resolve_mode(True) == "always" and compiled.resolve_mode(False) == "never"


def test_prune_keeps_the_most_recently_used_libraries(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    for i, name in enumerate(["old.so", "middle.so", "new.so"]):
        (folder / name).write_bytes(b"x" * 100)
        os.utime(folder / name, (1000 + i, 1000 + i))
    (folder / "other.txt").write_bytes(b"y" * 1000)
    assert compiled.prune(str(folder), limit=250) == ["old.so"]
    assert sorted(os.listdir(folder)) == ["middle.so", "new.so", "other.txt"]
    assert compiled.prune(str(folder), limit=0) == ["middle.so", "new.so"]
    assert compiled.prune(str(tmp_path / "absent")) == []


def test_a_cache_folder_others_may_write_to_is_not_used(cache, monkeypatch, caplog):
    """A library is code run in the solve's process: none is loaded from, or built into, a folder
    that group or others may write to (one could plant one there)."""
    cache.mkdir()
    cache.chmod(0o777)
    monkeypatch.setattr(compiled, "_NOTED", set())
    m = three_link_arm.build("rem", steps=6)
    with caplog.at_level(logging.WARNING, logger="pyomo_mbdyn.solvers"):
        translate(m, compiled="always")
    assert not compiled._LOADED and not _libraries(cache)
    assert any("writable by others" in r.getMessage() and "777" in r.getMessage() for r in caplog.records)
    cache.chmod(0o700)
    translate(m, compiled="always")
    assert compiled._LOADED


def test_the_cache_folder_is_created_private(cache):
    translate(three_link_arm.build("rem", steps=6), compiled="always")
    assert cache.stat().st_mode & 0o077 == 0


def test_one_compiler_at_a_time_and_none_for_huge_steps(cache, monkeypatch):
    """While a compile holds the cache folder's slot, an auto translation interprets and starts
    nothing (a sweep over a large model started one 4–7 GB compiler per family); a step above
    AUTO_MAX_INSTRUCTIONS is never compiled by auto."""
    import fcntl

    m = three_link_arm.build("gc", steps=6)
    monkeypatch.setattr(compiled, "AUTO_MIN_INSTRUCTIONS", 0)
    cache.mkdir(mode=0o700)
    fd = os.open(cache / compiled.SLOT, os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a compile in another process
    try:
        assert compiled.slot_taken(str(cache))
        translate(m, compiled="auto")
        time.sleep(0.5)
        assert sorted(os.listdir(cache)) == [compiled.SLOT]  # no family lock, no build folder, no process
    finally:
        os.close(fd)
    assert not compiled.slot_taken(str(cache))
    monkeypatch.setattr(compiled, "AUTO_MAX_INSTRUCTIONS", 0)
    translate(m, compiled="auto")
    time.sleep(0.5)
    assert sorted(os.listdir(cache)) == [compiled.SLOT] and not compiled._LOADED


def test_a_background_build_that_finds_the_slot_taken_builds_nothing(tmp_path):
    import fcntl
    import subprocess
    import sys

    slot, folder, lock = tmp_path / "compile.slot", tmp_path / ".build", tmp_path / "k.lock"
    folder.mkdir()
    lock.write_text("")
    fd = os.open(slot, os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        done = subprocess.run([sys.executable, native_build.__file__, str(slot), str(folder), "k", "cc",
                               str(tmp_path / "k.so"), str(lock), "-Og"], timeout=60)
    finally:
        os.close(fd)
    assert done.returncode == 0
    assert not folder.exists() and not lock.exists() and not (tmp_path / "k.so").exists()
