"""Forward dynamics: time stepping of the discrete schemes."""

from .discrete import bem_residuals, rem_residuals
from .stepper import SimulationError, Stepper, Trajectory, check_initial_state, simulate

__all__ = ["Stepper", "Trajectory", "SimulationError", "simulate", "check_initial_state",
           "bem_residuals", "rem_residuals"]
