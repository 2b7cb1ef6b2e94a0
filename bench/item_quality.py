"""Item quality of the offline generator's rounds (no model call): can a learner who knows nothing
of the subject pass its multiple-choice items on surface cues, does a round cover distinct
concepts, does it follow the learner's interests, and is every item wholly in the round's language.
A score earned on cues measures test-wiseness, a repeated concept tests one idea twice and leaves
another untested, off-interest items ignore the profile the round was built for, and a mixed-
language item is one the learner may not be able to read.

Inputs, reported separately:
- demo_seed: every keyword record of data/demo_seed.json for every demo learner (the newest
  survey per user_id), the data the generator was written against;
- heldout: bench/data/item_quality_heldout.json, records in areas the demo does not cover (data
  engineering, databases, networking, observability; finance, marketing, sales, operations; a
  Korean record on systems) and invented learners (one Korean, one whose interests match
  nothing), written after the generator so its rules cannot have been tuned to them.
Each (record, learner) pair gets two rounds of 20 items: multiple choice only, and the default
type mix. The cue figures come from the multiple-choice rounds, the other figures from both.

Figures and targets:
1. surface cues: a test-wise answerer sees the stem and the four options, never the key, and
   picks (a) the longest option, (b) the option sharing most content words with the stem, (c) the
   odd one out (least like the other options), (d) the three combined as test-wise learners use
   them. Accuracy of each (and of (d) per language); chance is 25%, target for (d) <= 35%. Also
   where the key ranks by length (longest first): a key kept from the extremes is a cue too.
2. concept repeats: items whose concept already had an item in the round while concepts in the
   learner's language were still unused (target 0), and the most items any one concept got.
3. interest share: in rounds whose record holds a full round of concepts in the learner's
   language on the learner's interests, the share of items on those interests (target >= 80%),
   min and mean over rounds and per mix. Where the record holds fewer (all the demo learners), the
   share of those concepts the round used (target 100%: interests come first).
4. language consistency: share of items wholly in the round's language (target 100%): Korean
   items have Hangul in the stem, explanation, model answer and every option or keyword longer
   than one word (a lone term such as "TCP" reads the same in both); English items have none.
5. pairing sense: true/false and multiple-choice items that pair their concept with a concept of
   another domain (the concepts a record gives no domain count as one group): a false statement
   borrowing another domain's definition or key point (target 0), a distractor from another
   domain (target 0 where the concept's domain holds enough concepts for a full set of options);
   and the share of true/false items keyed True.
6. English articles and case: English stems with "a"/"an" before the wrong sound, a concept name
   with no article where its singular count noun needs one ("What is Multimodal Model?"), or a
   name's common words Title Cased mid-sentence (target 0 each).
7. Korean particles: Korean items with an alternation left for the learner ("PyTorch은(는)") or
   a particle of the wrong form after a concept name ending in a Hangul syllable or a capital
   (target 0).
8. key terms the model answer states: the share of short answers whose key terms
   (`correct_keywords`) are all terms their own model answer states, read as the grader reads an
   answer (Tool 6's keyword matcher, `Evidence.keyword_matches`, with the model answer as the
   answer): a key term it does not state is one every correct restatement of it is told it lacks
   and scored down for (target 100%). Over every short answer the generator can write for every
   record, in English and in Korean, by kind (explain a concept, compare two, explain a record
   keyword), and over the short answers of the rounds above. A keyword item whose keyword no
   concept explains has no model answer (Tool 6 grades it by the key term alone): counted apart.

    python bench/item_quality.py
"""

import json
import random
import re
import statistics
import string
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from rapidfuzz import fuzz, utils  # noqa: E402

from slea.authoring.offline_generator import (  # noqa: E402
    ItemBank,
    concept_language,
    generate_offline,
    matches_interest,
)
from slea.constants import HANGUL, Language, QuestionType  # noqa: E402
from slea.contracts.generation import DraftQuestion, GenerateQuestionsInput  # noqa: E402
from slea.contracts.keywords import Concept, DifficultyKeywords  # noqa: E402
from slea.grading.evidence import Evidence, Material  # noqa: E402
from slea.grading.terms import Text  # noqa: E402
from slea.language.english_articles import PROPER_NAMES, PROPER_WORDS  # noqa: E402

DEMO_SEED = REPO_ROOT / "data" / "demo_seed.json"
HELDOUT = REPO_ROOT / "bench" / "data" / "item_quality_heldout.json"
ROUND_SIZE = 20
MIXES: dict[str, list[QuestionType] | None] = {"multiple_choice": ["multiple_choice"], "default_mix": None}
OPTION_COUNT = 4  # the cue answerer plays 4-option items, where chance is 25%
CHANCE = 1 / OPTION_COUNT
TARGET_COMBINED_CUE_MAX = 0.35
TARGET_INTEREST_SHARE_MIN = 0.8
LONGEST_MARGIN = 1.25  # a test-wise learner notices the longest option only when it clearly stands out
EXAMPLES_KEPT = 3  # offending items shown per figure, enough to see the pattern
LABEL = re.compile(r"^\s*[A-Z]\)\s*")


# ---------------------------------------------------------------- the test-wise answerer
# Each strategy sees only the stem and the option texts (labels removed) and returns the index of
# the option it picks. Ties go to the first option, so a cue-free item scores no better than chance.
Strategy = Callable[[str, list[str]], int]


def first_highest(scores: Sequence[float]) -> int:
    return scores.index(max(scores))


def option_texts(choices: list[str]) -> list[str]:
    return [LABEL.sub("", choice, count=1) for choice in choices]


def longest_option(stem: str, options: list[str]) -> int:
    return first_highest([len(option) for option in options])


@cache  # options recur across items (a concept's name or definition is a distractor many times)
def content_units(text: str) -> frozenset[str]:
    """Word stems (English) or character bigrams (Korean) that carry meaning."""
    return frozenset(term.unit for term in Text(text).content_terms)


def stem_overlaps(stem: str, options: list[str]) -> list[int]:
    stem_units = content_units(stem)
    return [len(stem_units & content_units(option)) for option in options]


def most_stem_overlap(stem: str, options: list[str]) -> int:
    return first_highest(stem_overlaps(stem, options))


def similarity_to_others(options: list[str]) -> list[float]:
    """Each option's mean word-set similarity (0-100) to the other options."""
    return [
        statistics.mean(
            fuzz.token_set_ratio(option, other, processor=utils.default_process)
            for index, other in enumerate(options)
            if index != position
        )
        for position, option in enumerate(options)
    ]


def odd_one_out(stem: str, options: list[str]) -> int:
    return first_highest([-similarity for similarity in similarity_to_others(options)])


def longest_stands_out(options: list[str]) -> bool:
    first, second = sorted((len(option) for option in options), reverse=True)[:2]
    return first >= LONGEST_MARGIN * second


def combined_cues(stem: str, options: list[str]) -> int:
    """The cues in the order a test-wise learner trusts them: a single option echoing the stem,
    then a clearly longest option, then the odd one out."""
    overlaps = stem_overlaps(stem, options)
    if max(overlaps) > 0 and overlaps.count(max(overlaps)) == 1:
        return first_highest(overlaps)
    if longest_stands_out(options):
        return longest_option(stem, options)
    return odd_one_out(stem, options)


STRATEGIES: dict[str, Strategy] = {
    "longest_option": longest_option,
    "most_stem_overlap": most_stem_overlap,
    "odd_one_out": odd_one_out,
    "combined": combined_cues,
}


# ---------------------------------------------------------------- rounds
@dataclass(frozen=True)
class Round:
    request: GenerateQuestionsInput
    drafts: list[DraftQuestion]

    @property
    def learner(self) -> str:
        return self.request.profile.user_id

    @property
    def record(self) -> str:
        return f"{self.request.category}/{self.request.difficulty}"

    @cached_property
    def learner_concepts(self) -> list[Concept]:
        """The record's concepts in the learner's language."""
        wanted = self.request.resolved_language()
        return [concept for concept in self.request.keywords.concepts if concept_language(concept) == wanted]

    @property
    def language(self) -> Language:
        """The learner's language, or the record's own when it has nothing in the learner's (the
        generator's documented fallback: whole items in one language rather than mixed ones)."""
        concepts = self.request.keywords.concepts
        if self.learner_concepts or not concepts:
            return self.request.resolved_language()
        return concept_language(concepts[0])


def latest_profiles(surveys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest survey of each learner, as Tool 1 returns it."""
    newest: dict[str, dict[str, Any]] = {}
    for survey in sorted(surveys, key=lambda survey: survey.get("submitted_at", "")):
        newest[survey["user_id"]] = survey
    return list(newest.values())


def requests(path: Path, question_types: list[QuestionType] | None) -> Iterator[GenerateQuestionsInput]:
    document = json.loads(path.read_text(encoding="utf-8"))
    for record in map(DifficultyKeywords.model_validate, document["keywords"]):
        for profile in latest_profiles(document["profiles"]):
            yield GenerateQuestionsInput.model_validate(
                {
                    "profile": profile,
                    "keywords": record,
                    # One session for both mixes: the two rounds take the concepts in the same
                    # order and differ only by their question types.
                    "session_id": f"item-quality-{profile['user_id']}-{record.category}-{record.difficulty}",
                    "difficulty": record.difficulty,
                    "category": record.category,
                    "count": ROUND_SIZE,
                    "question_types": question_types,
                }
            )


def generate_rounds(path: Path) -> dict[str, list[Round]]:
    return {
        mix: [
            # Seeded by the session alone (deployments key it under their secret): the same rounds every run.
            Round(request, generate_offline(request, request.count, random.Random(request.session_id)))
            for request in requests(path, question_types)
        ]
        for mix, question_types in MIXES.items()
    }


def describe(generated: Round, draft: DraftQuestion) -> dict[str, Any]:
    """An offending item, with enough context to find and judge it."""
    return {
        "record": generated.record,
        "learner": generated.learner,
        "type": draft.type,
        "stem": draft.stem,
        "choices": draft.choices,
        "keywords": draft.correct_keywords,
        "concept": draft.source.name if draft.source else None,
    }


# ---------------------------------------------------------------- surface cues
def key_index(draft: DraftQuestion) -> int:
    """The key's position ("B" is 1); an item without a key fails loudly rather than counting as A."""
    return string.ascii_uppercase.index(draft.correct_answer or "?")


def cue_items(rounds: list[Round]) -> list[DraftQuestion]:
    return [
        draft
        for generated in rounds
        for draft in generated.drafts
        if draft.type == "multiple_choice" and len(draft.choices) == OPTION_COUNT
    ]


def accuracy(pick: Strategy, items: list[DraftQuestion]) -> float | None:
    if not items:
        return None
    return round(sum(pick(item.stem, option_texts(item.choices)) == key_index(item) for item in items) / len(items), 3)


def key_length_ranks(items: list[DraftQuestion]) -> list[float]:
    """Share of items whose key is the longest option, the second longest, ... the shortest: a key
    kept away from both extremes is itself a cue ("avoid the extremes"), beyond the longest option."""
    ranks: Counter[int] = Counter()
    for item in items:
        options = option_texts(item.choices)
        by_length = sorted(range(len(options)), key=lambda index: (-len(options[index]), index))
        ranks[by_length.index(key_index(item))] += 1
    return [round(ranks[rank] / len(items), 3) for rank in range(OPTION_COUNT)] if items else []


def cue_accuracy(rounds: list[Round]) -> dict[str, Any]:
    items = cue_items(rounds)
    by_language = {language: [item for item in items if item.language == language] for language in ("en", "ko")}
    return {
        "items": len(items),
        "chance": CHANCE,
        "target_combined_max": TARGET_COMBINED_CUE_MAX,
        **{name: accuracy(pick, items) for name, pick in STRATEGIES.items()},
        "combined_by_language": {
            language: {"items": len(subset), "accuracy": accuracy(combined_cues, subset)}
            for language, subset in by_language.items()
        },
        "key_length_rank_shares": key_length_ranks(items),
    }


# ---------------------------------------------------------------- concept repeats
def concept_key(concept: Concept) -> str:
    return concept.name.strip().casefold()


def repeats_while_unused(generated: Round) -> list[DraftQuestion]:
    """Items on a concept already used in the round, taken while another concept in the
    learner's language was still unused."""
    available = {concept_key(concept) for concept in generated.learner_concepts}
    seen: set[str] = set()
    repeats = []
    for draft in generated.drafts:
        if draft.source is None:
            continue
        key = concept_key(draft.source)
        if key in seen and available - seen:
            repeats.append(draft)
        seen.add(key)
    return repeats


def most_items_on_one_concept(generated: Round) -> int:
    uses = Counter(concept_key(draft.source) for draft in generated.drafts if draft.source is not None)
    return max(uses.values(), default=0)


def concept_repeats(rounds: list[Round]) -> dict[str, Any]:
    offending = [(generated, draft) for generated in rounds for draft in repeats_while_unused(generated)]
    return {
        "rounds": len(rounds),
        "repeats_while_concepts_unused": len(offending),
        "target": 0,
        "most_items_on_one_concept": max(map(most_items_on_one_concept, rounds), default=0),
        "examples": [describe(generated, draft) for generated, draft in offending[:EXAMPLES_KEPT]],
    }


# ---------------------------------------------------------------- interest share
def interest_concepts(generated: Round) -> set[str]:
    """The record's concepts in the learner's language on one of the learner's interests."""
    interests = generated.request.profile.interests
    return {concept_key(c) for c in generated.learner_concepts if matches_interest(c.domain, interests)}


def on_interest(generated: Round, draft: DraftQuestion) -> bool:
    return draft.source is not None and matches_interest(draft.source.domain, generated.request.profile.interests)


def interest_share(generated: Round) -> float | None:
    """Share of items on the learner's interests, where the record holds a full round of
    concepts on them (elsewhere some off-interest items are unavoidable)."""
    if len(interest_concepts(generated)) < generated.request.count or not generated.drafts:
        return None
    return sum(on_interest(generated, draft) for draft in generated.drafts) / len(generated.drafts)


def interest_concepts_used(generated: Round) -> float | None:
    """Where the record has fewer concepts on the learner's interests than the round has items,
    the share of them the round used: all, since interests come first (the demo seed's learners
    are all in this case, so this is the figure that shows them)."""
    wanted = interest_concepts(generated)
    if not wanted or len(wanted) >= generated.request.count:
        return None
    used = {concept_key(draft.source) for draft in generated.drafts if draft.source is not None}
    return len(wanted & used) / len(wanted)


def spread(values: list[float]) -> dict[str, Any]:
    return {
        "rounds": len(values),
        "min": round(min(values), 3) if values else None,
        "mean": round(statistics.mean(values), 3) if values else None,
    }


def off_interest_example(generated: Round, share: float) -> dict[str, Any]:
    off = [draft for draft in generated.drafts if not on_interest(generated, draft)]
    return {
        "record": generated.record,
        "learner": generated.learner,
        "share": round(share, 3),
        "off_interest_concepts": [draft.source.name if draft.source else None for draft in off],
    }


def interest_shares(rounds: dict[str, list[Round]]) -> dict[str, Any]:
    """Over all rounds, then per mix: in a round of one question type the type comes first, so an
    interest concept with no acceptable item of that type gives way to an off-interest one."""
    full = {mix: [(generated, interest_share(generated)) for generated in mixed] for mix, mixed in rounds.items()}
    full_shares = {mix: [share for _, share in pairs if share is not None] for mix, pairs in full.items()}
    used = {mix: [interest_concepts_used(generated) for generated in mixed] for mix, mixed in rounds.items()}
    below = [
        (generated, share)
        for pairs in full.values()
        for generated, share in pairs
        if share is not None and share < TARGET_INTEREST_SHARE_MIN
    ]
    return {
        **spread([share for shares in full_shares.values() for share in shares]),
        "target_min": TARGET_INTEREST_SHARE_MIN,
        "by_mix": {mix: spread(shares) for mix, shares in full_shares.items()},
        "examples": [off_interest_example(generated, share) for generated, share in below[:EXAMPLES_KEPT]],
        "fewer_interest_concepts_than_items": {
            "target": 1.0,
            "by_mix": {mix: spread([share for share in shares if share is not None]) for mix, shares in used.items()},
        },
    }


# ---------------------------------------------------------------- language consistency
def is_single_term(text: str) -> bool:
    """A term or acronym ("LoRA", "TCP") reads the same in either language."""
    return len(text.split()) <= 1


def in_korean(draft: DraftQuestion) -> bool:
    sentences = [draft.stem, draft.explanation, draft.reference_answer]
    options = [option for option in option_texts(draft.choices) if not is_single_term(option)]
    keywords = [keyword for keyword in draft.correct_keywords if not is_single_term(keyword)]
    return all(HANGUL.search(text) for text in [*sentences, *options, *keywords] if text.strip())


def in_english(draft: DraftQuestion) -> bool:
    texts = [draft.stem, draft.explanation, draft.reference_answer, *draft.choices, *draft.correct_keywords]
    return not any(HANGUL.search(text) for text in texts)


def in_language(draft: DraftQuestion, language: Language) -> bool:
    written_in = in_korean(draft) if language == "ko" else in_english(draft)
    return written_in and draft.language == language


def language_consistency(rounds: list[Round]) -> dict[str, Any]:
    checked = [(generated, draft) for generated in rounds for draft in generated.drafts]
    mixed = [(generated, draft) for generated, draft in checked if not in_language(draft, generated.language)]
    return {
        "items": len(checked),
        "share_consistent": round(1 - len(mixed) / len(checked), 4) if checked else None,
        "target": 1.0,
        "examples": [describe(generated, draft) for generated, draft in mixed[:EXAMPLES_KEPT]],
    }


# ---------------------------------------------------------------- statements that make sense
# A true/false or multiple-choice item pairs its concept with others: a false statement borrows a
# sibling's definition or key point, a distractor is a sibling's name or definition. A pairing
# across domains ("'self-supervised next-token prediction' holds for JavaScript Object Notation")
# is no plausible confusion: a learner rejects it on the domain alone, and it reads as nonsense.
def domain_key(concept: Concept) -> str | None:
    return concept.domain.strip().casefold() if concept.domain and concept.domain.strip() else None


def _bare(text: str) -> str:
    return text.strip().rstrip(".").strip().casefold()


def partners(generated: Round, draft: DraftQuestion) -> list[Concept]:
    """The record's other concepts an item borrows text from: a multiple-choice option that is
    one's name, acronym or definition; a true/false stem that states one's definition or key point."""
    source = draft.source
    if source is None:
        return []
    others = [c for c in generated.request.keywords.concepts if concept_key(c) != concept_key(source)]
    if draft.type == "multiple_choice":
        options = {_bare(option) for option in option_texts(draft.choices)}
        return [c for c in others if options & {_bare(c.name), _bare(c.acronym), _bare(c.definition)} - {""}]
    if draft.type == "true_false":
        stem = draft.stem.casefold()
        own = [_bare(text) for text in (source.definition, *source.key_points)]
        return [
            c
            for c in others
            if any(
                len(text) >= 8 and text in stem and not any(text in mine for mine in own)
                for text in map(_bare, (c.definition, *c.key_points))
            )
        ]
    return []


def cross_domain(source: Concept, partner: Concept) -> bool:
    """The domains differ; concepts the record gives no domain are one group (its general ones),
    and one of them paired with a concept of a domain is a cross-domain pairing."""
    return domain_key(source) != domain_key(partner)


def domain_siblings(generated: Round, source: Concept) -> int:
    """How many other concepts of the learner's language share `source`'s domain."""
    key = domain_key(source)
    return sum(1 for c in generated.learner_concepts if domain_key(c) == key and concept_key(c) != concept_key(source))


def pairing_sense(rounds: list[Round]) -> dict[str, Any]:
    by_type: dict[str, dict[str, Any]] = {}
    examples = []
    for question_type in ("true_false", "multiple_choice"):
        items = [(g, d) for g in rounds for d in g.drafts if d.type == question_type and d.source is not None]
        paired = [(g, d, partners(g, d)) for g, d in items]
        paired = [(g, d, found) for g, d, found in paired if found]
        crossing = [(g, d) for g, d, found in paired if any(cross_domain(d.source, p) for p in found if d.source)]
        avoidable = [(g, d) for g, d in crossing if d.source and domain_siblings(g, d.source) >= OPTION_COUNT - 1]
        by_type[question_type] = {
            "items": len(items),
            "paired_items": len(paired),
            "cross_domain": len(crossing),
            "cross_domain_rate": round(len(crossing) / len(paired), 4) if paired else None,
            # Of those, the items whose concept's domain held enough concepts of the learner's
            # language for a full set of options (elsewhere a four-option item must borrow).
            "cross_domain_where_the_domain_had_enough": len(avoidable),
        }
        if question_type == "true_false":
            keyed_true = sum(d.correct_answer == d.choices[0] for _, d in items if d.choices)
            by_type[question_type]["keyed_true_share"] = round(keyed_true / len(items), 3) if items else None
        examples.extend(describe(g, d) for g, d in crossing[:EXAMPLES_KEPT])
    return {**by_type, "target_cross_domain_rate": 0.0, "examples": examples}


# English articles and casing. Three checks of the stems of English items, each written apart from
# the generator's rule (slea.language.english_articles) so that they can catch it out:
# (a) "a"/"an" against the next word's first sound (a vowel letter or a vowel-named capital, with
#     the usual exceptions: "a user", "an hour");
#     a capitalised acronym said as a word ("NAT", "RACI") may take either;
# (b) the item's concept name where the frame put it, mid-sentence with no determiner while its
#     head noun is a singular count noun of COUNT_HEADS ("What is Multimodal Model?", "holds for
#     load balancer.");
# (c) that name's common words Title Cased mid-sentence ("What is Multimodal Model?").
# (b) and (c) trust the generator's documented lists of proper names and proper words
# (PROPER_NAMES: "Kubernetes"; PROPER_WORDS: "Pareto", "Kanban"), which keep their case and take
# no article: those are not counted.
AN_LETTERS = "AEFHILMNORSX"  # capitals whose spoken name starts with a vowel: "an API", "an LLM"
A_BEFORE_VOWEL = ("uni", "use", "usa", "usu", "uti", "uri", "ure", "eu", "one", "once", "ubi")
AN_BEFORE_CONSONANT = ("hour", "honest", "honor", "honour", "heir")
COUNT_HEADS = frozenset(
    str.split(
        """model agent gateway key database index matrix diagram map chart loop pattern protocol token
    window balancer queue network system machine pipeline tree graph store registry card template
    prompt container firewall breaker instance group cache workflow team meeting question statement
    backlog roadmap charter register pitch memo summary persona story canvas milestone deliverable
    stakeholder sponsor manager epic spike sprint bottleneck hyperparameter dataset endpoint replica
    mesh zone assistant copilot instrument list email report plan hypothesis tool feature segment
    funnel grid budget proposal request agreement requirement mindset metric point layer function
    algorithm library method framework technique process cycle case procedure radiator contract
    transformer encoder decoder classifier server client proxy"""
    )
)
DETERMINERS = frozenset(str.split("a an the its their this that each every any one your our his her"))
WORD = re.compile(r"[A-Za-z][\w'-]*|\d[\w-]*")


def expected_article(word: str) -> str:
    if word[:1].isdigit():
        return "an" if re.match(r"(8|11|18|80|81|82|83|84|85|86|87|88|89)(\D|$)", word) else "a"
    if len(word) > 1 and word[:2].isupper():  # an initialism, read letter by letter ...
        if re.fullmatch(r"[A-Z][AEIOUaeiou][A-Za-z]+", word.split("-", maxsplit=1)[0]):
            return "either"  # ... or said as a word ("a NAT gateway", "a SAFe competency")
        return "an" if word[0] in AN_LETTERS else "a"
    lower = word.casefold()
    if lower.startswith(AN_BEFORE_CONSONANT):
        return "an"
    if lower.startswith(A_BEFORE_VOWEL):
        return "a"
    return "an" if lower[:1] in "aeiou" else "a"


ARTICLE_THEN_WORD = re.compile(r"(?<![\w-])([Aa]n?) ([A-Za-z0-9][\w'-]*)")  # "A, AAAA" is a list, not an article


def article_mismatches(stem: str) -> list[str]:
    return [
        match.group(0)
        for match in ARTICLE_THEN_WORD.finditer(stem)
        if expected_article(match.group(2)) not in (match.group(1).casefold(), "either")
    ]


def _head(name: str) -> str:
    """The head noun: the last word before a preposition or parenthesis ("Cost of Delay" -> cost)."""
    words = re.sub(r"\(.*?\)", " ", name).split()
    for index, word in enumerate(words[1:], 1):
        if word.casefold() in ("of", "for", "as", "in", "to", "by", "from", "without", "on", "versus", "and"):
            words = words[:index]
            break
    return (words[-1] if words else "").split("-")[-1].casefold()


def _occurrences(stem: str, name: str) -> Iterator[re.Match[str]]:
    yield from re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", stem, flags=re.IGNORECASE)


def missing_articles(stem: str, names: list[str], proper: frozenset[str] = frozenset()) -> list[str]:
    found = []
    for name in names:
        if _head(name) not in COUNT_HEADS or "'" in name or name.casefold() in proper:
            continue
        for match in _occurrences(stem, name):
            before = WORD.findall(stem[: match.start()])
            if before and before[-1].casefold() not in DETERMINERS and not stem[: match.start()].rstrip().endswith('"'):
                found.append(f"{before[-1]} {match.group(0)}")
    return found


def title_cased_mid_sentence(
    stem: str, names: list[str], proper: frozenset[str], proper_words: frozenset[str] = frozenset()
) -> list[str]:
    found = []
    for name in names:
        if name.casefold() in proper or "'" in name:  # proper names and eponyms ("Conway's Law")
            continue
        for match in _occurrences(stem, name):
            text = match.group(0)
            common = [
                w
                for w in re.split(r"[\s-]+", text)
                if w[:1].isupper() and w[1:].islower() and len(w) > 1 and w not in proper_words
            ]
            mid_sentence = bool(re.search(r"[a-z,]\s*$", stem[: match.start()]))
            if common and mid_sentence:
                found.append(text)
    return found


def article_sense(rounds: list[Round]) -> dict[str, Any]:
    proper = frozenset(name.casefold() for name in PROPER_NAMES)
    checked = [d for g in rounds for d in g.drafts if d.language == "en"]
    counts = {"a_an_mismatch": 0, "missing_article": 0, "title_case_mid_sentence": 0}
    examples: dict[str, list[str]] = {key: [] for key in counts}
    for item in checked:
        # The item's own concept: where the frame put a name (another name inside a quoted key
        # point, "the next token", is the record's text).
        names = [item.source.name.strip()] if item.source and concept_language(item.source) == "en" else []
        problems = {
            "a_an_mismatch": article_mismatches(item.stem),
            "missing_article": missing_articles(item.stem, names, proper),
            "title_case_mid_sentence": title_cased_mid_sentence(item.stem, names, proper, PROPER_WORDS),
        }
        for key, found in problems.items():
            counts[key] += bool(found)
            if found and len(examples[key]) < EXAMPLES_KEPT:
                examples[key].append(item.stem)
    return {
        "items": len(checked),
        **{
            key: {"items": count, "rate": round(count / len(checked), 4) if checked else None}
            for key, count in counts.items()
        },
        "target": 0,
        "examples": examples,
    }


# Korean particles after a word: the form the word's last sound needs, checked where it can be
# told without the generator's own reading of Latin words: an alternation left for the learner
# ("PyTorch은(는)"), and a particle after a concept name ending in a Hangul syllable (its batchim,
# from the code point) or in a capital letter (the letter's Korean name).
ALTERNATION = re.compile(r"은\(는\)|는\(은\)|이\(가\)|가\(이\)|을\(를\)|를\(을\)|과\(와\)|와\(과\)|\(이\)|\(으\)")
AFTER_CONSONANT = {"은": "는", "이": "가", "을": "를", "과": "와"}  # the form after a consonant -> after a vowel
AFTER_VOWEL = {vowel: consonant for consonant, vowel in AFTER_CONSONANT.items()}
CONSONANT_LETTERS = "LMNR"  # 엘, 엠, 엔, 알 end in a consonant; every other letter's name in a vowel


def ends_in_consonant(word: str) -> bool | None:
    last = word.rstrip()[-1:]
    if "\uac00" <= last <= "\ud7a3":
        return (ord(last) - 0xAC00) % 28 != 0
    if last.isupper():
        return last in CONSONANT_LETTERS
    return None


def particle_errors(text: str, names: list[str]) -> list[str]:
    found = [match.group(0) for match in ALTERNATION.finditer(text)]
    for name in names:
        consonant = ends_in_consonant(name)
        if consonant is None:
            continue
        for match in re.finditer(re.escape(name) + r"([은는이가을를과와])(?=[\s,.?!]|$)", text):
            particle = match.group(1)
            wrong = particle in AFTER_VOWEL if consonant else particle in AFTER_CONSONANT
            # "이" after a vowel can be a word of its own ("이 개념"): only the paired forms count.
            if wrong:
                found.append(match.group(0))
    return found


def korean_particle_sense(rounds: list[Round]) -> dict[str, Any]:
    checked = [(g, d) for g in rounds for d in g.drafts if d.language == "ko"]
    offending = []
    for generated, item in checked:
        names = [
            text.strip() for c in generated.request.keywords.concepts for text in (c.name, c.acronym) if text.strip()
        ]
        texts = [item.stem, item.explanation, item.reference_answer, *item.choices]
        found = [error for text in texts for error in particle_errors(text, names)]
        if found:
            offending.append((item, found))
    return {
        "items": len(checked),
        "items_with_errors": len(offending),
        "target": 0,
        "examples": [{"stem": item.stem, "errors": found} for item, found in offending[:EXAMPLES_KEPT]],
    }


# ---------------------------------------------------------------- key terms the model answer states
LANGUAGES: tuple[Language, ...] = ("en", "ko")


def unstated_key_terms(draft: DraftQuestion) -> list[str]:
    """The key terms of a short answer that its model answer, given as an answer, is not credited
    with by the grader's keyword matcher."""
    material = Material(answer=draft.reference_answer, reference="", keywords=list(draft.correct_keywords))
    found = set(Evidence(material).keyword_matches)
    return [keyword for keyword in draft.correct_keywords if keyword not in found]


def every_short_answer(path: Path) -> Iterator[tuple[Language, str, DraftQuestion | None]]:
    """Every short answer the generator can write from each record of `path`, in each language the
    record has concepts in: (language, kind, the draft or None where it writes none)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    profile = latest_profiles(document["profiles"])[0]
    for record in map(DifficultyKeywords.model_validate, document["keywords"]):
        for language in LANGUAGES:
            request = GenerateQuestionsInput.model_validate(
                {
                    "profile": profile,
                    "keywords": record,
                    "session_id": f"key-terms-{record.category}-{record.difficulty}-{language}",
                    "difficulty": record.difficulty,
                    "category": record.category,
                    "language": language,
                }
            )
            bank = ItemBank(request, random.Random(request.session_id))
            if bank.language != language:
                continue  # the record has no concept in this language
            items = [item for concept in bank.concepts for item in bank.concept_items(concept, 0)]
            for item in [*items, *bank.keyword_items()]:
                if item.type == "short_answer":
                    yield language, item.family, item.build()


def stated_figures(drafts: list[DraftQuestion | None]) -> dict[str, Any]:
    built = [draft for draft in drafts if draft is not None]
    referenced = [draft for draft in built if draft.reference_answer.strip()]
    stated = [draft for draft in referenced if not unstated_key_terms(draft)]
    return {
        "items": len(built),
        "not_written": len(drafts) - len(built),
        "with_a_model_answer": len(referenced),
        "key_terms_all_stated": len(stated),
        "share_all_stated": round(len(stated) / len(referenced), 4) if referenced else None,
        "without_a_model_answer": len(built) - len(referenced),
    }


def key_terms_stated(path: Path, rounds: list[Round]) -> dict[str, Any]:
    written = list(every_short_answer(path))
    by_kind: dict[str, dict[str, Any]] = {}
    for language in LANGUAGES:
        kinds = dict.fromkeys(kind for lang, kind, _ in written if lang == language)
        by_kind[language] = {
            kind: stated_figures([draft for lang, k, draft in written if lang == language and k == kind])
            for kind in kinds
        }
    offending = [
        draft
        for _, _, draft in written
        if draft is not None and draft.reference_answer.strip() and unstated_key_terms(draft)
    ]
    in_rounds = [draft for generated in rounds for draft in generated.drafts if draft.type == "short_answer"]
    return {
        "every_item": {**stated_figures([draft for _, _, draft in written]), "by_language_and_kind": by_kind},
        "rounds": stated_figures(list(in_rounds)),
        "target_share": 1.0,
        "examples": [
            {
                "stem": draft.stem,
                "keywords": draft.correct_keywords,
                "unstated": unstated_key_terms(draft),
                "reference": draft.reference_answer,
            }
            for draft in offending[:EXAMPLES_KEPT]
        ],
    }


# ---------------------------------------------------------------- the report
def measure_input(path: Path) -> dict[str, Any]:
    rounds = generate_rounds(path)
    every_round = [generated for mix in rounds.values() for generated in mix]
    return {
        "cue_accuracy": cue_accuracy(rounds["multiple_choice"]),
        "concept_repeats": concept_repeats(every_round),
        "interest_share": interest_shares(rounds),
        "language_consistency": language_consistency(every_round),
        "pairing_sense": pairing_sense(every_round),
        "english_articles": article_sense(every_round),
        "korean_particles": korean_particle_sense(every_round),
        "key_terms_stated": key_terms_stated(path, every_round),
    }


def measure(inputs: dict[str, Path] | None = None) -> dict[str, Any]:
    started = time.perf_counter()
    inputs = inputs or {"demo_seed": DEMO_SEED, "heldout": HELDOUT}
    results = {name: measure_input(path) for name, path in inputs.items()}
    return {**results, "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    print(json.dumps(measure(), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
