"""assay's version: the one place it is written. The package build reads it from here
(``[tool.hatch.version]`` in pyproject.toml), so the installed metadata always agrees, and
no process pays for ``importlib.metadata`` (email, zipfile, csv ...) to learn it."""

__version__ = "0.1.0"
