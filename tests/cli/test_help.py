"""Every command, option and argument of the CLI says what it is for in ``--help``."""

from __future__ import annotations

from typing import Any

import typer.main

from assay.cli import app


def _commands() -> list[tuple[str, Any]]:
    """Every command, a group's subcommands included (typer's click types, duck-typed)."""
    root: Any = typer.main.get_command(app)
    ctx = root.context_class(root)
    found: list[tuple[str, Any]] = [("assay", root)]
    for name in root.list_commands(ctx):
        command = root.get_command(ctx, name)
        assert command is not None
        found.append((name, command))
        if hasattr(command, "list_commands"):
            for sub in command.list_commands(ctx):
                inner = command.get_command(ctx, sub)
                assert inner is not None
                found.append((f"{name} {sub}", inner))
    return found


def test_every_option_and_argument_has_help_text() -> None:
    commands = _commands()
    assert {"run", "validate", "runs", "diff", "report"} <= {name for name, _ in commands}
    missing = [
        f"assay {name}: {param.name}"
        for name, command in commands
        for param in command.params
        if not (getattr(param, "help", None) or "").strip()
    ]
    assert missing == []
    undocumented = [name for name, command in commands if not (command.help or "").strip()]
    assert undocumented == []
