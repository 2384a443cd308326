"""Ranking deferred tools for ``search_tool``: keyword + TF-IDF cosine over each tool's name,
server, description and parameter names (seed s15). Exact names and ``server:`` queries win."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from agent_tui.core.disclosure.tokenize import tokens

NAME_WEIGHT = 3  # a word in the tool's own name counts this many times
KEYWORD_BONUS = 0.15  # per query word found in the name


@dataclass(frozen=True)
class ToolDoc:
    name: str
    server: str
    description: str
    params: tuple[str, ...] = ()

    @property
    def short_name(self) -> str:
        return self.name.rsplit("__", 1)[-1]


@dataclass
class SearchIndex:
    """An inverted TF-IDF index; queries cost time in the postings they touch, not all tools."""

    docs: list[ToolDoc] = field(default_factory=list)
    _vectors: list[dict[str, float]] = field(default_factory=list)
    _postings: dict[str, list[int]] = field(default_factory=dict)
    _idf: dict[str, float] = field(default_factory=dict)
    _name_words: list[set[str]] = field(default_factory=list)

    @classmethod
    def build(cls, docs: list[ToolDoc]) -> SearchIndex:
        index = cls(docs=list(docs))
        counts: list[Counter[str]] = []
        df: Counter[str] = Counter()
        for doc in index.docs:
            name_words = tokens(doc.short_name.replace("_", " "))
            bag = Counter(name_words * NAME_WEIGHT)
            bag.update(tokens(doc.server))
            bag.update(tokens(doc.description))
            for param in doc.params:
                bag.update(tokens(param.replace("_", " ")))
            counts.append(bag)
            df.update(bag.keys())
            index._name_words.append(set(name_words))
        n = max(len(index.docs), 1)
        index._idf = {term: math.log((1 + n) / (1 + d)) + 1 for term, d in df.items()}
        for i, bag in enumerate(counts):
            vector = {t: (1 + math.log(c)) * index._idf[t] for t, c in bag.items()}
            norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
            index._vectors.append({t: v / norm for t, v in vector.items()})
            for term in vector:
                index._postings.setdefault(term, []).append(i)
        return index

    def search(self, query: str, limit: int = 5) -> list[tuple[ToolDoc, float]]:
        query = query.strip()
        if not query:
            return []
        lowered = query.lower()
        exact = [d for d in self.docs if lowered in (d.name.lower(), d.short_name.lower())]
        server_filter: str | None = None
        if ":" in query and not query.startswith("mcp__"):
            head, _, rest = query.partition(":")
            head = head.strip().lower()
            if head == "server":
                head, _, rest = rest.strip().partition(" ")
                head = head.lower()
            if any(d.server.lower() == head for d in self.docs):
                server_filter, query = head, rest.strip()
        words = tokens(query)
        scores: dict[int, float] = {}
        if words:
            q = Counter(words)
            qvec = {t: (1 + math.log(c)) * self._idf.get(t, 0.0) for t, c in q.items()}
            qnorm = math.sqrt(sum(v * v for v in qvec.values())) or 1.0
            for term, weight in qvec.items():
                for i in self._postings.get(term, ()):
                    scores[i] = scores.get(i, 0.0) + weight / qnorm * self._vectors[i][term]
            qset = set(words)
            for i in list(scores):
                scores[i] += KEYWORD_BONUS * len(qset & self._name_words[i])
        if server_filter is not None:
            members = [i for i, d in enumerate(self.docs) if d.server.lower() == server_filter]
            scores = {i: scores.get(i, 0.0) for i in members}
        ranked = sorted(scores.items(), key=lambda item: (-item[1], self.docs[item[0]].name))
        hits = [(self.docs[i], score) for i, score in ranked]
        for doc in reversed(exact):
            hits = [(doc, 1e9), *[(d, s) for d, s in hits if d.name != doc.name]]
        return hits[:limit]
