"""``assay init [DIR]``: a starter suite that passes at once, to change into a real one.

Writes ``suite.yaml`` (commented: what to change to test a real agent), ``agent.py`` (a
stand-in agent), ``conversations.csv`` (a small multi-turn dataset) and
``.github/workflows/assay.yml`` (CI). ``assay run suite.yaml`` in DIR then exits 0. Existing
files are never overwritten without ``--force``: the command names them and exits 2.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import typer

from assay._atomic import write_atomically
from assay.cli._out import cannot_write, check_out
from assay.cli._terminal import markup_safe
from assay.cli.app import app, out_console, user_errors
from assay.errors import ConfigError, Problem

# where each starter file goes in DIR, and its template in assay/cli/_starter
STARTER: dict[str, str] = {
    "suite.yaml": "suite.yaml",
    "agent.py": "agent.py.txt",
    "conversations.csv": "conversations.csv",
    ".github/workflows/assay.yml": "assay.yml",
}


def starter_text(template: str) -> str:
    return (files("assay.cli") / "_starter" / template).read_text(encoding="utf-8")


@app.command()
@user_errors
def init(
    directory: Path = typer.Argument(Path("."), help="where to write the starter (made if new)"),
    force: bool = typer.Option(False, "--force", help="overwrite files that exist"),
) -> None:
    """Write a starter suite, agent stub, multi-turn CSV and CI workflow that pass at once."""
    if directory.exists() and not directory.is_dir():
        problem = Problem("options", "DIR", f"{str(directory)!r} is a file, not a folder")
        raise ConfigError([problem])
    for name in STARTER:  # a folder in a starter file's place: --force would not help
        check_out(directory / name, "a starter file", "DIR")
    existing = [name for name in STARTER if (directory / name).exists()]
    if existing and not force:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "DIR",
                    f"{', '.join(existing)} already exist in {str(directory)!r}; nothing was "
                    "written. Pass --force to overwrite them, or choose another folder",
                )
            ]
        )
    for name, template in STARTER.items():
        path = directory / name
        try:
            write_atomically(path, starter_text(template))
        except OSError as exc:  # refused on writing (no permission, a full disk)
            raise cannot_write(path, exc.strerror or str(exc), "a starter file", "DIR") from None
        out_console.print(f"wrote {markup_safe(str(path))}")
    where = "" if directory.resolve() == Path.cwd().resolve() else f"cd {directory} && "
    out_console.print(
        f"\nnext: {markup_safe(where)}assay run suite.yaml   (passes at once: it tests agent.py)\n"
        "then point suite.yaml's target at your agent and write your own tests "
        "(the comments in suite.yaml say how)"
    )
