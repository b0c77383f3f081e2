"""Mate solving (df-pn) and soundness verification of composed problems."""
from .search import Limits, SolveResult, Solver, SolverError, TreeNode, solve

__all__ = ["solve", "Solver", "SolveResult", "Limits", "SolverError", "TreeNode"]
