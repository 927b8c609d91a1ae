"""What a served embedding model wants written before a query and before a passage.

Several retrieval models were trained with an instruction in front of each text and compare
a question with passages well only when it is there: nomic-embed-text reads
``search_query: `` / ``search_document: ``, the E5 family ``query: `` / ``passage: ``, and
mxbai-embed-large, snowflake-arctic-embed and the English BGE v1.5 models an instruction
before queries only. Neither Ollama nor an OpenAI-compatible server adds them, so the client
must (each model card documents its own). Models not listed here (bge-m3, all-minilm,
granite-embedding, text-embedding-3-*) take the text as it is. A user's own
`index.embedding_query_prefix` / `index.embedding_document_prefix` win over the table (an
empty string: none).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

#: The query instruction of the BGE v1.5 family, which mxbai and arctic-embed adopted.
SEARCH_INSTRUCTION = "Represent this sentence for searching relevant passages: "


@dataclass(frozen=True)
class TaskPrefixes:
    """The text written before a query and before a passage."""

    query: str = ""
    document: str = ""

    @property
    def tag(self) -> str:
        """A short id of these prefixes for the model id chunks record ("" for none): vectors
        made with other prefixes are other vectors, so a change re-embeds the vault."""
        if not (self.query or self.document):
            return ""
        digest = hashlib.sha256(f"{self.query}\0{self.document}".encode()).hexdigest()
        return f"+prefix-{digest[:8]}"


#: Model families (matched in the served model's name, without its tag or namespace) and the
#: prefixes their model cards document.
KNOWN: tuple[tuple[re.Pattern[str], TaskPrefixes], ...] = (
    (re.compile(r"nomic-embed-text"), TaskPrefixes("search_query: ", "search_document: ")),
    (re.compile(r"(?:^|[-_])e5(?:[-_]|$)"), TaskPrefixes("query: ", "passage: ")),
    (re.compile(r"mxbai-embed-large"), TaskPrefixes(SEARCH_INSTRUCTION)),
    (re.compile(r"snowflake-arctic-embed(?!2)"), TaskPrefixes(SEARCH_INSTRUCTION)),
    (re.compile(r"bge-(?:small|base|large)-en-v1\.5"), TaskPrefixes(SEARCH_INSTRUCTION)),
)


def prefixes_for(model: str, query: str | None = None, document: str | None = None) -> TaskPrefixes:
    """The prefixes for served `model` ("nomic-embed-text:v1.5", "intfloat/e5-large-v2"):
    `query` and `document` when given (the user's settings), else the model family's."""
    family = model.lower().rsplit("/", 1)[-1].split(":", 1)[0]
    known = next((prefixes for pattern, prefixes in KNOWN if pattern.search(family)), None)
    known = known or TaskPrefixes()
    return TaskPrefixes(
        query=known.query if query is None else query,
        document=known.document if document is None else document,
    )
