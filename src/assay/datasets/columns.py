"""Column rules (specs/ground-truth-datasets.txt): which header names mean what.

Question, Answer, context and expected_tool_calls (and their aliases) are recognised in any
capitalisation; ``session_id`` and ``turn_id`` only literally, in lower case. Surrounding
whitespace never counts. When a file has two names for one field (``Question`` and
``Query``), the first name of its alias list is used and the other column is ignored, with
a warning that names it; the same name twice is an error. A name that looks like one of
them but is not recognised (a *near miss*, such as ``Session_ID`` or ``turn``) is ignored
with a warning that says what the file will do instead; any other column is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.datasets._table import Table, named_width
from assay.errors import DatasetError, Problem

QUESTION = "question"
ANSWER = "answer"
CONTEXT = "context"
TOOLS = "expected_tool_calls"
SESSION = "session_id"
TURN = "turn_id"
FILES = "files"

# canonical name -> the names accepted for it in any capitalisation (first = how to say it)
ALIASES: dict[str, tuple[str, ...]] = {
    QUESTION: ("Question", "Query", "Input"),
    ANSWER: ("Answer", "Expected_Answer", "Expected_Output", "Expected"),
    CONTEXT: ("context",),
    TOOLS: ("expected_tool_calls", "tools"),
    FILES: ("files", "attachments"),
}
LITERAL: tuple[str, ...] = (SESSION, TURN)  # accepted exactly as written, nothing else

# A file of human labels for ``assay judge check``: role -> its names, in any capitalisation.
# The question and the reference take the dataset's names for the Question and the Answer.
LABELLED_ALIASES: dict[str, tuple[str, ...]] = {
    "question": (*ALIASES[QUESTION], "prompt"),
    "response": ("response", "output", "actual_output", "agent_response"),
    "reference": ("reference", "ground_truth", *ALIASES[ANSWER]),
    "context": ALIASES[CONTEXT],
    "label": ("label", "human_label", "human_score", "verdict"),
}

# Further names people use for a column, warned about as near misses.
_OTHER_NAMES: dict[str, tuple[str, ...]] = {
    QUESTION: ("prompt", "questions", "queries", "user_input"),
    ANSWER: ("answers", "ground_truth", "expected_response", "reference_answer"),
    CONTEXT: ("contexts", "documents", "reference_context"),
    TOOLS: ("tool_calls", "expected_tools", "expected_tool_call", "tool"),
    FILES: ("file", "attachment", "attached_files"),
    SESSION: (
        "session",
        "conversation_id",
        "conversation",
        "conv_id",
        "thread_id",
        "dialog_id",
        "dialogue_id",
        "chat_id",
    ),
    TURN: ("turn", "turn_number", "turn_no", "turn_num", "turn_index", "turn_idx", "turn_order"),
}

_ACCEPTED = {alias.casefold(): canonical for canonical, names in ALIASES.items() for alias in names}


def _squash(name: str) -> str:
    """A name without case, spaces, hyphens, dots or underscores: ``Session-Id`` → ``sessionid``."""
    return "".join(ch for ch in name.casefold() if ch not in " _-.")


# squashed name -> (canonical, the spelling to suggest)
_NEAR: dict[str, tuple[str, str]] = {}
for _canonical, _names in _OTHER_NAMES.items():
    _spelling = ALIASES[_canonical][0] if _canonical in ALIASES else _canonical
    for _name in _names:
        _NEAR[_squash(_name)] = (_canonical, _spelling)
for _canonical, _names in ALIASES.items():
    for _name in _names:
        _NEAR[_squash(_name)] = (_canonical, _name)
for _name in LITERAL:
    _NEAR[_squash(_name)] = (_name, _name)


@dataclass(frozen=True)
class NearMiss:
    written: str  # the column as written in the file
    canonical: str  # what it looks like
    suggestion: str  # the accepted spelling to rename it to


@dataclass(frozen=True)
class Shadowed:
    written: str  # the column as written in the file, ignored
    canonical: str  # the field another column of the file gives


@dataclass(frozen=True)
class ColumnPlan:
    """How a header maps onto the dataset's fields."""

    index: dict[str, int]  # canonical -> position in the row
    column_map: dict[str, str]  # canonical -> the column as written, in file order
    ignored: list[str]  # unrecognised columns, as written
    near_misses: list[NearMiss]
    width: int  # named columns; cells beyond it must be blank
    shadowed: list[Shadowed] = field(default_factory=list)  # aliases a better name beat
    unnamed: list[str] = field(default_factory=list)  # letters of columns with no name

    def written(self, canonical: str) -> str:
        return self.column_map.get(canonical, canonical)


def resolve_columns(table: Table) -> ColumnPlan:
    """Map ``table.header``; raise DatasetError when the header is unusable."""
    header = [name.strip() for name in table.header]
    width = len(header)
    problems: list[Problem] = []
    # a column with no name (pandas' index column, a gap between two named ones) is not
    # a field assay reads: ignored, with a warning naming it (``column_warnings``)
    unnamed: list[str] = []
    if table.unit == "row":
        width = named_width(header)
        unnamed = [table.column_letter(i) for i in range(width) if not header[i]]
    index: dict[str, int] = {}
    ignored: list[str] = []
    near_misses: list[NearMiss] = []
    shadowed: list[Shadowed] = []
    for i, name in enumerate(header[:width]):
        canonical = name if name in LITERAL else _ACCEPTED.get(name.casefold())
        if canonical is None:
            if name:
                ignored.append(name)
                near = _NEAR.get(_squash(name))
                if near is not None:
                    near_misses.append(NearMiss(name, *near))
            continue
        if canonical not in index:
            index[canonical] = i
            continue
        other = header[index[canonical]]
        rank, other_rank = _rank(canonical, name), _rank(canonical, other)
        if rank == other_rank:  # the same name twice: which one is meant?
            problems.append(
                Problem(
                    table.source,
                    f"column {name}",
                    f"columns {other!r} and {name!r} both give the {_say(canonical)}: "
                    "keep one of them",
                )
            )
            continue
        if rank < other_rank:  # a better name for the field: Question beats Query
            index[canonical], name = i, other
        ignored.append(name)
        shadowed.append(Shadowed(name, canonical))
    # in file order, as the user reads the header
    column_map = {c: header[i] for c, i in sorted(index.items(), key=lambda item: item[1])}
    ignored.sort(key=header.index)
    if QUESTION not in index:
        problems.append(_no_question(table.source, header[:width], near_misses))
    if problems:
        raise DatasetError(problems)
    return ColumnPlan(index, column_map, ignored, near_misses, width, shadowed, unnamed)


def _rank(canonical: str, name: str) -> int:
    """A name's place in its field's alias list: ``Question`` 0, ``Query`` 1, ``Input`` 2."""
    names = [alias.casefold() for alias in ALIASES.get(canonical, (canonical,))]
    return names.index(name.casefold()) if name.casefold() in names else 0


def _ignored_alias_warning(plan: ColumnPlan, column: Shadowed) -> str:
    used = plan.written(column.canonical)
    return (
        f"columns {used!r} and {column.written!r} both give the {_say(column.canonical)}: "
        f"{used!r} is used and {column.written!r} is ignored"
    )


def _say(canonical: str) -> str:
    return f"{ALIASES[canonical][0]} column" if canonical in ALIASES else canonical


def _no_question(source: str, header: list[str], near_misses: list[NearMiss]) -> Problem:
    found = ", ".join(repr(name) for name in header if name) or "none"
    message = (
        "no Question column (also accepted: Query, Input, in any capitalisation); "
        f"the columns are: {found}"
    )
    for miss in near_misses:
        if miss.canonical == QUESTION:
            message += f"; rename {miss.written!r} to Question"
            break
    return Problem(source, "columns", message)


def column_warnings(plan: ColumnPlan, multi_turn: bool, has_sessions: bool) -> list[str]:
    """Warnings about the columns, once the file's shape is known (``has_sessions``: some
    row has a session_id)."""
    warnings = [_ignored_alias_warning(plan, column) for column in plan.shadowed]
    warnings += [
        f"column {letter} has no name in the header row: its values are ignored (name the "
        "column to use it)"
        for letter in plan.unnamed
    ]
    warnings += [_near_miss_warning(plan, miss, multi_turn) for miss in plan.near_misses]
    if ANSWER not in plan.index:
        warnings.append(
            "no Answer column (also accepted: Expected_Answer, Expected_Output, Expected): "
            "the comparison metrics that need an expected answer (equality, numeric, "
            "correctness and the like) will not run; safety, performance and reasoning "
            "metrics still will when the suite lists them (pii, latency, relevance with "
            "--judge); without any, each row is not run"
        )
    if SESSION in plan.index and not has_sessions:
        warnings.append(
            "column session_id is blank in every row: this file will run as SINGLE-TURN"
        )
    elif SESSION in plan.index and not multi_turn:
        warnings.append(
            "no two rows share a session_id, so no conversation has more than one turn: "
            "this file will run as SINGLE-TURN (the rows of one conversation share its "
            "session_id)"
        )
    if TURN in plan.index and SESSION not in plan.index:
        warnings.append(
            "column turn_id has no effect without a session_id column: every row runs as "
            "a conversation of its own"
        )
    if multi_turn and TURN not in plan.index:
        warnings.append(
            "no turn_id column: each conversation's turns run in the order of the rows in "
            "the file; sorting or editing a spreadsheet reorders them silently, so add a "
            "turn_id column"
        )
    return warnings


def _near_miss_warning(plan: ColumnPlan, miss: NearMiss, multi_turn: bool) -> str:
    head = f"column {miss.written!r} not recognised: did you mean {miss.suggestion}?"
    present = miss.canonical in plan.index
    if miss.canonical == SESSION:
        if multi_turn:
            return f"{head} it is ignored; rows are grouped by the session_id column"
        return (
            f"{head} this file will run as SINGLE-TURN (session_id and turn_id are read "
            "literally, in lower case)"
        )
    if miss.canonical == TURN:
        if present:
            return f"{head} it is ignored; turns are ordered by the turn_id column"
        return f"{head} turns will run in file order (turn_id is read literally, in lower case)"
    if present:
        return (
            f"{head} it is ignored; the {_say(miss.canonical)} is {plan.written(miss.canonical)!r}"
        )
    if miss.canonical == TOOLS:
        return f"{head} it is ignored, so tool calls will not be checked"
    if miss.canonical == CONTEXT:
        return f"{head} it is ignored, so no context is given to the metrics that use it"
    return f"{head} it is ignored"
