"""Tests of :mod:`paretosurf.llm` (a package, so that its conftest and helpers keep their own
module names beside the suite's top-level ``conftest``)."""
