"""Reference links for explanations: canonical sources for concepts we know, then search links on
Wikipedia and Google Scholar for the question's own terms (real and relevant, never placeholders)."""

from urllib.parse import quote_plus

from slea.contracts.scoring import ReferenceLink

CANONICAL: dict[str, tuple[str, str]] = {
    "rag": (
        "Lewis et al., Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
        "https://arxiv.org/abs/2005.11401",
    ),
    "retrieval": (
        "Lewis et al., Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
        "https://arxiv.org/abs/2005.11401",
    ),
    "transformer": ("Vaswani et al., Attention Is All You Need", "https://arxiv.org/abs/1706.03762"),
    "attention": ("Vaswani et al., Attention Is All You Need", "https://arxiv.org/abs/1706.03762"),
    "lora": ("Hu et al., LoRA: Low-Rank Adaptation of Large Language Models", "https://arxiv.org/abs/2106.09685"),
    "react": (
        "Yao et al., ReAct: Synergizing Reasoning and Acting in Language Models",
        "https://arxiv.org/abs/2210.03629",
    ),
    "chain-of-thought": (
        "Wei et al., Chain-of-Thought Prompting Elicits Reasoning",
        "https://arxiv.org/abs/2201.11903",
    ),
    "reflexion": (
        "Shinn et al., Reflexion: Language Agents with Verbal Reinforcement Learning",
        "https://arxiv.org/abs/2303.11366",
    ),
    "mcp": ("Model Context Protocol specification", "https://modelcontextprotocol.io/specification"),
    "prompt injection": ("OWASP Top 10 for LLM Applications", "https://genai.owasp.org/llm-top-10/"),
    "iam": ("AWS IAM User Guide", "https://docs.aws.amazon.com/IAM/latest/UserGuide/introduction.html"),
    "least privilege": (
        "AWS IAM security best practices",
        "https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html",
    ),
    "oauth": ("RFC 6749: The OAuth 2.0 Authorization Framework", "https://datatracker.ietf.org/doc/html/rfc6749"),
    "serverless": ("AWS Lambda Developer Guide", "https://docs.aws.amazon.com/lambda/latest/dg/welcome.html"),
    "kubernetes": ("Kubernetes documentation: Concepts", "https://kubernetes.io/docs/concepts/"),
    "scrum": ("The Scrum Guide", "https://scrumguides.org/scrum-guide.html"),
    "okr": ("What Matters: OKR resources", "https://www.whatmatters.com/faqs/okr-meaning-definition-example"),
    "eu ai act": (
        "EU Artificial Intelligence Act, Regulation (EU) 2024/1689",
        "https://eur-lex.europa.eu/eli/reg/2024/1689/oj",
    ),
    "rlhf": (
        "Ouyang et al., Training language models to follow instructions with human feedback",
        "https://arxiv.org/abs/2203.02155",
    ),
    "dpo": ("Rafailov et al., Direct Preference Optimization", "https://arxiv.org/abs/2305.18290"),
}


def references_for(terms: list[str], minimum: int) -> list[ReferenceLink]:
    """At least `minimum` links: canonical sources whose key occurs in the terms, then searches."""
    text = " ".join(terms).casefold()
    links: list[ReferenceLink] = []
    for key, (title, url) in CANONICAL.items():
        if key in text and all(link.url != url for link in links):
            links.append(ReferenceLink(title=title, url=url))
    for term in [term for term in terms if term.strip()][:3]:
        links.append(
            ReferenceLink(
                title=f"Wikipedia: {term}", url=f"https://en.wikipedia.org/w/index.php?search={quote_plus(term)}"
            )
        )
        links.append(
            ReferenceLink(
                title=f"Google Scholar: {term}", url=f"https://scholar.google.com/scholar?q={quote_plus(term)}"
            )
        )
    if not links:
        links.append(ReferenceLink(title="Wikipedia", url="https://en.wikipedia.org/"))
    while len(links) < minimum:
        links.append(ReferenceLink(title="Google Scholar", url="https://scholar.google.com/"))
    return links[: max(minimum, 5)]


def topic_terms(keywords: list[str], explanation: str | None, stem: str | None, category: str | None) -> list[str]:
    """What a question is about, for finding references: its keywords; else the concept named at
    the start of its stored explanation ("Name (ACR): definition ..."); else its category."""
    if keywords:
        return keywords
    head = (explanation or "").split(":", 1)[0].strip()
    if explanation and ":" in explanation and 0 < len(head) <= 80:
        name, _, acronym = head.partition(" (")
        return [term for term in (name.strip(), acronym.rstrip(")").strip()) if term]
    return [term for term in (category, stem) if term][:1]
