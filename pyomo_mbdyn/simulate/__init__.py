"""Forward dynamics: time stepping of the discrete schemes, Udwadia–Kalaba
reference dynamics and tracking control, recursive chain dynamics."""

from .recursive import Chain, ChainBody, ChainJoint, inverse_dynamics, lq_sweep
from ..trajectory import Trajectory
from .stepper import SimulationError, Stepper, check_initial_state, simulate
from .udwadia_kalaba import UdwadiaKalabaSystem, gauss_problem, integrate, uk_accelerations

__all__ = ["Stepper", "Trajectory", "SimulationError", "simulate", "check_initial_state",
           "UdwadiaKalabaSystem", "uk_accelerations", "integrate", "gauss_problem",
           "Chain", "ChainBody", "ChainJoint", "lq_sweep", "inverse_dynamics"]
