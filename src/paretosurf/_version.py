"""The library's version: the one place it is written (``pyproject.toml`` reads it, and
``paretosurf.__version__`` and ``paretosurf --version`` show it)."""

__version__ = "0.1.0"
