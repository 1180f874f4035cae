"""KL-regularized tabular MDPs with several rewards (Section 2.1 of the paper).

An agent with policy ``pi(a|s)`` in a finite MDP ``(S, A, P, r_1..r_M, gamma, rho)`` collects
each reward ``r_m`` while paying a KL penalty ``beta * KL(pi(.|s) || pi_ref(.|s))`` in every
visited state. Objective ``m`` (minimized) is the negated regularized return

``h_m(pi) = -E_{rho, pi}[ sum_t gamma^t (r_m(s_t, a_t) - beta * KL(pi(.|s_t) || pi_ref(.|s_t))) ]``

(``scale="discounted"``), or, by default, the paper's occupancy-normalised form
``f_m = (1 - gamma) * h_m`` (``scale="normalized"``). In the normalized occupancy
``mu(s, a) = (1 - gamma) E[sum_t gamma^t 1{s_t = s, a_t = a}]`` (which sums to 1)

``f_m(mu) = beta (<mu, log mu> - <E^T mu, log E^T mu> - <R_0, mu>) - <R_m, mu>``,

with ``R_0 = log pi_ref``: a strictly convex problem over the flow polytope
``{mu >= 0 : (E - gamma P)^T mu = (1 - gamma) rho}`` (eq. (MDP) of the paper). The scalarized
problem with weights ``w_m`` is the regularized MDP with reward ``sum_m w_m r_m``.

The package, one concern a module (each imports only those above it):

* :mod:`~paretosurf.problems.mdp.model` -- construction and validation, weights and policies,
  batched linear algebra, evaluation (objectives, occupancy, values, policy gradients);
* :mod:`~paretosurf.problems.mdp.policy_iteration` -- the exact solve (soft policy iteration,
  batched, and by continuation over many weights);
* :mod:`~paretosurf.problems.mdp.front_speed` -- the front's curvature and exact speed;
* :mod:`~paretosurf.problems.mdp.assumptions` -- :class:`MDPAssumptionReport` and the check
  of the paper's conditions;
* :mod:`~paretosurf.problems.mdp.solvers` -- :class:`MDPExactSolver` and
  :class:`MDPGradientSolver`;
* :mod:`~paretosurf.problems.mdp.problem` -- :class:`RegularizedMDP`, the public class: the
  model with methods delegating to the modules above.
"""

from paretosurf.problems.mdp.assumptions import MDPAssumptionReport
from paretosurf.problems.mdp.problem import RegularizedMDP
from paretosurf.problems.mdp.solvers import MDPExactSolver, MDPGradientSolver

__all__ = [
    "MDPAssumptionReport",
    "MDPExactSolver",
    "MDPGradientSolver",
    "RegularizedMDP",
]
