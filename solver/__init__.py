"""Mate solving (df-pn) and soundness verification of composed problems."""
from ._dfpn import MAX_THREADS
from .search import Limits, Solver, SolverError, SolveResult, TreeNode, solve
from .types import DrawVerdict, Mode, Stipulation, Verdict

__all__ = ["solve", "Solver", "SolveResult", "Limits", "SolverError", "TreeNode", "Mode",
           "Verdict", "DrawVerdict", "Stipulation", "MAX_THREADS"]
