"""The API token: given by flag or environment, else generated once and kept private."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from pydantic import SecretStr

from vault_agent.config import Settings
from vault_agent.server.security import token_matches
from vault_agent.server.token import TokenError, resolve_token


@pytest.fixture(autouse=True)
def no_token_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VAULT_AGENT_TOKEN", raising=False)


def settings_in(tmp_path: Path, token: SecretStr | None = None) -> Settings:
    if token is None:  # not passed at all, so that VAULT_AGENT_TOKEN may apply
        return Settings(vault=tmp_path, config_dir=tmp_path / "config")
    return Settings(vault=tmp_path, config_dir=tmp_path / "config", token=token)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_token_is_generated_once_and_readable_by_the_user_only(tmp_path: Path) -> None:
    first = resolve_token(settings_in(tmp_path))
    assert first.source == "file"
    assert first.created is True
    assert first.path == tmp_path / "config" / "token"
    assert mode(first.path) == 0o600
    assert mode(first.path.parent) == 0o700
    assert len(first.value) >= 32
    again = resolve_token(settings_in(tmp_path))
    assert again.value == first.value
    assert again.created is False


def test_description_says_where_the_token_is_never_what_it_is(tmp_path: Path) -> None:
    token = resolve_token(settings_in(tmp_path))
    description = token.describe()
    assert str(token.path) in description
    assert token.value not in description


def test_token_from_environment_wins_and_writes_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULT_AGENT_TOKEN", "from-the-environment-123")
    token = resolve_token(settings_in(tmp_path))
    assert (token.source, token.value) == ("env", "from-the-environment-123")
    assert "from-the-environment" not in token.describe()
    assert not (tmp_path / "config" / "token").exists()


def test_flag_wins_over_environment(tmp_path: Path) -> None:
    settings = settings_in(tmp_path, token=SecretStr("from-the-environment-123"))
    token = resolve_token(settings, "from-the-command-line-456")
    assert (token.source, token.value) == ("flag", "from-the-command-line-456")


@pytest.mark.parametrize("bad", ["short", "has a space in it 123", "ünïcödé-token-1234567"])
def test_unusable_token_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(TokenError, match="16 to 512 visible ASCII"):
        resolve_token(settings_in(tmp_path), bad)


def test_token_file_readable_by_others_is_tightened(tmp_path: Path) -> None:
    token = resolve_token(settings_in(tmp_path))
    assert token.path is not None
    token.path.chmod(0o644)
    assert resolve_token(settings_in(tmp_path)).value == token.value
    assert mode(token.path) == 0o600


def test_corrupt_token_file_is_refused_with_a_way_out(tmp_path: Path) -> None:
    path = tmp_path / "config" / "token"
    path.parent.mkdir()
    path.write_text("oops\n")
    path.chmod(0o600)
    with pytest.raises(TokenError, match="Delete the file"):
        resolve_token(settings_in(tmp_path))


def test_token_comparison_is_exact() -> None:
    assert token_matches("a-long-enough-token", "a-long-enough-token")
    assert not token_matches("a-long-enough-token", "a-long-enough-tokeN")
    assert not token_matches("a-long-enough-token", "a-long-enough-token ")
    assert not token_matches("", "a-long-enough-token")
