"""Korean answers are graded like their English twins: the same questions, reference answers and
learner answers (correct, partial, wrong) written in both languages get the same verdict and
scores within 10 points. The fitted model learnt its features on English answers only, so a
feature that means something else in Korean (a word count in eojeol, which fuse a word with its
particle or ending) scores Korean lower; these twins catch it."""

import pytest

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.grading.evidence import Material
from slea.grading.offline import grade
from slea.grading.terms import Text

MAX_SCORE_GAP = 10

# Per item, per language: (stem, reference answer in the generator's frame, keywords, answers).
TWINS = [
    {
        "en": (
            "How does a hash table find a value quickly?",
            "Hash table: a data structure that maps keys to buckets with a hash function. Its key aspects are: "
            "lookups take constant time on average; collisions are resolved by chaining or probing.",
            ["hash function", "bucket", "collision"],
            {
                "correct": "A hash table applies a hash function to the key to get a bucket, so a lookup takes "
                "constant time on average; collisions are handled by chaining or probing.",
                "partial": "It applies a hash function to the key.",
                "wrong": "It keeps the keys sorted and uses binary search.",
            },
        ),
        "ko": (
            "해시 테이블은 어떻게 값을 빠르게 찾나요?",
            "해시 테이블: 해시 함수로 키를 버킷에 대응시키는 자료 구조. 핵심 요소는 조회는 평균적으로 상수 시간이 "
            "걸림; 충돌은 체이닝이나 프로빙으로 해결함입니다.",
            ["해시 함수", "버킷", "충돌"],
            {
                "correct": "해시 테이블은 키에 해시 함수를 적용해 버킷을 구하므로 조회가 평균적으로 상수 시간에 "
                "끝나고, 충돌은 체이닝이나 프로빙으로 처리합니다.",
                "partial": "키에 해시 함수를 적용합니다.",
                "wrong": "키를 정렬해 두고 이진 탐색을 사용합니다.",
            },
        ),
    },
    {
        "en": (
            "What is a database index for?",
            "Database index: a separate data structure that lets the database find rows without scanning the "
            "whole table. Its key aspects are: usually a B-tree; speeds up reads but slows down writes.",
            ["B-tree", "scan", "writes"],
            {
                "correct": "An index is an extra structure, usually a B-tree, that finds rows without scanning the "
                "whole table; reads get faster but writes get slower.",
                "partial": "It makes reading rows faster.",
                "wrong": "It encrypts the table so that other users cannot read it.",
            },
        ),
        "ko": (
            "데이터베이스 인덱스는 무엇을 위한 것인가요?",
            "데이터베이스 인덱스: 테이블 전체를 스캔하지 않고 행을 찾게 해 주는 별도의 자료 구조. 핵심 요소는 보통 "
            "B-트리를 사용함; 읽기는 빨라지지만 쓰기는 느려짐입니다.",
            ["B-트리", "스캔", "쓰기"],
            {
                "correct": "인덱스는 보통 B-트리로 된 별도 구조로, 테이블 전체를 스캔하지 않고 행을 찾게 해 주며 "
                "읽기는 빨라지지만 쓰기는 느려집니다.",
                "partial": "행을 읽는 속도를 빠르게 합니다.",
                "wrong": "다른 사용자가 읽지 못하도록 테이블을 암호화합니다.",
            },
        ),
    },
    {
        "en": (
            "What does a load balancer do?",
            "Load balancer: a component that distributes incoming requests across several servers. Its key "
            "aspects are: health checks remove failed servers; it improves availability and throughput.",
            ["distributes", "health check", "availability"],
            {
                "correct": "A load balancer distributes incoming requests across several servers, uses health "
                "checks to remove failed ones, and so improves availability and throughput.",
                "partial": "It sends requests to different servers.",
                "wrong": "It compresses images before they are stored.",
            },
        ),
        "ko": (
            "로드 밸런서는 무엇을 하나요?",
            "로드 밸런서: 들어오는 요청을 여러 서버에 분산하는 구성 요소. 핵심 요소는 헬스 체크로 장애 서버를 "
            "제외함; 가용성과 처리량을 높임입니다.",
            ["분산", "헬스 체크", "가용성"],
            {
                "correct": "로드 밸런서는 들어오는 요청을 여러 서버에 분산하고, 헬스 체크로 장애가 난 서버를 제외해 "
                "가용성과 처리량을 높입니다.",
                "partial": "요청을 여러 서버로 보냅니다.",
                "wrong": "이미지를 저장하기 전에 압축합니다.",
            },
        ),
    },
    {
        "en": (
            "What is gradient descent?",
            "Gradient descent: an optimisation method that moves the parameters against the gradient of the "
            "loss. Its key aspects are: the learning rate sets the step size; it stops near a minimum.",
            ["gradient", "learning rate", "minimum"],
            {
                "correct": "Gradient descent updates the parameters in the direction opposite to the gradient of "
                "the loss, with a step size set by the learning rate, until it reaches a minimum.",
                "partial": "It uses the gradient to change the parameters.",
                "wrong": "It sorts the training data by label before training.",
            },
        ),
        "ko": (
            "경사 하강법이란 무엇인가요?",
            "경사 하강법: 손실의 기울기 반대 방향으로 매개변수를 움직이는 최적화 방법. 핵심 요소는 학습률이 이동 "
            "크기를 정함; 최솟값 근처에서 멈춤입니다.",
            ["기울기", "학습률", "최솟값"],
            {
                "correct": "경사 하강법은 손실의 기울기와 반대 방향으로 매개변수를 갱신하며, 이동 크기는 학습률이 "
                "정하고 최솟값에 이를 때까지 반복합니다.",
                "partial": "기울기를 이용해 매개변수를 바꿉니다.",
                "wrong": "학습 전에 훈련 데이터를 레이블 순으로 정렬합니다.",
            },
        ),
    },
    {
        "en": (
            "What is a mutex?",
            "Mutex: a lock that lets only one thread at a time enter a critical section. Its key aspects are: a "
            "thread must release it after use; it prevents race conditions.",
            ["lock", "critical section", "race condition"],
            {
                "correct": "A mutex is a lock that allows only one thread at a time into a critical section; the "
                "thread releases it afterwards, which prevents race conditions.",
                "partial": "It is a kind of lock for threads.",
                "wrong": "It is a network protocol for sending email.",
            },
        ),
        "ko": (
            "뮤텍스란 무엇인가요?",
            "뮤텍스: 한 번에 하나의 스레드만 임계 구역에 들어가게 하는 잠금. 핵심 요소는 스레드는 사용 후 잠금을 "
            "해제해야 함; 경쟁 상태를 막음입니다.",
            ["잠금", "임계 구역", "경쟁 상태"],
            {
                "correct": "뮤텍스는 한 번에 하나의 스레드만 임계 구역에 들어가게 하는 잠금이며, 스레드가 사용 후 "
                "해제하므로 경쟁 상태를 막습니다.",
                "partial": "스레드를 위한 잠금의 한 종류입니다.",
                "wrong": "이메일을 보내는 네트워크 프로토콜입니다.",
            },
        ),
    },
]
KINDS = ("correct", "partial", "wrong")
CASES = [(twin, kind) for twin in TWINS for kind in KINDS]


def graded(twin, language, kind):
    stem, reference, keywords, answers = twin[language]
    return grade(Material(answer=answers[kind], reference=reference, keywords=keywords, stem=stem))


@pytest.mark.parametrize(("twin", "kind"), CASES, ids=[f"{twin['en'][0]} {kind}" for twin, kind in CASES])
def test_a_korean_answer_gets_its_english_twins_verdict_and_score(twin, kind):
    english, korean = graded(twin, "en", kind), graded(twin, "ko", kind)
    assert (korean.score >= HIGH_SCORE_THRESHOLD) == (english.score >= HIGH_SCORE_THRESHOLD)
    assert korean.needs_review == english.needs_review
    assert abs(korean.score - english.score) <= MAX_SCORE_GAP, (english.score, korean.score)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_in_each_language_correct_passes_and_partial_and_wrong_do_not(language):
    for twin in TWINS:
        scores = {kind: graded(twin, language, kind).score for kind in KINDS}
        assert scores["correct"] >= HIGH_SCORE_THRESHOLD, scores
        assert max(scores["partial"], scores["wrong"]) < HIGH_SCORE_THRESHOLD, scores


def test_words_are_counted_as_english_writes_them():
    # English is counted as written (the model's training corpora are unchanged by this count).
    assert Text("It applies a hash function to the key.").word_count == 8
    # Korean: a word with a particle or an ending is a content word and a function word.
    assert Text("요청을 여러 서버로 보냅니다.").word_count == 7
    assert Text("경쟁 상태").word_count == 2


# Korean written as notes (개조식: nominal endings 함/됨/임, or a bare noun for the verb), the way
# Korean technical answers and the generator's own references are often written; their English
# twins are the "correct" answers above. Once a bare noun list to the grader (not prose: 60).
NOTES = {
    "How does a hash table find a value quickly?": "키에 해시 함수를 적용해 버킷을 구함. 조회는 평균 상수 시간, "
    "충돌은 체이닝이나 프로빙으로 해결.",
    "What is a database index for?": "테이블 전체 스캔 없이 행을 찾는 별도 구조. 보통 B-트리 사용, 읽기는 빨라지고 "
    "쓰기는 느려짐.",
    "What does a load balancer do?": "들어오는 요청을 여러 서버에 분산함. 헬스 체크로 장애 서버 제외, 가용성과 "
    "처리량 향상.",
}


@pytest.mark.parametrize("stem", list(NOTES))
def test_a_korean_answer_written_as_notes_passes_like_its_english_twin(stem):
    twin = next(twin for twin in TWINS if twin["en"][0] == stem)
    _, reference, keywords, _ = twin["ko"]
    notes = grade(Material(answer=NOTES[stem], reference=reference, keywords=keywords, stem=twin["ko"][0]))
    english = graded(twin, "en", "correct")
    assert "term_list" not in notes.flags
    assert notes.score >= HIGH_SCORE_THRESHOLD, (notes.score, notes.flags)
    assert (notes.score >= HIGH_SCORE_THRESHOLD) == (english.score >= HIGH_SCORE_THRESHOLD)


def test_korean_endings_are_stemmed_like_english_suffixes():
    # One term whatever the ending, as "searching", "searched" and "search" are one stem.
    forms = ["검색", "검색해서", "검색한", "검색함", "검색하기를", "검색됩니다"]
    assert {tuple(term.unit for term in Text(form).terms) for form in forms} == {("검색",)}
    # No bigram across a stem and its ending: "해결함" gave "결함" (a defect), "적용합니다" "용합".
    assert [term.unit for term in Text("충돌은 체이닝으로 해결함").terms] == ["충돌", "체이", "이닝", "해결"]
    assert [term.unit for term in Text("적용합니다").terms] == ["적용"]
    # A two-syllable noun is never cut to one syllable ("차이", "부하", "권한").
    assert [term.unit for term in Text("차이가 부하 권한").terms] == ["차이", "부하", "권한"]


def test_twin_sets_agree_on_correct_answers():
    """bench/bilingual_twins.py's sets (a development set and a held-out set written before the
    Korean grading was examined): a correct Korean answer with its reference's key terms passes
    whenever its English twin does, and the sets' agreement stays at least as measured
    (docs/benchmarks.md)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from bilingual_twins import measure

    for name, least in (("dev", 38), ("heldout", 40)):
        measured = measure(name)
        assert measured["passed"]["ko"]["correct"] >= measured["passed"]["en"]["correct"], measured
        assert measured["by_kind"]["correct"]["agree"] >= measured["by_kind"]["correct"]["pairs"] - 1, measured
        assert measured["same_verdict"] >= least, measured


RAG = {
    "en": (
        "What is RAG (retrieval-augmented generation) and why is it used with LLMs?",
        "RAG first retrieves documents related to the question from an external knowledge store, then puts their "
        "content into the prompt so that the LLM generates its answer from them. It brings in recent or internal "
        "data without retraining the model and helps reduce hallucinations.",
        ["retrieval", "external knowledge", "prompt", "hallucination"],
        "It retrieves related documents from an external knowledge store and puts them in the prompt, then the LLM "
        "generates the answer. Recent information is used without retraining, and hallucinations are reduced.",
    ),
    "ko": (
        "RAG(검색 증강 생성)란 무엇이며, LLM에 왜 사용하나요?",
        "RAG는 질문과 관련된 문서를 외부 지식 저장소에서 먼저 검색한 뒤, 그 내용을 프롬프트에 함께 넣어 "
        "LLM이 답변을 생성하게 하는 방식입니다. 모델을 다시 학습시키지 않고도 최신 정보나 사내 데이터를 반영할 수 "
        "있고 환각을 줄이는 데 도움이 됩니다.",
        ["검색", "외부 지식", "프롬프트", "환각"],
        "외부 지식 저장소에서 관련 문서 검색 후 프롬프트에 포함, LLM이 답변 생성. 재학습 없이 최신 정보 반영 가능, "
        "환각 감소.",
    ),
}


def test_a_complete_korean_answer_in_note_style_is_not_taken_for_a_list_of_terms():
    # Every key term, in sentences without verb endings: it was flagged as a bare list of terms
    # (capped at 60, sent to review) where its English twin passed.
    english, korean = (
        grade(Material(answer=answer, reference=reference, keywords=keywords, stem=stem))
        for stem, reference, keywords, answer in (RAG["en"], RAG["ko"])
    )
    assert english.score >= HIGH_SCORE_THRESHOLD
    assert "term_list" not in korean.flags
    assert korean.score >= HIGH_SCORE_THRESHOLD, (korean.score, korean.flags)
    assert korean.needs_review == english.needs_review
