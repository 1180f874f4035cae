"""``python -m paretosurf.cli``: the same as the ``paretosurf`` command."""

from paretosurf.cli import main

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
