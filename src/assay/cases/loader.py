"""Load a suite file: YAML, ``${VAR}`` substitution, structure checks, compilation."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from assay import config
from assay._env_vars import expand, missing_message, pieces_of
from assay._spec_base import plain_numbers
from assay._words import clipped, unused_name
from assay.cases._problems import field_path, pydantic_problems
from assay.cases.compile import compile_tests
from assay.cases.models import TestCase
from assay.config import MetricSpec, Suite, TestSpec
from assay.errors import ConfigError, Problem
from assay.plugins import load_plugins
from assay.secrets import Redactor
from assay.target_config import env_substituted

_PLUGINS = TypeAdapter(list[config.PluginModule])
_METRICS = TypeAdapter(list[MetricSpec])


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
    expanded = expand(value)
    problems.extend(Problem(source, path, missing_message(name)) for name in expanded.missing)
    secrets.update(expanded.values)
    return expanded.text


def masked(problems: list[Problem], hide: Redactor) -> list[Problem]:
    return [Problem(p.source, p.path, hide(p.message)) for p in problems]


_TEST_PATH = re.compile(r"tests\[(\d+)\]")
MAX_NAME_SHOWN = 60


def named(problems: list[Problem], tests: Any) -> list[Problem]:
    """Each problem of a test (``tests[1]...``) with the test's name after its message: the
    path says where, the name which test (HoloDeck's test-case contract, §7). Not when the
    name is what is at fault, or is not printable."""
    if not isinstance(tests, list):
        return problems
    out = []
    for problem in problems:
        found = _TEST_PATH.match(problem.path)
        if found is not None and int(found[1]) < len(tests):
            raw = tests[int(found[1])]
            name = raw.get("name") if isinstance(raw, dict) else None
            if (
                isinstance(name, str)
                and name.strip()
                and name.isprintable()
                and not problem.path.startswith(f"{found[0]}.name")
                and repr(name) not in problem.message
            ):
                message = f"{problem.message} (test {clipped(name, MAX_NAME_SHOWN)!r})"
                problem = Problem(problem.source, problem.path, message)
        out.append(problem)
    return out


def parse_suite(raw: Any, source: str, path: Path | None = None) -> LoadedSuite:
    """Check and compile a parsed suite. Every problem is found in one pass, whatever the
    others: the top-level keys and each test are checked on their own, and what passes is
    compiled (metrics, matchers), so a typo in one place does not hide a bad regex in
    another. Raises ConfigError listing them all."""
    if not isinstance(raw, dict):
        raise ConfigError(
            [Problem(source, "", "a suite is a YAML mapping with at least name and tests")]
        )
    problems: list[Problem] = []
    secrets: set[str] = set()
    resolved = substitute_env(raw, source, "", problems, secrets)
    hide = Redactor(secrets)  # a message may quote a value that came from ${VAR}
    suite = _check_top(resolved, source, problems, _http_pieces(raw))
    tests = _check_tests(resolved, source, problems)
    # the suite's own metrics are registered before its metrics are built
    folders = (path.resolve().parent,) if path else ()
    problems += load_plugins(_plugins(suite, resolved), source, folders)
    base_dir = path.resolve().parent if path else Path.cwd()
    cases, compiled = compile_tests(suite, tests, source, _metric_specs(suite, resolved), base_dir)
    problems += compiled
    if problems or suite is None:
        raise ConfigError(masked(named(problems, resolved.get("tests")), hide))
    suite = suite.model_copy(update={"tests": [spec for _, spec in tests]})
    # the copy a run stores holds numbers as before, not how they were written
    raw = plain_numbers(raw)
    return LoadedSuite(suite=suite, cases=cases, path=path, raw=raw, secrets=secrets)


def _http_pieces(raw: dict[str, Any]) -> Any:
    """The http target's url, headers and body as written, each string apart from what its
    ``${VAR}``s gave (``pieces_of``): the target never reads those as templates."""
    target = raw.get("target")
    http = target.get("http") if isinstance(target, dict) else None
    if not isinstance(http, dict):
        return {}
    return pieces_of({k: http[k] for k in ("url", "headers", "body") if k in http})


def _check_top(
    resolved: dict[str, Any],
    source: str,
    problems: list[Problem],
    http_pieces: Any,
) -> Suite | None:
    """The suite without its tests (checked one by one in ``_check_tests``)."""
    try:
        top = {k: v for k, v in resolved.items() if k != "tests"}
        return Suite.model_validate(top, context=env_substituted(http_pieces))
    except ValidationError as exc:
        problems += pydantic_problems(source, exc, model=Suite, root=Suite)
        return None


def _check_tests(
    resolved: dict[str, Any], source: str, problems: list[Problem]
) -> list[tuple[int, TestSpec]]:
    """Each test that is well formed, with its index; a problem for each one that is not."""
    if "tests" not in resolved:
        return []
    raw_tests = resolved["tests"]
    if not isinstance(raw_tests, list):
        problems.append(Problem(source, "tests", "expected a list of tests"))
        return []
    if not raw_tests:
        problems.append(
            Problem(
                source,
                "tests",
                "tests is empty: add a test, or leave tests out when datasets give them",
            )
        )
    tests: list[tuple[int, TestSpec]] = []
    seen: dict[str, int] = {}
    given = {t["name"] for t in raw_tests if isinstance(t, dict) and isinstance(t.get("name"), str)}
    for i, raw_test in enumerate(raw_tests):
        prefix = field_path([i], "tests")
        if isinstance(raw_test, dict) and "name" not in raw_test:
            raw_test = {"name": unnamed_test(i, given), **raw_test}
        try:
            spec = TestSpec.model_validate(raw_test)
        except ValidationError as exc:
            problems += pydantic_problems(source, exc, prefix, model=TestSpec, root=Suite)
            continue
        if spec.name in seen:
            problems.append(
                Problem(
                    source,
                    f"{prefix}.name",
                    f"two tests are named {spec.name!r} (tests[{seen[spec.name]}] too); "
                    "test names must be unique",
                )
            )
            continue
        seen[spec.name] = i
        tests.append((i, spec))
    return tests


def unnamed_test(index: int, given: set[str]) -> str:
    """The name of a test written without one, as HoloDeck allows: ``test case N`` by its
    place (1-based; ``assay import holodeck`` gives such cases the same name), with `` (2)``
    ... when the suite gives that name to another test. A name gives a test a stable
    identity across edits of the suite (``--resume``, ``--only-failed``, ``assay diff``);
    this one moves with the test."""
    return unused_name(f"test case {index + 1}", given)


def _metric_specs(suite: Suite | None, resolved: dict[str, Any]) -> list[MetricSpec] | None:
    """The suite's metric list when the rest of the suite has problems: its options are
    still checked, if the list itself is well formed."""
    if suite is not None or "metrics" not in resolved:
        return None
    try:
        return list(_METRICS.validate_python(resolved["metrics"]))
    except ValidationError:
        return None


def _plugins(suite: Suite | None, resolved: dict[str, Any]) -> list[str]:
    """The plugin modules to load: the suite's, or, when the rest of the suite has problems,
    its ``plugins`` list alone if that is well formed (so its metrics are known)."""
    if suite is not None:
        return list(suite.plugins)
    try:
        return list(_PLUGINS.validate_python(resolved.get("plugins", [])))
    except ValidationError:
        return []


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
