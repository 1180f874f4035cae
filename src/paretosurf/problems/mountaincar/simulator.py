"""A batched torch simulator of MO-Gymnasium's ``mo-mountaincar-v0`` with two objectives.

:class:`MountainCarBatch` steps ``n_envs`` independent MountainCar environments as one tensor
operation (on any torch device); :func:`step_dynamics` is the pure step it is built on.

The two objectives
------------------
Of MO-Gymnasium's three rewards the simulator keeps two, in this order (signs as the
environment returns them, rewards are *maximized*):

* ``r1``, the time penalty (MO-Gymnasium's ``reward[0]``): -1 per step, 0 on the step that
  reaches the goal;
* ``r2``, the forward-push penalty (MO-Gymnasium's ``reward[2]``): -1 when the action is 2
  (push right), else 0.

Dynamics
--------
Gymnasium's ``MountainCarEnv`` (constants below), with ``a`` in ``{0, 1, 2}`` (push left, no
push, push right)::

    v <- clip(v + ((a - 1) * FORCE + cos(3 x) * (-GRAVITY)), -MAX_SPEED, MAX_SPEED)
    x <- clip(x + v, MIN_POSITION, MAX_POSITION)
    v <- 0 if x == MIN_POSITION and v < 0           (inelastic left wall)
    terminated = x >= GOAL_POSITION and v >= GOAL_VELOCITY

An episode starts at ``x ~ U[RESET_LOW, RESET_HIGH]``, ``v = 0``, and is truncated after
:data:`HORIZON` steps (the ``TimeLimit`` that ``mo_gymnasium.make`` adds).

Exactness
---------
The state is float64 and every operation is done in the order MO-Gymnasium does it, so the
states equal MO-Gymnasium's internal float64 state bit for bit (its observations are that
state cast to float32). The one operation whose result depends on the implementation is the
cosine: torch's ``cos`` differs from the C library's ``cos`` behind Python's ``math.cos`` by a
unit in the last place for about one input in a thousand on CPU (vectorized code) and for many
more on CUDA, and that difference reaches the velocity (on CPU a few percent of 200-step
episodes end up off by some ulps, on CUDA most). With ``exact=True`` (the default) the cosine is
therefore computed by the C library on the host (NumPy's float64 ``cos``, which is checked
once against ``math.cos``; if they ever disagree, ``math.cos`` itself is used), which costs a
host round trip per step on an accelerator. ``exact=False`` uses ``torch.cos`` on the tensor's
device: faster there, and within a few units in the last place of MO-Gymnasium per step.

Examples
--------
>>> import torch
>>> from paretosurf.problems.mountaincar.simulator import MountainCarBatch
>>> sim = MountainCarBatch(4)
>>> obs = sim.reset(torch.Generator().manual_seed(0))
>>> total = torch.zeros(4, 2, dtype=torch.float64)
>>> while not bool(sim.done.all()):
...     push = torch.where(sim.velocity >= 0, 2, 0)  # push along the velocity
...     obs, rewards, terminated, truncated = sim.step(push)
...     total += rewards
>>> sim.terminated.tolist(), sim.t.tolist()  # every car reached the goal, in t steps
([True, True, True, True], [122, 122, 125, 121])
>>> total[:, 0].tolist()  # time penalty: -1 per step but the last
[-121.0, -121.0, -124.0, -120.0]
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

try:
    import torch
except ImportError:  # the rl extra is missing: the module imports, its entry points explain
    torch = None  # type: ignore[assignment]

from paretosurf._utils.validation import check_positive_int

__all__ = [
    "FORCE",
    "GAMMA",
    "GOAL_POSITION",
    "GOAL_VELOCITY",
    "GRAVITY",
    "HORIZON",
    "MAX_POSITION",
    "MAX_SPEED",
    "MIN_POSITION",
    "N_ACTIONS",
    "N_OBJECTIVES",
    "OBJECTIVE_LABELS",
    "RESET_HIGH",
    "RESET_LOW",
    "MountainCarBatch",
    "step_dynamics",
]

#: Discount factor of the MountainCar benchmark.
GAMMA = 0.995
#: Steps after which an episode is truncated (``max_episode_steps`` of ``mo-mountaincar-v0``).
HORIZON = 200

#: Left end of the track (an inelastic wall).
MIN_POSITION = -1.2
#: Right end of the track.
MAX_POSITION = 0.6
#: Bound on the absolute velocity.
MAX_SPEED = 0.07
#: Position from which an episode terminates (with velocity >= :data:`GOAL_VELOCITY`).
GOAL_POSITION = 0.5
#: Velocity needed at the goal (``goal_velocity`` of ``mo-mountaincar-v0``).
GOAL_VELOCITY = 0.0
#: Velocity change per step of a push (actions 0 and 2).
FORCE = 0.001
#: Gravity coefficient: the slope adds ``cos(3 x) * (-GRAVITY)`` to the velocity.
GRAVITY = 0.0025
#: Initial positions are uniform in ``[RESET_LOW, RESET_HIGH]``.
RESET_LOW = -0.6
#: See :data:`RESET_LOW`.
RESET_HIGH = -0.4

#: Actions: 0 push left, 1 no push, 2 push right.
N_ACTIONS = 3
#: Rewards per step: time penalty, forward-push penalty.
N_OBJECTIVES = 2
#: Names of the two rewards, in order.
OBJECTIVE_LABELS = ("time", "forward_push")

_F64 = None if torch is None else torch.float64


def _require_torch() -> None:
    if torch is None:
        raise ImportError("the MO-MountainCar simulator needs torch: pip install 'paretosurf[rl]'")


# --------------------------------------------------------------------------- cosine
@lru_cache(maxsize=1)
def _numpy_cos_is_libm() -> bool:
    """Whether NumPy's float64 ``cos`` returns what ``math.cos`` does on a probe set.

    The probe covers the simulator's arguments ``3 x`` for ``x`` in the track, on a grid and
    at random points; an implementation that is not the C library's ``cos`` (e.g. a SIMD
    one with errors of about one ulp) disagrees on some of them.
    """
    lo, hi = 3 * MIN_POSITION, 3 * MAX_POSITION
    grid = np.linspace(lo, hi, 4001)
    rand = np.random.default_rng(20240531).uniform(lo, hi, 8000)
    probe = np.concatenate([grid, rand, -grid])
    expected = np.array([math.cos(v) for v in probe.tolist()], dtype=np.float64)
    return bool(np.array_equal(np.cos(probe), expected))


def _libm_cos(x: torch.Tensor) -> torch.Tensor:
    """``cos`` of a float64 tensor as Python's ``math.cos`` computes it, on ``x``'s device."""
    host = x.detach().to(device="cpu", dtype=_F64).contiguous().numpy()
    if _numpy_cos_is_libm():
        out = np.cos(host, out=np.empty_like(host))
    else:  # pragma: no cover - only where NumPy's cos is not the C library's
        out = np.fromiter(
            (math.cos(v) for v in host.ravel().tolist()), dtype=np.float64, count=host.size
        ).reshape(host.shape)
    return torch.from_numpy(out).to(x.device)


# --------------------------------------------------------------------------- dynamics
def _dynamics(
    position: torch.Tensor, velocity: torch.Tensor, actions: torch.Tensor, exact: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The unchecked step; each line is one float64 operation of Gymnasium's step, in order."""
    three_x = position * 3.0
    cos3x = _libm_cos(three_x) if exact else torch.cos(three_x)
    push = (actions - 1).to(_F64) * FORCE
    velocity = velocity + (push + cos3x * (-GRAVITY))
    velocity = torch.clamp(velocity, -MAX_SPEED, MAX_SPEED)
    position = torch.clamp(position + velocity, MIN_POSITION, MAX_POSITION)
    at_wall = (position == MIN_POSITION) & (velocity < 0)
    velocity = torch.where(at_wall, torch.zeros_like(velocity), velocity)
    terminated = (position >= GOAL_POSITION) & (velocity >= GOAL_VELOCITY)
    # 0 - 1 and 1 - 1 (not negations) so that the zero rewards are +0.0
    time_penalty = terminated.to(_F64) - 1.0
    forward_penalty = (actions != 2).to(_F64) - 1.0
    rewards = torch.stack((time_penalty, forward_penalty), dim=-1)
    return position, velocity, rewards, terminated


def _check_actions(actions: object, shape: torch.Size, device: torch.device) -> torch.Tensor:
    """``actions`` as an int64 tensor of ``shape`` on ``device``, or raise."""
    if not isinstance(actions, torch.Tensor):
        raise TypeError(f"actions must be a torch.Tensor of integers, got {type(actions).__name__}")
    if actions.dtype == torch.bool or actions.is_floating_point() or actions.is_complex():
        raise TypeError(f"actions must have an integer dtype, got {actions.dtype}")
    if actions.shape != shape:
        raise ValueError(f"actions must have shape {tuple(shape)}, got {tuple(actions.shape)}")
    return actions.to(device=device, dtype=torch.int64)


def _check_action_values(actions: torch.Tensor) -> None:
    """Raise unless every action is 0, 1 or 2 (synchronizes with the device)."""
    bad = (actions < 0) | (actions >= N_ACTIONS)
    if bool(bad.any()):
        values = sorted(set(actions[bad].tolist()))[:5]
        raise ValueError(f"actions must be 0, 1 or 2, got {values}")


def step_dynamics(
    position: torch.Tensor,
    velocity: torch.Tensor,
    actions: torch.Tensor,
    *,
    exact: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """One MountainCar step of every element of a batch, without any episode bookkeeping.

    Parameters
    ----------
    position, velocity : torch.Tensor
        float64 tensors of one shape ``S`` (any number of dimensions), the current states.
    actions : torch.Tensor
        Integer tensor of shape ``S`` with values in ``{0, 1, 2}`` (push left, no push, push
        right); moved to ``position``'s device.
    exact : bool, default True
        Compute ``cos`` as the C library does (bit-for-bit MO-Gymnasium, a host round trip on
        accelerators) rather than with ``torch.cos`` on the device (see the module docstring).

    Returns
    -------
    position, velocity : torch.Tensor
        The next states, float64 of shape ``S`` (new tensors; the inputs are not modified).
    rewards : torch.Tensor
        float64 of shape ``S + (2,)``: the time penalty (0 if the step reaches the goal, else
        -1) and the forward-push penalty (-1 if the action is 2, else 0).
    terminated : torch.Tensor
        bool of shape ``S``: the next state is at the goal.

    Raises
    ------
    TypeError
        If a state is not a float64 tensor or ``actions`` not an integer tensor.
    ValueError
        If the shapes differ, the states are on different devices, or an action is not 0, 1
        or 2.

    Examples
    --------
    >>> import torch
    >>> from paretosurf.problems.mountaincar.simulator import step_dynamics
    >>> x = torch.tensor([-0.5, 0.49, -1.19], dtype=torch.float64)
    >>> v = torch.tensor([0.0, 0.02, -0.03], dtype=torch.float64)
    >>> x1, v1, rewards, terminated = step_dynamics(x, v, torch.tensor([2, 1, 0]))
    >>> terminated.tolist(), x1[2].item(), v1[2].item()  # goal reached; stopped by the wall
    ([False, True, False], -1.2, 0.0)
    >>> rewards.tolist()
    [[-1.0, -1.0], [0.0, 0.0], [-1.0, 0.0]]
    """
    _require_torch()
    for name, tensor in (("position", position), ("velocity", velocity)):
        if not isinstance(tensor, torch.Tensor) or tensor.dtype != _F64:
            got = tensor.dtype if isinstance(tensor, torch.Tensor) else type(tensor).__name__
            raise TypeError(f"{name} must be a float64 torch.Tensor, got {got}")
    if velocity.shape != position.shape:
        raise ValueError(
            f"position and velocity must have one shape, got {tuple(position.shape)} and "
            f"{tuple(velocity.shape)}"
        )
    if velocity.device != position.device:
        raise ValueError(
            f"position and velocity must be on one device, got {position.device} and "
            f"{velocity.device}"
        )
    acts = _check_actions(actions, position.shape, position.device)
    _check_action_values(acts)
    return _dynamics(position, velocity, acts, bool(exact))


# --------------------------------------------------------------------------- batch
class MountainCarBatch:
    """A batch of independent MO-MountainCar environments stepped as one tensor operation.

    Each environment behaves as ``mo_gymnasium.make("mo-mountaincar-v0")`` restricted to the
    rewards ``[time penalty, forward-push penalty]`` (see the module docstring), including the
    truncation after ``horizon`` steps. Environments whose episode has ended (terminated or
    truncated) stay frozen until the next :meth:`reset`: their state and step counter do not
    change and their rewards are 0, so a whole batch of episodes can be run for ``horizon``
    steps and summed, using :attr:`done` as the mask of finished environments.

    Parameters
    ----------
    n_envs : int
        Number of environments, >= 1.
    device : str or torch.device, default "cpu"
        Device of the state tensors.
    horizon : int, default 200
        Steps after which an episode is truncated, >= 1.
    exact : bool, default True
        Compute ``cos`` as the C library does, so that states equal MO-Gymnasium's bit for bit
        (a host round trip per step on accelerators); ``False`` uses ``torch.cos`` on
        ``device``.

    Attributes
    ----------
    position, velocity : torch.Tensor
        float64 ``(n_envs,)`` states (replaced, not modified in place, by each step).
    t : torch.Tensor
        int64 ``(n_envs,)`` steps taken in the current episode (after the episode ends: its
        length).
    n_envs, horizon, device, exact
        The constructor's arguments (``device`` as a ``torch.device``).

    Examples
    --------
    >>> import torch
    >>> from paretosurf.problems.mountaincar.simulator import MountainCarBatch
    >>> sim = MountainCarBatch(3, horizon=2)
    >>> sim.reset(positions=torch.tensor([-0.5, -0.5, 0.55], dtype=torch.float64))
    tensor([[-0.5000,  0.0000],
            [-0.5000,  0.0000],
            [ 0.5500,  0.0000]], dtype=torch.float64)
    >>> obs, rewards, terminated, truncated = sim.step(torch.tensor([0, 2, 1]))
    >>> rewards.tolist(), terminated.tolist(), truncated.tolist()
    ([[-1.0, 0.0], [-1.0, -1.0], [0.0, 0.0]], [False, False, True], [False, False, False])
    >>> obs, rewards, terminated, truncated = sim.step(torch.tensor([0, 2, 1]))
    >>> rewards.tolist(), terminated.tolist(), truncated.tolist()  # env 2 is frozen
    ([[-1.0, 0.0], [-1.0, -1.0], [0.0, 0.0]], [False, False, False], [True, True, False])
    >>> sim.done.tolist(), sim.t.tolist()
    ([True, True, True], [2, 2, 1])
    """

    def __init__(
        self,
        n_envs: int,
        *,
        device: str | torch.device = "cpu",
        horizon: int = HORIZON,
        exact: bool = True,
    ) -> None:
        _require_torch()
        self.n_envs = check_positive_int(n_envs, name="n_envs")
        self.horizon = check_positive_int(horizon, name="horizon")
        self.exact = bool(exact)
        self.position = torch.zeros(self.n_envs, dtype=_F64, device=device)
        self.device = self.position.device
        self.velocity = torch.zeros_like(self.position)
        self.t = torch.zeros(self.n_envs, dtype=torch.int64, device=self.device)
        self._terminated = torch.zeros(self.n_envs, dtype=torch.bool, device=self.device)
        self._truncated = torch.zeros_like(self._terminated)
        self._has_reset = False

    def __repr__(self) -> str:
        return (
            f"MountainCarBatch(n_envs={self.n_envs}, device={str(self.device)!r}, "
            f"horizon={self.horizon}, exact={self.exact})"
        )

    # ------------------------------------------------------------------ state
    @property
    def done(self) -> torch.Tensor:
        """bool ``(n_envs,)``: the environment's episode has ended (terminated or truncated)."""
        return self._terminated | self._truncated

    @property
    def terminated(self) -> torch.Tensor:
        """bool ``(n_envs,)``: the episode has ended at the goal (stays True until reset)."""
        return self._terminated.clone()

    @property
    def truncated(self) -> torch.Tensor:
        """bool ``(n_envs,)``: the episode was cut at ``horizon`` (stays True until reset)."""
        return self._truncated.clone()

    def observations(self) -> torch.Tensor:
        """float64 ``(n_envs, 2)``: ``[position, velocity]`` of every environment (a copy)."""
        return torch.stack((self.position, self.velocity), dim=-1)

    # ------------------------------------------------------------------ episode
    def reset(
        self,
        generator: torch.Generator | None = None,
        *,
        positions: torch.Tensor | None = None,
        velocities: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Start a new episode in every environment.

        Parameters
        ----------
        generator : torch.Generator, optional
            Source of the initial positions, uniform in ``[RESET_LOW, RESET_HIGH]``; torch's
            default generator of the device if omitted. It may live on another device than
            the batch (the positions are drawn there and moved).
        positions : torch.Tensor, optional
            The initial positions instead, shape ``(n_envs,)``, in
            ``[MIN_POSITION, MAX_POSITION]`` (converted to float64 on the batch's device),
            e.g. the reset states of MO-Gymnasium environments to replay them.
        velocities : torch.Tensor, optional
            Initial velocities, shape ``(n_envs,)`` in ``[-MAX_SPEED, MAX_SPEED]``, with
            ``positions`` (default 0: MO-Gymnasium's resets), for exploring starts.

        Returns
        -------
        torch.Tensor
            float64 ``(n_envs, 2)``: the observations ``[position, velocity]`` (velocity 0).

        Raises
        ------
        TypeError
            If ``positions`` is not a real tensor or ``generator`` not a generator.
        ValueError
            If both are given, or ``positions`` has the wrong shape or a value outside the
            track.
        """
        if positions is not None:
            if generator is not None:
                raise ValueError("pass either generator or positions to reset, not both")
            self.position = self._check_positions(positions)
        else:
            if generator is not None and not isinstance(generator, torch.Generator):
                raise TypeError(
                    f"generator must be a torch.Generator, got {type(generator).__name__}"
                )
            where = generator.device if generator is not None else self.device
            u = torch.rand(self.n_envs, dtype=_F64, device=where, generator=generator)
            self.position = (RESET_LOW + (RESET_HIGH - RESET_LOW) * u).to(self.device)
        self.velocity = torch.zeros_like(self.position)
        if velocities is not None:
            if positions is None:
                raise ValueError("velocities need positions")
            v = torch.as_tensor(velocities, dtype=_F64, device=self.device)
            if v.shape != self.position.shape or not bool((v.abs() <= MAX_SPEED).all()):
                raise ValueError(
                    f"velocities must have shape ({self.n_envs},) and lie in "
                    f"[-{MAX_SPEED}, {MAX_SPEED}]"
                )
            self.velocity = v.clone()
        self.t = torch.zeros(self.n_envs, dtype=torch.int64, device=self.device)
        self._terminated = torch.zeros(self.n_envs, dtype=torch.bool, device=self.device)
        self._truncated = torch.zeros_like(self._terminated)
        self._has_reset = True
        return self.observations()

    def _check_positions(self, positions: object) -> torch.Tensor:
        """``positions`` as a float64 ``(n_envs,)`` tensor on the batch's device, or raise."""
        if not isinstance(positions, torch.Tensor):
            raise TypeError(f"positions must be a torch.Tensor, got {type(positions).__name__}")
        if positions.dtype == torch.bool or positions.is_complex():
            raise TypeError(f"positions must have a real dtype, got {positions.dtype}")
        if positions.shape != (self.n_envs,):
            raise ValueError(
                f"positions must have shape ({self.n_envs},), got {tuple(positions.shape)}"
            )
        out = positions.detach().to(device=self.device, dtype=_F64).clone()
        outside = ~((out >= MIN_POSITION) & (out <= MAX_POSITION))  # NaN is outside
        if bool(outside.any()):
            raise ValueError(
                f"positions must lie in [{MIN_POSITION}, {MAX_POSITION}], got "
                f"{out[outside][:5].tolist()}"
            )
        return out

    def step(
        self, actions: torch.Tensor, *, check: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Step every environment whose episode is running; the others stay frozen.

        Parameters
        ----------
        actions : torch.Tensor
            Integer ``(n_envs,)`` (int64 or any integer dtype, moved to the batch's device)
            with values in ``{0, 1, 2}``: push left, no push, push right. The actions of
            frozen environments are checked but have no effect.
        check : bool, default True
            Check that every action is 0, 1 or 2. The check synchronizes with the device;
            ``False`` skips it (an invalid action then gives undefined results).

        Returns
        -------
        observations : torch.Tensor
            float64 ``(n_envs, 2)``: ``[position, velocity]`` after the step.
        rewards : torch.Tensor
            float64 ``(n_envs, 2)``: ``[time penalty, forward-push penalty]`` of the step, 0
            for frozen environments.
        terminated : torch.Tensor
            bool ``(n_envs,)``: the episode ended at the goal *on this step*.
        truncated : torch.Tensor
            bool ``(n_envs,)``: the episode reached ``horizon`` steps *on this step* (as with
            Gymnasium's ``TimeLimit``, also when it terminated on that step).

        Both flags are False for environments that were already frozen; :attr:`done`,
        :attr:`terminated` and :attr:`truncated` keep the status of the episode.

        Raises
        ------
        RuntimeError
            If :meth:`reset` has not been called.
        TypeError, ValueError
            If ``actions`` is not an integer tensor of shape ``(n_envs,)`` with values in
            ``{0, 1, 2}``.
        """
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        acts = _check_actions(actions, self.position.shape, self.device)
        if check:
            _check_action_values(acts)
        active = ~self.done
        position, velocity, rewards, reached = _dynamics(
            self.position, self.velocity, acts, self.exact
        )
        self.position = torch.where(active, position, self.position)
        self.velocity = torch.where(active, velocity, self.velocity)
        rewards = torch.where(active[:, None], rewards, torch.zeros_like(rewards))
        self.t = self.t + active.to(torch.int64)
        terminated = reached & active
        truncated = active & (self.t >= self.horizon)
        self._terminated = self._terminated | terminated
        self._truncated = self._truncated | truncated
        return self.observations(), rewards, terminated, truncated
