"""Nothing a learner is shown after an answer gives away the key of an
item of the same session they have not answered yet. Attacks as a learner makes them, through the
HTTP API: answer one item, read what is shown, answer the others from it."""

import re

import boto3
import pytest

from slea.feedback.details import PHRASES
from slea.llm.provider_choice import get_provider
from slea.security.key_leaks import NOTE as KEY_NOTE
from tests.integration.llm.gemini_stub import model_reply, start_stub

DEMO_USER = "550e8400-e29b-41d4-a716-446655440000"  # English
KOREAN_USER = "576f24fe-bc2d-4d30-aed1-51a1dd76449c"
NOTE = {"en": "held back until you have answered the rest of the round", "ko": "나머지 문항에 답한 뒤에"}
# Rounds whose comparison item quoted, in its model answer, the definition another item of the
# round is keyed on (found with the offline generator at 4f38c48; the session id seeds it).
LEAKING_ROUNDS = [
    pytest.param(DEMO_USER, "leak-0", "business", "en", id="en-compare-quotes-an-mc-key"),
    pytest.param(KOREAN_USER, "leak-2", "technical", "ko", id="ko-compare-quotes-an-mc-key"),
]
LABEL = re.compile(r"^\(?[A-Za-z][).:]\s*")
# Whole rounds are answered at machine speed: the rate limits are tested in test_limits.py.
pytestmark = pytest.mark.usefixtures("unlimited_rates")


@pytest.fixture
def http(signed_http, repeatable):
    """The learner's requests through the signed-token path: the local user pool signs each token,
    so what a learner is shown is what their own verified subject may see. The same run every time
    (tests/repeatable.py): which items a round holds and the order they are answered in follow
    from the ids and the clock, and a clock standing at one instant in eight once gave a round
    where a short answer's own keyword was another unanswered item's key, held back."""
    return repeatable.requests(signed_http)


# ---------------------------------------------------------------- the attacker's reading
def normalised(text):
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def paragraphs(texts):
    return [p for text in texts for p in re.split(r"\n\s*\n", text or "") if p.strip()]


def key_material(item):
    """What, found in one paragraph, answers `item`: a long keyed choice or a sentence of the model
    answer as written; a short keyed choice (a name) together with the definition its stem quotes."""
    key = item["answer_schema"]
    if item["item_type"] == "multiple_choice":
        keyed = next(LABEL.sub("", c) for c in item["choices"] if LABEL.match(c).group(0)[0] == key["correct_key"])
        if len(keyed) >= 25:
            return [[keyed]]
        quoted = re.findall(r'"([^"]{25,})"', item["stem"])
        return [[keyed, quoted[0]]] if quoted else []
    if item["item_type"] == "short_answer":
        sentences = re.split(r"(?<=[.!?])\s+", key.get("reference_answer") or "")
        return [[sentence] for sentence in sentences if len(sentence) >= 25]
    return []


def revealed(shown_texts, item):
    """Does one paragraph of what was shown hold everything of one of `item`'s key materials?"""
    return any(
        all(normalised(part) in normalised(paragraph) for part in material)
        for paragraph in paragraphs(shown_texts)
        for material in key_material(item)
    )


def without_own_answer(explanation, details):
    """The prose without its quote of the learner's own pick ("Your answer: <option>"): like
    `details.your_answer`, it repeats an option the listing showed before the answer, which tells
    nothing of any key (key_leaks.KeyedItem.shown_texts leaves choices out for that reason); the
    guard passes it, since holding it back only when it is another item's key would say so."""
    quoted = {
        " ".join(f"{PHRASES[language]['your_answer']} {details.get('your_answer') or ''}".split())
        for language in PHRASES
    }
    kept = [p for p in re.split(r"\n\s*\n", explanation) if " ".join(p.split()) not in quoted]
    return "\n\n".join(kept)


def shown(result):
    details = result.get("details") or {}
    return [
        without_own_answer(result["explanation"], details),
        result.get("feedback") or "",
        result.get("grader_reasoning") or "",
        *(link["title"] for link in result["reference_links"]),
        details.get("why_correct") or "",
        details.get("why_yours_is_wrong") or "",
        *details.get("next_steps", []),
    ]


def own_key_stated(item, explanation):
    key = item["answer_schema"]
    if item["item_type"] == "multiple_choice":
        keyed = next(LABEL.sub("", c) for c in item["choices"] if LABEL.match(c).group(0)[0] == key["correct_key"])
        return normalised(keyed) in normalised(explanation)
    if item["item_type"] == "true_false":
        return key["correct_key"] in explanation
    return all(normalised(keyword) in normalised(explanation) for keyword in key["correct_keywords"])


# ---------------------------------------------------------------- a learner's session
def own(cloud, session, user):
    """`session` as POST /sessions would have made it for `user`: these tests name their sessions,
    since the session id seeds the offline generator."""
    table = boto3.resource("dynamodb").Table(cloud.table_name("SessionsTable"))
    table.put_item(Item={"session_id": session, "user_id": user, "created_at": "2026-11-23T00:00:00Z"})


def stored_questions(cloud, session):
    table = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    return [item for item in table.scan()["Items"] if item.get("session_id") == session]


def generated_round(http, step_functions, user, session, category):
    own(step_functions.runtime.cloud, session, user)
    request = {"category": category, "count": 12, "difficulty": 8}
    status, _, started = http("POST", f"/sessions/{session}/rounds", request, user)
    assert status == 202, started
    assert step_functions.watch(started["execution_arn"]).status == "SUCCEEDED"
    items = stored_questions(step_functions.runtime.cloud, session)
    assert len(items) == 12
    # Short answers first: the comparison items are answered while the items they quote are not.
    return sorted(items, key=lambda item: item["item_type"] != "short_answer")


def wrong_answer(item):
    if item["item_type"] == "short_answer":
        return "I do not know."
    if item["item_type"] == "true_false":
        return next(c for c in item["choices"] if c != item["answer_schema"]["correct_key"])
    return next(c[0] for c in item["choices"] if c[0] != item["answer_schema"]["correct_key"])


def answer(http, session, user, question_id, text):
    status, _, result = http(
        "POST", f"/sessions/{session}/answers", {"question_id": question_id, "user_answer": text}, user
    )
    assert status == 200, result
    return result


def play(http, step_functions, user, session, category):
    """Answer every item of a generated round; for each answer, the unanswered items the
    attacker could answer from what was shown, and the answer itself."""
    items = generated_round(http, step_functions, user, session, category)
    outcomes = []
    for position, item in enumerate(items):
        result = answer(http, session, user, item["question_id"], wrong_answer(item))
        leaked = [other["stem"] for other in items[position + 1 :] if revealed(shown(result), other)]
        outcomes.append((item, result, leaked))
    return outcomes


# ---------------------------------------------------------------- attacks on generated rounds
@pytest.mark.parametrize(("user", "session", "category", "language"), LEAKING_ROUNDS)
def test_no_answer_of_a_generated_round_gives_away_an_unanswered_items_key(
    http, step_functions, user, session, category, language
):
    outcomes = play(http, step_functions, user, session, category)
    assert [(item["stem"], leaked) for item, _, leaked in outcomes if leaked] == []
    assert all(own_key_stated(item, result["explanation"]) for item, result, _ in outcomes)


@pytest.mark.parametrize(("user", "session", "category", "language"), LEAKING_ROUNDS)
def test_the_check_withholds_what_the_generator_let_through(
    http, step_functions, monkeypatch, user, session, category, language
):
    """Without the generator's own prevention the round keeps its comparison item: the check at
    show time still keeps the quoted key back, in the learner's language, and says so."""
    from slea.authoring import offline_generator as generator

    monkeypatch.setattr(generator, "gives_away", lambda *args: False, raising=False)
    outcomes = play(http, step_functions, user, session, category)
    assert [(item["stem"], leaked) for item, _, leaked in outcomes if leaked] == []
    noted = [item for item, result, _ in outcomes if NOTE[language] in (result.get("held_back_note") or "")]
    assert not any(NOTE[language] in result["explanation"] for _, result, _ in outcomes)  # never in the text
    assert noted, "nothing was withheld: the round no longer has the comparison item"
    # The learner's own item is still fully explained: its key is stated.
    assert all(own_key_stated(item, result["explanation"]) for item, result, _ in outcomes)
    # The last answer leaves nothing unanswered: nothing is withheld from it.
    assert outcomes[-1][1].get("held_back_note") is None
    # What is stored, and returned to a retry, is the checked text.
    first, checked, _ = next(outcome for outcome in outcomes if outcome[0] in noted)
    assert answer(http, session, user, first["question_id"], wrong_answer(first)) == checked


# ---------------------------------------------------------------- Gemini explanations
@pytest.fixture
def gemini(monkeypatch, cloud):
    """Gemini as the provider, served by the local stub. The local runtime gives every invocation
    10 s, less than the API function's model budget (one 10 s attempt and a reserve): the budget
    is lifted so that the answers reach the model."""
    from slea.llm import budget

    monkeypatch.setattr(budget, "call_fits", lambda settings: True)
    stub, server = start_stub()
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GEMINI_BASE_URL", stub.url)
    monkeypatch.setenv("LLM_RETRY_INITIAL_DELAY", "0.01")
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "2")
    get_provider.cache_clear()
    yield stub
    get_provider.cache_clear()
    server.shutdown()


RAG_DEFINITION = (
    "An architecture that retrieves passages relevant to a query from an external corpus and "
    "places them in the model's prompt so the answer is grounded in them."
)
ITEMS = {
    "en": [
        {
            "item_type": "multiple_choice",
            "stem": "Which of the following best describes Retrieval-Augmented Generation?",
            "choices": [
                f"A) {RAG_DEFINITION}",
                "B) A training method that adjusts a small set of low-rank matrices instead of every weight.",
                "C) A decoding strategy that samples the next token only from the most probable candidates.",
                "D) A serving technique that caches attention keys and values across repeated prompt prefixes.",
            ],
            "correct_key": "A",
            "explanation": f"Retrieval-Augmented Generation: {RAG_DEFINITION}",
        },
        {
            "item_type": "short_answer",
            "stem": "How does fine-tuning differ from Retrieval-Augmented Generation? Explain the key difference.",
            "correct_keywords": ["weights", "training", "parameters"],
            "reference_answer": "Fine-tuning changes the model's weights by further training on task data.",
        },
    ],
    "ko": [
        {
            "item_type": "multiple_choice",
            "stem": "다음 중 검색 증강 생성(RAG)에 대한 설명으로 가장 적절한 것은?",
            "choices": [
                "A) 질문과 관련된 문서를 외부 저장소에서 검색해 프롬프트에 넣어 답변의 근거로 삼는 구조",
                "B) 모든 가중치 대신 작은 저랭크 행렬만 학습해 모델을 조정하는 방법",
                "C) 가장 확률이 높은 후보 토큰 중에서만 다음 토큰을 고르는 디코딩 전략",
                "D) 반복되는 프롬프트 앞부분의 어텐션 키와 값을 캐시하는 서빙 기법",
            ],
            "correct_key": "A",
            "explanation": "검색 증강 생성: 질문과 관련된 문서를 외부 저장소에서 검색해 프롬프트에 넣는 구조",
        },
        {
            "item_type": "short_answer",
            "stem": "미세 조정은 검색 증강 생성(RAG)과 어떻게 다른가? 핵심 차이를 설명하시오.",
            "correct_keywords": ["가중치", "학습", "파라미터"],
            "reference_answer": "미세 조정은 과제 데이터로 추가 학습하여 모델의 가중치를 바꾼다.",
        },
    ],
}
QUOTING_EXPLANATION = {
    "en": (
        "Not quite: fine-tuning changes the model's weights by further training, while the knowledge "
        "stays inside the parameters. Retrieval-Augmented Generation, by contrast, is an architecture "
        "that retrieves passages relevant to a query from an external corpus and places them in the "
        "model's prompt so the answer is grounded in them.\n\n"
        + "Review how training data shapes a model's parameters, and when updating them is worth it. "
        * 6
    ),
    "ko": (
        "아쉽습니다. 미세 조정은 추가 학습으로 모델의 가중치와 파라미터를 바꿉니다. "
        "반면 검색 증강 생성은 질문과 관련된 문서를 외부 저장소에서 검색해 "
        "프롬프트에 넣어 답변의 근거로 삼는 구조입니다.\n\n"
        + "학습 데이터가 모델의 파라미터를 어떻게 바꾸는지, 언제 가중치를 갱신할 가치가 있는지 복습하세요. "
        * 8
    ),
}
LINKS = [
    {
        "title": "Lewis et al., Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
        "url": "https://arxiv.org/abs/2005.11401",
    },
    {"title": "Fine-tuning language models", "url": "https://example.org/fine-tuning"},
    {"title": "Parameter-efficient training", "url": "https://example.org/peft"},
]


def saved_session(runtime, session, user, language):
    own(runtime.cloud, session, user)
    ids = []
    for item in ITEMS[language]:
        event = {**item, "difficulty": 7, "categories": ["technical"], "round_id": f"{session}_1_2026-11-23T00:00:00Z"}
        ids.append(runtime.invoke("save_generated_question", event)["question_id"])
    return ids


def model_grade():
    return model_reply(
        {"key_concepts": 10, "correctness": 10, "clarity": 10, "confidence": 0.9, "reasoning": "misses the weights"}
    )


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_model_explanation_quoting_an_unanswered_items_key_is_withheld(gemini, http, step_functions, language):
    user = DEMO_USER if language == "en" else KOREAN_USER
    session = f"gemini-{language}"
    mc_id, sa_id = saved_session(step_functions.runtime, session, user, language)
    keyed_choice = ITEMS[language][0]["choices"][0][3:]
    gemini.script(model_grade(), model_reply({"explanation": QUOTING_EXPLANATION[language], "reference_links": LINKS}))

    vague = "It is about data." if language == "en" else "데이터에 관한 것이다."
    result = answer(http, session, user, sa_id, vague)

    assert normalised(keyed_choice) not in normalised(result["explanation"])
    assert NOTE[language] in result["held_back_note"]
    assert NOTE[language] not in result["explanation"]
    assert len(result["explanation"]) >= 500
    # The answered item's own explanation stays: what fine-tuning changes.
    assert ("weights" if language == "en" else "가중치") in result["explanation"]
    # The model's links are none of the item's sources (it has none): none is shown. A
    # title that states no key is still kept: test_titles_that_state_a_key_are_dropped_and_the_rest_kept.
    assert result["reference_links"] == []
    # A retry returns the recorded, checked text, and costs no model call.
    calls = len(gemini.requests)
    assert answer(http, session, user, sa_id, vague) == result
    assert len(gemini.requests) == calls

    # Once every item is answered, the same kind of explanation is shown whole.
    gemini.script(model_reply({"explanation": QUOTING_EXPLANATION[language], "reference_links": LINKS}))
    last = answer(http, session, user, mc_id, "B")
    assert NOTE[language] not in last["explanation"]
    assert last.get("held_back_note") is None
    assert normalised(keyed_choice) in normalised(last["explanation"])


def test_a_stored_explanation_from_the_cache_is_checked_too(gemini, http, step_functions):
    """MC explanations are cached per question: one cached while the learner's other items were
    answered already is checked again against this session's unanswered ones."""
    from slea.dal import explanations

    session = "gemini-cache"
    mc_id, _ = saved_session(step_functions.runtime, session, DEMO_USER, "en")
    quoting = {
        "explanation": "The correct choice is B. "
        + "Fine-tuning changes the model's weights by further training on task data. "
        + "Review how parameters change during training. " * 12,
        "reference_links": LINKS,
    }
    cloud = step_functions.runtime.cloud
    with cloud.environment(cloud.environment_of("ApiFunction")):
        from slea.contracts.llm import GradingItem
        from slea.logic.answering.explaining import cache_variant as _cache_variant

        stored = stored_questions(cloud, session)
        mc = next(item for item in stored if item["question_id"] == mc_id)
        variant = _cache_variant(
            GradingItem(
                question_type="multiple_choice",
                user_answer="B",
                stem=mc["stem"],
                choices=mc["choices"],
                correct_answer="A",
                is_correct=False,
            )
        )
        explanations.put_explanation(mc_id, variant, quoting)
    result = answer(http, session, DEMO_USER, mc_id, "B")
    assert gemini.requests == []  # served from the cache
    assert "changes the model's weights" not in result["explanation"]
    assert NOTE["en"] in result["held_back_note"]


def test_without_the_session_nothing_is_shown_unchecked(http, step_functions, faults):
    """The unanswered items' keys cannot be read: the answer is not graded (503, nothing recorded)
    rather than explained unchecked; the retry is graded and checked."""
    session = "unreadable"
    _, sa_id = saved_session(step_functions.runtime, session, DEMO_USER, "en")
    body = {"question_id": sa_id, "user_answer": "Fine-tuning changes the weights."}
    with faults.dynamodb("save_generated_question", "Query", error="InternalServerError"):
        status, _, failed = http("POST", f"/sessions/{session}/answers", body, DEMO_USER)
    assert (status, failed["error_code"]) == (503, "ANSWER_NOT_RECORDED")
    assert http("GET", f"/sessions/{session}/attempts", None, DEMO_USER)[2]["attempts"] == []
    assert http("POST", f"/sessions/{session}/answers", body, DEMO_USER)[0] == 200
    listed = http("GET", f"/sessions/{session}/attempts", None, DEMO_USER)[2]["attempts"]
    assert [attempt["question_id"] for attempt in listed] == [sa_id]


# ---------------------------------------------------------------- the check itself
def keyed(item_type, stem, **key):
    from slea.security.key_leaks import KeyedItem

    return KeyedItem(question_type=item_type, stem=stem, **key)


PQ = "A vector compression method that splits each vector into sub-vectors and replaces each with a codebook code."
SCENARIO = keyed(
    "multiple_choice",
    "A team observes these points in its system: sub-vectors mapped to codebook IDs; cuts index memory many times over."
    " Which concept do they describe?",
    choices=("A) Product Quantization", "B) Tensor Parallelism", "C) Late Interaction", "D) Episodic Memory"),
    correct_answer="A",
)
FALSE_STATEMENT = keyed(
    "true_false",
    f"True or False: Tensor Parallelism can be described as follows. {PQ}",
    choices=("True", "False"),
    correct_answer="False",
    explanation="Tensor Parallelism: A model-parallel method that splits weight matrices across several GPUs.",
)
OWN = keyed(
    "short_answer",
    "Explain Episodic Memory and describe its key aspects.",
    correct_keywords=("experiences", "recalled"),
    reference_answer="Episodic Memory is an agent memory of specific past experiences, recalled in similar situations.",
)


def test_a_name_is_withheld_only_with_what_the_stem_says_about_it():
    from slea.security.key_leaks import KeyGuard

    guard = KeyGuard(OWN, [SCENARIO])
    unrelated = "Episodic Memory differs from Product Quantization, which is about storage, not recall."
    assert guard.text(unrelated) == unrelated
    associated = (
        "Episodic Memory stores past experiences. Product Quantization is different. "
        "Its sub-vectors are mapped to codebook IDs, which cuts index memory many times over."
    )
    checked = guard.text(associated)
    assert "codebook IDs" not in checked
    assert checked == "Episodic Memory stores past experiences. Product Quantization is different."
    # The note is not put beside the paragraph (it would point at it): once, by the caller, at the end.
    assert KEY_NOTE["en"] not in checked
    assert guard.note() == KEY_NOTE["en"]


def test_a_statement_is_withheld_when_restated_or_contradicted():
    from slea.security.key_leaks import KeyGuard

    restated = f"Recall that {PQ}"
    contradicted = "Tensor Parallelism: a model-parallel method that splits weight matrices across several GPUs."
    for text in (restated, contradicted):
        guard = KeyGuard(OWN, [FALSE_STATEMENT])
        assert guard.text(text) == ""
        assert guard.withheld.sentences == 1
        assert NOTE["en"] in (guard.note() or "")
    guard = KeyGuard(OWN, [FALSE_STATEMENT])
    assert guard.text("Tensor Parallelism is a topic for later.") == "Tensor Parallelism is a topic for later."
    assert not guard.held_back
    # The note is said while an item is open whether or not anything was held back: a note only
    # when something was would tell the learner that this explanation touches a question to come.
    assert guard.note() == KEY_NOTE["en"]
    assert KeyGuard(OWN, []).note() is None


def test_titles_that_state_a_key_are_dropped_and_the_rest_kept():
    from slea.contracts.scoring import ReferenceLink
    from slea.security.key_leaks import KeyGuard

    guard = KeyGuard(OWN, [FALSE_STATEMENT])
    links = [
        ReferenceLink(title=f"Glossary: {PQ}", url="https://example.org/pq"),
        ReferenceLink(title="Wikipedia: Episodic memory", url="https://en.wikipedia.org/wiki/Episodic_memory"),
    ]
    assert [link.url for link in guard.links(links)] == ["https://en.wikipedia.org/wiki/Episodic_memory"]
    assert guard.withheld.links == 1


def test_with_nothing_unanswered_nothing_is_withheld():
    from slea.security.key_leaks import KeyGuard

    text = f"Episodic Memory recalls experiences.\n\n{PQ} Tensor Parallelism splits weight matrices across GPUs."
    guard = KeyGuard(OWN, [])
    assert guard.explanation(text) == text
    assert guard.withheld.sentences == 0


def test_the_own_key_is_stated_even_when_its_sentence_had_to_go():
    """The learner's own multiple-choice key shares a sentence with another item's key: the
    sentence goes, and the own key is stated on its own."""
    from slea.security.key_leaks import KeyGuard

    own = keyed(
        "multiple_choice",
        "Which concept stores specific past experiences of an agent?",
        choices=("A) Episodic Memory", "B) Procedural Memory", "C) Semantic Memory", "D) Working Memory"),
        correct_answer="A",
    )
    guard = KeyGuard(own, [FALSE_STATEMENT])
    text = f"The answer is Episodic Memory, unlike Tensor Parallelism, which is not {PQ}\n\nStudy the memory types."
    checked = guard.explanation(text)
    assert "codebook" not in checked
    assert checked.endswith("The answer to this question: Episodic Memory.")


def test_korean_is_checked_on_bigrams_and_noted_in_korean():
    from slea.security.key_leaks import KeyGuard

    definition = "질문과 관련된 문서를 외부 저장소에서 검색해 프롬프트에 넣어 답변의 근거로 삼는 구조"
    unanswered = keyed(
        "multiple_choice",
        "다음 중 검색 증강 생성(RAG)에 대한 설명으로 가장 적절한 것은?",
        choices=(
            f"A) {definition}",
            "B) 가중치 전체 대신 저랭크 행렬만 학습하는 방법",
            "C) 다음 토큰 샘플링 전략",
            "D) 캐시 기법",
        ),
        correct_answer="A",
    )
    own = keyed(
        "short_answer",
        "미세 조정을 설명하시오.",
        correct_keywords=("가중치",),
        reference_answer="미세 조정은 가중치를 바꾼다.",
    )
    guard = KeyGuard(own, [unanswered])
    checked = guard.text(f"미세 조정은 가중치를 바꿉니다. 반면 검색 증강 생성은 {definition}입니다.")
    assert checked == "미세 조정은 가중치를 바꿉니다."
    assert guard.note() == KEY_NOTE["ko"]
    assert "나머지 문항에 답한 뒤에, 또는 라운드가 끝나면 답안 기록에서 모두 보여 드립니다" in KEY_NOTE["ko"]
