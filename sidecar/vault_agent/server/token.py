"""The API's bearer token: where it comes from and how it is kept.

First match wins: ``--token``, then ``VAULT_AGENT_TOKEN`` (``settings.token``), then the file
``<config_dir>/token``, which is generated on first start (256 random bits) and readable by the
user only (0600, in a 0700 folder). The token itself is never printed or logged: people are told
where it is, so it does not end up in terminal scrollback or the plugin's process logs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from vault_agent.config import Settings
from vault_agent.private_files import private_dir

log = logging.getLogger(__name__)

TOKEN_FILE = "token"
ENV_VAR = "VAULT_AGENT_TOKEN"
#: Visible ASCII only (it travels in a header), and long enough not to be guessed.
_VALID = re.compile(r"[\x21-\x7e]{16,512}")


class TokenError(ValueError):
    """The given or stored token is unusable; the message says how to fix it."""


@dataclass(frozen=True)
class Token:
    """The token in force and where it came from."""

    value: str
    source: Literal["flag", "env", "file"]
    path: Path | None = None
    created: bool = False

    def describe(self) -> str:
        """Where the token is, for the start-up banner (never the token itself)."""
        if self.source == "flag":
            return "given with --token"
        if self.source == "env":
            return f"from ${ENV_VAR}"
        state = "generated now" if self.created else "existing"
        return f"in {self.path} ({state}, readable by you only)"


def resolve_token(settings: Settings, flag: str | None = None) -> Token:
    """The token for this sidecar: flag, environment, else the (maybe new) token file."""
    if flag is not None:
        return Token(_checked(flag, "--token"), "flag")
    if settings.token is not None:
        return Token(_checked(settings.token.get_secret_value(), ENV_VAR), "env")
    path = settings.config_dir / TOKEN_FILE
    value, created = load_or_create_token(path)
    return Token(value, "file", path, created)


def load_or_create_token(path: Path) -> tuple[str, bool]:
    """The token stored at `path`, generating it when absent; (token, created). Its folder is
    made (or found and made) private first."""
    private_dir(path.parent)
    existing = _read(path)
    if existing is not None:
        return existing, False
    token = secrets.token_urlsafe(32)
    # Written to a private temporary file, then linked into place: the token file never exists
    # half-written or with loose permissions, and of two sidecars starting at once the second
    # finds the first one's token instead of overwriting it.
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(token + "\n")
        try:
            os.link(temporary, path)
        except FileExistsError:
            raced = _read(path)
            if raced is not None:
                return raced, False
            raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
    return token, True


def _read(path: Path) -> str | None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        # Someone loosened it (a backup restore, a copy): tighten rather than refuse to start.
        log.warning("token file %s was readable by others; now 0600", path)
        path.chmod(0o600)
    stored = path.read_text(encoding="ascii", errors="replace").strip()
    return _checked(stored, str(path), " Delete the file to generate a new one.")


def _checked(token: str, where: str, hint: str = "") -> str:
    if not _VALID.fullmatch(token):
        raise TokenError(
            f"the token from {where} is unusable: it must be 16 to 512 visible ASCII "
            f"characters (no spaces).{hint}"
        )
    return token
