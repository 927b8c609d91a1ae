"""Keeps the API token out of every log line, whoever logs it (aiohttp, a library, our code),
and the other secrets the server holds: API keys, and what the configured URLs carry.

While :func:`secrets_redacted` holds a secret, every log record the process makes is rewritten
as it is created (a record factory, so no handler, however added, sees the original): in its
message, its arguments, its traceback and its stack, the secret becomes ``[redacted]``, and so
does any run of 8 or more of its characters (a copy cut short, as aiohttp cuts a header at 100
bytes), and whatever follows ``Bearer``; the user part of any URL (``https://user:pass@``)
goes too. The server holds its secrets for as long as it runs; ``vault-agent serve`` its token
for as long as it lives.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

REDACTED = "[redacted]"
#: A run of this many characters of a secret counts as a copy of it.
MIN_FRAGMENT = 8
_BEARER = re.compile(r"(?i)\b(bearer)((?:\s|\\[tn]|%20)+)([^\s'\",;\\]+)")
#: The user part of a URL (``https://user:password@host``): a credential whoever logs it.
#: Read from the start of the run of scheme characters before ``://``, taken whole (a scheme
#: sought from each word of a run like ``a-a-a-...`` was quadratic: 5 s for 40,000 characters).
_USERINFO = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z0-9+.-]++://)[^/\s@'\"]+@")
#: Where a scheme may start in that run: a letter after no word character.
_SCHEME_START = re.compile(r"(?i)\b[a-z]")
_secrets: Counter[str] = Counter()
_lock = threading.Lock()
_installed = False


@contextlib.contextmanager
def secrets_redacted(*secrets: str) -> Iterator[None]:
    """Keep ``secrets`` out of every log record made until the block ends."""
    _install()
    with _lock:
        _secrets.update(secrets)
    try:
        yield
    finally:
        with _lock:
            _secrets.subtract(secrets)
            for secret in [s for s, count in _secrets.items() if count <= 0]:
                del _secrets[secret]


class SecretFilter(logging.Filter):
    """Rewrites a record without the secrets held (usable on a handler as well)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # arguments that don't fit the format: keep both, as text
            message = f"{record.msg} {record.args}"
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
            record.exc_info = None  # formatters print exc_text; none may format the original
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def redact(text: str) -> str:
    """``text`` without the secrets held, copies of parts of them, or bearer credentials."""
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _USERINFO.sub(_without_userinfo, text)
    with _lock:
        secrets = list(_secrets)
    for secret in secrets:
        for form in {secret, repr(secret)[1:-1]}:
            text = _without(text, form)
    return text


def _without_userinfo(url: re.Match[str]) -> str:
    """`url` without its user part, when a scheme starts in the run before its ``://``."""
    if _SCHEME_START.search(url.string, url.start(1), url.end(1) - 3) is None:
        return url.group()
    return f"{url.group(1)}{REDACTED}@"


def _without(text: str, secret: str) -> str:
    """``text`` with every run of at least `MIN_FRAGMENT` characters of ``secret`` replaced."""
    text = text.replace(secret, REDACTED)
    size = min(MIN_FRAGMENT, len(secret))
    for start in range(len(secret) - size + 1):
        fragment = secret[start : start + size]
        position = 0
        while (at := text.find(fragment, position)) >= 0:
            # Grow the match both ways while it still follows the secret.
            left, right, s_left, s_right = at, at + size, start, start + size
            while left > 0 and s_left > 0 and text[left - 1] == secret[s_left - 1]:
                left, s_left = left - 1, s_left - 1
            while right < len(text) and s_right < len(secret) and text[right] == secret[s_right]:
                right, s_right = right + 1, s_right + 1
            text = text[:left] + REDACTED + text[right:]
            position = left + len(REDACTED)
    return text


_FILTER = SecretFilter()


def _install() -> None:
    """Wrap the log record factory once; records are redacted as they are made."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
        make = logging.getLogRecordFactory()

    def redacted_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        _FILTER.filter(record)
        return record

    logging.setLogRecordFactory(redacted_record)
