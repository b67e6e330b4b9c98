"""Reading a suite's YAML within bounds: a crafted file gets one line saying where, never a
hang or a traceback.

PyYAML shares an aliased node (``*a``) instead of copying it, but what comes after loading
(``${VAR}`` substitution, validation, the copy of the suite a run stores) walks the tree
with every alias expanded: 500 bytes of nested aliases ("billion laughs") are billions of
values. So the loader counts values as it composes them, aliases expanded, and stops past
``MAX_VALUES``; it also stops past ``MAX_NESTING`` levels, at an alias inside its own anchor
(a cycle), at an integer too long to turn back into text (``assay.limits``), and at
a value PyYAML cannot build (a date that does not exist), each with its line.

A number whose text is not the number's own (``12:09``, ``01234``, ``1.10``) is built as
``assay._spec_base.WrittenInt``/``WrittenFloat``, so that a string field keeps the text.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from assay._spec_base import WrittenFloat, WrittenInt
from assay.cases._problems import field_path
from assay.errors import ConfigError, Problem
from assay.limits import MAX_NESTING, too_deep, too_many_digits

MAX_VALUES = 1_000_000
# keys of these kinds are compared as the values they make (1 and 0x1, true and yes are one
# key to Python's dict); any other key by its tag and text
_BUILT_KEYS = {f"tag:yaml.org,2002:{kind}" for kind in ("int", "float", "bool", "null")}


class _Refused(yaml.MarkedYAMLError):
    """A value past a limit, or one PyYAML cannot build; ``problem`` says what to do."""


class BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with the limits above."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._sizes: dict[int, int] = {}  # id(node) -> values in it, aliases expanded
        self._depth = 0
        self._path: list[str | int] = []  # where the node being composed is, as a field path

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            if id(node) not in self._sizes:  # still being composed: the alias is inside it
                raise _Refused(
                    problem=f"the alias *{event.anchor} is inside its own anchor "
                    f"&{event.anchor}, which makes an endless value: remove the alias",
                    problem_mark=mark,
                )
            return node
        collection = isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent)
        self._depth += collection
        if self._depth > MAX_NESTING:
            raise _Refused(problem=too_deep(), problem_mark=mark)
        self._path.append(_step(index))
        node = super().compose_node(parent, index)
        if isinstance(node, MappingNode):
            self._refuse_repeated_keys(node)
        self._path.pop()
        self._depth -= collection
        size = 1
        if isinstance(node, SequenceNode):
            size += sum(self._sizes[id(item)] for item in node.value)
        elif isinstance(node, MappingNode):
            size += sum(self._sizes[id(k)] + self._sizes[id(v)] for k, v in node.value)
        if size > MAX_VALUES:
            raise _Refused(
                problem=f"with its aliases (*name) expanded, this value holds more than "
                f"{MAX_VALUES:,} values; no suite needs that many: use fewer aliases",
                problem_mark=mark,
            )
        self._sizes[id(node)] = size
        return node

    def _refuse_repeated_keys(self, node: MappingNode) -> None:
        first_seen: dict[object, Node] = {}
        for key, _ in node.value:
            seen = first_seen.setdefault(self._identity(key), key)
            if seen is not key:
                where = field_path(self._path[1:] + [_step(key)])  # [0]: the document
                raise _Refused(
                    problem=f"the key {where} is given twice (first at line "
                    f"{seen.start_mark.line + 1}), and only the last would count: remove "
                    "one of them",
                    problem_mark=key.start_mark,
                )

    def _identity(self, key: Node) -> object:
        if not isinstance(key, ScalarNode):
            return id(key)  # a list or mapping as a key: refused when built
        if key.tag in _BUILT_KEYS:
            return self.construct_object(key)  # cached: built once, as it would be anyway
        return (key.tag, key.value)

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError, TypeError, AttributeError) as exc:
            # PyYAML's own constructors fail this way on a date that does not exist
            # (2024-13-45) or a value its explicit tag does not fit (!!int zz)
            kind = str(node.tag).rpartition(":")[2]
            why = f" ({exc})" if isinstance(exc, ValueError | OverflowError) else ""
            raise _Refused(
                problem=f"not a valid {kind}{why}: quote it to keep it as text",
                problem_mark=node.start_mark,
            ) from None

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int:
        limit = sys.get_int_max_str_digits()
        if limit and sum(c.isdigit() for c in str(node.value)) > limit:
            raise _Refused(problem=too_many_digits(), problem_mark=node.start_mark)
        value: int = self.construct_yaml_int(node)
        # a base-60 int (1:0:0 is 3600) is built without int(str), so has no digit limit
        if limit and value.bit_length() > 3 * limit and abs(value) >= 10**limit:
            raise _Refused(problem=too_many_digits(), problem_mark=node.start_mark)
        text = str(node.value)
        return value if str(value) == text else WrittenInt(value, text)

    def construct_written_float(self, node: yaml.ScalarNode) -> float:
        value: float = self.construct_yaml_float(node)
        text = str(node.value)
        return value if str(value) == text else WrittenFloat(value, text)


def _step(index: Any) -> str | int:
    """A part of a field path: a mapping's key (its text), a sequence's index."""
    if isinstance(index, ScalarNode):
        text = str(index.value)
        return text if text.isprintable() else repr(text)
    return index if isinstance(index, int) else "?"


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_bounded_int)
BoundedLoader.add_constructor("tag:yaml.org,2002:float", BoundedLoader.construct_written_float)


def read_source(path: Path, encoding: str = "utf-8") -> str:
    """The text of a file the user gave (a suite, a file to import), its line endings as
    they are; ConfigError naming the file when it is missing, unreadable or not text in
    ``encoding``."""
    source = str(path)
    try:
        return path.read_bytes().decode(encoding)
    except FileNotFoundError:
        raise ConfigError([Problem(source, "", "file not found")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([Problem(source, "", f"cannot read the file: {exc}")]) from None


def read_yaml(path: Path) -> Any:
    """The parsed YAML of a suite file (a contract file, a file to import); raises
    ConfigError naming the line."""
    source = str(path)
    # universal newlines, as a text-mode read gives them: line numbers count \r as a break
    text = read_source(path).replace("\r\n", "\n").replace("\r", "\n")
    try:
        return yaml.load(text, Loader=BoundedLoader)
    except yaml.reader.ReaderError as exc:
        raise ConfigError([_unreadable(source, text, exc)]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        message = problem if isinstance(exc, _Refused) else f"invalid YAML: {problem}"
        raise ConfigError([Problem(source, where, message)]) from None


def _unreadable(source: str, text: str, exc: yaml.reader.ReaderError) -> Problem:
    """A character YAML does not allow in a file (a control character, raw)."""
    position = exc.position
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    code = exc.character if isinstance(exc.character, int) else ord(exc.character)
    return Problem(
        source,
        f"line {line}, column {column}",
        f"invalid YAML: the control character U+{code:04X} is not allowed in a YAML file; "
        'remove it (in a double-quoted string it can be written as an escape, such as "\\t")',
    )
