"""The random streams of :class:`~paretosurf.llm.LLMSolver`, all derived from its ``seed``.

A stream is a tuple of integers beside the seed: ``(calls,)`` seeds a training call of an
adapter that has had ``calls`` calls (so ``(0,)`` also seeds the fresh adapter of a cold start,
in training and in :meth:`~paretosurf.llm.LLMSolver.assess`), and
:data:`~paretosurf.llm.evaluation.EVAL_STREAM` the evaluation: ``(EVAL_STREAM, b)`` its batch
``b``, and numpy's ``[seed, EVAL_STREAM]`` its draw of prompts.
"""

from __future__ import annotations

import numpy as np

__all__ = ["stream_seed"]


def stream_seed(seed: int, *stream: int) -> int:
    """The torch seed (an int in [0, 2**31)) of ``stream`` under the solver seed ``seed``.

    Examples
    --------
    >>> from paretosurf.llm._streams import stream_seed
    >>> stream_seed(0, 1) == stream_seed(0, 1) != stream_seed(0, 2)
    True
    >>> 0 <= stream_seed(7, 0x5EED, 3) < 2**31
    True
    """
    return int(np.random.SeedSequence([seed, *stream]).generate_state(1)[0] >> 1)
