"""What a pydantic `ValidationError` says, in the words the sidecar's error messages use:
"where: what" for each problem ("documents.0.url: ..."), from the API, the CLI, the tools the
model calls and the evaluation alike."""

from __future__ import annotations

from pydantic import ValidationError
from pydantic_core import ErrorDetails


def where(problem: ErrorDetails, whole: str) -> str:
    """The field `problem` is about ("documents.0.url"), or `whole` when it is about the
    whole value."""
    return ".".join(str(part) for part in problem["loc"]) or whole


def problem_lines(error: ValidationError, whole: str) -> list[str]:
    """Each problem of `error` as "where: what"."""
    return [
        f"{where(problem, whole)}: {problem['msg']}"
        for problem in error.errors(include_url=False, include_input=False)
    ]
