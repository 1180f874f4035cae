"""Tabular models of MO-Gymnasium's Deep Sea Treasure and Fishwood, and their regularized MDPs.

Both environments are small and finite, so their dynamics can be written down exactly as a
tabular MDP: transition probabilities ``P`` of shape ``(S, A, S)`` (``P[s, a, s']``), expected
reward vectors ``R`` of shape ``(M, S, A)`` and an initial distribution ``rho`` of shape
``(S,)``. :class:`TabularModel` holds them with labels; :func:`tabular_deep_sea_treasure` and
:func:`tabular_fishwood` build them; :func:`deep_sea_treasure` and :func:`fishwood` wrap them in a
KL-regularized :class:`TabularMDP`, a :class:`~paretosurf.problems.mdp.RegularizedMDP` that keeps
the model as ``.model`` (the paper's benchmarks).

Objective order and signs
-------------------------
``R`` keeps **MO-Gymnasium's reward-vector order and signs**: rewards are *maximized* by the
agent, exactly as the environment returns them.

* Deep Sea Treasure: ``R[0]`` = treasure value (>= 0, paid on entering a treasure cell),
  ``R[1]`` = time penalty (-1 per step).
* Fishwood: ``R[0]`` = fish (1 with probability ``fishproba`` per step spent fishing),
  ``R[1]`` = wood (1 with probability ``woodproba`` per step spent in the woods).
  (MO-Gymnasium's Fishwood docstring lists the two the other way round; its code, which the
  tests replay, puts fish first.)

The regularized MDPs turn these into *minimized* objectives, the negated regularized returns
``h_m(pi) = E[sum_t gamma^t (-r_m(s_t, a_t) + beta KL(pi(.|s_t) || uniform))]`` (times
``1 - gamma`` with RegularizedMDP's default ``scale="normalized"``), so ``w`` (the weight on
objective 1) weighs the treasure in DST and the fish in Fishwood. The paper lists DST's
objectives as (time, treasure); use :meth:`TabularModel.reorder_objectives` with ``(1, 0)`` for
that order (it maps ``w`` to ``1 - w``).

What is and is not modelled
---------------------------
* DST: one state per non-rock cell of the 11x11 map (72 for both the convex and the concave
  map, the 10 treasure cells included) plus one absorbing terminal state. See
  :func:`tabular_deep_sea_treasure` for the treasure-cell convention that makes the discounted
  tabular return equal the environment's episodic return.
* Rewards are exact float64 values (e.g. 0.7); the environments return them as float32.
* The environments' time limits (DST: truncation after 100 steps by the registered
  ``TimeLimit``; Fishwood: end of the episode after 200 steps) are not modelled: the models are
  infinite-horizon discounted MDPs, as in the paper.

Examples
--------
>>> from paretosurf.problems.gym import tabular_deep_sea_treasure, tabular_fishwood
>>> dst = tabular_deep_sea_treasure("concave")
>>> dst.P.shape, dst.R.shape, dst.objective_labels
((73, 4, 73), (2, 73, 4), ('treasure', 'time'))
>>> tabular_fishwood().R[:, :, 0].tolist()  # [objective][state], state 0 fishing, 1 woods
[[0.1, 0.0], [0.0, 0.9]]
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_positive_int
from paretosurf.problems._simplex import check_simplex
from paretosurf.problems.mdp import RegularizedMDP
from paretosurf.solvers import check_interior_start

__all__ = [
    "DST_MAPS",
    "TabularMDP",
    "TabularModel",
    "deep_sea_treasure",
    "dst_sea_map",
    "fishwood",
    "tabular_deep_sea_treasure",
    "tabular_fishwood",
]

FloatArray = NDArray[np.float64]

#: Cell value marking a rock in MO-Gymnasium's DST maps (water is 0, anything else a treasure).
ROCK = -10.0

#: Built-in description of MO-Gymnasium's two 11x11 DST maps: treasure value per column
#: 0..9, in the row given by ``_DST_TREASURE_ROWS`` (cells below a treasure are rock, column 10
#: is all water). The tests check :func:`dst_sea_map` against the installed MO-Gymnasium.
DST_MAPS: dict[str, tuple[float, ...]] = {
    # deep-sea-treasure-concave-v0 (Vamplew et al.)
    "concave": (1.0, 2.0, 3.0, 5.0, 8.0, 16.0, 24.0, 50.0, 74.0, 124.0),
    # deep-sea-treasure-v0, MO-Gymnasium's default map (Yang et al.)
    "convex": (0.7, 8.2, 11.5, 14.0, 15.1, 16.1, 19.6, 20.3, 22.4, 23.7),
}
_DST_TREASURE_ROWS = (1, 2, 3, 4, 4, 4, 7, 7, 9, 10)
_DST_SIZE = 11
_DST_START = (0, 0)
#: MO-Gymnasium's DST actions as (row, column) offsets: 0 up, 1 down, 2 left, 3 right.
_DST_MOVES: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))
_MOVE_NAMES = {(-1, 0): "up", (1, 0): "down", (0, -1): "left", (0, 1): "right"}
TERMINAL = "terminal"


@dataclass(frozen=True, eq=False)
class TabularModel:
    """A finite multi-reward MDP: dynamics, expected rewards, start distribution and labels.

    Arrays are stored as read-only float64 copies; the instance is immutable. Probability rows
    (``P[s, a]``, ``rho``) must sum to 1 within ``SIMPLEX_TOL = 1e-8``.

    Attributes
    ----------
    P : ndarray, shape (S, A, S)
        ``P[s, a, s']``, the probability of moving to ``s'`` after action ``a`` in ``s``.
    R : ndarray, shape (M, S, A)
        Expected reward of objective ``m`` for action ``a`` in ``s``, in the environment's
        order and sign (maximized by the agent).
    rho : ndarray, shape (S,)
        Initial state distribution.
    state_labels : tuple, length S
        A hashable label per state (DST: ``(row, col)`` or ``"terminal"``; Fishwood: names).
    action_labels, objective_labels : tuple of str
        Names of the actions (length A) and of the reward components (length M).
    terminal_state : int or None
        Index of the absorbing zero-reward terminal state, if the model has one.
    name : str
        Short description, e.g. ``"deep-sea-treasure-concave"``.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.zeros((2, 2, 2)); P[:, 0, 0] = 1; P[:, 1, 1] = 1   # action = next state
    >>> R = np.array([[[1.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [2.0, 2.0]]])
    >>> m = TabularModel(P, R, np.array([1.0, 0.0]), ("a", "b"), ("to a", "to b"), ("x", "y"))
    >>> m.n_states, m.n_actions, m.n_objectives
    (2, 2, 2)
    >>> m.discounted_returns(np.array([[0.0, 1.0], [0.0, 1.0]]), gamma=0.5).tolist()
    [1.0, 2.0]
    """

    P: FloatArray
    R: FloatArray
    rho: FloatArray
    state_labels: tuple[Hashable, ...]
    action_labels: tuple[str, ...]
    objective_labels: tuple[str, ...]
    terminal_state: int | None = None
    name: str = ""

    def __post_init__(self) -> None:
        P = _frozen_array(self.P, "P")
        R = _frozen_array(self.R, "R")
        rho = _frozen_array(self.rho, "rho")
        if P.ndim != 3 or P.shape[0] != P.shape[2] or P.shape[0] < 1 or P.shape[1] < 1:
            raise ValueError(f"P must have shape (S, A, S) with S, A >= 1, got {P.shape}")
        n_s, n_a = P.shape[:2]
        check_simplex(P, name="P")
        if R.ndim != 3 or R.shape[1:] != (n_s, n_a) or R.shape[0] < 1:
            raise ValueError(f"R must have shape (M, S, A) = (M, {n_s}, {n_a}), got {R.shape}")
        if rho.shape != (n_s,):
            raise ValueError(f"rho must be a probability vector of shape ({n_s},), got {rho.shape}")
        check_simplex(rho, name="rho")
        labels = {
            "state_labels": (tuple(self.state_labels), n_s),
            "action_labels": (tuple(self.action_labels), n_a),
            "objective_labels": (tuple(self.objective_labels), R.shape[0]),
        }
        for field_name, (values, size) in labels.items():
            if len(values) != size:
                raise ValueError(f"{field_name} must have {size} entries, got {len(values)}")
            if len(set(values)) != size:
                raise ValueError(f"{field_name} must be distinct, got {values!r}")
            object.__setattr__(self, field_name, values)
        t = self.terminal_state
        if t is not None:
            if isinstance(t, bool) or not isinstance(t, numbers.Integral) or not 0 <= t < n_s:
                raise ValueError(f"terminal_state must be None or a state index in [0, {n_s})")
            t = int(t)
            if not np.all(P[t, :, t] == 1.0) or np.any(R[:, t, :] != 0.0):
                raise ValueError("terminal_state must be absorbing with zero reward")
        object.__setattr__(self, "terminal_state", t)
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "rho", rho)

    @property
    def n_states(self) -> int:
        """Number of states S."""
        return int(self.P.shape[0])

    @property
    def n_actions(self) -> int:
        """Number of actions A."""
        return int(self.P.shape[1])

    @property
    def n_objectives(self) -> int:
        """Number of reward components M."""
        return int(self.R.shape[0])

    def state_index(self, label: Any) -> int:
        """Index of the state with the given label.

        Sequences (including numpy arrays, e.g. a DST observation ``[row, col]``) are matched
        as tuples of ints. Raises ``KeyError`` for an unknown label.

        Examples
        --------
        >>> import numpy as np
        >>> dst = tabular_deep_sea_treasure()
        >>> dst.state_index(np.array([0, 0])), dst.state_index("terminal")
        (0, 72)
        """
        key: Hashable
        if isinstance(label, str):
            key = label
        elif isinstance(label, (Sequence, np.ndarray)):
            key = tuple(int(v) for v in np.asarray(label).ravel())
        else:
            key = label
        try:
            return self._index[key]
        except KeyError:
            raise KeyError(f"no state labelled {label!r} in {self.name or 'this model'}") from None

    @property
    def _index(self) -> dict[Hashable, int]:
        cached = self.__dict__.get("_index_cache")
        if cached is None:
            cached = {label: i for i, label in enumerate(self.state_labels)}
            object.__setattr__(self, "_index_cache", cached)
        return cached

    def discounted_returns(self, policy: ArrayLike, gamma: float) -> FloatArray:
        """Expected discounted return vector ``E[sum_t gamma^t r(s_t, a_t)]`` from ``rho``.

        Unregularized, in the environment's reward order and sign (one exact linear solve).

        Parameters
        ----------
        policy : array_like, shape (S, A)
            ``policy[s, a]``, a stochastic policy (rows sum to 1).
        gamma : float
            Discount factor in (0, 1).

        Returns
        -------
        ndarray, shape (M,)
        """
        pi = np.asarray(policy, dtype=np.float64)
        if pi.shape != (self.n_states, self.n_actions):
            raise ValueError(
                f"policy must have shape (S, A) = {(self.n_states, self.n_actions)}, got {pi.shape}"
            )
        check_simplex(pi, name="policy")
        g = _check_probability(gamma, "gamma", open_interval=True)
        p_pi = np.einsum("sa,sat->st", pi, self.P)
        r_pi = np.einsum("sa,msa->ms", pi, self.R)
        values = np.linalg.solve(np.eye(self.n_states) - g * p_pi, r_pi.T)  # (S, M)
        return np.asarray(self.rho @ values, dtype=np.float64)

    def reorder_objectives(self, order: Sequence[int]) -> TabularModel:
        """A copy with the reward components permuted: new objective ``i`` is old ``order[i]``.

        Examples
        --------
        >>> tabular_deep_sea_treasure().reorder_objectives((1, 0)).objective_labels
        ('time', 'treasure')
        """
        idx = [int(i) for i in order]
        if sorted(idx) != list(range(self.n_objectives)):
            raise ValueError(
                f"order must be a permutation of 0..{self.n_objectives - 1}, got {list(order)!r}"
            )
        return TabularModel(
            self.P,
            self.R[idx],
            self.rho,
            self.state_labels,
            self.action_labels,
            tuple(self.objective_labels[i] for i in idx),
            self.terminal_state,
            self.name,
        )


# --------------------------------------------------------------------------- Deep Sea Treasure


def dst_sea_map(map: str = "concave") -> FloatArray:
    """MO-Gymnasium's 11x11 DST map (``sea_map``): 0 water, -10 rock, other values treasures.

    Built from :data:`DST_MAPS`; equal to ``mo_gymnasium.make(...).unwrapped.sea_map`` of
    ``deep-sea-treasure-concave-v0`` (``"concave"``) and ``deep-sea-treasure-v0``
    (``"convex"``), which the tests check.

    Examples
    --------
    >>> m = dst_sea_map("convex")
    >>> float(m[1, 0]), float(m[10, 9]), int((m != -10).sum())
    (0.7, 23.7, 72)
    """
    values = DST_MAPS[_check_map(map)]
    sea = np.zeros((_DST_SIZE, _DST_SIZE), dtype=np.float64)
    for col, (row, value) in enumerate(zip(_DST_TREASURE_ROWS, values, strict=True)):
        sea[row, col] = value
        sea[row + 1 :, col] = ROCK
    return sea


def tabular_deep_sea_treasure(map: str | None = None, *, env: Any = None) -> TabularModel:
    """Exact tabular model of MO-Gymnasium's Deep Sea Treasure.

    States are the non-rock cells of the map in row-major order, labelled ``(row, col)`` like
    the environment's (integer) observation, followed by one absorbing ``"terminal"`` state
    (72 + 1 = 73 states for the convex and the concave map). Actions follow the environment:
    0 up (row - 1), 1 down, 2 left, 3 right (column + 1). Reward vector
    ``[treasure, time]``, maximized.

    * From a water cell, an action moves to the adjacent cell, or stays put if that cell is off
      the grid or a rock. Every such step pays ``time = -1`` and ``treasure`` = the value of the
      cell it ends in (0 for water), exactly as the environment's ``step``.
    * Entering a treasure cell is where the environment's episode terminates. In the model the
      treasure cell is a transient state: **all four of its actions lead to the terminal state
      with reward (0, 0)**, and the terminal state is absorbing with reward (0, 0). Hence a
      trajectory's discounted tabular return equals the environment's discounted episodic
      return: the treasure and the last -1 are paid at the step that enters the treasure cell
      (discount ``gamma^t``), and nothing is paid afterwards.
    * Because the treasure cell's and the terminal's actions are all equivalent, the KL-regularized
      optimal policy there is the reference policy, whose KL term is 0: the two extra states
      change no regularized optimum either (they do get occupancy mass, which keeps every
      grid state's occupancy positive, as the paper's exploration condition asks).
    * The registered ``TimeLimit`` of 100 steps (a truncation) is not modelled.

    Parameters
    ----------
    map : {"concave", "convex"}, optional
        Which map (default ``"concave"``, MO-Gymnasium's ``deep-sea-treasure-concave-v0`` with
        treasures 1 ... 124; ``"convex"`` is ``deep-sea-treasure-v0``, treasures 0.7 ... 23.7).
        Read from :func:`dst_sea_map` unless ``env`` is given.
    env : DeepSeaTreasure environment, optional
        Read the map (``sea_map``), the action offsets (``dir``) and the start cell from this
        MO-Gymnasium environment object (wrappers are unwrapped) instead; any map it supports
        works, the mirrored one included. The environment is reset. If ``map`` is given too, it
        must equal the environment's ``map_name``.

    Returns
    -------
    TabularModel
        ``rho`` is the point mass on the start cell (0, 0); ``terminal_state`` is the last index.

    Examples
    --------
    >>> dst = tabular_deep_sea_treasure("concave")
    >>> dst.n_states, dst.n_actions, dst.terminal_state
    (73, 4, 72)
    >>> s = dst.state_index((0, 0)); a = dst.action_labels.index("down")
    >>> t = int(dst.P[s, a].argmax()); dst.state_labels[t], dst.R[:, s, a].tolist()
    ((1, 0), [1.0, -1.0])
    >>> dst.P[t, :, dst.terminal_state].tolist(), dst.R[:, t, :].tolist()
    ([1.0, 1.0, 1.0, 1.0], [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    """
    if env is None:
        name = _check_map("concave" if map is None else map)
        sea = dst_sea_map(name)
        moves: Sequence[tuple[int, int]] = _DST_MOVES
        start: tuple[int, int] = _DST_START
    else:
        raw = getattr(env, "unwrapped", env)
        for attr in ("sea_map", "dir", "reset"):
            if not hasattr(raw, attr):
                raise TypeError(
                    f"env must be an MO-Gymnasium DeepSeaTreasure environment; {type(raw).__name__}"
                    f" has no attribute {attr!r}"
                )
        name = str(getattr(raw, "map_name", "custom"))
        if map is not None and map != name:
            raise ValueError(f"map={map!r} does not match the environment's map {name!r}")
        sea = np.asarray(raw.sea_map, dtype=np.float64)
        offsets = [np.asarray(raw.dir[a]).ravel() for a in sorted(raw.dir)]
        if any(o.size != 2 for o in offsets):
            raise ValueError("env.dir must map each action to a (row, col) offset")
        moves = [(int(o[0]), int(o[1])) for o in offsets]
        obs, _ = raw.reset()
        start = (int(np.asarray(obs).ravel()[0]), int(np.asarray(obs).ravel()[1]))
        if getattr(raw, "float_state", False):
            raise ValueError("env must use integer observations (float_state=False)")
    return _grid_model(sea, moves, start, name=f"deep-sea-treasure-{name}")


def _grid_model(
    sea: FloatArray, moves: Sequence[tuple[int, int]], start: tuple[int, int], *, name: str
) -> TabularModel:
    """Tabular DST model from a map, (row, col) action offsets and a start cell."""
    if sea.ndim != 2 or not np.all(np.isfinite(sea)):
        raise ValueError(f"the DST map must be a finite 2-D array, got shape {sea.shape}")
    n_rows, n_cols = sea.shape
    cells = [(r, c) for r in range(n_rows) for c in range(n_cols) if sea[r, c] != ROCK]
    index = {cell: i for i, cell in enumerate(cells)}
    if start not in index:
        raise ValueError(f"the start cell {start} is a rock or off the grid")
    n_s, n_a = len(cells) + 1, len(moves)
    terminal = n_s - 1
    P = np.zeros((n_s, n_a, n_s))
    R = np.zeros((2, n_s, n_a))
    P[terminal, :, terminal] = 1.0
    for (r, c), s in index.items():
        if sea[r, c] != 0.0:  # treasure cell: the episode has ended; go to the terminal
            P[s, :, terminal] = 1.0
            continue
        for a, (dr, dc) in enumerate(moves):
            target = (r + dr, c + dc)
            nxt = target if target in index else (r, c)  # off grid / rock: stay put
            P[s, a, index[nxt]] = 1.0
            R[0, s, a] = sea[nxt]
            R[1, s, a] = -1.0
    rho = np.zeros(n_s)
    rho[index[start]] = 1.0
    actions = tuple(_MOVE_NAMES.get(m, f"move{m}") for m in moves)
    labels: tuple[Hashable, ...] = (*cells, TERMINAL)
    return TabularModel(P, R, rho, labels, actions, ("treasure", "time"), terminal, name)


# ------------------------------------------------------------------------------------ Fishwood


def tabular_fishwood(fishproba: float = 0.1, woodproba: float = 0.9) -> TabularModel:
    """Exact (expected-reward) tabular model of MO-Gymnasium's ``fishwood-v0``.

    Two states, with the environment's observation values as indices: 0 ``"fishing"``,
    1 ``"woods"``; start in the woods. Action ``a`` moves deterministically to state ``a``
    (0 go fishing, 1 go to the woods). The reward is earned in the state the agent is *in*
    when it acts, before moving: fish = 1 with probability ``fishproba`` while fishing, wood
    = 1 with probability ``woodproba`` in the woods. ``R`` holds the expectations, in the
    environment's order ``[fish, wood]`` (maximized). No terminal state; the environment's
    200-step episode end is not modelled.

    Parameters
    ----------
    fishproba, woodproba : float
        Probabilities in [0, 1], as the environment's keyword arguments.

    Examples
    --------
    >>> fw = tabular_fishwood()
    >>> fw.state_labels, fw.action_labels, fw.objective_labels
    (('fishing', 'woods'), ('go fishing', 'go to the woods'), ('fish', 'wood'))
    >>> fw.rho.tolist(), fw.P[0, 1].tolist()
    ([0.0, 1.0], [0.0, 1.0])
    """
    fish = _check_probability(fishproba, "fishproba")
    wood = _check_probability(woodproba, "woodproba")
    P = np.zeros((2, 2, 2))
    for a in range(2):
        P[:, a, a] = 1.0
    R = np.zeros((2, 2, 2))
    R[0, 0, :] = fish  # fish, earned while in state 0 (fishing), whatever the action
    R[1, 1, :] = wood  # wood, earned while in state 1 (woods)
    return TabularModel(
        P,
        R,
        np.array([0.0, 1.0]),
        ("fishing", "woods"),
        ("go fishing", "go to the woods"),
        ("fish", "wood"),
        None,
        "fishwood",
    )


# ----------------------------------------------------------------------- regularized problems


class TabularMDP(RegularizedMDP):
    """A :class:`~paretosurf.problems.mdp.RegularizedMDP` that keeps the model it was built from.

    Parameters
    ----------
    model : TabularModel
        Supplies ``P``, ``R`` (objective ``m`` is the negated regularized return of
        ``model.R[m]``) and ``rho``; kept as the attribute ``model``.
    gamma, beta, ref_policy, scale
        As for :class:`~paretosurf.problems.mdp.RegularizedMDP` (``ref_policy=None``: uniform).
    warmup_steps : int
        The start-up of the K-step solver's runs (see
        :class:`~paretosurf.problems.mdp.RegularizedMDP`): the end slots' warm-up steps
        (default 0: none).
    interior_start : {"default", "endpoint1"}
        Where the interior slots start: the reference policy, or the warmed-up ``w = 1`` end.
    """

    def __init__(
        self,
        model: TabularModel,
        gamma: float,
        beta: float,
        ref_policy: ArrayLike | None = None,
        *,
        scale: str = "normalized",
        warmup_steps: int = 0,
        interior_start: str = "default",
    ) -> None:
        if not isinstance(model, TabularModel):
            raise TypeError(f"model must be a TabularModel, got {type(model).__name__}")
        super().__init__(model.P, model.R, gamma, model.rho, beta, ref_policy, scale=scale)
        self.model = model
        self.warmup_steps = (
            0 if warmup_steps == 0 else check_positive_int(warmup_steps, name="warmup_steps")
        )
        self.interior_start = check_interior_start(interior_start)


def deep_sea_treasure(
    map: str = "concave", gamma: float = 0.999, beta: float = 1.5, *, scale: str = "normalized"
) -> TabularMDP:
    """The paper's DST benchmark: a KL-regularized MDP against the uniform policy.

    Objectives (minimized): ``h_1`` = negated regularized discounted treasure return,
    ``h_2`` = negated regularized discounted time return (i.e. the regularized discounted time
    cost), ``h_m = E[sum_t gamma^t (-r_m + beta * KL(pi(.|s_t) || uniform))]``, multiplied by
    ``1 - gamma`` with the default ``scale="normalized"``; ``w`` weighs the treasure. The
    :class:`TabularModel` is kept as ``.model``.

    Its K-step solver (``.gradient_solver(steps=K)``) starts a run as the paper's protocol
    does (``warmup_steps=500``, ``interior_start="endpoint1"``): both ends first solved with
    500 steps, the interior slots from the treasure-seeking end, from which K steps reach
    every trade-off (from the uniform policy they stall for thousands of steps on the
    plateau of the nearest treasure). So the shortest call reaches an even front:

    >>> import paretosurf as ps
    >>> res = ps.surf(deep_sea_treasure().gradient_solver(steps=100), 15)  # doctest: +SKIP
    >>> res.success                                                        # doctest: +SKIP
    True

    Parameters
    ----------
    map : {"concave", "convex"}
        See :func:`tabular_deep_sea_treasure`.
    gamma : float
        Discount factor in (0, 1) (paper: 0.999).
    beta : float
        KL regularization strength > 0 (paper: 1.5).
    scale : {"normalized", "discounted"}
        See :class:`~paretosurf.problems.mdp.RegularizedMDP`.

    Examples
    --------
    >>> mdp = deep_sea_treasure(gamma=0.9, beta=0.01, scale="discounted")
    >>> mdp.model.objective_labels
    ('treasure', 'time')
    >>> h = mdp.front([0.0])[0]   # time only: take the 1-step treasure (time cost 1)
    >>> bool(1.0 <= h[1] < 1.05)
    True
    """
    model = tabular_deep_sea_treasure(map)
    return TabularMDP(model, gamma, beta, scale=scale, warmup_steps=500, interior_start="endpoint1")


def fishwood(
    gamma: float = 0.995,
    beta: float = 0.5,
    fishproba: float = 0.1,
    woodproba: float = 0.9,
    *,
    scale: str = "normalized",
) -> TabularMDP:
    """The paper's Fishwood benchmark: a KL-regularized MDP against the uniform policy.

    Objectives (minimized): negated regularized discounted fish return (``h_1``) and wood
    return (``h_2``), multiplied by ``1 - gamma`` with the default ``scale="normalized"``;
    ``w`` weighs the fish. The :class:`TabularModel` is kept as ``.model``.

    Parameters
    ----------
    gamma : float
        Discount factor in (0, 1) (paper: 0.995).
    beta : float
        KL regularization strength > 0 (paper: 0.5).
    fishproba, woodproba : float
        See :func:`tabular_fishwood`.
    scale : {"normalized", "discounted"}
        See :class:`~paretosurf.problems.mdp.RegularizedMDP`.

    Examples
    --------
    >>> mdp = fishwood()
    >>> mdp.model.objective_labels, mdp.n_states, mdp.n_actions
    (('fish', 'wood'), 2, 2)
    """
    model = tabular_fishwood(fishproba, woodproba)
    return TabularMDP(model, gamma, beta, scale=scale)


# ------------------------------------------------------------------------------------ helpers


def _frozen_array(value: ArrayLike, name: str) -> FloatArray:
    arr = np.array(value, dtype=np.float64)  # a copy, so the caller's array stays writable
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    arr.setflags(write=False)
    return arr


def _check_map(map: object) -> str:
    if not isinstance(map, str) or map not in DST_MAPS:
        raise ValueError(f"map must be one of {sorted(DST_MAPS)}, got {map!r}")
    return map


def _check_probability(value: object, name: str, *, open_interval: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    out = float(value)
    ok = 0.0 < out < 1.0 if open_interval else 0.0 <= out <= 1.0
    if not ok:
        interval = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name} must lie in {interval}, got {out}")
    return out
