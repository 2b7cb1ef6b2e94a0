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
