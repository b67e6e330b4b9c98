"""The New run form's choices and what they become: a ``RunSpec`` for the run adapter.

An uploaded dataset runs through a small suite written beside it (its name, the chosen
target, metrics and concurrency), so the run is an ordinary suite run that ``assay run
--resume`` can finish. A suite file on the server's disk runs as it is, with ``--target``
and ``--concurrency`` when given. Nothing typed in the form is expanded as ``${VAR}``: the
form could otherwise send the server's environment to any URL.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from typing import Any

import yaml

from assay.errors import ConfigError, Problem
from assay.metrics.registry import METRICS, build_metric
from assay.web._runs import RunSpec
from assay.web._uploads import Uploads
from assay.web.schemas import NewRun

SUITE_SUFFIXES = (".yaml", ".yml")
MAX_SUITES = 200
MAX_DEPTH = 4
SKIPPED_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".assay", ".tox"}
_SUITE_KEYS = re.compile(rb"^tests:|^datasets:", re.M)
_KEY_ENV = re.compile(r"^[A-Z][A-Z0-9_]*(API_KEY|_KEY|_TOKEN)$")


def offered_metrics() -> list[str]:
    """Metrics a dataset row can use with no options: per-turn ones that build from ``{}``."""
    names = []
    for entry in METRICS.entries():
        name, cls = entry.name, entry.item
        if cls.scope != "turn":
            continue
        try:
            build_metric(name, {})
        except ValueError:
            continue
        names.append(name)
    return names


def suite_files(root: Path) -> list[str]:
    """Suite files under ``root`` (paths relative to it): YAML with ``tests:`` or
    ``datasets:`` at the top level, a few folders deep, hidden and tool folders skipped."""
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        depth = len(Path(folder).relative_to(root).parts)
        dirs[:] = sorted(
            d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".") and depth < MAX_DEPTH
        )
        for name in sorted(names):
            if not name.endswith(SUITE_SUFFIXES):
                continue
            path = Path(folder) / name
            try:
                with path.open("rb") as f:
                    head = f.read(65536)
            except OSError:
                continue
            if _SUITE_KEYS.search(head):
                found.append(path.relative_to(root).as_posix())
                if len(found) >= MAX_SUITES:
                    return found
    return found


def _refuse(field: str, message: str) -> ConfigError:
    return ConfigError([Problem("form", field, message)])


def _suite_path(root: Path, given: str) -> Path:
    path = (root / given).resolve()
    if not path.is_relative_to(root) or path.suffix not in SUITE_SUFFIXES or not path.is_file():
        raise _refuse(
            "suite_path", "choose a suite file (.yaml) inside the folder assay serve runs in"
        )
    return path


def _check_text(new: NewRun) -> None:
    for name in ("url", "openai_base_url", "openai_model", "judge", "judge_base_url"):
        if "${" in getattr(new, name):
            raise _refuse(name, "${VAR} is not expanded from the form: write it in a suite file")
    for name in ("url", "openai_base_url", "judge_base_url"):
        value = getattr(new, name).strip()
        if value and not value.startswith(("http://", "https://")):
            raise _refuse(name, f"expected an http:// or https:// URL, got {value!r}")


def _target_block(new: NewRun) -> dict[str, Any]:
    if new.target == "url":
        if not new.url.strip():
            raise _refuse("url", "give the agent's URL (it receives {query, session_id, turn_id})")
        return {"http": {"url": new.url.strip()}}
    if new.target == "openai":
        if not new.openai_base_url.strip() or not new.openai_model.strip():
            raise _refuse("openai", "give the endpoint's base URL and the model name")
        if not _KEY_ENV.match(new.openai_api_key_env):
            raise _refuse(
                "openai_api_key_env",
                "name the environment variable that holds the key (e.g. OPENAI_API_KEY)",
            )
        return {
            "openai": {
                "base_url": new.openai_base_url.strip(),
                "model": new.openai_model.strip(),
                "api_key_env": new.openai_api_key_env,
            }
        }
    if new.target == "demo":
        return {"demo": "travel"}
    raise _refuse("target", "a dataset has no target of its own: choose one")


def plan_new_run(new: NewRun, root: Path, uploads: Uploads) -> tuple[RunSpec, str]:
    """The RunSpec and a label for the form's choices; raises ConfigError naming the field."""
    _check_text(new)
    judge = new.judge.strip() or None
    judge_url = new.judge_base_url.strip() or None
    if new.source == "suite":
        if new.target == "openai":
            raise _refuse(
                "target",
                "an OpenAI-compatible endpoint is set in the suite file (target: openai:); "
                "here choose the suite's own target, a URL or the demo agent",
            )
        if new.metrics:
            raise _refuse("metrics", "a suite file lists its own metrics")
        target = {"suite": None, "demo": "demo", "url": new.url.strip()}[new.target]
        if target == "":
            raise _refuse("url", "give the agent's URL")
        suite = _suite_path(root, new.suite_path)
        spec = RunSpec(suite, [], target, new.concurrency, judge, judge_url)
        return spec, suite.relative_to(root).as_posix()
    upload = uploads.get(new.dataset_id)
    if upload is None:
        raise _refuse("dataset_id", "choose an uploaded dataset (upload one on Datasets)")
    offered = set(offered_metrics())
    unknown = [m for m in new.metrics if m not in offered]
    if unknown:
        raise _refuse("metrics", f"not offered here: {', '.join(unknown)}")
    generated: dict[str, Any] = {
        "name": upload.path.stem,
        "target": _target_block(new),
        "datasets": [upload.name],
    }
    if new.metrics:
        generated["metrics"] = list(new.metrics)
    if new.concurrency:
        generated["execution"] = {"concurrency": new.concurrency}
    path = upload.path.parent / f"run-{uuid.uuid4().hex[:8]}.yaml"
    path.write_text(
        yaml.safe_dump(generated, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    return RunSpec(path, [], None, None, judge, judge_url), upload.name
