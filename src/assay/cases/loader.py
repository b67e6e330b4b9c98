"""Load a suite file: YAML, ``${VAR}`` substitution, structure checks, compilation."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from assay import config
from assay.cases._problems import all_field_names, field_path, pydantic_problems
from assay.cases.compile import compile_suite
from assay.cases.models import TestCase
from assay.config import Suite
from assay.errors import ConfigError, Problem
from assay.plugins import load_plugins
from assay.secrets import Redactor

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_SUITE_MODELS: list[type[BaseModel]] = [
    config.Suite,
    config.TestSpec,
    config.TurnSpec,
    config.TargetConfig,
    config.HttpTarget,
    config.OpenAITarget,
    config.ResponseMapping,
    config.ModelConfig,
    config.ExecutionConfig,
]


@dataclass
class LoadedSuite:
    suite: Suite
    cases: list[TestCase]
    path: Path | None
    raw: dict[str, Any]  # as written, ${VAR} left in place: safe to store
    secrets: set[str] = field(default_factory=set)  # values substituted from the environment

    @property
    def base_dir(self) -> Path:
        return self.path.parent if self.path else Path.cwd()


def substitute_env(
    value: Any, source: str, path: str, problems: list[Problem], secrets: set[str]
) -> Any:
    """Replace ``${VAR}`` and ``${VAR:-default}`` in every string of a parsed YAML tree."""
    if isinstance(value, dict):
        return {
            k: substitute_env(v, source, field_path([str(k)], path), problems, secrets)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [
            substitute_env(v, source, field_path([i], path), problems, secrets)
            for i, v in enumerate(value)
        ]
    if not isinstance(value, str) or "${" not in value:
        return value

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = os.environ.get(name)
        if not found and default is not None:  # unset or empty, as the shell's :- reads it
            return default
        if found is None:
            if default is not None:
                return default
            problems.append(
                Problem(
                    source,
                    path,
                    f"environment variable {name} is not set; export it, "
                    f"or write ${{{name}:-default}}",
                )
            )
            return ""
        if found:
            secrets.add(found)
        return found

    return _VAR.sub(replace, value)


def masked(problems: list[Problem], hide: Redactor) -> list[Problem]:
    return [Problem(p.source, p.path, hide(p.message)) for p in problems]


def parse_suite(raw: Any, source: str, path: Path | None = None) -> LoadedSuite:
    if not isinstance(raw, dict):
        raise ConfigError(
            [Problem(source, "", "a suite is a YAML mapping with at least name and tests")]
        )
    problems: list[Problem] = []
    secrets: set[str] = set()
    resolved = substitute_env(raw, source, "", problems, secrets)
    if problems:
        raise ConfigError(problems)
    hide = Redactor(secrets)  # a message may quote a value that came from ${VAR}
    try:
        suite = Suite.model_validate(resolved)
    except ValidationError as exc:
        found = pydantic_problems(source, exc, known_fields=all_field_names(_SUITE_MODELS))
        raise ConfigError(masked(found, hide)) from None
    # the suite's own metrics are registered before its metrics are built
    problems = load_plugins(suite.plugins, source, (path.resolve().parent,) if path else ())
    cases, compiled = compile_suite(suite, source)
    problems += compiled
    if problems:
        raise ConfigError(masked(problems, hide))
    return LoadedSuite(suite=suite, cases=cases, path=path, raw=raw, secrets=secrets)


def load_suite(path: str | Path) -> LoadedSuite:
    """Read, check and compile a suite file. Raises ConfigError listing every problem."""
    from assay.cases._yaml import read_yaml  # only suites need PyYAML: datasets never load it

    file = Path(path)
    raw = read_yaml(file)
    # code graders and python targets are imported from the suite's folder first
    folder = str(file.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return parse_suite(raw, str(path), file)
