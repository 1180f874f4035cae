"""Warm starts of the two endpoint solves, shared by the methods that start from the endpoints
(OLS and Soup)."""

from __future__ import annotations

__all__ = ["endpoint_keys"]


def endpoint_keys(init_keys: list[int | None] | None, n_segments: int) -> list[int | None]:
    """State keys warm-starting the solves at ``w = 0`` and ``w = 1``.

    ``init_keys`` may hold 2 keys (for ``w = 0`` and ``w = 1``) or, as for
    :func:`paretosurf.surf`, ``n_segments + 1`` keys of which the first and last are used.

    Examples
    --------
    >>> from paretosurf.methods._endpoints import endpoint_keys
    >>> endpoint_keys([7, 8, 9, 10], 3), endpoint_keys(None, 3)
    ([7, 10], [None, None])
    """
    if init_keys is None:
        return [None, None]
    if len(init_keys) not in (2, n_segments + 1):
        raise ValueError(
            f"init_states must hold 2 states (for w = 0 and w = 1) or n_segments + 1 = "
            f"{n_segments + 1}, got {len(init_keys)}"
        )
    return [init_keys[0], init_keys[-1]]
