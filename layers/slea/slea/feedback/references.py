"""Reference links for explanations: only the real sources recorded with the question's concept
(references are real or absent). A link an explainer proposes is kept only when
it is one of those sources; nothing is made up, and there are no search pages: a question whose
concept has no sources gets no references rather than noise."""

from urllib.parse import urlsplit

from slea.contracts.scoring import ReferenceLink


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
