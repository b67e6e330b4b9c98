"""A TestResult as the rows of the store's normalised tables (see ``models``).

Rows are tuples in the order of their table's ``*_COLUMNS``, handed to the database as they
are (``_bulk.bulk_insert``): no per-row parameter processing. The two JSON columns (a turn's
``errors``, a tool call's ``args``) hold ``json.dumps`` text, as SQLAlchemy's JSON type and
psycopg's ``Json`` made it.

A result is ``Prepared`` before its batch's transaction: its rows but for the leading values
only the transaction knows (the test's id; the run's id and the position). From a model
(``prepare``: its ``model_dump`` read the dict way, every text column ``clean``), or
straight from its JSON (``prepare_json``, the run's writer): a result's
JSON that is exactly what ``model_dump_json`` makes of a valid TestResult, every field there
with a value of the type it is validated to, gives the rows the validated model would, at a
fraction of the cost of validating it; anything else (a missing or unknown field, a type
that validation would convert or refuse, attached files) gives None, and the caller
validates it the usual way."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from json import encoder as _json_encoder
from operator import itemgetter
from typing import Any, NamedTuple, overload

from pydantic_core import SchemaValidator

from assay.results.models import TestResult

Row = tuple[Any, ...]

TEST_COLUMNS = (
    "id",
    "run_id",
    "position",
    "test_name",
    "repeat_index",
    "test_type",
    "status",
    "passed",
    "tools_matched",
    "execution_time_ms",
    "total_tokens",
    "error_count",
    "timestamp",
    "payload",
)
TURN_COLUMNS = (
    "test_result_id",
    "turn_index",
    "input",
    "response",
    "ground_truth",
    "passed",
    "skipped",
    "tools_matched",
    "execution_time_ms",
    "total_tokens",
    "errors",
)
METRIC_COLUMNS = (
    "test_result_id",
    "seq",
    "turn_index",
    "metric_name",
    "kind",
    "dimension",
    "score",
    "threshold",
    "passed",
    "error",
    "model_used",
    "reasoning",
)
TOOL_COLUMNS = (
    "test_result_id",
    "turn_index",
    "call_index",
    "name",
    "args",
    "bytes",
    "duration_ms",
    "error",
)

_to_json = json.dumps  # what SQLAlchemy's JSON type and psycopg's Json call: the same text
# (an empty list or object, the usual case, written without the call)
# json.dumps's text, without building an encoder per call (json.dumps does): for values
# parsed from JSON (never cyclic, nothing json.dumps could not write); json.dumps's defaults
_make_encoder = getattr(_json_encoder, "c_make_encoder", None)  # None: no C accelerator
_ENCODE = (
    None
    if _make_encoder is None
    else _make_encoder(
        None,
        json.JSONEncoder().default,
        _json_encoder.encode_basestring_ascii,
        None,
        ": ",
        ", ",
        False,
        False,
        True,
    )
)


def _parsed_to_json(value: Any) -> str:
    return json.dumps(value) if _ENCODE is None else "".join(_ENCODE(value, 0))


@dataclass(frozen=True, slots=True)
class Encoded:
    """A result and its JSON, stored as the payload as it is: the run's writer receives both
    from the run (the JSON, parsed back to the model), and serialises nothing again."""

    payload: str
    result: TestResult

    @classmethod
    def of(cls, result: TestResult) -> Encoded:
        return cls(result.model_dump_json(), result)


class Prepared(NamedTuple):
    """A result ready to store: its key, its JSON (the payload) and its rows, each without
    its leading values (a test row: id, run id, position; the others: the test's id)."""

    test_name: str
    repeat_index: int
    passed: bool
    test: Row
    turns: list[Row]
    metrics: list[Row]
    tools: list[Row]
    source: TestResult | None = None  # the model, when prepared from one

    @property
    def payload(self) -> str:
        payload: str = self.test[-1]
        return payload

    @property
    def result(self) -> TestResult:
        """The model (validated from the payload when prepared from JSON: it is valid)."""
        if self.source is not None:
            return self.source
        return TestResult.model_validate_json(self.payload)


@overload
def clean(text: str) -> str: ...
@overload
def clean(text: None) -> None: ...
def clean(text: str | None) -> str | None:
    """PostgreSQL text cannot hold NUL characters: they become U+FFFD in every text column.
    (``encode_result`` already replaced them in a run; this is for any other caller.)"""
    return text.replace("\x00", "\ufffd") if text and "\x00" in text else text


# -- straight from the JSON ---------------------------------------------------------------


def _as_dicts(schema: Any) -> Any:
    """A core schema with every model in it replaced by a typed dict of the same fields: the
    same validation (each field's own schema, its default, extra fields forbidden as the
    model's config says), but plain dicts out instead of model instances. Raises
    ValueError for a model this does not know how to mirror exactly."""
    if isinstance(schema, list):
        return [_as_dicts(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("type") == "model":
        inner = schema["schema"]
        config = schema.get("config", {})
        if (
            inner.get("type") != "model-fields"
            or inner.get("computed_fields")
            or schema.get("custom_init")
            or schema.get("root_model")
            or schema.get("post_init")
            or set(config) - {"extra_fields_behavior", "title"}
            or set(schema)
            - {"type", "cls", "schema", "custom_init", "root_model", "config"}
            - {"ref", "metadata"}
            or set(inner) - {"type", "fields", "model_name", "computed_fields"}
        ):
            raise ValueError(f"cannot mirror {schema.get('cls')}")
        fields = {}
        for name, field in inner["fields"].items():
            if set(field) - {"type", "schema", "metadata"} or field["type"] != "model-field":
                raise ValueError(f"cannot mirror the field {name}")
            fields[name] = {
                "type": "typed-dict-field",
                "schema": _as_dicts(field["schema"]),
                "required": field["schema"]["type"] != "default",
            }
        mirrored: dict[str, Any] = {
            "type": "typed-dict",
            "fields": fields,
            "extra_behavior": config.get("extra_fields_behavior", "ignore"),
        }
        if "ref" in schema:
            mirrored["ref"] = schema["ref"]
        return mirrored
    return {
        key: value if key in ("metadata", "default", "cls") else _as_dicts(value)
        for key, value in schema.items()
    }


@functools.cache
def _dict_validator() -> SchemaValidator | None:
    """Made when first needed (about 0.5 ms: only the writer's process needs it)."""
    try:
        return SchemaValidator(_as_dicts(TestResult.__pydantic_core_schema__))
    except Exception:  # a pydantic this does not know: every result takes the model path
        return None


# A NUL character in JSON text, escaped (or not: not JSON). Searched with ``find`` and an
# int: ``bytes in bytes`` first tries its operand as an int, raising and clearing a
# TypeError each time (about 1.8k instructions).
_NUL_ESCAPED = b"\\u0000"
_TEST_ROW = itemgetter(*TEST_COLUMNS[3:10])  # test_name ... execution_time_ms
_TEST_TURN = itemgetter("test_input", "agent_response", "ground_truth", "passed")
_TEST_REST = itemgetter(
    "tools_matched",
    "execution_time_ms",
    "token_usage",
    "errors",
    "timestamp",
    "metric_results",
    "tool_invocations",
    "turns",
)
_TURN_ROW = itemgetter(*TURN_COLUMNS[1:9])  # turn_index ... execution_time_ms
_TURN_REST = itemgetter("token_usage", "errors", "tool_invocations", "metric_results")
_METRIC_ROW = itemgetter(*METRIC_COLUMNS[3:])  # metric_name ... reasoning
_TOOL_ROW = itemgetter("name", "args", "bytes", "duration_ms", "error")


def _tool_rows(
    calls: list[dict[str, Any]], turn: int, tools: list[Row], dumps: Callable[[Any], str]
) -> None:
    for i, call in enumerate(calls):
        name, args, size, duration, error = _TOOL_ROW(call)
        text = dumps(args) if args else "{}"
        tools.append((turn, i, name, text, size, duration, error))


def _metric_rows(metrics: list[dict[str, Any]], turn: int | None, rows: list[Row], seq: int) -> int:
    for metric in metrics:
        rows.append((seq, turn, *_METRIC_ROW(metric)))
        seq += 1
    return seq


def _from_dict(
    data: dict[str, Any], payload: str, dumps: Callable[[Any], str] = _parsed_to_json
) -> Prepared:
    """The rows of a result from its fields as a dict (a validated result's, or a model's
    ``model_dump``); ``dumps`` writes the JSON columns."""
    matched, elapsed, usage, errors, timestamp, measured, calls, listed = _TEST_REST(data)
    tokens = usage["total_tokens"] if usage is not None else None
    turns: list[Row] = []
    metrics: list[Row] = []
    tools: list[Row] = []
    seq = _metric_rows(measured, None, metrics, 0) if measured else 0
    if listed:
        for turn in listed:
            row = _TURN_ROW(turn)
            turn_usage, turn_errors, turn_calls, turn_measured = _TURN_REST(turn)
            turns.append(
                (
                    *row,
                    turn_usage["total_tokens"] if turn_usage is not None else None,
                    dumps(turn_errors) if turn_errors else "[]",
                )
            )
            _tool_rows(turn_calls, row[0], tools, dumps)
            seq = _metric_rows(turn_measured, row[0], metrics, seq)
    else:  # stored as its own turn 0
        turns.append(
            (
                0,
                *_TEST_TURN(data),
                False,
                matched,
                elapsed,
                tokens,
                dumps(errors) if errors else "[]",
            )
        )
        _tool_rows(calls, 0, tools, dumps)
    test = (*_TEST_ROW(data), tokens, len(errors), timestamp, payload)
    return tuple.__new__(Prepared, (test[0], test[1], test[4], test, turns, metrics, tools, None))


def prepare_json(payload: bytes) -> Prepared | None:
    """``prepare`` of a result's JSON as TestResult validates it, without making the
    model: validated by the same schema into plain dicts (``_as_dicts``), and the rows read
    from those. None when it does not validate, or holds a NUL character (both left to the
    model path: its error, its ``clean``)."""
    validator = _dict_validator()
    if validator is None or payload.find(_NUL_ESCAPED) >= 0 or 0 in payload:
        return None
    try:
        text = payload.decode()
        data = validator.validate_json(payload)
    except ValueError:  # not UTF-8, or not valid: ValidationError is a ValueError
        return None
    return _from_dict(data, text)


# the text columns of each kind of prepared row (without its leading values): what ``clean``
# applies to when a row is made from a model
_TEST_TEXTS = (0,)  # test_name
_TURN_TEXTS = (1, 2, 3)  # input, response, ground_truth
_METRIC_TEXTS = (2, 4, 8, 9, 10)  # metric_name, dimension, error, model_used, reasoning
_TOOL_TEXTS = (2, 6)  # name, error


def _cleaned(row: Row, texts: tuple[int, ...]) -> Row:
    for i in texts:
        if row[i] and "\x00" in row[i]:
            return tuple(clean(value) if i in texts else value for i, value in enumerate(row))
    return row


def prepare(payload: str, result: TestResult) -> Prepared:
    """The rows of a result (its JSON given: stored as it is): the dict way
    (``_from_dict``) of its ``model_dump``, every text column ``clean``. A single-turn
    result's metrics are stored at test level only (turn_index NULL), like every rolled-up
    result; a multi-turn result's turns add their own, with their turn_index."""
    rows = _from_dict(result.model_dump(warnings=False), payload, _to_json)
    return Prepared(
        result.test_name,
        result.repeat_index,
        result.passed,
        _cleaned(rows.test, _TEST_TEXTS),
        [_cleaned(row, _TURN_TEXTS) for row in rows.turns],
        [_cleaned(row, _METRIC_TEXTS) for row in rows.metrics],
        [_cleaned(row, _TOOL_TEXTS) for row in rows.tools],
        result,
    )


# -- handed over by the run process: rows proved, nothing to parse -----------------------

# A single-turn result's rows as the run process hands them to the writer beside its JSON
# (``assay.runner.storable.proved_rows``): its test row without the payload, then its turn,
# metric and tool rows, each without its leading values, as ``prepare_json`` of that JSON
# gives them (``_from_dict``'s layout).
Handed = tuple[Row, list[Row], list[Row], list[Row]]


def prepared_of(payload: str, handed: Handed) -> Prepared:
    """A result's ``Prepared`` from its JSON and the rows handed over with it: nothing
    parsed."""
    test, turns, metrics, tools = handed
    return tuple.__new__(
        Prepared, (test[0], test[1], test[4], test + (payload,), turns, metrics, tools, None)
    )
