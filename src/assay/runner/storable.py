"""A result made storable in one walk over its values, before anything is serialised.

An agent can put anything in a result: a token count of 2**64, a NUL in a tool name, a lone
surrogate, a cyclic or 100,000-deep structure, an object JSON cannot hold, a secret it was
sent. Any of these used to stop the writer and lose the run; now each value is fixed where
it is, and what changed is said in the result's ``warnings``:

- a typed counter (``token_usage``, ``execution_time_ms``, ``bytes``, ...) outside the signed
  64-bit range the store holds is clamped to it; such an integer inside free-form data (tool
  arguments and results, metric details, a trace) becomes its decimal text, which keeps it;
- a float that is not finite (NaN, infinity) becomes null (0 where a number is required);
- NUL characters and unpaired surrogates in text become U+FFFD;
- a cycle, data nested deeper than ``MAX_DEPTH``, and an object with no JSON form become text;
- every known secret (``assay.secrets.REDACTOR``) is masked in every string, keys included,
  so no escaping of the serialised JSON can hide one.

A tool invocation whose result changed has its ``bytes`` measured again, from the result as
stored (SPEC §4: the length of the JSON of ``result``).

Nearly every result needs none of this, and walking it in Python costs more than the rest of
its turn, so ``storable`` first tries to prove, mostly in C, that the walk would change
nothing (``_clean_json``): a type check of the few free-form values, then one search of the
result's JSON for every other reason to change it. Whatever it cannot prove clean is walked.

``storable_payload`` (the run's ``encode_result``) also proves, for the usual single-turn
result, that its JSON validates as TestResult into exactly the values the model holds
(``proved_rows``: every value's exact type checked, which covers the free-form check), and
reads from the model the store's rows the writer would read from that JSON: the writer then
stores them without parsing the JSON.

``storable_text`` is the same treatment for one string: resume compares the names it plans
with the stored ones through it, so a cleaned or masked name is not re-run forever.
"""

from __future__ import annotations

import functools
import json
import math
import re
import types
from collections.abc import Callable
from operator import itemgetter
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import to_json, to_jsonable_python

from assay._surrogates import replace_lone_surrogates
from assay.results.models import MetricResult, TestResult, TokenUsage, ToolInvocation
from assay.results.rollup import all_exactly
from assay.secrets import REDACTOR
from assay.store._rows import Handed, Row, _parsed_to_json
from assay.targets.base import result_bytes

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_DEPTH = 64  # free-form data nested deeper is stored as text
MAX_WARNINGS = 20  # a result lists this many changes, then how many more there were
MAX_KEY_SHOWN = 40
MAX_PATH_SHOWN = 8  # a longer path in a warning shows its first and last parts
REPLACEMENT = "\ufffd"
_UNSAFE = re.compile("[\x00\ud800-\udfff]")  # NUL, and surrogates (unpaired in a str)

_COUNTER, _NUMBER, _OPTIONAL, _TEXT, _TEXTS, _RECORD, _RECORDS, _VALUE = range(8)


@functools.cache
def _field_kinds(cls: type[BaseModel]) -> tuple[tuple[str, int], ...]:
    """How each field of a result model is walked: typed booleans and literals hold nothing
    to fix; typed integers are clamped; everything else is walked by what it holds."""
    kinds = []
    for name, info in cls.model_fields.items():
        annotation = info.annotation
        options = set(get_args(annotation)) if _is_union(annotation) else {annotation}
        options.discard(type(None))
        if options <= {bool} or all(get_origin(o) is Literal for o in options):
            continue
        (only,) = options if len(options) == 1 else (None,)
        if only is int:
            kind = _COUNTER
        elif only is float:
            kind = _NUMBER if info.is_required() or info.default is not None else _OPTIONAL
        elif only is str:
            kind = _TEXT
        elif get_origin(only) is list and get_args(only) == (str,):
            kind = _TEXTS
        elif get_origin(only) is list and _is_record(get_args(only)[0]):
            kind = _RECORDS
        elif _is_record(only):
            kind = _RECORD
        else:
            kind = _VALUE
        kinds.append((name, kind))
    return tuple(kinds)


def _is_record(annotation: Any) -> bool:
    """One of the result models (TestResult and what it holds)."""
    return isinstance(annotation, type) and annotation.__module__ == TestResult.__module__


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _int_text(value: int) -> str:
    try:
        return str(value)
    except ValueError:  # more digits than Python converts (4,300 by default)
        return f"<an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits>"


def _describe(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # a broken __str__ is still only a value to show
        return f"<a {type(value).__name__} that cannot be shown>"


def _plain(value: Any) -> bool:
    """A value stored as it is: nothing to walk (the common case, checked without a call
    into the walk)."""
    kind = type(value)
    if kind is str:  # (a URL's password or query key is masked with no secret known)
        plain = value.isascii() and "\x00" not in value and not REDACTOR.secrets
        return plain and "://" not in value
    return (
        value is None
        or kind is bool
        or (kind is int and INT64_MIN <= value <= INT64_MAX)
        or (kind is float and math.isfinite(value))
    )


class _Walk:
    """One walk over one result: returns each value fixed (the same object when nothing
    changed) and collects a note for each change. ``key`` is where a value sits in its
    parent (a field, a key, an index): only containers push it on the path."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.dropped = 0
        self._path: list[str | int] = []
        self._inside: set[int] = set()  # ids of the containers being walked: cycles
        self._models: dict[int, BaseModel] = {}  # id -> the model as fixed (all alive)

    # -- notes ---------------------------------------------------------------------------

    def note(self, key: str | int | None, what: str) -> None:
        if len(self.notes) >= MAX_WARNINGS:
            self.dropped += 1
            return
        parts: list[Any] = [*self._path, key] if key is not None else list(self._path)
        if len(parts) > MAX_PATH_SHOWN:
            parts[3:-2] = [None]
        where = "".join(
            "..."
            if part is None
            else f"[{part}]"
            if isinstance(part, int)
            else f".{part[:MAX_KEY_SHOWN]}"
            for part in parts
        ).lstrip(".")
        self.notes.append(storable_text(f"{where or 'result'}: {what}"))

    def warnings(self) -> list[str]:
        more = [f"... and {self.dropped} more changes"] if self.dropped else []
        return [*self.notes, *more]

    # -- values --------------------------------------------------------------------------

    def text(self, value: str, key: str | int | None = None) -> str:
        value = REDACTOR(value)
        if value.isascii():
            if "\x00" not in value:
                return value
        elif _UNSAFE.search(value) is None:
            return value
        return self.repair(value, key)

    def repair(self, value: str, key: str | int | None) -> str:
        if "\x00" in value:
            value = value.replace("\x00", REPLACEMENT)
            self.note(key, "NUL characters replaced with U+FFFD")
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                value = replace_lone_surrogates(value)
                self.note(key, "unpaired surrogate characters replaced with U+FFFD")
        return value

    def value(self, value: Any, key: str | int) -> Any:
        kind = type(value)
        if kind is str:
            return self.text(value, key)
        if value is None or kind is bool:
            return value
        if kind is int:
            if INT64_MIN <= value <= INT64_MAX:
                return value
            self.note(key, "an integer outside the 64-bit range; stored as its text")
            return _int_text(value)
        if kind is float:
            if math.isfinite(value):
                return value
            self.note(key, f"{value} is not a number JSON can hold; stored as null")
            return None
        if kind is dict or kind is list or kind is tuple:
            return self.container(value, key) if value else value
        if _is_record(kind):
            return self.model(value, key)
        return self.foreign(value, key)

    def container(self, value: dict[Any, Any] | list[Any] | tuple[Any, ...], key: Any) -> Any:
        if len(self._path) >= MAX_DEPTH:
            self.note(key, f"nested deeper than {MAX_DEPTH} levels; stored as text")
            return "<nested too deep>"
        if id(value) in self._inside:
            self.note(key, "the value contains itself (a cycle); stored as text")
            return "<cycle>"
        self._inside.add(id(value))
        self._path.append(key)
        fixed = self.mapping(value) if isinstance(value, dict) else self.sequence(value)
        self._path.pop()
        self._inside.discard(id(value))
        return fixed

    def mapping(self, value: dict[Any, Any]) -> dict[str, Any]:
        changed = False
        items = []
        for key, item in value.items():
            new_key = self.text(key, key) if type(key) is str else self.key(key)
            new_item = item if _plain(item) else self.value(item, new_key)
            changed = changed or new_key is not key or new_item is not item
            items.append((new_key, new_item))
        return dict(items) if changed else value

    def key(self, key: Any) -> str:
        text = _describe(key)
        if not (key is None or isinstance(key, bool | int | float)):
            self.note(text, f"a key of type {type(key).__name__} is not JSON; stored as its text")
        return self.text(text, text)

    def sequence(self, value: list[Any] | tuple[Any, ...]) -> list[Any] | tuple[Any, ...]:
        changed = False
        items = []
        for index, item in enumerate(value):
            new_item = item if _plain(item) else self.value(item, index)
            changed = changed or new_item is not item
            items.append(new_item)
        return items if changed else value

    def foreign(self, value: Any, key: str | int) -> Any:
        """A value of a type JSON has no word for: pydantic's JSON form (datetimes, bytes,
        enums, dataclasses, sets, models), else its text."""
        try:
            plain = to_jsonable_python(value)
        except Exception:
            self.note(
                key, f"a value of type {type(value).__name__} is not JSON; stored as its text"
            )
            return self.text(_describe(value), key)
        return self.value(plain, key)

    def model(self, model: BaseModel, key: str | int | None = None) -> BaseModel:
        done = self._models.get(id(model))
        if done is not None:  # a roll-up lists its turns' tool calls again: walked once
            return done
        if key is not None:
            self._path.append(key)
        updates: dict[str, Any] = {}
        fields = model.__dict__
        for name, kind in _field_kinds(type(model)):
            old = fields[name]
            if old is None:
                continue
            new: Any
            if kind == _TEXT:
                new = self.text(old, name)
            elif kind in (_RECORDS, _TEXTS):
                new = self.typed_list(old, name, kind == _RECORDS) if old else old
            elif kind == _RECORD:
                new = self.model(old, name)
            elif kind == _VALUE:
                new = self.value(old, name)
            elif kind == _COUNTER:
                new = old if INT64_MIN <= old <= INT64_MAX else self.clamp(old, name)
            else:
                new = old if math.isfinite(old) else self.number(old, name, kind == _OPTIONAL)
            if new is not old:
                updates[name] = new
        if key is not None:
            self._path.pop()
        if "result" in updates and type(model) is ToolInvocation and fields["bytes"] is not None:
            # ``bytes`` is the length of the JSON of the result as it is stored (a NaN stored
            # as null, a secret masked, ...), not of the result the agent gave
            updates["bytes"] = result_bytes(updates["result"])
        fixed = model.model_copy(update=updates) if updates else model
        self._models[id(model)] = fixed
        return fixed

    def typed_list(self, value: list[Any], key: str, records: bool) -> list[Any]:
        """A list field of result models or of text: fresh from validation, so neither
        cyclic nor deep, and walked without the checks free-form data needs."""
        self._path.append(key)
        fix = self.model if records else self.text
        items = [fix(item, index) for index, item in enumerate(value)]
        self._path.pop()
        changed = any(new is not old for new, old in zip(items, value, strict=True))
        return items if changed else value

    def clamp(self, value: int, key: str) -> int:
        clamped = INT64_MAX if value > 0 else INT64_MIN
        self.note(key, f"{_int_text(value)} is outside the 64-bit range; stored as {clamped}")
        return clamped

    def number(self, value: float, key: str, optional: bool) -> float | None:
        stored, said = (None, "null") if optional else (0.0, "0")
        self.note(key, f"{value} is not a number JSON can hold; stored as {said}")
        return stored


# -- the fast path: proving a result clean -------------------------------------------------

# Free-form data deeper than this (below the models' own few levels) is left to the walk.
_FREE_FORM_DEPTH = MAX_DEPTH - 16
# What in a result's JSON can need a change (text that merely looks like one only sends the
# result to the walk): NUL. Integers (the typed counters and those in free-form data) and
# floats are checked in Python, where they are: a model writes a float that is not finite
# as null, and an integer's range is one comparison (searching the JSON's digits for a
# 19-digit run cost a translated copy of the whole text).
_NUL = b"\\u0000"
# U+FFFD in UTF-8: what pydantic's model serializer writes for each byte of a lone surrogate
# in a key of a typed dict field (``metrics_not_run``, ``args``, ``details``, ``trace``)
# instead of failing, as it does for one anywhere else
_REPLACED = b"\xef\xbf\xbd"
_isfinite = math.isfinite


@functools.cache
def _checked_fields(
    cls: type[BaseModel],
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A result model's free-form fields, its float fields, its fields that hold result
    models, and its integer fields."""
    kinds = _field_kinds(cls)
    return (
        tuple(name for name, kind in kinds if kind == _VALUE),
        tuple(name for name, kind in kinds if kind in (_NUMBER, _OPTIONAL)),
        tuple(name for name, kind in kinds if kind in (_RECORD, _RECORDS)),
        tuple(name for name, kind in kinds if kind == _COUNTER),
    )


def _plain_tree(value: Any, room: int) -> bool:
    """Whether ``value`` holds only exact JSON types (text keys, finite floats, integers in
    the 64-bit range) within ``room`` levels: then the walk would touch only its strings,
    which the JSON check sees. A cycle never ends, so it runs out of room."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(INT64_MIN <= value <= INT64_MAX)
    if kind is float:
        return math.isfinite(value)
    if room <= 0:
        return False
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue  # the usual leaf, checked without a call
            if kind is int:
                if INT64_MIN <= item <= INT64_MAX:
                    continue
                return False
            if not _plain_tree(item, room - 1):
                return False
        return True
    if kind is list or kind is tuple:
        for item in value:
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int:
                if INT64_MIN <= item <= INT64_MAX:
                    continue
                return False
            if not _plain_tree(item, room - 1):
                return False
        return True
    return False


_Checker = Callable[[BaseModel], bool]
_checkers: dict[type[BaseModel], _Checker | None] = {}
_UNKNOWN = object()  # ``_checkers.get``'s default: a class not seen yet


_INLINE_DEPTH = 2  # models held this deep are checked inline when of their field's class


def _checker_of(cls: type[BaseModel]) -> _Checker | None:
    """Whether a model of ``cls``'s free-form values, floats, integers and the models it
    holds are plain, as a function of the model; None when it has nothing of the kind to
    check. Made once per class, its fields' checks written out one after the other, and
    those of a held model of exactly its field's class in the same function (a loop over
    the field names and a call per model and per free-form value cost about twice as
    much), as ``dataclasses`` writes its methods. A held model of another class (a
    subclass) is checked by its own class's function."""
    try:
        return _checkers[cls]
    except KeyError:
        pass
    if not _has_checks(cls):
        _checkers[cls] = None
        return None
    env: dict[str, Any] = {
        "INT64_MIN": INT64_MIN,
        "INT64_MAX": INT64_MAX,
        "ROOM": _FREE_FORM_DEPTH,
        "_plain_tree": _plain_tree,
        "_isfinite": _isfinite,
        "_get": _checkers.get,
        "_UNKNOWN": _UNKNOWN,
        "_checker_of": _checker_of,
    }
    lines = ["def check(model):", "    fields0 = model.__dict__"]
    lines += _check_lines(cls, 0, env)
    lines.append("    return True")
    exec("\n".join(lines), env)
    checker: _Checker = env["check"]
    checker.__qualname__ = f"_checker_of.<{cls.__name__}>"
    _checkers[cls] = checker
    return checker


def _has_checks(cls: type[BaseModel]) -> bool:
    return any(_checked_fields(cls))


def _check_lines(cls: type[BaseModel], depth: int, env: dict[str, Any]) -> list[str]:
    """The checks of a ``cls`` whose ``__dict__`` is ``fields{depth}``, at ``depth``
    (names end in the depth, so an inlined model's do not clobber its holder's)."""
    free_form, floats, nested, counters = _checked_fields(cls)
    pad = "    " * (1 + 3 * depth)  # an inlined model's lines are three blocks further in
    fields, value, kind, item = f"fields{depth}", f"value{depth}", f"kind{depth}", f"item{depth}"
    lines = []
    for name in counters:  # typed integers: None, or within the 64-bit range
        lines += [
            f"{value} = {fields}[{name!r}]",
            f"if {value} is not None and not INT64_MIN <= {value} <= INT64_MAX:",
            "    return False",
        ]
    for name in free_form:  # the usual values without a call; a dict's first level too
        lines += [
            f"{value} = {fields}[{name!r}]",
            f"{kind} = type({value})",
            f"if {value} is None or {kind} is str or {kind} is bool:",
            "    pass",
            f"elif {kind} is int:",
            f"    if not INT64_MIN <= {value} <= INT64_MAX:",
            "        return False",
            f"elif {kind} is dict:",
            f"    for key, {item} in {value}.items():",
            "        if type(key) is not str:",
            "            return False",
            f"        {kind} = type({item})",
            f"        if {kind} is str or {kind} is bool or {item} is None:",
            "            continue",
            f"        if {kind} is int:",
            f"            if INT64_MIN <= {item} <= INT64_MAX:",
            "                continue",
            "            return False",
            f"        if not _plain_tree({item}, ROOM - 1):",
            "            return False",
            f"elif {kind} is list and not {value}:",
            "    pass",
            f"elif not _plain_tree({value}, ROOM):",
            "    return False",
        ]
    for name in floats:
        lines += [
            f"{value} = {fields}[{name!r}]",
            f"if {value} is not None and not _isfinite({value}):",
            "    return False",
        ]
    for name in nested:  # None, an empty list, a model or a list of models
        lines += [
            f"{value} = {fields}[{name!r}]",
            f"if {value}:",
            f"    for {item} in {value} if type({value}) is list else ({value},):",
        ]
        held = _held_class(cls, name)
        if held is not None and depth < _INLINE_DEPTH:
            env[held.__name__] = held
            if _has_checks(held):
                inner = _check_lines(held, depth + 1, env)
                lines += [
                    f"        if type({item}) is {held.__name__}:",
                    f"            fields{depth + 1} = {item}.__dict__",
                    *(line[len(pad) :] for line in inner),
                    "            continue",
                ]
            else:
                lines.append(f"        if type({item}) is {held.__name__}: continue")
        lines += [
            f"        check = _get(type({item}), _UNKNOWN)",
            "        if check is _UNKNOWN:",
            f"            check = _checker_of(type({item}))",
            f"        if check is not None and not check({item}):",
            "            return False",
        ]
    return [pad + line for line in lines]


def _held_class(cls: type[BaseModel], name: str) -> type[BaseModel] | None:
    """The result model a field of ``cls`` holds (``X``, ``X | None``, ``list[X]``)."""
    annotation = cls.model_fields[name].annotation
    options = set(get_args(annotation)) if _is_union(annotation) else {annotation}
    options.discard(type(None))
    if len(options) != 1:
        return None
    (only,) = options
    if get_origin(only) is list:
        (only,) = get_args(only)
    if isinstance(only, type) and issubclass(only, BaseModel) and _is_record(only):
        return only
    return None


def _plain_free_form(model: BaseModel) -> bool:
    """Whether every free-form value in ``model`` and the models it holds is a plain tree,
    every float finite and every integer in the 64-bit range."""
    check = _checkers.get(type(model), _UNKNOWN)
    if check is _UNKNOWN:
        check = _checker_of(type(model))
    return check is None or check(model)  # type: ignore[operator]


_needles: tuple[set[str], int, tuple[bytes, ...]] = (set(), 0, ())


def _secret_needles() -> tuple[bytes, ...]:
    """Every known secret as it appears in JSON text: a secret inside a string is inside
    that string's JSON, escaped the same way character by character. Worked out again
    when REDACTOR learns more secrets (it only ever adds)."""
    global _needles
    known, count, needles = _needles
    if known is not REDACTOR.secrets or count != len(REDACTOR.secrets):
        forms = set()
        for secret in REDACTOR.secrets:
            forms.add(secret.encode("utf-8", "surrogatepass"))
            escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
            forms.add(escaped.encode("utf-8", "surrogatepass"))
        needles = tuple(forms)
        _needles = (REDACTOR.secrets, len(REDACTOR.secrets), needles)
    return needles


def _clean_json(result: TestResult) -> bytes | None:
    """The result's JSON when the walk is proven to change nothing in it, else None.

    The free-form values hold only plain types and are not deep, floats are finite and
    integers within 64 bits (checked in Python, where they are: they are few); everything
    else the walk looks at is text, in the JSON, the same text ``model_dump_json`` gives: a
    lone surrogate fails to serialise (or, in a key, is written as U+FFFD, searched for), and
    NUL, a URL with user info or a query and every known secret are searched for."""
    if not _plain_free_form(result):
        return None
    return _clean_text(result)


def _clean_text(
    result: TestResult, serialise: Callable[[TestResult], bytes] = to_json
) -> bytes | None:
    """``_clean_json``'s search of the JSON, for a result whose values are proved plain;
    ``serialise`` makes it (``_TO_JSON`` for a result proved exactly a TestResult)."""
    try:
        text = serialise(result)
    except Exception:  # a surrogate, or anything else: the walk says what
        return None
    # bytes searched for an int (a byte) or with ``find``: ``bytes in bytes`` first tries
    # the needle as an int, raising and clearing a TypeError (2.8k instructions on 1,000
    # bytes, against 1.0k for an int and 1.9k with ``find``)
    if 0x5C in text and text.find(_NUL) >= 0:  # (no escape at all, the usual case: a memchr)
        return None
    # perhaps a URL with user info ("@") or a query ("?": ``?api_key=``) to mask; "/" first,
    # a memchr through the whole text when there is none, as most results hold no URL
    if 0x2F in text and text.find(b"://") >= 0 and (0x40 in text or 0x3F in text):
        return None
    if 0xEF in text and text.find(_REPLACED) >= 0:  # perhaps a lone surrogate in a key
        return None  # (or U+FFFD itself: the walk changes nothing, and stores the same JSON)
    if REDACTOR.secrets:
        for needle in _secret_needles():
            if text.find(needle) >= 0:
                return None
    return text


# -- the rows the writer would read from a result's JSON, proved in the run process ---------

_ROOM = _FREE_FORM_DEPTH
_TEST_TYPES = frozenset(get_args(TestResult.model_fields["test_type"].annotation))
_STATUSES = frozenset(get_args(TestResult.model_fields["status"].annotation))
_KINDS = frozenset(get_args(MetricResult.model_fields["kind"].annotation))
_SCALE = "0-1"
# the fields ``proved_rows`` reads, in the order it reads them, of each model it knows: a
# model with other fields, or in another order (a newer one), is never proved
_KNOWN: dict[type[BaseModel], tuple[str, ...]] = {
    TestResult: (
        *("test_name", "test_type", "test_input", "agent_response", "processed_files"),
        *("tool_calls", "tool_invocations", "expected_tools", "tools_matched"),
        *("arg_match_details", "tool_mismatches", "ground_truth", "metric_results"),
        *("metrics_not_run", "passed"),
        *("status", "execution_time_ms", "time_to_first_token_ms", "token_usage", "errors"),
        *("warnings", "timestamp", "turns", "trace", "repeat_index", "tags"),
    ),
    ToolInvocation: ("name", "args", "result", "bytes", "duration_ms", "error"),
    MetricResult: (
        *("metric_name", "kind", "score", "threshold", "passed", "scale", "error"),
        *("retry_count", "evaluation_time_ms", "model_used", "reasoning", "dimension"),
        "details",
    ),
    TokenUsage: (
        *("prompt_tokens", "completion_tokens", "total_tokens", "cache_creation_tokens"),
        "cache_read_tokens",
    ),
}
_PROVABLE = all(tuple(cls.model_fields) == names for cls, names in _KNOWN.items()) and (
    get_args(MetricResult.model_fields["scale"].annotation) == (_SCALE,)
)
# each model's count of fields, and its fields in that order read in one call
_READ = {cls: (len(names), itemgetter(*names)) for cls, names in _KNOWN.items()}
# a proved result's JSON: it is exactly a TestResult, so its class's serializer makes the
# bytes ``to_json`` would, without ``to_json`` inferring the serializer (1.4k of its 43k)
_TO_JSON = TestResult.__pydantic_serializer__.to_json


def _exact_fields(model: Any, cls: type[BaseModel]) -> Any:
    """``model``'s fields in ``_KNOWN[cls]``'s order when it is exactly a ``cls`` holding
    exactly those fields in a real dict (as pydantic's serializer reads it: a subclass's
    ``__getitem__`` could show the rows other values than the JSON gets); else None."""
    if type(model) is not cls:
        return None
    fields = model.__dict__
    count, read = _READ[cls]
    if type(fields) is not dict or len(fields) != count:
        return None
    try:
        return read(fields)
    except KeyError:  # a field missing (and so another one there): not exactly the model's
        return None


def _text_items(mapping: dict[Any, Any]) -> bool:
    """A dict of exactly str to exactly str."""
    for key, value in mapping.items():
        if type(key) is not str or type(value) is not str:
            return False
    return True


def proved_rows(result: TestResult) -> Handed | None:
    """The rows the writer reads from ``result``'s JSON (``store._rows.prepare_json``: the
    JSON validated as TestResult, its rows read from it), read from the model itself, when
    that JSON is proved to validate into exactly the model's values; else None.

    Proved: a single-turn result (no turns, attached files, asserted tools, argument
    details or tool mismatches), it and every model it holds exactly of its class with
    exactly its fields, each value of exactly the type its field validates to (a str, an
    int within 64 bits, a finite float, a bool, None where allowed, a literal's own values,
    lists of exactly those, free-form data plain as ``_plain_free_form`` has it; an int is
    taken in a float field only where no row reads it: validation makes it a float). Every
    value ``_plain_free_form`` checks is checked here the same way or stricter, so a result
    proved here needs only the JSON's search (``_clean_text``). Each value is read once
    (the fields of a model in one ``itemgetter`` call) and checked in straight-line code."""
    fields = _exact_fields(result, TestResult) if _PROVABLE else None
    if fields is None:
        return None
    (
        name,
        test_type,
        test_input,
        response,
        files,
        tool_calls,
        calls,
        expected,
        matched,
        details,
        mismatches,
        ground_truth,
        measured,
        not_run,
        passed,
        status,
        elapsed,
        ttft,
        usage,
        errors,
        warnings,
        timestamp,
        turns,
        trace,
        repeat_index,
        tags,
    ) = fields
    if not (
        turns is None
        and expected is None
        and details is None
        and type(mismatches) is list
        and not mismatches
        and type(files) is list
        and not files
        and type(name) is str
        and type(test_type) is str
        and test_type in _TEST_TYPES
        and type(test_input) is str
        and (response is None or type(response) is str)
        and (ground_truth is None or type(ground_truth) is str)
        and (matched is None or matched is True or matched is False)
        and (passed is True or passed is False)
        and type(status) is str
        and status in _STATUSES
        and type(elapsed) is int
        and INT64_MIN <= elapsed <= INT64_MAX
        and (ttft is None or (type(ttft) is int and INT64_MIN <= ttft <= INT64_MAX))
        and type(repeat_index) is int
        and INT64_MIN <= repeat_index <= INT64_MAX
        and type(timestamp) is str
        and type(errors) is list
        and (not errors or all_exactly(errors, str))
        and type(tool_calls) is list
        and (not tool_calls or all_exactly(tool_calls, str))
        and type(warnings) is list
        and (not warnings or all_exactly(warnings, str))
        and type(tags) is list
        and (not tags or all_exactly(tags, str))
        and type(not_run) is dict
        and (not not_run or _text_items(not_run))
        and (trace is None or (type(trace) is dict and _plain_tree(trace, _ROOM)))
        and type(calls) is list
        and type(measured) is list
    ):
        return None
    tokens = None
    if usage is not None:
        counts = _exact_fields(usage, TokenUsage)
        if counts is None:
            return None
        prompt, completion, tokens, created, read = counts
        if not (
            type(prompt) is int
            and type(completion) is int
            and type(tokens) is int
            and type(created) is int
            and type(read) is int
            and INT64_MIN <= prompt <= INT64_MAX
            and INT64_MIN <= completion <= INT64_MAX
            and INT64_MIN <= tokens <= INT64_MAX
            and INT64_MIN <= created <= INT64_MAX
            and INT64_MIN <= read <= INT64_MAX
        ):
            return None
    tools: list[Row] = []
    for i, call in enumerate(calls):
        values = _exact_fields(call, ToolInvocation)
        if values is None:
            return None
        tool, args, output, size, duration, error = values
        kind = type(output)
        if not (
            type(tool) is str
            and type(args) is dict
            and (not args or _plain_tree(args, _ROOM))
            and (
                output is None
                or kind is str
                or kind is bool
                or (kind is int and INT64_MIN <= output <= INT64_MAX)
                or _plain_tree(output, _ROOM)
            )
            and (size is None or (type(size) is int and INT64_MIN <= size <= INT64_MAX))
            and (duration is None or (type(duration) is int and INT64_MIN <= duration <= INT64_MAX))
            and (error is None or type(error) is str)
        ):
            return None
        text = _parsed_to_json(args) if args else "{}"
        tools.append((0, i, tool, text, size, duration, error))
    metrics: list[Row] = []
    for seq, metric in enumerate(measured):
        values = _exact_fields(metric, MetricResult)
        if values is None:
            return None
        (
            metric_name,
            kind,
            score,
            threshold,
            verdict,
            scale,
            error,
            retries,
            took,
            model,
            reasoning,
            dimension,
            details,
        ) = values
        if not (
            type(metric_name) is str
            and type(kind) is str
            and kind in _KINDS
            and (score is None or (type(score) is float and _isfinite(score)))
            and (threshold is None or (type(threshold) is float and _isfinite(threshold)))
            and (verdict is None or verdict is True or verdict is False)
            and type(scale) is str
            and scale == _SCALE
            and (error is None or type(error) is str)
            and type(retries) is int
            and INT64_MIN <= retries <= INT64_MAX
            and type(took) is int
            and INT64_MIN <= took <= INT64_MAX
            and (model is None or type(model) is str)
            and (reasoning is None or type(reasoning) is str)
            and (dimension is None or type(dimension) is str)
            and (details is None or (type(details) is dict and _plain_tree(details, _ROOM)))
        ):
            return None
        row = (seq, None, metric_name, kind, dimension, score, threshold, verdict, error)
        metrics.append((*row, model, reasoning))
    text = _parsed_to_json(errors) if errors else "[]"
    count = len(errors)
    # _rows._from_dict's layout: the test row (its payload added by the writer), the turn's
    test = (
        name,
        repeat_index,
        test_type,
        status,
        passed,
        matched,
        elapsed,
        tokens,
        count,
        timestamp,
    )
    turn = (0, test_input, response, ground_truth, passed, False, matched, elapsed, tokens, text)
    return test, [turn], metrics, tools


def storable(result: TestResult) -> TestResult:
    """``result`` with every value storable and every known secret masked; each change is
    appended to its ``warnings``. The same object when there was nothing to change."""
    if _clean_json(result) is not None:
        return result
    return _walked(result)


def storable_payload(result: TestResult) -> tuple[TestResult, bytes, Handed | None]:
    """``storable(result)`` and its JSON as the bytes it is made as (the writer's hand-over
    takes bytes), serialising a clean result once, and the rows the writer would read from
    it when they are proved (``proved_rows``: then ``result`` is returned as it is, its JSON
    unchanged by the walk); a result the walk changed has none."""
    rows = proved_rows(result)
    text = _clean_json(result) if rows is None else _clean_text(result, _TO_JSON)
    if text is not None:
        return result, text, rows
    fixed = _walked(result)
    return fixed, fixed.__pydantic_serializer__.to_json(fixed), None


def _walked(result: TestResult) -> TestResult:
    walk = _Walk()
    fixed = walk.model(result)
    assert isinstance(fixed, TestResult)
    if walk.notes:
        fixed = fixed.model_copy(update={"warnings": [*fixed.warnings, *walk.warnings()]})
    return fixed


def storable_text(text: str) -> str:
    """One string as ``storable`` stores it (secrets masked, NUL and surrogates replaced)."""
    return _Walk().text(text) if text else text


def unstorable(result: TestResult, reason: str) -> TestResult:
    """What is stored for a result that could not be: its identity (name, repeat, type,
    input, tags) and an error with the reason, so the test fails instead of the run."""
    kept = TestResult(
        test_name=result.test_name,
        test_type=result.test_type,
        test_input=result.test_input,
        passed=False,
        status="error",
        execution_time_ms=max(0, min(result.execution_time_ms, INT64_MAX)),
        errors=[f"this test's result could not be stored ({reason}); only its name was kept"],
        timestamp=result.timestamp,
        repeat_index=result.repeat_index,
        tags=list(result.tags),
    )
    return storable(kept)
