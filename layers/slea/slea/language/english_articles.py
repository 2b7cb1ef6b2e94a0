"""A concept's name as it reads inside an English sentence: "What is a multimodal model?", "What is
an API gateway?", "What is cloud computing?", "What are guardrails?", "What is Kubernetes?".

Concept records write names in Title Case ("Multimodal Model"), as headings do. Dropped into a
question frame as they are ("What is Multimodal Model?") they read wrongly twice: no article, and
common nouns capitalised mid-sentence. `noun_phrase` gives the name its article and its
in-sentence case; `sentence_start` capitalises it where it opens a sentence.

Hand-rolled rather than a library: inflect (PyPI) picks "a"/"an" well, but it does not say
whether a noun takes an article at all (the hard part here), and importing it (with the typeguard
instrumentation it ships with) takes about 1.1 s, several cold starts' worth in a Lambda layer.

The rule, in this order:
1. Proper names keep their case and take no article: a name of PROPER_NAMES ("Kubernetes",
   "Scrum Framework" is not one: "the Scrum framework"), an eponym ("Conway's Law"), and a name
   that is one acronym-like word ("GraphRAG", "LoRA", "TRIZ").
2. Case: acronym-like words ("AI", "API", "mTLS", "K8s", "PyTorch") and the proper words of
   PROPER_WORDS ("Pareto", "Bayesian", "JavaScript") keep their case; every other word is
   lower-cased ("Multimodal Model" -> "multimodal model"), hyphenated parts one by one
   ("Retrieval-Augmented" -> "retrieval-augmented", "LLM-as-a-Judge" -> "LLM-as-a-judge").
3. The head noun (the last word before "of", "for", "as", ... : "Cost of Delay" -> "cost") decides
   the article:
   - plural ("Guardrails", "Network Effects", "Acceptance Criteria"): none, and the verb is "are";
   - one of a kind (a head of UNIQUE_HEADS: "the Pareto principle", "the anchoring effect",
     "the law of requisite variety"): "the";
   - a mass noun (an abstract suffix such as -ing, -tion, -ment, -ity, or a word of MASS_WORDS:
     "cloud computing", "quantization", "data governance"), unless the word is a count noun of
     COUNT_WORDS ("a clarifying question", "a kickoff meeting"): none;
   - anything else is a count noun: "a" or "an" by the sound of the phrase's first word (a vowel
     letter, or a capital whose spoken name starts with a vowel: "an LLM", "an API gateway"),
     with the usual exceptions ("a user story", "a one-on-one meeting", "an hour").
Lists, not guesses, decide the exceptions: a name the rule reads wrongly is fixed by adding it to
the list it belongs to.
"""

import re
from dataclasses import dataclass


def _words(text: str) -> frozenset[str]:
    """A word list written as prose, one word per whitespace."""
    return frozenset(text.split())


# Names used as proper names: no article, case kept. Compared case-insensitively.
PROPER_NAMES = frozenset(
    name.casefold()
    for name in (
        "Kubernetes",
        "Apache Parquet",
        "Okapi BM25",
        "OAuth 2.0",
        "Reflexion",
        "Theory U",
        "Agent2Agent Protocol",
        "Model Context Protocol",
        "JavaScript Object Notation",
        "JSON Schema",
        "EU AI Act Risk Tiers",
        "Team Topologies",
        "Team of Teams",
        "Lost in the Middle",
        "Five Whys",
        "Liberating Structures",
        "Open Space Technology",
        "Theory of Constraints",
        "Jobs to Be Done",
        "Extract, Load, Transform",
        "Extract, Transform, Load",
        "Start-Stop-Continue",
        "Beyond Budgeting",
        "Pass@k",
        "Recall@k",
        "Top-k Retrieval",
        "Sociocracy",
        "Self-RAG",
        "Is/Is Not Analysis",
    )
)
# Names of one thing that take "the" ("the Kano model", "the Transmission Control Protocol").
THE_NAMES = frozenset(
    name.casefold()
    for name in (
        "Transmission Control Protocol",
        "User Datagram Protocol",
        "Domain Name System",
        "Definition of Done",
        "Best Alternative to a Negotiated Agreement",
        "Five Dysfunctions of a Team",
        "Four Golden Signals",
        "Sunk Cost Fallacy",
        "Ladder of Inference",
        "Cynefin Framework",
        "Scrum Framework",
        "SCQA Framework",
        "Kanban Method",
        "Critical Path Method",
        "Crucial Conversations Method",
        "Nominal Group Technique",
        "Pomodoro Technique",
        "Kano Model",
        "GROW Model",
        "ADKAR Model",
        "Iceberg Model",
        "Full Range Leadership Model",
        "Bridges Transition Model",
        "Difficult Conversations Model",
        "Situation-Behavior-Impact Model",
        "Johari Window",
        "Raft Consensus Algorithm",
        "Thomas-Kilmann Conflict Mode Instrument",
        "Van Westendorp Price Sensitivity Meter",
    )
)
# Names read as mass nouns whatever their head ("trial and error", "explainable AI" is by rule).
MASS_NAMES = frozenset(
    name.casefold()
    for name in (
        "Trial and Error",
        "Setting Expectations",
        "Taking Initiative",
        "Tree of Thoughts",
        "Platform as a Service",
        "LLM-as-a-Judge",
        "Build-versus-Buy for LLM Platforms",
        "Hierarchical Navigable Small World",
        "Bottom Line Up Front",
        "Just-in-Time",
    )
)
PROPER_PLURALS = frozenset({"eu ai act risk tiers"})
# Proper nouns and adjectives inside a name: their case is kept ("the Pareto principle").
PROPER_WORDS = _words(
    """Pareto Eisenhower Gantt Kano Johari Pugh Bayesian Monte Carlo Nash Fermi Wardley Belbin
    Okapi Apache Parquet JavaScript Kubernetes Kanban Scrum Cynefin Socratic Dunning Kruger
    Thomas Kilmann Van Westendorp Matryoshka Raft Conway Kolb Kotter Lewin Tuckman Schein Monroe
    Parkinson Bridges Pomodoro Ishikawa Porter Kaizen Lean Agile Python PyTorch Java Linux Windows Google
    Amazon Microsoft Ollama Redis Postgres PostgreSQL Kafka Spark Hadoop Docker Terraform Git
    GitHub Slack Jira Confluence Excel English Korean European Fibonacci Markov Gaussian Boolean
    Turing Euclidean Levenshtein Jaccard Pearson Spearman"""
)
# Head nouns of one kind, taking "the" ("the Pareto principle", "the forgetting curve").
UNIQUE_HEADS = frozenset({"principle", "law", "effect", "curve", "equation", "paradox", "dilemma", "heuristic"})
# Mass nouns: abstract suffixes, and words without one.
MASS_SUFFIXES = ("ing", "tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism", "ics", "ship", "cy", "ogy", "phy")
MASS_WORDS = _words(
    """software hardware data feedback knowledge research information advice governance malware
    revenue temperature teamwork groupthink bias memory security trust search retrieval drift
    fatigue debt labour labor empathy candor candour etiquette language capital turnover
    cost value margin profit rate pricing inference attention coaching delegation motivation
    curiosity velocity accuracy relevance perplexity privacy safety quality agency ambiguity
    transparency equity evidence grounding hallucination authentication authorization encryption
    reinforcement learning thinking engineering computing hashing chunking reranking batching
    tracing logging monitoring storage compute compaction serving intelligence literacy metacognition
    sensemaking sensegiving paraphrasing brainstorming upselling swarming procrastination
    autoscaling overfitting pretraining quantization tokenization followership feedforward
    antifragility expertise oversight practice adaptation prioritisation prioritization ai roi tls
    theory inquiry analysis control access transfer capture lineage neglect parallel infrastructure
    time rank return use fit appetite lock-in"""
)
# Count nouns an abstract suffix would read as mass: "a clarifying question", "a kickoff meeting".
COUNT_WORDS = _words(
    """question function application partition statement document agreement requirement
    environment instrument assessment meeting embedding setting building string thing station
    section session transaction instance reference sequence pipeline option condition exception
    definition notification annotation solution position policy community segment organisation
    organization fallacy description decision proposition dependency"""
)
# Nouns ending in "s" that are singular ("analysis", "canvas", "bias").
SINGULAR_S = _words(
    """analysis bias canvas process status business kubernetes series economics analytics ethics
    mathematics physics logistics statistics lens atlas chaos consensus corpus campus bonus
    thesis hypothesis synthesis basis axis diagnosis emphasis crisis mass class gas"""
)
IRREGULAR_PLURALS = frozenset({"criteria", "phenomena", "data", "people", "media"})
PREPOSITIONS = frozenset({"of", "for", "as", "in", "to", "by", "from", "without", "on", "versus", "at", "with"})
AN_LETTERS = "AEFHILMNORSX"  # capitals whose spoken name starts with a vowel sound: "an LLM"
# Acronyms said as words, not letter by letter: "a NAT gateway", "a RACI matrix".
WORD_ACRONYMS = frozenset({"NAT", "RACI", "SWOT", "SMART", "MECE", "RAG", "REST", "LORA", "SAAS", "NASA", "SCRUM"})
A_BEFORE_VOWEL = ("uni", "use", "usa", "usu", "uti", "uri", "ure", "eu", "one", "once", "ubi")
AN_BEFORE_CONSONANT = ("hour", "honest", "honor", "honour", "heir")
EIGHTY = re.compile(r"(8|11|18|8\d)(?!\d)")  # "an 8-step model", "an 11-point scale"


@dataclass(frozen=True)
class NounPhrase:
    text: str  # as it reads mid-sentence: "a multimodal model", "Kubernetes"
    plural: bool

    @property
    def be(self) -> str:
        return "are" if self.plural else "is"


def acronym_like(word: str) -> bool:
    """An initialism or a coined name whose case matters: "AI", "mTLS", "K8s", "PyTorch", "LoRA"."""
    letters = [char for char in word if char.isalpha()]
    if len(letters) < 2 and not any(char.isdigit() for char in word):
        return bool(letters) and word.isupper() and len(word) == 1
    return any(char.isupper() for char in word[1:]) or any(char.isdigit() for char in word)


def _case(word: str) -> str:
    """A word as written mid-sentence: acronym-like and proper words kept, others lower-cased."""
    parts = word.split("-")
    if len(parts) > 1:
        return "-".join(_case(part) for part in parts)
    core = word.rstrip(",'")
    if not core or acronym_like(core) or core in PROPER_WORDS:
        return word
    return word.lower()


def _head(words: list[str]) -> str:
    """The head noun: the last word before a preposition ("cost of delay" -> "cost"), inside a
    hyphenated compound too ("mixture-of-agents" -> "mixture")."""
    for index, word in enumerate(words[1:], 1):
        if word.casefold() in PREPOSITIONS:
            words = words[:index]
            break
    if not words:
        return ""
    parts = words[-1].split("-")
    for index, part in enumerate(parts[1:], 1):
        if part.casefold() in PREPOSITIONS:
            return "-".join(parts[:index])
    return words[-1]


def _last_part(head: str) -> str:
    return head.rsplit("-", maxsplit=1)[-1]


def _plural(head: str) -> bool:
    head = _last_part(head)
    lower = head.casefold()
    if acronym_like(head) or lower in SINGULAR_S:
        return False
    if lower in IRREGULAR_PLURALS:
        return True
    return lower.endswith("s") and not lower.endswith(("ss", "us", "is", "ics"))


def _mass(head: str) -> bool:
    if head.casefold() in MASS_WORDS:  # "lock-in"
        return True
    head = _last_part(head)
    lower = head.casefold()
    if lower in MASS_WORDS:  # "AI" in "generative AI"
        return True
    if lower in COUNT_WORDS or acronym_like(head):
        return False
    return lower.endswith(MASS_SUFFIXES)


def indefinite_article(word: str) -> str:
    """ "a" or "an" by the sound `word` starts with."""
    if word[:1].isdigit():
        return "an" if EIGHTY.match(word) else "a"
    if word.split("-", maxsplit=1)[0].upper() in WORD_ACRONYMS:
        return "an" if word[:1].upper() in "AEIOU" else "a"
    if len(word) > 1 and (word[:2].isupper() or (word[0].isupper() and acronym_like(word) and word[1].isdigit())):
        return "an" if word[0] in AN_LETTERS else "a"  # read letter by letter: "an LLM", "a GPU"
    lower = word.casefold()
    if lower.startswith(AN_BEFORE_CONSONANT):
        return "an"
    if lower.startswith(A_BEFORE_VOWEL):
        return "a"
    return "an" if lower[:1] in "aeiou" else "a"


def _article(key: str, cased: list[str], head: str) -> str:
    """ "the", "a"/"an" or "" (none) for a common noun phrase: step 3 of the rule."""
    if key in THE_NAMES or (head.casefold() in UNIQUE_HEADS and key not in MASS_NAMES):
        return "the"
    if key in MASS_NAMES or _plural(head) or _mass(head):
        return ""
    return indefinite_article(cased[0])


def noun_phrase(name: str) -> NounPhrase:
    """`name` with its article and in-sentence case ("Multimodal Model" -> "a multimodal model")."""
    name = " ".join(name.split())
    key = name.casefold()
    words = name.split(" ")
    if key in PROPER_NAMES or re.search(r"[A-Z]\w*['\u2019]s\b", name):
        return NounPhrase(name, key in PROPER_PLURALS)
    if not name or (len(words) == 1 and "-" not in name and acronym_like(name)):
        return NounPhrase(name, False)
    cased = [_case(word) for word in words]
    head = _head(cased)
    article = _article(key, cased, head)
    text = " ".join(cased)
    return NounPhrase(f"{article} {text}" if article else text, key not in MASS_NAMES and _plural(head))


def sentence_start(phrase: str) -> str:
    """A phrase opening a sentence: its first letter capitalised ("a multimodal model" -> "A
    multimodal model"); an acronym or a coined name ("mTLS", "iOS") is left as it is."""
    first = phrase.split(" ", 1)[0]
    if acronym_like(first):
        return phrase
    return phrase[:1].upper() + phrase[1:]
