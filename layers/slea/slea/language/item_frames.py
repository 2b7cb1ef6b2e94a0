"""The offline generator's item frames, in each learner language. Every frame has several
phrasings, so items of one frame about different concepts never read as near-duplicates (Tool 4
flags those). A frame's placeholders are filled from the concept record only: no frame asks for
something the record does not state (no "give one situation where you would use it", which
reads oddly for a risk such as prompt injection).

Frames by the thinking they ask for (the generator matches them to the round's difficulty):
- recall: which definition fits the name; which name fits the definition; is this statement of
  the definition true;
- application: which concept a situation described by its key points is about (not by its
  definition); is this key point true of the concept; explain the concept;
- comparison: how the concept differs from a sibling of the same domain.
"""

from slea.constants import Language

# English frames name a concept as a sentence does ("What is a multimodal model?", "What are
# guardrails?"): the generator fills {label}/{name}/{other} with the name's noun phrase
# (slea.language.english_articles) and {be}, {does}, {it}, {its}, {Its}, {s} with the words that
# agree with it. Korean frames need neither: their particles follow the word.

FRAMES: dict[Language, dict[str, tuple[str, ...]]] = {
    "en": {
        "mc_definition": (
            "Which of the following best describes {label}?",
            "What {be} {label}?",
            "Select the most accurate definition of {label} from the options below.",
        ),
        "mc_identify": (
            'Which concept does the following describe? "{definition}"',
            'Which term matches this definition? "{definition}"',
        ),
        "mc_scenario": (
            "A design review notes the following: {needs}. Which concept is this about?",
            "A team observes these points in its system: {needs}. Which concept do they describe?",
        ),
        "tf_definition": ("True or False: {name} can be described as follows. {definition}",),
        "tf_key_point": ('True or False: "{point}" is one of the characteristics that set {name} apart.',),
        "sa_explain": (
            "Explain {label} and describe {its} key aspects.",
            "In your own words, what {be} {label}, and why does this matter in practice?",
            "Describe how {label} work{s} and what {it} {be} characterised by.",
        ),
        "sa_compare": (
            "How {does} {name} differ from {other}? Explain the key difference.",
            "Compare {name} with {other}: what sets {name} apart?",
        ),
        "sa_keyword": (
            "Explain the role of {keyword} in {category} work, with a concrete example.",
            "Why does {keyword} matter at this level? Answer with an example from practice.",
        ),
        "explain": ("{label}: {definition} Key points: {points}.",),
        "reference": ("{name} {be} {definition_lower} {Its} key aspects are: {points}.",),
        "compare_reference": ("{name}: {definition} By contrast, {other}: {other_definition}",),
    },
    "ko": {
        "mc_definition": (
            "다음 중 {label}에 대한 설명으로 가장 적절한 것은?",
            "{label}(이)란 무엇인가?",
            "{label}의 정의로 가장 정확한 것을 고르시오.",
        ),
        "mc_identify": (
            '다음 설명에 해당하는 개념은 무엇인가? "{definition}"',
            '다음 정의에 맞는 용어를 고르시오. "{definition}"',
        ),
        "mc_scenario": (
            "설계 검토에서 다음 사항이 확인되었다: {needs}. 이는 어떤 개념에 관한 것인가?",
            "한 팀이 시스템에서 다음을 관찰했다: {needs}. 이 내용이 설명하는 개념을 고르시오.",
        ),
        "tf_definition": ("다음은 {name}에 대한 올바른 설명이다. (참/거짓) {definition}",),
        "tf_key_point": ('참/거짓: "{point}"은(는) {name}을(를) 다른 개념과 구별하는 특징 중 하나이다.',),
        "sa_explain": (
            "{label}의 개념과 핵심 요소를 설명하시오.",
            "{label}이(가) 실무에서 왜 중요한지 자신의 말로 설명하시오.",
            "{label}의 동작 방식과 특징을 설명하시오.",
        ),
        "sa_compare": (
            "{name}은(는) {other}와(과) 어떻게 다른가? 핵심 차이를 설명하시오.",
            "{name}을(를) {other}와(과) 비교하여, {name}만의 특징을 설명하시오.",
        ),
        "sa_keyword": (
            "{category} 분야에서 {keyword}의 역할을 구체적인 예를 들어 설명하시오.",
            "{keyword}이(가) 이 수준에서 왜 중요한지 실무 사례와 함께 설명하시오.",
        ),
        "explain": ("{label}: {definition} 핵심 요소: {points}.",),
        "reference": ("{name}: {definition} 핵심 요소는 {points}입니다.",),
        "compare_reference": ("{name}: {definition} 반면 {other}: {other_definition}",),
    },
}

# Which frames suit which difficulty: recall below 5, application and comparison from 7 up,
# both between. A concept's items follow this order; the frames of the other band come after
# them, used only when a round has more items than the record has concepts.
RECALL = ("mc_definition", "mc_identify", "tf_definition", "sa_explain")
APPLICATION = ("mc_scenario", "sa_compare", "tf_key_point", "sa_explain")
MIXED = ("mc_scenario", "mc_definition", "tf_key_point", "tf_definition", "sa_explain", "sa_compare")
ALL = (*dict.fromkeys((*RECALL, *APPLICATION, "mc_identify")),)


# The categories the product offers, as a frame names them ("{category} 분야에서"): a Korean stem
# that read "technical 분야에서" mixed languages. Another category is named as the request gives it.
CATEGORY_NAMES: dict[Language, dict[str, str]] = {
    "en": {},
    "ko": {"technical": "기술", "business": "비즈니스", "general": "일반"},
}


def category_name(category: str, language: Language) -> str:
    return CATEGORY_NAMES[language].get(category.strip().casefold(), category)


def families_for(difficulty: int) -> tuple[str, ...]:
    band = RECALL if difficulty <= 4 else APPLICATION if difficulty >= 7 else MIXED
    return (*band, *(family for family in ALL if family not in band))
