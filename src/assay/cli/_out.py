"""Where a command writes a file (``--out``, ``-o``, ``assay init``'s folder): checked
before the work, so that a typo costs nothing, and refused as bad input (exit 2) naming the
option, never as a bug of assay. Missing folders on the way are made when writing."""

from __future__ import annotations

from pathlib import Path

from assay.errors import ConfigError, Problem


def unwritable(path: Path) -> str | None:
    """Why no file can be written at ``path``, its missing folders made first, or None:
    ``path`` is a folder, the nearest existing path above it is a file, or the system
    refuses to look (a name too long)."""
    try:
        if path.is_dir():
            return f"{str(path)!r} is a folder"
        parent = next((p for p in path.absolute().parents if p.exists()), None)
        if parent is not None and not parent.is_dir():
            return f"{str(parent)!r} is a file"
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def cannot_write(
    path: Path, why: str, what: str = "a report", option: str = "--out"
) -> ConfigError:
    """The error for ``path`` given to ``option``, that ``what`` cannot be written to."""
    message = f"cannot write {what} to {str(path)!r}: {why}"
    return ConfigError([Problem("options", option, message)])


def check_out(path: Path, what: str = "a report", option: str = "--out") -> None:
    """Refuse ``path`` (given to ``option``) when ``what`` could not be written there."""
    why = unwritable(path)
    if why is not None:
        raise cannot_write(path, why, what, option)
