"""What assay refuses in any input file, so that a crafted file gets one clear message
instead of a traceback, a hang or a crash further on.

- Values nested more than ``MAX_NESTING`` levels deep (JSON in a dataset, the YAML of a
  suite): no test needs them, and code that walks them recursively would fail. JSON text is
  read within these limits by ``assay._json.load_bounded``.
- Integers with more digits than Python turns into text (``sys.get_int_max_str_digits()``,
  4,300 by default): quote them to keep them as text.
- Control characters (U+0000–U+001F, U+007F–U+009F) and lone surrogates (``"\\ud800"`` in
  JSON or YAML, which no UTF-8 text can hold) in names and ids — a test name, a tool name,
  a metric name, a ``session_id`` or ``turn_id``: they cannot be stored (PostgreSQL refuses
  NUL) and control characters drive the terminal. Free text (a question, an expected answer, a
  context, a tool argument's value) may hold any other character, NUL included: it is test
  data, sent to the agent as written.
- Lone surrogates anywhere in a dataset line (a JSONL ``"\\ud800"`` escape that is not half
  of a pair; CSV and XLSX cannot hold one): such text can be neither sent nor stored.
- A key given twice in one mapping of a YAML file (a suite, a contract file, a file to import)
  or in one object of a JSONL line: YAML and ``json.loads`` would keep the last value and
  drop the first, silently. The message names the line and the key.
"""

from __future__ import annotations

import re
import sys

MAX_NESTING = 100

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # left in decoded JSON: unpaired (pairs are joined)
_NAMES = {0x00: "NUL", 0x09: "a tab", 0x0A: "a line break", 0x0D: "a carriage return"}
_NAMES |= {0x1B: "ESC"}


class ValueLimitError(ValueError):
    """A value past one of the limits above; the message says which and what to do."""


def control_character(text: str) -> str | None:
    """``text``'s first control character, described (``NUL (U+0000) at character 3``);
    None when it has none."""
    if text.isprintable():  # the common case, in C: no control character (nor any separator)
        return None
    found = _CONTROL.search(text)
    return None if found is None else _described(found)


def lone_surrogate(text: str) -> str | None:
    """``text``'s first lone surrogate, described (``a lone surrogate (U+D800) at character
    4``); None when it has none."""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else _described(found)


def _described(found: re.Match[str]) -> str:
    code = ord(found.group())
    name = _NAMES.get(code, "a lone surrogate" if code >= 0xD800 else "a control character")
    return f"{name} (U+{code:04X}) at character {found.start() + 1}"


def name_problem(text: str, what: str) -> str | None:
    """The message for a name or id holding a control character; None when it has none."""
    found = control_character(text)
    if found is None:
        return None
    return f"the {what} contains {found}: names and ids are plain text, so remove it"


def too_many_digits() -> str:
    return (
        f"a number with more than {sys.get_int_max_str_digits():,} digits: write it as text, "
        "in quotes"
    )


def too_deep() -> str:
    return f"nested more than {MAX_NESTING} levels deep: flatten it"


# The largest file a test may attach (``files:``), in megabytes: the suite's
# ``execution.max_file_mb`` or ``--max-file-mb`` changes it. A file is read whole and sent
# with every turn that attaches it, so a bound keeps a stray video out of a run.
DEFAULT_MAX_FILE_MB = 20.0
DEFAULT_MAX_REPLY_MB = 10.0  # the largest reply read from a target or model, decompressed
