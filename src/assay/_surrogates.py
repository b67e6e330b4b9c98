"""Lone surrogates: code points U+D800–U+DFFF that are not half of a pair.

Python text can hold them (a JSON ``"\\ud800"`` escape, a file name read with
``surrogateescape``, an agent's own string); UTF-8 cannot, so writing such text fails. Where
assay writes what an agent gave it (a stored result, a request body replaying a reply, a
tool result's size), each becomes U+FFFD, the replacement character; a pair written as two
code points becomes the one character it stands for. What a user wrote (a dataset cell) is
refused instead (``assay.limits.lone_surrogate``).
"""

from __future__ import annotations


def replace_lone_surrogates(text: str) -> str:
    """``text`` with each surrogate pair joined into its character and each lone surrogate
    replaced with U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, its lone surrogates as U+FFFD (``replace_lone_surrogates``): the
    usual text is encoded once, and only text that fails is cleaned."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return replace_lone_surrogates(text).encode()
