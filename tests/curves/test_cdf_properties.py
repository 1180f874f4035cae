"""Property tests: ArcLengthCDF stays a strictly increasing, exactly invertible CDF under any
sequence of fronts (including coincident and wildly uneven points) and damping factors."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import paretosurf as ps

fronts = st.integers(min_value=1, max_value=25).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0.001, 1.0), min_size=n - 1, max_size=n - 1),
        st.lists(st.floats(0.0, 1e3), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
    )
)


def build(spec: tuple[list[float], list[float], list[bool]]) -> tuple[np.ndarray, np.ndarray]:
    steps, chords, coincide = spec
    inner = np.cumsum(steps) / (np.sum(steps) + 1.0) if steps else np.array([])
    w = np.concatenate([[0.0], inner, [1.0]])
    w = np.unique(w)
    lengths = np.where(coincide[: w.size - 1], 0.0, chords[: w.size - 1])
    # a polyline in 2-D turning left at every vertex, with the drawn segment lengths
    angles = np.linspace(0, np.pi / 2, w.size - 1)
    seg = lengths[:, None] * np.c_[np.cos(angles), -np.sin(angles)]
    points = np.vstack([[0.0, 0.0], np.cumsum(seg, axis=0)])
    return w, points


@settings(max_examples=60, deadline=None)
@given(
    st.lists(fronts, min_size=1, max_size=6), st.lists(st.floats(0.01, 1.0), min_size=6, max_size=6)
)
def test_mixtures_of_rebuilt_cdfs_stay_invertible(specs, alphas) -> None:
    phi = ps.ArcLengthCDF.identity()
    for spec, alpha in zip(specs, alphas, strict=False):
        w, points = build(spec)
        phi = phi.mix(ps.ArcLengthCDF.from_front(w, points), alpha)
    assert phi(0.0) == 0.0 and phi(1.0) == 1.0
    grid = np.linspace(0, 1, 2001)
    values = phi(grid)
    assert np.all(np.diff(values) >= 0)
    for n in (1, 7, 40):
        weights = phi.quantile_weights(n)
        assert weights[0] == 0.0 and weights[-1] == 1.0
        assert np.all(np.diff(weights) > 0)
        np.testing.assert_allclose(phi(weights), np.arange(n + 1) / n, atol=1e-12)
