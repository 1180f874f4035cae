"""The modules that moved into subpackages, and where their names are now.

Each earlier path (paretosurf before 0.1.0 kept its modules at the package's root) maps to
the modules that hold its names now;
:func:`paretosurf._utils.renamed.install_moved_modules` registers a stand-in at each path, so
that old imports keep working with a :class:`DeprecationWarning` until 0.2.
"""

from __future__ import annotations

__all__ = ["MOVED_MODULES"]

#: earlier path -> the modules holding its names, searched in order
MOVED_MODULES: dict[str, tuple[str, ...]] = {
    "paretosurf.solver_identity": ("paretosurf.solvers._identity",),
    "paretosurf.checkpoint": (
        "paretosurf.storage._files",
        "paretosurf.loop._checkpointing",
    ),
    "paretosurf.run_folder": ("paretosurf.storage._run_folder",),
    "paretosurf.states": ("paretosurf.storage._states",),
    "paretosurf.locking": ("paretosurf.storage._locking",),
    "paretosurf.tempdirs": ("paretosurf.storage._tempdirs",),
    "paretosurf.cdf": ("paretosurf.curves._cdf",),
    "paretosurf.rules": ("paretosurf.curves._rules",),
    "paretosurf.pieces": ("paretosurf.curves._pieces",),
    "paretosurf.flat_ends": ("paretosurf.curves._flat_ends",),
    "paretosurf.simplex_weights": ("paretosurf.surfaces._weights",),
    "paretosurf.surface": ("paretosurf.surfaces._estimate",),
    "paretosurf.surface_pieces": ("paretosurf.surfaces._pieces",),
    "paretosurf.surface_rays": ("paretosurf.surfaces._rays",),
    "paretosurf.front_ends": ("paretosurf.findings._front_ends",),
    "paretosurf.method": ("paretosurf.loop._method",),
    "paretosurf.driver": ("paretosurf.loop._driver",),
    "paretosurf.run_start": ("paretosurf.loop._start",),
    "paretosurf.run_state": ("paretosurf.loop._state",),
    "paretosurf.round_solving": ("paretosurf.loop._solving",),
    "paretosurf.run_reporting": ("paretosurf.loop._reporting",),
    "paretosurf.run_checkpoints": ("paretosurf.loop._checkpointing",),
    "paretosurf.basin_probes": ("paretosurf.loop._basin_probes",),
    "paretosurf.interrupts": ("paretosurf.loop._interrupts",),
    "paretosurf.loop_options": ("paretosurf.loop._options",),
    "paretosurf.spacing": ("paretosurf.loop._spacing",),
    "paretosurf.spacing_options": ("paretosurf.loop._spacing_options",),
    "paretosurf.kept_rounds": ("paretosurf.loop._kept_rounds",),
    "paretosurf.slots": ("paretosurf.methods._slots",),
    "paretosurf.surf": ("paretosurf.methods._surf",),
    "paretosurf.surf_simplex": ("paretosurf.methods._surf_simplex",),
    "paretosurf.baselines.uniform": ("paretosurf.methods._uniform",),
    "paretosurf.baselines.ols": ("paretosurf.methods._ols",),
    "paretosurf.baselines.umod": ("paretosurf.methods._umod",),
    "paretosurf.baselines.soup": ("paretosurf.methods._soup",),
    "paretosurf.baselines.simplex": ("paretosurf.methods._simplex",),
}
