"""Reference links for explanations: only the real sources recorded with the question's concept
(references are real or absent). A link an explainer proposes is kept only when
it is one of those sources; nothing is made up, and there are no search pages: a question whose
concept has no sources gets no references rather than noise.

Korean learners: most Korean concept records carry no source, while their English twins do. A
Korean item with no source of its own is offered the sources recorded with its English twin (the
concept the head of its stored explanation, or a stem that names one concept, names in English,
"퓨샷 프롬프팅(Few-Shot Prompting)", or by its acronym), labelled "영문 자료" (English material)
so the learner knows before opening it (`for_learner`; the catalogue is `english_sources.json`,
built from the seed's English records by scripts/build_english_sources.py)."""

import json
import re
from functools import cache
from importlib import resources
from urllib.parse import urlsplit

from slea.contracts.scoring import ReferenceLink
from slea.language.comparison_stems import is_comparison

EXPLANATION_HEAD_MAX = 80  # the "Name (ACR)" before a stored explanation's first colon, as topic_terms reads it
ENGLISH_LABEL = "영문 자료"  # "English material": an English source offered to a Korean learner
# An English name in parentheses after a Korean one, or a Latin acronym: what a Korean item names.
PARENTHESISED = re.compile(r"\(([A-Za-z][^()\uac00-\ud7a3]*)\)")
# Latin letters next to Hangul ("API란") have no \b between them: bounded by what is not Latin.
ACRONYM = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*(?![A-Za-z0-9])")


def _same_page(url: str) -> str:
    # Scheme and host are case-insensitive, a trailing slash is the same page; the rest is kept.
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}?{parts.query}"


def cited(sources: list[ReferenceLink], proposed: list[ReferenceLink]) -> list[ReferenceLink]:
    """The item's sources, those the explainer cited first (under the source's own title); any
    other link it proposed (an invented or unrelated URL) is dropped."""
    by_page = {_same_page(source.url): source for source in sources}
    ordered = [by_page[_same_page(link.url)] for link in proposed if _same_page(link.url) in by_page]
    links: dict[str, ReferenceLink] = {}
    for link in [*ordered, *sources]:
        links.setdefault(_same_page(link.url), link)
    return list(links.values())


def topic_terms(keywords: list[str], explanation: str | None, stem: str | None, category: str | None) -> list[str]:
    """What a question is about: its keywords; else the concept named at the start of its stored
    explanation ("Name (ACR): definition ..."); else its category."""
    if keywords:
        return keywords
    head = (explanation or "").split(":", 1)[0].strip()
    if explanation and ":" in explanation and 0 < len(head) <= 80:
        name, _, acronym = head.partition(" (")
        return [term for term in (name.strip(), acronym.rstrip(")").strip()) if term]
    return [term for term in (category, stem) if term][:1]


def catalogue_key(name: str) -> str:
    """How a name is looked up: letters and digits only, case folded, a plural "s" dropped."""
    return re.sub(r"[^a-z0-9]", "", name.casefold()).removesuffix("s")


@cache
def _english_sources() -> dict[str, list[dict[str, str]]]:
    text = resources.files("slea.feedback").joinpath("english_sources.json").read_text(encoding="utf-8")
    catalogue: dict[str, list[dict[str, str]]] = json.loads(text)["sources"]
    return catalogue


def english_names(*texts: str | None) -> list[str]:
    """The English names a Korean item gives its concept: parenthesised English first, then
    acronyms, in the order the texts are given (explanation, stem, keywords)."""
    names: list[str] = []
    for text in texts:
        names.extend(match.strip() for match in PARENTHESISED.findall(text or ""))
    for text in texts:
        names.extend(ACRONYM.findall(text or ""))
    return list(dict.fromkeys(name for name in names if name))


def own_names(explanation: str | None, stem: str | None) -> list[str]:
    """The English names of the item's own concept: those in the head of its stored explanation
    ("대규모 언어 모델(LLM): ..."), else those of a stem that names one concept. A comparison's
    stem names two, and the first English name in it may be the other one's ("미세 조정은 검색 증강
    생성(RAG)과 어떻게 다른가?"), whose sources would be about another item's concept."""
    head, colon, _ = (explanation or "").partition(":")
    if colon and 0 < len(head) <= EXPLANATION_HEAD_MAX:
        names = english_names(head)
        if names:
            return names
    if stem and not is_comparison(stem):
        return english_names(stem)
    return []


def for_learner(
    sources: list[ReferenceLink], language: str, explanation: str | None, stem: str | None
) -> list[ReferenceLink]:
    """The item's sources, and for a Korean item with none of its own, its English twin's sources
    labelled as English material (the twin: the concept `own_names` finds). Other items keep
    exactly their own sources."""
    if language != "ko" or sources:
        return sources
    catalogue = _english_sources()
    for name in own_names(explanation, stem):
        found = catalogue.get(catalogue_key(name))
        if found:
            return [ReferenceLink(title=f"{ENGLISH_LABEL}: {link['title']}", url=link["url"]) for link in found]
    return []
