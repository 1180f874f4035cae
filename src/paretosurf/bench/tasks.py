"""The benchmark tasks: a problem, the paper's settings, and the inner-solver protocol.

Each :class:`Task` names a problem with an exact solver and an exact front (so HV and IGD use
exact references), the paper's N, outer iterations, alpha and K-step budget, and how the K-step
runs are started. Add a task with one :func:`register_task` call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from paretosurf.problems.base import BiObjectiveProblem
from paretosurf.solvers import check_interior_start, gradient_starts

__all__ = ["SOLVER_KINDS", "TASKS", "Task", "get_task", "register_task"]

#: Inner-solver kinds a task can be run with.
SOLVER_KINDS = ("gradient", "exact")


@dataclass(frozen=True)
class Task:
    """A benchmark task.

    Attributes
    ----------
    name, title : str
        Command-line name and a human title.
    make_problem : callable
        ``() -> problem``: a ``BiObjectiveProblem`` (exact solver and front), or any object
        with ``reference_front(n)`` and ``cdf()`` returning ``None`` when unknown (see
        ``make_solver``).
    n_segments : int
        The paper's N (N + 1 points).
    iterations : int
        Outer iterations; every method gets ``iterations`` inner-solver calls per slot.
    alpha : float
        SURF's damping factor.
    steps, lr, optimizer :
        The K-step inner solver's budget per call: ``problem.gradient_solver(steps=steps,
        lr=lr, optimizer=optimizer)``.
    warmup_steps : int
        K-step protocol: both endpoints are first solved with this many steps (0: none).
    interior_start : {"default", "endpoint1"}
        K-step protocol: interior slots start from the solver's default initial state, or from
        the warmed-up ``w = 1`` endpoint's solution.
    init_noise : float
        Standard deviation of the seeded Gaussian perturbation of the initial parameters of
        every slot (K-step protocol), so that seeds differ.
    warm_start : {"slot", "nearest", "rescue"}
        Warm-start rule of the methods whose weights move (SURF, UMOD); see
        :func:`paretosurf.surf`.
    normalize : str
        The coordinates every method measures distances in (see :mod:`paretosurf.loop`);
        ``"none"`` (the raw objectives) keeps the tables comparable with the paper's.
    objective_names : tuple of str
        Axis labels.
    make_solver : callable, optional
        ``(problem, steps, seed) -> solver``: the "gradient" inner solver of a task whose solver
        is not ``problem.gradient_solver`` (a deep-RL learner, say), made per seed with a
        budget of ``steps`` per call; with a :attr:`device`, it is called with ``device=`` as
        well. Such a solver starts its slots itself (seeded), and the task has no exact
        solver.
    hv_ref : tuple of float, optional
        A fixed HV reference point, for problems without an exact front (whose
        ``reference_front`` is ``None``); without it the point is taken from the non-dominated
        union of every method's points.
    moving_average : float, optional
        Every method's ``moving_average`` rate (noisy objective estimates); see
        :func:`paretosurf.surf`.
    reset_optimizer : bool
        The K-step solver starts every call with fresh Adam moments.
    report : {"auto", "last", "most-even"}
        Which round every method's result reports; see :func:`paretosurf.loop.run`.
    device : str, optional
        The torch device of the "gradient" solver (``"cpu"``, ``"cuda"``, ``"cuda:N"``), for
        the tasks whose solver has a torch backend: the MDPs (the K-step solver's torch step,
        :class:`paretosurf.problems.mdp.MDPGradientSolver`) and ``make_solver`` tasks that take
        ``device=`` (MO-MountainCar's soft DQN). ``None``: the solver's default (numpy for
        the MDPs, the CPU for the DQN).
    """

    name: str
    title: str
    make_problem: Callable[[], Any]
    n_segments: int
    iterations: int
    alpha: float | str = 0.3
    steps: int = 100
    lr: float = 0.02
    optimizer: str = "adam"
    warmup_steps: int = 0
    interior_start: str = "default"
    init_noise: float = 0.0
    warm_start: str = "nearest"
    normalize: str = "none"
    objective_names: tuple[str, str] = ("objective 1", "objective 2")
    make_solver: Callable[..., Any] | None = None
    hv_ref: tuple[float, float] | None = None
    moving_average: float | None = None
    reset_optimizer: bool = False
    report: str = "auto"
    device: str | None = None

    def solver(self, problem: Any, kind: str, *, seed: int = 0, steps: int | None = None) -> Any:
        """The inner solver of ``kind`` ("gradient": K steps per call, or "exact") for one
        seed; ``steps`` overrides the task's K."""
        if kind not in SOLVER_KINDS:
            raise ValueError(f"solver kind must be one of {SOLVER_KINDS}, got {kind!r}")
        budget = self.steps if steps is None else int(steps)
        if budget < 1:
            raise ValueError(f"steps must be >= 1, got {steps!r}")
        if self.make_solver is not None:
            if kind == "exact":
                raise ValueError(
                    f"task {self.name!r} has no exact solver; use the "
                    "'gradient' one (its budget per call: steps)"
                )
            if self.device is not None:
                return self.make_solver(problem, budget, seed, device=self.device)
            return self.make_solver(problem, budget, seed)
        if kind == "exact":
            if self.device is not None:
                raise ValueError(
                    f"device={self.device!r} applies to the gradient solver; the "
                    "exact one runs in numpy"
                )
            return problem.solver()
        if self.device is not None:
            from paretosurf.problems.mdp import MDPGradientSolver

            if not self.takes_device(problem):
                raise ValueError(
                    f"task {self.name!r}: its gradient solver runs in numpy only; "
                    "a device applies to the MDP tasks and mountaincar"
                )
            return MDPGradientSolver(
                problem,
                steps=budget,
                lr=self.lr,
                optimizer=self.optimizer,
                reset_optimizer=self.reset_optimizer,
                device=self.device,
            )
        return problem.gradient_solver(
            steps=budget, lr=self.lr, optimizer=self.optimizer, reset_optimizer=self.reset_optimizer
        )

    def takes_device(self, problem: Any) -> bool:
        """Whether this task's "gradient" solver for ``problem`` runs in torch, and so takes a
        :attr:`device`: the MDPs' K-step solver and ``make_solver`` tasks (which are called
        with ``device=``)."""
        from paretosurf.problems.mdp import RegularizedMDP

        return self.make_solver is not None or isinstance(problem, RegularizedMDP)

    def initial_states(
        self, problem: BiObjectiveProblem, solver: Any, kind: str, n_segments: int, seed: int
    ) -> tuple[list[Any] | None, int]:
        """Warm starts for the N + 1 slots and the inner steps spent making them.

        Exact solvers start cold. K-step solvers start from the solver's initial parameters
        perturbed with ``init_noise``, the endpoints warmed up with ``warmup_steps`` steps, and
        interior slots optionally from the ``w = 1`` endpoint (see :attr:`interior_start`):
        the start-up of :func:`paretosurf.solvers.gradient_starts`, which the MDPs' K-step
        solver also makes for a run given no warm starts
        (:meth:`paretosurf.problems.mdp.MDPGradientSolver.initial_states`), here seeded.
        """
        if kind == "exact" or self.make_solver is not None or not hasattr(solver, "initial_state"):
            return None, 0
        check_interior_start(self.interior_start)
        warm = None
        if self.warmup_steps > 0:
            warm = problem.gradient_solver(
                steps=self.warmup_steps, lr=self.lr, optimizer=self.optimizer
            )
        start = gradient_starts(
            solver.initial_state,
            [n / n_segments for n in range(n_segments + 1)],
            warm_up=warm,
            interior_start=self.interior_start,
            noise=self.init_noise,
            rng=np.random.default_rng(seed),
        )
        return start.states, start.steps


TASKS: dict[str, Task] = {}


def register_task(task: Task) -> Task:
    """Add ``task`` to :data:`TASKS` (names are unique).

    Examples
    --------
    >>> from paretosurf.bench import TASKS, Task, register_task
    >>> from paretosurf.problems import GearToy
    >>> task = register_task(Task("gear-4", "gear toy, p = 4", lambda: GearToy(4), 10, 20))
    >>> "gear-4" in TASKS
    True
    >>> del TASKS["gear-4"]
    """
    if task.name in TASKS:
        raise ValueError(f"a task named {task.name!r} is already registered")
    TASKS[task.name] = task
    return task


def get_task(name: str) -> Task:
    """The registered task ``name``, or a ``ValueError`` listing the known ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; known tasks: {', '.join(TASKS)}") from None


def _dst(map_name: str) -> Callable[[], BiObjectiveProblem]:
    def make() -> BiObjectiveProblem:
        from paretosurf.problems.gym import deep_sea_treasure

        return deep_sea_treasure(map_name, gamma=0.999, beta=1.5)

    return make


def _fishwood() -> BiObjectiveProblem:
    from paretosurf.problems.gym import fishwood

    return fishwood(gamma=0.995, beta=0.5)


def _quadratic() -> BiObjectiveProblem:
    from paretosurf.problems.quadratic import Quadratic

    # Two anisotropic bowls whose LS path speeds up sharply near w = 1.
    return Quadratic(
        np.diag([1.0, 4.0]), np.array([1.0, 0.0]), np.diag([6.0, 0.5]), np.array([0.0, 1.0])
    )


def _bandit() -> BiObjectiveProblem:
    from paretosurf.problems.bandit import EntropicBandit

    return EntropicBandit.paper_example()


def _gear() -> BiObjectiveProblem:
    from paretosurf.problems.quadratic import GearToy

    return GearToy(9)


_DST_NAMES = ("treasure: -(treasure return) + KL", "time: (steps to treasure) + KL")
# The paper's DST protocol: K = 100 Adam steps (lr 0.02) per call, endpoints first solved with
# 500 steps; interior slots start from the treasure-seeking endpoint, from which the K-step
# solver reaches every trade-off (from the uniform policy it stalls for thousands of steps on the
# plateau of the nearest treasure). Every call starts with fresh Adam moments, as in the
# paper's code (on the MDPs this also ends more evenly: benchmarks/bench_reset_optimizer.py).
register_task(
    Task(
        "dst",
        "Deep Sea Treasure (concave map)",
        _dst("concave"),
        15,
        30,
        steps=100,
        lr=0.02,
        warmup_steps=500,
        interior_start="endpoint1",
        init_noise=0.1,
        objective_names=_DST_NAMES,
        reset_optimizer=True,
    )
)
register_task(
    Task(
        "dst-convex",
        "Deep Sea Treasure (convex map)",
        _dst("convex"),
        15,
        30,
        steps=100,
        lr=0.02,
        warmup_steps=500,
        interior_start="endpoint1",
        init_noise=0.1,
        objective_names=_DST_NAMES,
        reset_optimizer=True,
    )
)
register_task(
    Task(
        "fishwood",
        "Fishwood",
        _fishwood,
        11,
        15,
        steps=100,
        lr=0.05,
        init_noise=0.1,
        reset_optimizer=True,
        objective_names=("fish: -(fish return) + KL", "wood: -(wood return) + KL"),
    )
)
register_task(
    Task(
        "quadratic",
        "two anisotropic quadratics",
        _quadratic,
        10,
        30,
        steps=20,
        lr=0.05,
        init_noise=0.1,
        objective_names=("(x-b1)' Q1 (x-b1)", "(x-b2)' Q2 (x-b2)"),
    )
)
register_task(
    Task(
        "bandit",
        "entropic bandit (paper example)",
        _bandit,
        10,
        30,
        steps=50,
        lr=0.05,
        init_noise=0.1,
        objective_names=("beta KL - <R1, pi>", "beta KL - <R2, pi>"),
    )
)
register_task(
    Task(
        "gear",
        "quadratic gear toy (p = 9)",
        _gear,
        20,
        30,
        steps=10,
        lr=0.1,
        optimizer="sgd",
        init_noise=0.05,
        objective_names=("(1 - x)^2", "x^2"),
    )
)


def _mountaincar() -> Any:
    from paretosurf.problems.mountaincar import MOMountainCar

    return MOMountainCar()


def _mountaincar_solver(problem: Any, steps: int, seed: int, device: str | None = None) -> Any:
    if device is None:
        return problem.gradient_solver(steps=steps, seed=seed)
    return problem.gradient_solver(steps=steps, seed=seed, device=device)


# The paper's MO-MountainCar row: a soft DQN trained K = 100 episodes per call (see
# paretosurf.problems.mountaincar), N = 5, 10 rounds; no exact front, so HV uses a fixed
# reference point beyond the worst value of either objective and IGD the non-dominated union
# of every method's points. Every method reports the most even of its last 5 rounds: the DQN's
# policies swing from call to call, and choosing among them holds up on fresh evaluation
# episodes (see paretosurf.loop).
register_task(
    Task(
        "mountaincar",
        "MO-MountainCar (soft DQN)",
        _mountaincar,
        5,
        10,
        alpha=0.3,
        steps=100,
        make_solver=_mountaincar_solver,
        hv_ref=(135.0, 135.0),
        moving_average=0.5,
        warm_start="slot",
        report="most-even",
        objective_names=(
            "time: -(discounted -1 per step) + KL",
            "push: -(discounted -1 per forward push) + KL",
        ),
    )
)
