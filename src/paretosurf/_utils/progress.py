"""The one progress bar of the library: tqdm when asked for, a silent stand-in otherwise."""

from __future__ import annotations

from typing import Any

__all__ = ["ProgressBar", "progress_bar"]


class ProgressBar:
    """A do-nothing bar with tqdm's ``update``, ``set_postfix`` and ``close``."""

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` (ignored)."""

    def set_postfix(self, **values: Any) -> None:
        """Show ``values`` next to the bar (ignored)."""

    def close(self) -> None:
        """Remove the bar (nothing to remove)."""


def progress_bar(
    enabled: bool, *, total: int | None, desc: str, unit: str, initial: int = 0
) -> Any:
    """A tqdm bar (``tqdm.auto``: a widget in notebooks, text on a terminal) or, when not
    ``enabled``, a :class:`ProgressBar` that does nothing.

    Examples
    --------
    >>> from paretosurf._utils.progress import progress_bar
    >>> bar = progress_bar(False, total=3, desc="SURF", unit="round")
    >>> bar.update(1); bar.close()
    """
    if not enabled:
        return ProgressBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit=unit)
