"""``python -m paretosurf``: the same as the ``paretosurf`` command."""

from paretosurf.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
