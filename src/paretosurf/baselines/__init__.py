"""Moved: the baselines are :mod:`paretosurf.methods` now, beside SURF (``uniform``, ``ols``,
``umod``, ``soup``, ``das_dennis``, ...). Each name read from here still works, with a
:class:`DeprecationWarning`, until paretosurf 0.2."""

from collections.abc import Callable

from paretosurf._utils.renamed import renamed_attributes

#: The names this package had; each now lives in :mod:`paretosurf.methods`.
MOVED_NAMES = (
    "FixedSimplexMethod",
    "FixedSimplexWeights",
    "FixedWeights",
    "FixedWeightsMethod",
    "Interpolable",
    "OLSMethod",
    "RandomWeights",
    "RandomWeightsMethod",
    "SoupMethod",
    "UMODMethod",
    "corner_priorities",
    "das_dennis",
    "energy",
    "fixed_simplex",
    "linear_interpolate",
    "ols",
    "random_simplex",
    "random_weights",
    "soup",
    "umod",
    "uniform",
    "uniform_random",
)


def _from_methods(name: str) -> Callable[[], object]:
    """A getter of ``paretosurf.methods.<name>`` (imported at access: the methods sit above)."""

    def get() -> object:
        import paretosurf.methods

        return getattr(paretosurf.methods, name)

    return get


__getattr__ = renamed_attributes(
    __name__, {name: (f"paretosurf.methods.{name}", _from_methods(name)) for name in MOVED_NAMES}
)


def __dir__() -> list[str]:
    return sorted(MOVED_NAMES)
