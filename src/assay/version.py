"""assay's version, read from the installed package metadata.

``importlib.metadata`` costs every process tens of milliseconds to import (email, zipfile,
csv ...), so the installed distribution's ``METADATA`` is looked for directly first, where
``importlib.metadata`` would find it (the ``assay-*.dist-info`` or ``.egg-info`` folder in
the first ``sys.path`` folder holding one); anything else (a zip, a custom finder, nothing
found) is left to ``importlib.metadata`` itself. A test checks both give the same answer."""

from __future__ import annotations

import os
import sys

DISTRIBUTION = "assay"
SOURCE_VERSION = "0.0.0+source"  # running from a source tree that was never installed


def _metadata_file(folder: str) -> str | None:
    """The metadata file of the ``assay`` distribution installed in ``folder``, if any."""
    try:
        names = sorted(os.listdir(folder or "."))
    except OSError:
        return None
    for name in names:
        stem, dot, suffix = name.rpartition(".")
        if not dot or suffix not in ("dist-info", "egg-info"):
            continue
        project = stem.split("-", 1)[0]
        if project.lower().replace("-", "_").replace(".", "_") != DISTRIBUTION:
            continue
        return os.path.join(folder, name, "METADATA" if suffix == "dist-info" else "PKG-INFO")
    return None


def _read_version(path: str) -> str | None:
    """The ``Version:`` header of a core metadata file (the headers end at a blank line)."""
    try:
        with open(path, encoding="utf-8") as file:
            for line in file:
                if not line.strip():
                    return None
                key, colon, value = line.partition(":")
                if colon and key.strip().lower() == "version":
                    return value.strip() or None
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _fast_version() -> str | None:
    for folder in sys.path:
        if not isinstance(folder, str):
            return None
        if not os.path.isdir(folder or "."):
            if os.path.exists(folder):
                return None  # a zip: only importlib.metadata reads those
            continue  # a folder that does not exist holds nothing
        path = _metadata_file(folder)
        if path is not None:
            return _read_version(path)  # None (unreadable): importlib.metadata decides
    return None


def _metadata_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return SOURCE_VERSION


__version__ = _fast_version() or _metadata_version()
