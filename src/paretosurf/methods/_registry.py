"""The registry of methods: every method the library ships, in one table.

The benchmark (``paretosurf bench`` and ``paretosurf run``), the command line, the contract
suite :mod:`paretosurf.testing` and the tests read :data:`METHODS`. Adding a method is one
:class:`~paretosurf.loop.Method` subclass with its entry function, and one
:class:`MethodInfo` here: it is then benchmarked (two objectives), offered on the command line
and run through the contract suite.

A method's key is the name its runs record (``Method.name``, stored in run folders and in the
benchmark's files); ``aliases`` are other names it is found by, such as its entry function's
when that differs (``uniform_random`` for ``"random"``).

Examples
--------
>>> from paretosurf.methods import METHODS, get_method
>>> len(METHODS), get_method("uniform_random").name, get_method("random").label
(11, 'random', 'Random-w')
>>> sorted(name for name, info in METHODS.items() if info.takes("alpha"))
['surf', 'surf_simplex']
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from paretosurf.loop import LOOP_OPTIONS, Method
from paretosurf.methods._ols import OLSMethod, ols
from paretosurf.methods._simplex import (
    FixedSimplexMethod,
    das_dennis,
    energy,
    fixed_simplex,
    random_simplex,
)
from paretosurf.methods._soup import SoupMethod, soup
from paretosurf.methods._surf import SurfMethod, surf
from paretosurf.methods._surf_simplex import SurfSimplexMethod, surf_simplex
from paretosurf.methods._umod import UMODMethod, umod
from paretosurf.methods._uniform import (
    FixedWeightsMethod,
    RandomWeightsMethod,
    uniform,
    uniform_random,
)
from paretosurf.result import Result
from paretosurf.surfaces import random_simplex_weights

__all__ = ["METHODS", "MethodInfo", "get_method", "method_names"]


def _rounds(rounds: int, n_points: int) -> dict[str, Any]:
    return {"iterations": rounds}


def _ols_budget(rounds: int, n_points: int) -> dict[str, Any]:
    """OLS solves one weight per round until it stops: capped at the solves of ``rounds``
    rounds of every slot, as SURF's budget."""
    return {"max_solves": rounds * n_points}


def _fixed_simplex_layout(n_points: int, n_objectives: int) -> tuple[Any, ...]:
    """``fixed_simplex`` takes weight vectors: the corners, then random ones (seed 0)."""
    return (random_simplex_weights(n_points, n_objectives, seed=0),)


@dataclass(frozen=True)
class MethodInfo:
    """One method of the registry.

    Attributes
    ----------
    name : str
        The name its runs record (``Method.name``) and the command line takes.
    label : str
        Display name (tables, plots).
    description : str
        One line for ``paretosurf bench --help`` and the benchmark's tables.
    method : type
        The :class:`~paretosurf.loop.Method` subclass the entry function runs.
    entry : callable
        The public entry function, ``entry(solver, size..., **options)``.
    simplex : bool
        Whether the entry function takes ``(n_points, n_objectives)`` (any number of
        objectives, weights on the simplex) rather than ``n_segments`` (two objectives).
    aliases : tuple of str
        Other names :func:`get_method` finds it by.
    budget : callable
        ``budget(rounds, n_points) -> keywords``: how the budget of ``rounds`` rounds of
        every point is spelled for the entry function (default ``iterations=rounds``).
    layout : callable, optional
        ``layout(n_points, n_objectives) -> positional arguments`` after the solver, for an
        entry function that takes something else than the number of points (default
        ``(n_points - 1,)``, or ``(n_points, n_objectives)`` with ``simplex``).
    """

    name: str
    label: str
    description: str
    method: type[Method]
    entry: Callable[..., Result]
    simplex: bool = False
    aliases: tuple[str, ...] = ()
    budget: Callable[[int, int], dict[str, Any]] = _rounds
    layout: Callable[[int, int], tuple[Any, ...]] | None = field(default=None)

    @property
    def slots(self) -> bool:
        """Whether its points are its last round's, one per slot, so that its result can
        report an earlier round (the ``report`` loop option)."""
        return bool(self.method.front_is_last_round)

    def takes(self, keyword: str) -> bool:
        """Whether the entry function takes ``keyword`` as its own argument (``"alpha"``:
        the method is damped; ``"seed"``: it draws at random)."""
        return keyword in inspect.signature(self.entry).parameters

    def __call__(
        self, solver: Any, n_points: int, n_objectives: int = 2, *, rounds: int, **keywords: Any
    ) -> Result:
        """Run the method with the budget of ``rounds`` rounds of ``n_points`` points.

        ``keywords`` are loop options, or the method's own arguments: a keyword the entry
        function does not take (``alpha`` for a baseline, ``seed`` for Uniform-w) is left
        out, so that one call runs every method.

        Examples
        --------
        >>> import paretosurf as ps
        >>> from paretosurf.methods import METHODS
        >>> res = METHODS["uniform"](lambda w, s: ps.Solution([1 - w, w]), 5, rounds=2,
        ...                          alpha=0.5, seed=1)
        >>> res.method, res.n_solves
        ('uniform', 10)
        """
        if self.layout is not None:
            args = self.layout(n_points, n_objectives)
        elif self.simplex:
            args = (n_points, n_objectives)
        else:
            if n_objectives != 2:
                raise ValueError(
                    f"{self.name} handles two objectives, got n_objectives = {n_objectives}"
                )
            args = (n_points - 1,)
        own = inspect.signature(self.entry).parameters
        has_options = any(p.kind is p.VAR_KEYWORD for p in own.values())
        chosen = {
            k: v for k, v in keywords.items() if k in own or (has_options and k in LOOP_OPTIONS)
        }
        return self.entry(solver, *args, **self.budget(rounds, n_points), **chosen)


#: Every method, by the name its runs record.
METHODS: dict[str, MethodInfo] = {
    info.name: info
    for info in (
        MethodInfo(
            "surf",
            "SURF",
            "SURF (Algorithm 1): w_n = Phi_t^-1(n/N), Phi_t refined every iteration",
            SurfMethod,
            surf,
        ),
        MethodInfo("uniform", "Uniform-w", "fixed weights w_n = n/N", FixedWeightsMethod, uniform),
        MethodInfo(
            "random",
            "Random-w",
            "fixed sorted random weights drawn from the seed",
            RandomWeightsMethod,
            uniform_random,
            aliases=("uniform_random",),
        ),
        MethodInfo(
            "ols",
            "OLS",
            "Optimistic Linear Support: corner weights of the value envelope",
            OLSMethod,
            ols,
            budget=_ols_budget,
        ),
        MethodInfo(
            "umod",
            "UMOD",
            "preference angles pushed apart through a surrogate front",
            UMODMethod,
            umod,
        ),
        MethodInfo(
            "soup",
            "Soup",
            "endpoints solved, interior solutions interpolated (occupancy measures for MDPs)",
            SoupMethod,
            soup,
        ),
        MethodInfo(
            "surf_simplex",
            "SURF-simplex",
            "SURF on the weight simplex: points spread evenly over a front of M >= 2 objectives",
            SurfSimplexMethod,
            surf_simplex,
            simplex=True,
        ),
        MethodInfo(
            "das_dennis",
            "Das-Dennis",
            "fixed simplex-lattice weights",
            FixedSimplexMethod,
            das_dennis,
            simplex=True,
        ),
        MethodInfo(
            "random_simplex",
            "Random",
            "the corners and weights drawn uniformly on the simplex",
            FixedSimplexMethod,
            random_simplex,
            simplex=True,
        ),
        MethodInfo(
            "energy",
            "Energy",
            "Riesz s-energy weights (pymoo)",
            FixedSimplexMethod,
            energy,
            simplex=True,
        ),
        MethodInfo(
            "simplex_weights",
            "fixed weights",
            "given weight vectors",
            FixedSimplexMethod,
            fixed_simplex,
            simplex=True,
            aliases=("fixed_simplex",),
            layout=_fixed_simplex_layout,
        ),
    )
}

_ALIASES: dict[str, str] = {alias: info.name for info in METHODS.values() for alias in info.aliases}


def get_method(name: str) -> MethodInfo:
    """The method named ``name`` (its recorded name or an alias).

    Raises
    ------
    KeyError
        Naming the known methods.
    """
    info = METHODS.get(_ALIASES.get(name, name))
    if info is None:
        raise KeyError(f"unknown method {name!r}; known: {', '.join(method_names())}")
    return info


def method_names(*, simplex: bool | None = None) -> list[str]:
    """The methods' names, in registry order; ``simplex=False``: those of two objectives
    (``n_segments``), ``True``: those on the weight simplex."""
    return [name for name, info in METHODS.items() if simplex is None or info.simplex == simplex]
