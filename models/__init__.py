"""Paper examples as runnable models (installed as ``pyomo_mbdyn.models``).

Each module builds a multibody system and a problem on it and returns a Pyomo
model; ``pyomo-mbdyn list`` shows what is here.
"""

#: model name → (module, one-line description)
MODELS = {
    "heavy-top": (
        "pyomo_mbdyn.models.heavy_top",
        "heavy symmetric top in steady precession: quaternion EM against director EM (thesis E2)",
    ),
    "satellite": (
        "pyomo_mbdyn.models.satellite",
        "three-rotor satellite turned by π about (1,2,3)/√14 by its rotors (DMOCC §7.2)",
    ),
    "sphere": (
        "pyomo_mbdyn.models.sphere",
        "rigid sphere, rest to rest with three turns, minimum control effort (DMOCC §7.1)",
    ),
    "satellite-underactuated": (
        "pyomo_mbdyn.models.satellite_underactuated",
        "the satellite turned by two rotors only (DMOCC §7.2); IPOPT does not converge yet",
    ),
    "three-link-arm": (
        "pyomo_mbdyn.models.three_link_arm",
        "planar three-link arm, rest to rest: BEM = REM against GC (thesis E3)",
    ),
    "crane": (
        "pyomo_mbdyn.models.crane",
        "underactuated overhead crane, rest to rest: BEM = REM against GC (thesis E5)",
    ),
    "pitcher": (
        "pyomo_mbdyn.models.pitcher",
        "throwing arm (torso, shoulder, elbow) maximising the hand's momentum (DMOCC §7.3)",
    ),
    "satellite-spin": (
        "pyomo_mbdyn.models.satellite_spin",
        "three-rotor satellite, forward dynamics with rotor friction or torques (thesis E1)",
    ),
    "pendulum": (
        "pyomo_mbdyn.models.pendulum",
        "mathematical pendulum, horizontal to hanging, indirect H-conserving DNCO (thesis E6)",
    ),
    "particle": (
        "pyomo_mbdyn.models.particle",
        "particle in a central gravitational field, indirect H-conserving DNCO (thesis E7)",
    ),
}
