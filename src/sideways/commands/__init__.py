"""Subcommands of the ``sideways`` CLI, one module each (see :mod:`sideways.cli`)."""
