"""Rhesis: a test-set file (CSV, JSON or JSONL) → single-turn and goal tests.

The shapes are Rhesis's own: its SDK's ``TestSet.to_csv`` / ``to_json`` / ``to_jsonl`` and
its platform's "Import from File" (columns ``category, topic, behavior, test_type,
prompt_content, expected_response, language_code, goal, instructions, restrictions,
scenario, min_turns, max_turns, test_configuration, metadata``; JSON as an array, an object
with ``tests``, or one object; the prompt flat or nested as ``prompt: {content,
expected_response}``, a prompt nested in it or a ``prompt_content`` object unwrapped as
Rhesis unwraps them; the multi-turn fields flat or nested in ``test_configuration``, a JSON
string in a CSV cell). Headers are matched as Rhesis matches them: trimmed, lower-cased,
spaces as underscores, with the aliases of its import mapper (``prompt``, ``question``,
``turns``, ...). Turn counts are read as Rhesis reads them: ``test_configuration.max_turns``
is the most turns (its SDK's and Penelope's reading: ``5`` is at most 5); a ``max_turns``
column takes the forms of Rhesis's file import, ``3`` (exactly 3: min_turns too), ``2-5``,
``2 to 5``, ``min 2, max 5``, ``max 5``; ``min_turns`` is the fewest turns before the
conversation may end, capped at ``max_turns`` as Penelope caps it. When a row has a
``test_configuration`` (an empty ``{}`` too), Rhesis ignores the flat goal and turn columns;
assay lists them. ``test_type`` is compared as Rhesis compares it, exactly: a value other
than ``Single-Turn`` or ``Multi-Turn`` is read as Single-Turn, and listed (Rhesis's
validator warns).

A row with a prompt becomes a single-turn test (its expected response checked by the
``correctness`` judge metric: Rhesis scores tests with its behaviors' metrics, which a
test-set file does not carry); a row with a goal becomes a goal-driven test (a Multi-Turn
row without one takes its prompt as the goal, as Rhesis does; its expected response is listed
as not mapped: Rhesis's multi-turn runs do not use it). Category, topic and behavior
(``requirement`` in newer Rhesis) become tags.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from assay._json import load_bounded
from assay.cases._yaml import read_source
from assay.config import DEFAULT_MAX_TURNS, MAX_MAX_TURNS
from assay.datasets._read_csv import cell_too_long
from assay.datasets._read_jsonl import json_lines, not_json
from assay.errors import ConfigError, Problem
from assay.importers.base import Imported, Names, Unmapped, plain, text
from assay.importers.rhesis_columns import canonical_row, flat_prompt, parse_turns
from assay.limits import ValueLimitError

TAG_FIELDS = ("category", "topic", "behavior")
GOAL_FIELDS = ("goal", "instructions", "restrictions", "scenario")
_KNOWN = {"prompt", "test_type", "test_configuration", "min_turns", "max_turns"}
_KNOWN |= {"prompt_content", "expected_response", *TAG_FIELDS, *GOAL_FIELDS}


_NO_EXPECTED = (
    "a Multi-Turn test's expected response: Rhesis's multi-turn runs (Penelope) do not use it, "
    "and an assay goal test is judged on its goal, not on an expected answer"
)

MULTI_TURN = "Multi-Turn"
TEST_TYPES = ("Single-Turn", MULTI_TURN)  # file_import/validators.py VALID_TEST_TYPES

SUFFIXES = (".csv", ".json", ".jsonl", ".xlsx")
SUFFIXES_SAID = ".csv, .xlsx, .json or .jsonl"


def import_rhesis(path: Path) -> Imported:
    rows = _read(path)
    out = Imported("rhesis", str(path), {"name": plain(path.stem) or "rhesis"})
    out.notes.append(
        "Expected responses are checked by the correctness judge (set judge:); goal tests "
        "need it too, to derive their contract and judge the conversation (its model plays "
        "the user unless simulator: names another)."
    )
    names = Names()
    unknown: dict[str, list[str]] = {}
    unread: dict[tuple[str, str], list[str]] = {}  # (column, why) -> the rows
    spreadsheet = path.suffix.lower() in (".csv", ".xlsx")  # numbered as rows, not tests
    for number, raw in rows:
        item = f"row {number}" if spreadsheet else f"test {number}"
        row, lost = canonical_row(raw)
        for column, why in lost.items():
            unread.setdefault((column, why), []).append(item)
        if isinstance(row, dict):
            nested, flat = row.get("prompt"), text(row.get("prompt_content"))
            if isinstance(nested, dict) and flat and flat != text(nested.get("content")):
                out.skip(item, "prompt_content", "Rhesis reads the nested prompt, not this column")
            row = flat_prompt(row)
        for key in sorted(set(row) - _KNOWN) if isinstance(row, dict) else ():
            if row[key] not in (None, "", [], {}):
                unknown.setdefault(key, []).append(item)
        test = _test(row, item, out)
        if test is not None:
            label = test.get("input") or test.get("goal") or ""
            test["name"] = names.unique(f"{len(out.tests) + 1}: {plain(label, 60)}")
            out.tests.append({"name": test.pop("name"), **test})
    for (column, why), items in unread.items():
        out.skip(_items(items), column, why)
    for key, items in unknown.items():
        why = {
            "metadata": "assay keeps no metadata on a test",
            "language_code": "assay sends the prompt as written, whatever its language",
        }.get(key, "not a Rhesis test field")
        out.skip(_items(items), key, why)
    return out


def _items(items: list[str]) -> str:
    return ", ".join(items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def _read(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(row or entry number, fields) for each entry of the file."""
    source = str(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        hint = ": save the workbook as .xlsx" if suffix == ".xls" else ""
        message = f"a Rhesis test set is a {SUFFIXES_SAID} file{hint}"
        raise ConfigError([Problem(source, "", message)])
    if suffix == ".xlsx":
        return _read_sheet(path)
    data = read_source(path, encoding="utf-8-sig")  # a BOM, as Excel writes CSV, dropped
    try:
        if suffix == ".csv":
            return _read_csv(data, source)
        if suffix == ".jsonl":
            return _read_lines(data, source)
        if suffix == ".json":
            value = load_bounded(data, unique_keys=True)
            entries = value.get("tests", [value]) if isinstance(value, dict) else value
            if not isinstance(entries, list):
                raise ValueError("expected an array of tests, or an object with `tests`")
            return list(enumerate(entries, 1))
    except (ValueError, ValueLimitError) as exc:
        raise ConfigError([Problem(source, "", f"cannot read the test set: {exc}")]) from None
    raise AssertionError(suffix)  # SUFFIXES has no other


def _delimiter(data: str) -> str:
    """The CSV delimiter as Rhesis's file import chooses it: the stdlib sniffer's pick among
    ``,`` ``;`` tab and ``|`` over the first 4,096 characters, else ``,``. (Not the dataset
    reader's rule, which looks at the header line alone and knows no ``|``: a set must split
    into the columns Rhesis sees.)"""
    try:
        return csv.Sniffer().sniff(data[:4096], delimiters=",;\t|").delimiter
    except csv.Error:  # one column, or no delimiter used consistently
        return ","


def _read_csv(data: str, source: str) -> list[tuple[int, dict[str, Any]]]:
    """A CSV test set's rows, each numbered by its line as Rhesis's import names rows; a row
    the csv module cannot read is named by the line it stopped at."""
    reader = csv.DictReader(io.StringIO(data, newline=""), delimiter=_delimiter(data))
    try:
        return [(reader.line_num, dict(r)) for r in reader]
    except csv.Error as exc:
        why = cell_too_long(exc)
        if why is not None:
            why += ": shorten it, or export the test set as JSON or JSONL, which have no such limit"
        # the DictReader's own line_num is the last row it gave; its reader's, the line it read
        message = f"cannot read the test set: row {reader.reader.line_num}: {why or exc}"
        raise ConfigError([Problem(source, "", message)]) from None


def _read_lines(data: str, source: str) -> list[tuple[int, Any]]:
    """A JSONL test set: each non-blank line's value, numbered and read as a JSONL dataset's
    lines are, so a line that is not JSON is named as ``assay validate`` names it."""
    entries = []
    for number, value in json_lines(io.StringIO(data, newline=None)):
        if isinstance(value, json.JSONDecodeError | ValueLimitError):
            why = not_json(value) if isinstance(value, json.JSONDecodeError) else str(value)
            message = f"cannot read the test set: line {number}: {why}"
            raise ConfigError([Problem(source, "", message)])
        entries.append((number, value))
    return entries


def _read_sheet(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """An Excel test set: the sheet Rhesis's file import reads (``parsers.py``: openpyxl's
    active sheet, the tab the workbook was saved on, then the others in order; the first with
    a row below its header), read as an XLSX dataset is (the same limits and errors), each
    row numbered as the spreadsheet shows it; none when no sheet has such a row."""
    from assay.datasets._read_xlsx import EmptySheet, open_xlsx, sheet_tabs

    if not path.is_file():  # missing, or a folder: said as for a test set of another kind
        read_source(path)
    count, active = sheet_tabs(path, str(path))
    order = [active] if active < count else []
    for index in [*order, *(i for i in range(count) if i != active)]:
        try:
            with open_xlsx(path, str(path), index) as table:
                # a row may be shorter or longer than the header, as in a CSV file
                rows = [
                    (n, dict(zip(table.header, cells, strict=False)))
                    for n, cells in table.rows
                    if any(c.strip() for c in cells)
                ]
        except EmptySheet:
            continue
        if rows:
            return rows
    return []


def _test(row: Any, item: str, out: Imported) -> dict[str, Any] | None:
    if not isinstance(row, dict):
        out.skip(item, "the entry", "not an object")
        return None
    content = text(row.get("prompt_content"))
    expected = text(row.get("expected_response"))
    config, nested_config = _configuration(row, item, out)
    goal = text(config.get("goal"))
    test_type = row.get("test_type")
    multi = test_type == MULTI_TURN  # as Rhesis compares it: exactly
    if test_type and test_type not in TEST_TYPES:  # Rhesis's validator warns, reads Single-Turn
        shown = text(test_type) or str(test_type)
        why = f"{shown!r} is neither Single-Turn nor Multi-Turn: Rhesis warns and reads Single-Turn"
        out.skip(item, "test_type", why)
    # as Rhesis runs it, a Multi-Turn test without a goal takes its prompt as the goal
    prompt_is_goal = bool(multi and content and not goal)
    goal = content if prompt_is_goal else goal
    if not content and not goal:
        if any(text(row.get(k)) for k in (*TAG_FIELDS, "test_type")):
            out.skip(item, "the test", "neither a prompt nor a goal")
        return None  # an empty row: Rhesis skips it too
    tags = list(dict.fromkeys(plain(t) for k in TAG_FIELDS if (t := text(row.get(k)))))
    test: dict[str, Any] = {"name": "", "tags": tags} if tags else {"name": ""}
    if goal and (multi or not content):
        if content and not prompt_is_goal:
            out.skip(item, "prompt_content", "a Multi-Turn test's prompt: the simulated user opens")
        if expected:
            out.skip(item, "expected_response", _NO_EXPECTED)
        test["goal"] = goal
        for key in GOAL_FIELDS[1:]:
            if text(config.get(key)):
                test[key] = text(config.get(key))
        context = config.get("context") if nested_config else None
        if isinstance(context, dict) and context or text(context):  # "additional metadata"
            test["context"] = context if isinstance(context, dict) else text(context)
        elif context not in (None, "", [], {}):
            out.skip(item, "test_configuration.context", "neither text nor an object")
        test.update(_turn_limits(config, nested_config, item, out))
        return test
    if goal:
        out.skip(item, "goal", "a Single-Turn test's goal: the row runs its prompt")
    for key in GOAL_FIELDS[1:]:  # a scenario column (``context``) beside a prompt, say
        if text(config.get(key)):
            where = f"test_configuration.{key}" if nested_config else key
            out.skip(item, where, "a Single-Turn test's: it sends its prompt")
    if nested_config and config.get("context") not in (None, "", [], {}):
        out.skip(item, "test_configuration.context", "a Single-Turn test's: it sends its prompt")
    test["input"] = content
    if expected:
        test["ground_truth"] = expected
        test["metrics"] = ["correctness"]
    return test


def _configuration(row: dict[str, Any], item: str, out: Imported) -> tuple[dict[str, Any], bool]:
    """``test_configuration`` (an object, or its JSON in a CSV cell), else the flat fields,
    as Rhesis takes them; True when it is the former."""
    flat_keys = (*GOAL_FIELDS, "min_turns", "max_turns")
    flat = {k: row[k] for k in flat_keys if k in row}
    nested = row.get("test_configuration")
    if isinstance(nested, str) and nested.strip():
        try:
            nested = json.loads(nested)
        except json.JSONDecodeError as exc:
            out.skip(item, "test_configuration", f"not JSON ({exc.msg}); the flat fields are used")
            nested = None
    if not isinstance(nested, dict):  # an empty object is used too: its row has no goal
        return flat, False
    for key in nested:
        if key not in (*flat_keys, "context") and nested[key] not in (None, "", [], {}):
            out.skip(item, f"test_configuration.{key}", "an assay goal test has no such field")
    for key, value in flat.items():
        if text(value) is not None:
            out.skip(item, key, "Rhesis reads test_configuration and ignores this column")
    return nested, True


def _turn_limits(config: dict[str, Any], nested: bool, item: str, out: Imported) -> dict[str, int]:
    """min_turns and max_turns as Rhesis reads them: in ``test_configuration`` one number is
    the most turns; in a ``max_turns`` column it is an exact count (min_turns too), and a
    range (``2-5``) sets both; an explicit min_turns wins. A max of 0 or none is Rhesis's
    default, 10, which is assay's; a min_turns above max_turns is capped, as Penelope caps
    it."""
    min_turns: int | None = None
    max_turns: int | None = None
    for key in ("min_turns", "max_turns"):
        value = config.get(key)
        if text(value) is None:
            continue
        lone = "min" if key == "min_turns" else "max" if nested else "both"
        parsed = parse_turns(value, lone)
        if parsed is None:
            out.skip(item, key, f"{value!r} is not a turn count (3, 2-5, min 2, max 5)")
        elif key == "min_turns":
            min_turns = parsed[0] if parsed[0] is not None else min_turns
        elif parsed[1] != 0:  # a max of 0 is Rhesis's default: it sets nothing, no min either
            min_turns = min_turns if min_turns is not None else parsed[0]
            max_turns = parsed[1]
    limits: dict[str, int] = {}
    if max_turns is not None:
        if max_turns > MAX_MAX_TURNS:
            out.skip(item, "max_turns", f"{max_turns} is over assay's limit: {MAX_MAX_TURNS} used")
        limits["max_turns"] = max(1, min(max_turns, MAX_MAX_TURNS))
    if min_turns is not None:
        most = limits.get("max_turns", DEFAULT_MAX_TURNS)
        if min_turns > most:
            why = f"{min_turns} exceeds max_turns ({most}): capped at {most}, as Penelope caps it"
            out.approximate.append(Unmapped(item, "min_turns", why))
        limits["min_turns"] = max(1, min(min_turns, most))
    return limits
