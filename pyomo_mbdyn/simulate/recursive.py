"""Recursive Newton–Euler forward dynamics of chains, and its LQ twin.

D'Eleuterio & Damaren (paper 002; spec ``udwadia_deleuterio.md`` §2).  Bodies
𝓑_0 … 𝓑_N numbered outward, frame 𝓕_n at the inboard joint, 6-vectors
(linear, angular) in body frames.  Joint n has coordinates γ_n with the
rotation ``R_n(γ)`` (𝓕_n relative to 𝓕_{n-1}, so ``C_{n,n-1} = R_nᵀ``) and
the offset ``r_n(γ)`` of 𝒪_n in 𝓕_{n-1}; the joint matrix
``𝓟_n = ∂v_int/∂γ̇`` with ``v_int = [C ṙ; ω_int]`` and its rate ``𝓟̇_n`` are
derived from R and r by CasADi differentiation, so any joint given as a
composition of elementary rotations and translations works.

The algorithm is the paper's Sec. VI (spec §2.11): an outward velocity pass
(D5, D11, D16), the inward articulated-inertia pass (D27 in the compact Γ
form) and the outward acceleration pass (D28) — O(N).  :func:`lq_sweep` is the
generic discrete-time LQ problem (D32–D42) written without multibody
knowledge; fed the correspondence of Sec. V it reproduces the recursion.
:meth:`Chain.inverse_dynamics` is the recursive Newton–Euler inverse dynamics
(outward accelerations, inward joint forces; spec §2.14), and
:meth:`Chain.from_system` reads a serial :class:`~pyomo_mbdyn.mechanics.MultibodySystem`
(e.g. a robot from ``MultibodySystem.from_urdf``) into a chain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from ..errors import ConfigurationError

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.system import MultibodySystem

__all__ = ["ChainJoint", "ChainBody", "Chain", "lq_sweep", "cross6", "inverse_dynamics"]


# The recursions below run on numpy arrays of numbers and, traced once, on CasADi SX
# matrices (``Chain.inverse_dynamics_function``): the few places that build arrays go
# through these helpers, everything else is ``@``, ``+``, ``-`` and slicing.
def _symbolic(*xs):
    import casadi

    return any(isinstance(x, casadi.SX) for x in xs)


def _function_name(name):
    """A valid CasADi function name for a joint name (a letter, then letters, digits and single
    underscores): URDF joint names such as ``flying_arm_5__j_link_1`` or ``joint_8.0`` are not."""
    text = "_".join(part for part in re.split(r"[^0-9A-Za-z]+", str(name)) if part) or "joint"
    return "joint_" + text if not text[:1].isalpha() or text in ("null", "jac", "hess") else text


def _hat(a):
    if _symbolic(a):
        import casadi

        return casadi.skew(a)
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def _blocks(a, b, c, d):
    """[[a, b], [c, d]] of 3×3 blocks."""
    if _symbolic(a, b, c, d):
        import casadi

        return casadi.blockcat([[casadi.SX(a), casadi.SX(b)], [casadi.SX(c), casadi.SX(d)]])
    return np.block([[a, b], [c, d]])


def _stack(parts):
    """The vectors ``parts`` one below the other."""
    if _symbolic(*parts):
        import casadi

        return casadi.vertcat(*[casadi.SX(x) for x in parts])
    return np.concatenate(parts)


def cross6(v: np.ndarray) -> np.ndarray:
    """``v^× = [[ω^×, v^×], [0, ω^×]]`` for v = (v, ω) (D4)."""
    return _blocks(_hat(v[3:6]), _hat(v[0:3]), np.zeros((3, 3)), _hat(v[3:6]))


def _transport(C, r):
    """𝓣 = [[C, -C r^×], [0, C]] (D5)."""
    return _blocks(C, -C @ _hat(r), np.zeros((3, 3)), C)


class ChainJoint:
    """A joint of a chain, from its rotation and offset maps.

    Use the constructors :meth:`revolute`, :meth:`prismatic`,
    :meth:`universal`, :meth:`spherical`, :meth:`fixed`, :meth:`free`.

    Parameters
    ----------
    dofs : int
        Number of joint coordinates γ.
    rotation : callable
        γ → 3×3 rotation (CasADi-compatible: use ``casadi.sin``…).
    offset : callable
        γ → 3-vector in the parent frame.

    Examples
    --------
    A hinge about z: the joint matrix maps the rate to the angular velocity:

    >>> joint = ChainJoint.revolute([0.0, 0.0, 0.0], axis=(0, 0, 1))
    >>> C, r, P, P_dot = joint.evaluate([0.3], [1.0])
    >>> joint.dofs, P.ravel()
    (1, array([0., 0., 0., 0., 0., 1.]))
    """

    def __init__(self, dofs: int, rotation: Callable[[Any], Any], offset: Callable[[Any], Any], name: str = "joint") -> None:
        import casadi

        self.dofs, self.name = int(dofs), name
        g = casadi.SX.sym("g", self.dofs)
        gd = casadi.SX.sym("gd", self.dofs)
        R = casadi.SX(rotation(g))
        r = casadi.SX(offset(g))
        if R.shape != (3, 3) or r.numel() != 3:
            raise ConfigurationError(f"{name}: rotation must be 3×3 and offset a 3-vector")
        r = casadi.reshape(r, 3, 1)
        C = R.T
        cols = []
        for k in range(self.dofs):
            dR = casadi.jacobian(casadi.reshape(R, 9, 1), g[k])
            W = C @ casadi.reshape(dR, 3, 3)  # Rᵀ ∂R/∂γ_k: ω̂ in the child frame
            omega = casadi.vertcat(W[2, 1], W[0, 2], W[1, 0])
            lin = C @ casadi.jacobian(r, g[k])
            cols.append(casadi.vertcat(lin, omega))
        P = casadi.horzcat(*cols) if cols else casadi.SX(6, 0)
        Pdot = casadi.jtimes(P, g, gd) if cols else casadi.SX(6, 0)
        self._fun = casadi.Function(_function_name(name), [g, gd], [C, r, P, Pdot])

    def evaluate(self, gamma: Any, gamma_dot: Any) -> tuple[Any, ...]:
        """(C_{n,n-1}, r, 𝓟, 𝓟̇) at (γ, γ̇) as numpy arrays (CasADi SX for SX arguments)."""
        if _symbolic(gamma, gamma_dot):
            return tuple(self._fun(gamma, gamma_dot))
        C, r, P, Pdot = self._fun(gamma, gamma_dot)
        return (np.array(C), np.array(r).ravel(), np.array(P).reshape(6, self.dofs),
                np.array(Pdot).reshape(6, self.dofs))

    # -- constructors ----------------------------------------------------------
    @staticmethod
    def _axis_rotation(axis, angle):
        import casadi

        a = np.asarray(axis, float) / np.linalg.norm(axis)
        A = casadi.SX(_hat(a))
        return casadi.SX.eye(3) + casadi.sin(angle) * A + (1 - casadi.cos(angle)) * (A @ A)

    @classmethod
    def revolute(cls, offset: npt.ArrayLike, axis: Sequence[float] = (0, 0, 1), name: str = "revolute") -> ChainJoint:
        return cls(1, lambda g: cls._axis_rotation(axis, g[0]), lambda g: np.asarray(offset, float), name)

    @classmethod
    def prismatic(cls, offset: npt.ArrayLike, axis: Sequence[float] = (1, 0, 0), rotation: npt.ArrayLike | None = None, name: str = "prismatic") -> ChainJoint:
        import casadi

        a = np.asarray(axis, float) / np.linalg.norm(axis)
        R0 = np.eye(3) if rotation is None else np.asarray(rotation, float)
        return cls(1, lambda g: casadi.SX(R0), lambda g: np.asarray(offset, float) + g[0] * a, name)

    @classmethod
    def universal(cls, offset: npt.ArrayLike, name: str = "universal") -> ChainJoint:
        """R = R_x(γ_1) R_y(γ_2)."""
        return cls(2, lambda g: cls._axis_rotation((1, 0, 0), g[0]) @ cls._axis_rotation((0, 1, 0), g[1]),
                   lambda g: np.asarray(offset, float), name)

    @classmethod
    def spherical(cls, offset: npt.ArrayLike, name: str = "spherical") -> ChainJoint:
        """1-2-3 Euler angles, R = R_x R_y R_z (𝓟 not orthonormal: 𝓘 ≠ 1)."""
        return cls(3, lambda g: cls._axis_rotation((1, 0, 0), g[0]) @ cls._axis_rotation((0, 1, 0), g[1])
                   @ cls._axis_rotation((0, 0, 1), g[2]), lambda g: np.asarray(offset, float), name)


@dataclass
class ChainBody:
    """Mass, centre-of-mass offset ρ (in 𝓕_n from 𝒪_n), inertia about the centre of mass.

    Examples
    --------
    A 1 kg link whose centre of mass lies 0.5 m along x from its joint:

    >>> import numpy as np
    >>> link = ChainBody(1.0, [0.5, 0.0, 0.0], np.diag([0.02, 0.1, 0.1]))
    >>> M = link.mass_matrix()                 # about the joint: J_zz = 0.1 + m 0.5²
    >>> M.shape, float(M[5, 5]), float(M[1, 5])
    ((6, 6), 0.35, 0.5)
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray

    def mass_matrix(self) -> np.ndarray:
        """𝓜_n about 𝒪_n (D3): [[m 1, -c^×], [c^×, J]] with c = m ρ, J = J_c - m ρ^× ρ^×."""
        rho = np.asarray(self.com, float)
        c = self.mass * rho
        J = np.asarray(self.inertia, float) - self.mass * _hat(rho) @ _hat(rho)
        M = np.zeros((6, 6))
        M[0:3, 0:3] = self.mass * np.eye(3)
        M[0:3, 3:6] = -_hat(c)
        M[3:6, 0:3] = _hat(c)
        M[3:6, 3:6] = J
        return M


@dataclass
class Chain:
    """A serial chain: ``joints[n]`` carries ``bodies[n]`` (joint 0 to the ground).

    Examples
    --------
    A double pendulum released from the horizontal: the O(N) recursion and the
    global mass-matrix solution give the same joint accelerations:

    >>> import numpy as np
    >>> link = ChainBody(1.0, [0.5, 0.0, 0.0], np.diag([0.02, 0.1, 0.1]))
    >>> chain = Chain([ChainJoint.revolute([0.0, 0.0, 0.0]), ChainJoint.revolute([1.0, 0.0, 0.0])],
    ...               [link, link], gravity=np.array([0.0, -9.81, 0.0]))
    >>> chain.dof
    2
    >>> chain.forward_dynamics(np.zeros(2), np.zeros(2)).round(4)
    array([-12.1247,  15.4315])
    >>> gdd, H = chain.mass_matrix_solution(np.zeros(2), np.zeros(2))
    >>> gdd.round(4)
    array([-12.1247,  15.4315])
    """

    joints: list
    bodies: list
    gravity: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self):
        if len(self.joints) != len(self.bodies) or not self.joints:
            raise ConfigurationError("Chain: one joint per body, at least one body")
        self.sizes = [j.dofs for j in self.joints]
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).astype(int)
        self.dof = int(self.offsets[-1])
        self._M = [b.mass_matrix() for b in self.bodies]

    def _split(self, x: Any) -> list[Any]:
        if _symbolic(x):
            return [x[int(self.offsets[n]):int(self.offsets[n + 1])] for n in range(len(self.joints))]
        return [np.asarray(x[self.offsets[n]:self.offsets[n + 1]], float) for n in range(len(self.joints))]

    def kinematics(self, gamma: npt.ArrayLike, gamma_dot: npt.ArrayLike) -> list[dict[str, Any]]:
        """Outward pass (Step 2): per body (𝓣, 𝓟, v, a_non, f_I, orientation)."""
        out = []
        v_prev, a_prev, R_abs = np.zeros(6), np.zeros(6), np.eye(3)
        for joint, g, gd in zip(self.joints, self._split(gamma), self._split(gamma_dot)):
            C, r, P, Pdot = joint.evaluate(g, gd)
            T = _transport(C, r)
            v_int = P @ gd
            Tv = T @ v_prev
            v = Tv + v_int                                                 # (D5)
            a_non = T @ a_prev - cross6(v_int) @ Tv + Pdot @ gd            # (D16), 𝓣̇ = -v_int^× 𝓣 (D11)
            R_abs = R_abs @ C.T                                            # 𝓕_n → inertial
            out.append(dict(T=T, P=P, v=v, a_non=a_non, R=R_abs if _symbolic(R_abs) else R_abs.copy()))
            v_prev, a_prev = v, a_non
        return out

    def _net_forces(self, kin, f_ext):
        nets = []
        for n, (k, M) in enumerate(zip(kin, self._M)):
            g_body = k["R"].T @ self.gravity                               # gravity in 𝓕_n
            f_grav = M @ _stack([g_body, np.zeros(3)])
            f_I = cross6(k["v"]).T @ (M @ k["v"])                          # (D4)
            ext = f_grav + (0 if f_ext is None else np.asarray(f_ext[n], float))
            nets.append(ext + f_I - M @ k["a_non"])                        # f_net (D18)
        return nets

    def forward_dynamics(self, gamma: npt.ArrayLike, gamma_dot: npt.ArrayLike, tau: npt.ArrayLike | None = None, f_ext: Sequence[npt.ArrayLike] | None = None) -> np.ndarray:
        """γ̈ by the recursive algorithm (O(N)); ``tau`` = joint generalised forces 𝓘 f_c."""
        kin = self.kinematics(gamma, gamma_dot)
        tau = self._split(np.zeros(self.dof) if tau is None else tau)
        nets = self._net_forces(kin, f_ext)
        N = len(kin) - 1
        Psi: list[Any]
        psi: list[Any]
        Psi, psi = [None] * (N + 1), [None] * (N + 1)
        K: list[Any] = [None] * (N + 1)
        Psi[N], psi[N] = self._M[N].copy(), -nets[N]                       # (D21)
        for n in range(N - 1, -1, -1):                                     # Step 3
            P1, T1 = kin[n + 1]["P"], kin[n + 1]["T"]
            PP = P1.T @ Psi[n + 1] @ P1
            K[n] = np.linalg.solve(PP, P1.T @ Psi[n + 1] @ T1)
            Gamma = T1 - P1 @ K[n]
            Psi[n] = Gamma.T @ Psi[n + 1] @ Gamma + self._M[n]
            psi[n] = Gamma.T @ psi[n + 1] + K[n].T @ tau[n + 1] - nets[n]
        gdd, a_prev = [], np.zeros(6)
        for n in range(N + 1):                                             # Step 4
            P, T = kin[n]["P"], kin[n]["T"]
            PP = P.T @ Psi[n] @ P
            rhs = tau[n] - P.T @ psi[n] - P.T @ Psi[n] @ (T @ a_prev)      # (D28)
            acc = np.linalg.solve(PP, rhs) if P.shape[1] else np.zeros(0)
            a_prev = T @ a_prev + P @ acc                                  # (D15)
            gdd.append(acc)
        return np.concatenate(gdd)

    def _checked(self, x, what):
        """``x`` as a float vector of length ``dof``, else a named ConfigurationError."""
        try:
            x = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise ConfigurationError(f"Chain: {what} must be {self.dof} numbers, got {x!r}") from None
        if x.shape != (self.dof,) or not np.all(np.isfinite(x)):
            raise ConfigurationError(f"Chain: {what} must be {self.dof} finite numbers, got {x.tolist()!r}")
        return x

    def inverse_dynamics(self, gamma: npt.ArrayLike, gamma_dot: npt.ArrayLike, gamma_ddot: npt.ArrayLike, f_ext: Sequence[npt.ArrayLike] | None = None) -> np.ndarray:
        """The joint forces τ that produce the joint accelerations γ̈ (recursive Newton–Euler, O(N)).

        ``τ = H(γ) γ̈ - Lᵀ f_net(γ, γ̇)`` = ``M(θ) θ̈ + c(θ, θ̇) + g(θ)`` in robotics notation,
        computed without H by two passes over the chain (D'Eleuterio & Damaren, paper 002;
        spec ``udwadia_deleuterio.md`` §2.14, from (D15), (D18), (D43)):

        - outward (after Step 2's v_n, a_non,n and f_net,n), a_{-1} = 0::

              a_n = 𝓣_{n,n-1} a_{n-1} + 𝓟_n γ̈_n                           (D15)

        - inward, f^N_{N+1} = 0: the joint force on 𝓑_n from 𝓑_{n-1} (D18 solved for it)
          and its generalised force (D43)::

              -f^{n-1}_n = 𝓜_n a_n - f_net,n + 𝓣ᵀ_{n+1,n} (-f^n_{n+1}),
              τ_n = 𝓘_n f_n,c = -𝓟_nᵀ f^{n-1}_n.

        Guarantees ``forward_dynamics(γ, γ̇, inverse_dynamics(γ, γ̇, γ̈, f_ext), f_ext) = γ̈``
        (to round-off) for the same ``f_ext``; ``τ`` is ordered and split like ``forward_dynamics``'s
        ``tau`` (the generalised force conjugate to γ̇_n, = f_n,c only for orthonormal 𝓟_n).
        Inputs that are not ``dof`` finite numbers are a :class:`ConfigurationError`.

        Examples
        --------
        The double pendulum held horizontal against gravity (1 kg links, centres of mass
        at 0.5 m and 1.5 m), then the round trip through the forward dynamics:

        >>> import numpy as np
        >>> link = ChainBody(1.0, [0.5, 0.0, 0.0], np.diag([0.02, 0.1, 0.1]))
        >>> chain = Chain([ChainJoint.revolute([0.0, 0.0, 0.0]), ChainJoint.revolute([1.0, 0.0, 0.0])],
        ...               [link, link], gravity=np.array([0.0, -9.81, 0.0]))
        >>> chain.inverse_dynamics(np.zeros(2), np.zeros(2), np.zeros(2)).round(4)  # 9.81·2, 9.81·0.5
        array([19.62 ,  4.905])
        >>> gamma, gamma_dot, gamma_ddot = np.array([0.3, -0.7]), np.array([1.0, 2.0]), np.array([-3.0, 0.5])
        >>> tau = chain.inverse_dynamics(gamma, gamma_dot, gamma_ddot)
        >>> bool(np.abs(chain.forward_dynamics(gamma, gamma_dot, tau) - gamma_ddot).max() < 1e-12)
        True
        """
        gamma = self._checked(gamma, "gamma")
        gamma_dot = self._checked(gamma_dot, "gamma_dot")
        gamma_ddot = self._checked(gamma_ddot, "gamma_ddot")
        return self._inverse_dynamics(gamma, gamma_dot, gamma_ddot, f_ext)

    def _inverse_dynamics(self, gamma, gamma_dot, gamma_ddot, f_ext=None):
        kin = self.kinematics(gamma, gamma_dot)
        nets = self._net_forces(kin, f_ext)
        joint_force, a_prev = [], np.zeros(6)
        for k, acc, M, net in zip(kin, self._split(gamma_ddot), self._M, nets):     # outward
            a = k["T"] @ a_prev + k["P"] @ acc                                 # (D15)
            joint_force.append(M @ a - net)                                    # (D18), tip term below
            a_prev = a
        tau, outboard = [None] * len(kin), np.zeros(6)
        for n in range(len(kin) - 1, -1, -1):                                  # inward
            outboard = joint_force[n] + (kin[n + 1]["T"].T @ outboard if n + 1 < len(kin) else 0.0)
            tau[n] = kin[n]["P"].T @ outboard                                  # (D43)
        return _stack(tau)

    def inverse_dynamics_function(self) -> Any:
        """The recursive Newton–Euler inverse dynamics of :meth:`inverse_dynamics` (the same
        code, traced once on CasADi symbols) as a CasADi ``Function`` (γ, γ̇, γ̈) ↦ τ:
        O(N) instructions (the Panda's: about 1 500), for solvers and for formulas that
        state τ, e.g. GC's momentum balance on a chain
        (:func:`~pyomo_mbdyn.discretization.gc_residuals`).

        Examples
        --------
        >>> import numpy as np
        >>> link = ChainBody(1.0, [0.5, 0.0, 0.0], np.diag([0.02, 0.1, 0.1]))
        >>> chain = Chain([ChainJoint.revolute([0.0, 0.0, 0.0]), ChainJoint.revolute([1.0, 0.0, 0.0])],
        ...               [link, link], gravity=np.array([0.0, -9.81, 0.0]))
        >>> rnea = chain.inverse_dynamics_function()
        >>> x = ([0.3, -0.7], [1.0, 2.0], [-3.0, 0.5])
        >>> bool(np.allclose(np.asarray(rnea(*x)).ravel(), chain.inverse_dynamics(*x), rtol=0, atol=1e-12))
        True
        """
        function = getattr(self, "_rnea", None)
        if function is None:
            import casadi

            g, gd, gdd = (casadi.SX.sym(name, self.dof) for name in ("gamma", "gamma_dot", "gamma_ddot"))
            function = self._rnea = casadi.Function("rnea", [g, gd, gdd], [self._inverse_dynamics(g, gd, gdd)],
                                                    ["gamma", "gamma_dot", "gamma_ddot"], ["tau"])
        return function

    @classmethod
    def from_system(cls, system: MultibodySystem) -> Chain:
        """The chain of a serial :class:`~pyomo_mbdyn.mechanics.MultibodySystem` of revolute
        and prismatic joints (a robot arm, e.g. from ``MultibodySystem.from_urdf``).

        Frame 𝓕_n is parallel to the world axes in the system's reference configuration
        ``q0``, with origin 𝒪_n at joint n's point ``x_n``; body n is ``ChainBody(m_n,
        c_n - x_n, J_n)`` (centre of mass ``c_n``, world inertia tensor ``J_n`` about it, at
        ``q0``) and joint n is ``ChainJoint.revolute(x_n - x_{n-1}, a_n)`` or
        ``ChainJoint.prismatic(x_n - x_{n-1}, a_n)`` (``x_{-1} = 0``, ``a_n`` the joint's axis
        in ``q0``, fixed in the parent like the system's joints).  So γ = θ, the system's joint
        coordinates (``system.reparametrise(θ, system.q0)`` is the same configuration), and
        ``τ`` is the joint torque/force.  ``chain.velocities`` names the coordinates (the
        system's names, ordered from the ground out); ``chain.gravity`` is the system's.

        Refused with a :class:`ConfigurationError` naming the culprit: closed loops, free
        (root) bodies, joints other than revolute or prismatic, a body carrying two joints
        (a tree, not a chain), and joint friction (the chain has none).

        Examples
        --------
        >>> from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody
        >>> link = RigidBody("link", 1.0, (0.01, 0.1, 0.1), position=(0.5, 0, 0))
        >>> arm = MultibodySystem("arm", gravity=(0, -9.81, 0))
        >>> arm.add_bodies(link)
        >>> arm.add_joints(Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1)))
        >>> chain = Chain.from_system(arm)
        >>> chain.velocities, chain.inverse_dynamics([0.0], [0.0], [0.0]).round(4)
        (['hinge.angle'], array([4.905]))
        """
        from ..mechanics.joints import ROTATION, TRANSLATION

        layout = system.layout
        name = getattr(system, "name", "system")
        if system.has_loops:
            raise ConfigurationError(f"Chain.from_system: {name!r} has closed loops (joints "
                                     f"{layout['loop_joints']}); a chain is serial")
        if layout["roots"]:
            raise ConfigurationError(f"Chain.from_system: {name!r} has free bodies {layout['roots']}; "
                                     f"every body must be carried by a joint from the ground")
        if system.friction.any():
            where = [v for v, k in zip(system.velocities, system.friction) if k]
            raise ConfigurationError(f"Chain.from_system: {name!r} has joint friction on {where}; "
                                     f"the chain has none")
        children: dict[str, Any] = {}
        for jname in layout["tree_joints"]:
            joint = system.joints[jname]
            if joint.axis_motion is None:
                raise ConfigurationError(f"Chain.from_system: joint {jname!r} is {joint.kind}; "
                                         f"only revolute and prismatic joints are read")
            parent = joint.parent.name
            if parent in children:
                raise ConfigurationError(f"Chain.from_system: body {parent!r} carries two joints "
                                         f"({children[parent].name!r} and {jname!r}): a tree, not a chain")
            children[parent] = joint
        joints, bodies, velocities, x_prev, body = [], [], [], np.zeros(3), "ground"
        while body in children:
            joint = children[body]
            child = joint.child
            if child.has_orientation:
                x = np.asarray(child.point(child.q0, joint.child_point), dtype=float)
                D = np.asarray(child.q0[3:12], dtype=float).reshape(3, 3)      # rows: directors
                inertia = D.T @ np.diag(child.inertia) @ D
            else:  # a point mass on a rod: the joint at the hinge, the mass at the rod's end
                x = np.asarray(joint.parent.point(joint.parent.q0, joint.parent_point), dtype=float)
                inertia = np.zeros((3, 3))
            make: Callable[..., ChainJoint] = {ROTATION: ChainJoint.revolute, TRANSLATION: ChainJoint.prismatic}[joint.axis_motion]  # type: ignore[assignment]  # both make a ChainJoint
            joints.append(make(x - x_prev, axis=joint.axis, name=joint.name))
            bodies.append(ChainBody(child.mass, np.asarray(child.q0[0:3], dtype=float) - x, inertia))
            velocities.extend(joint.dofs)
            x_prev, body = x, child.name
        chain = cls(joints, bodies, gravity=np.asarray(system.gravity, dtype=float).copy())
        chain.velocities = velocities  # type: ignore[attr-defined]  # the system's names, on a chain read from a system
        return chain

    def mass_matrix_solution(self, gamma: npt.ArrayLike, gamma_dot: npt.ArrayLike, tau: npt.ArrayLike | None = None, f_ext: Sequence[npt.ArrayLike] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The global solution ``H γ̈ = Lᵀ f_net + τ``, ``H = Lᵀ 𝓜 L`` (O(N³))."""
        kin = self.kinematics(gamma, gamma_dot)
        nets = self._net_forces(kin, f_ext)
        rows, L_prev = [], np.zeros((6, self.dof))
        for n, k in enumerate(kin):
            L = k["T"] @ L_prev
            L[:, self.offsets[n]:self.offsets[n + 1]] += k["P"]
            rows.append(L)
            L_prev = L
        H = sum(L.T @ M @ L for L, M in zip(rows, self._M))
        rhs = sum(L.T @ f for L, f in zip(rows, nets)) + (0 if tau is None else np.asarray(tau, float))
        return np.linalg.solve(H, rhs), H

    def lq_data(self, gamma: npt.ArrayLike, gamma_dot: npt.ArrayLike, tau: npt.ArrayLike | None = None, f_ext: Sequence[npt.ArrayLike] | None = None) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        """The chain as a discrete-time LQ problem (Sec. V): (A, B, M, h, t) sequences."""
        kin = self.kinematics(gamma, gamma_dot)
        nets = self._net_forces(kin, f_ext)
        tau = self._split(np.zeros(self.dof) if tau is None else tau)
        N = len(kin) - 1
        A = [kin[n + 1]["T"] for n in range(N)]
        B = [kin[0]["P"]] + [kin[n + 1]["P"] for n in range(N)]   # B_{-1} = 𝓟_0
        return A, B, list(self._M), [-f for f in nets], tau


def inverse_dynamics(chain: Chain, gamma: npt.ArrayLike, gamma_dot: npt.ArrayLike, gamma_ddot: npt.ArrayLike, f_ext: Sequence[npt.ArrayLike] | None = None) -> np.ndarray:
    """``chain.inverse_dynamics(γ, γ̇, γ̈, f_ext)``: τ = M(γ) γ̈ + c(γ, γ̇) + g(γ) by
    recursive Newton–Euler (see :meth:`Chain.inverse_dynamics`).

    >>> import numpy as np
    >>> link = ChainBody(2.0, [0.5, 0.0, 0.0], np.diag([0.02, 0.1, 0.1]))
    >>> pendulum = Chain([ChainJoint.revolute([0.0, 0.0, 0.0])], [link], gravity=np.array([0.0, -9.81, 0.0]))
    >>> inverse_dynamics(pendulum, [0.0], [0.0], [1.0]).round(4)   # J_O θ̈ + m g ρ = 0.6 + 9.81
    array([10.41])
    """
    return chain.inverse_dynamics(gamma, gamma_dot, gamma_ddot, f_ext)


def lq_sweep(A: Sequence[np.ndarray], B: Sequence[np.ndarray], M: Sequence[np.ndarray], h: Sequence[np.ndarray], t: Sequence[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Minimise Σ_k ½ x_kᵀM_k x_k + x_kᵀh_k - u_{k-1}ᵀt_{k-1} s.t. x_{k+1} = A_k x_k + B_{k+1}... .

    The generic problem (D32–D42) with ``x_0 = B_0 u_{-1}`` (``x_{-1} = 0``) and
    ``x_{k+1} = A_k x_k + B_{k+1} u_k``: a backward Riccati sweep (D40, D41)
    and a forward pass (D39, D35).  Lists: A (N), B (N+1, B[0] for u_{-1}),
    M, h (N+1), t (N+1, t[0] for u_{-1}).  Returns (u, x, S, r).

    Examples
    --------
    Fed the correspondence of a chain (:meth:`Chain.lq_data`), the optimal
    ``u`` are the joint accelerations:

    >>> import numpy as np
    >>> link = ChainBody(1.0, [0.5, 0.0, 0.0], np.diag([0.02, 0.1, 0.1]))
    >>> chain = Chain([ChainJoint.revolute([0.0, 0.0, 0.0]), ChainJoint.revolute([1.0, 0.0, 0.0])],
    ...               [link, link], gravity=np.array([0.0, -9.81, 0.0]))
    >>> u, x, S, r = lq_sweep(*chain.lq_data(np.zeros(2), np.zeros(2)))
    >>> np.concatenate(u).round(4)
    array([-12.1247,  15.4315])
    """
    N = len(M) - 1
    S: list[Any]
    r: list[Any]
    S, r = [None] * (N + 1), [None] * (N + 1)
    S[N], r[N] = M[N], h[N]
    K: list[Any] = [None] * N
    for k in range(N - 1, -1, -1):
        Bk = B[k + 1]
        R = Bk.T @ S[k + 1] @ Bk
        K[k] = np.linalg.solve(R, Bk.T @ S[k + 1] @ A[k])
        closed = A[k] - Bk @ K[k]
        S[k] = closed.T @ S[k + 1] @ closed + M[k]                       # (D42)
        r[k] = closed.T @ r[k + 1] + K[k].T @ t[k + 1] + h[k]              # (D41)
    u, x = [], []
    R0 = B[0].T @ S[0] @ B[0]
    u.append(np.linalg.solve(R0, t[0] - B[0].T @ r[0]))                    # u_{-1}
    x.append(B[0] @ u[0])
    for k in range(N):
        Bk = B[k + 1]
        R = Bk.T @ S[k + 1] @ Bk
        uk = -K[k] @ x[k] + np.linalg.solve(R, t[k + 1] - Bk.T @ r[k + 1])  # (D39)
        u.append(uk)
        x.append(A[k] @ x[k] + Bk @ uk)                                    # (D35)
    return u, x, S, r
