"""Text from an agent, a judge, a dataset or a suite, made safe to print on a terminal.

An agent's reply or error may hold escape sequences that a terminal would obey: a window
title (OSC 0/2), a clear screen (CSI 2J), a hyperlink (OSC 8), a bell, a carriage return
that overwrites the totals line, or the same through the 8-bit C1 controls. Every control
character but newline and tab is shown as its JSON escape (``\\u001b``): visible, and the
exact character again wherever the text is read back as JSON.
"""

from __future__ import annotations

import re
import sys

from rich.markup import escape

# C0 (but tab and newline), DEL and C1
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """``text`` with every control character except newline and tab written out."""
    return _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def markup_safe(text: str) -> str:
    """``text`` for a rich console: controls written out, then markup escaped."""
    return escape(visible(text))


def for_stdout(text: str) -> str:
    """A rendered report for standard output: exact when it goes to a file or a pipe, its
    controls written out when a person reads it on a terminal."""
    return visible(text) if sys.stdout.isatty() else text
