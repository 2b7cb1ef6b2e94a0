"""Korean particles chosen by the sound before them (slea.language.korean_particles), and keywords
without attached particles. Every case is a sentence a learner could read."""

import pytest

from slea.language.korean_particles import bare_term, final_sound, resolve_particles, with_particle


@pytest.mark.parametrize(
    ("written", "read"),
    [
        # Hangul: batchim or none; ㄹ takes 로 like a vowel
        ("모델은(는) 학습된다", "모델은 학습된다"),
        ("데이터은(는) 크다", "데이터는 크다"),
        ("캐시이(가) 있다", "캐시가 있다"),
        ("벡터이(가) 있다", "벡터가 있다"),
        ("토큰이(가) 있다", "토큰이 있다"),
        ("사과을(를) 먹는다", "사과를 먹는다"),
        ("밥을(를) 먹는다", "밥을 먹는다"),
        ("서버와(과) 클라이언트", "서버와 클라이언트"),
        ("입력와(과) 출력", "입력과 출력"),
        ("집(으)로 간다", "집으로 간다"),
        ("파일(으)로 저장", "파일로 저장"),
        ("모델(으)로 예측", "모델로 예측"),
        ("서버(으)로 보낸다", "서버로 보낸다"),
        ("임베딩(이)란 무엇인가?", "임베딩이란 무엇인가?"),
        ("캐시(이)란 무엇인가?", "캐시란 무엇인가?"),
        ("민수아(야)", "민수야"),
        ("학생이에요(예요)", "학생이에요"),
        ("친구(이)에요", "친구예요"),
        # every written style of the alternation
        ("모델(은)는", "모델은"),
        ("데이터는(은)", "데이터는"),
        ("모델이/가", "모델이"),
        ("모델와/과", "모델과"),
        # acronyms, spelled out by their letters' Korean names
        ("API은(는) 계약이다", "API는 계약이다"),
        ("GPU이(가) 필요하다", "GPU가 필요하다"),
        ("LLM은(는) 모델이다", "LLM은 모델이다"),
        ("RAM이(가) 부족하다", "RAM이 부족하다"),
        ("SQL(으)로 조회한다", "SQL로 조회한다"),
        ("URL와(과) 헤더", "URL과 헤더"),
        ("AWS을(를) 쓴다", "AWS를 쓴다"),
        ("DynamoDB은(는)", "DynamoDB는"),
        ("GraphQL(으)로", "GraphQL로"),
        # words, read as loanwords by their ending
        ("PyTorch은(는) 프레임워크다", "PyTorch는 프레임워크다"),
        ("Python을(를) 쓴다", "Python을 쓴다"),
        ("Docker와(과) Kubernetes", "Docker와 Kubernetes"),
        ("Kubernetes(으)로 배포", "Kubernetes로 배포"),
        ("token(으)로 나눈다", "token으로 나눈다"),
        ("model은(는)", "model은"),
        ("model(으)로", "model로"),
        ("pipeline이(가)", "pipeline이"),
        ("stack을(를)", "stack을"),
        ("Git(으)로", "Git으로"),
        ("GitHub에서 GitHub은(는)", "GitHub에서 GitHub는"),
        ("logic이(가)", "logic이"),
        # digits, read as Sino-Korean numbers
        ("3은(는) 홀수다", "3은 홀수다"),
        ("2이(가) 짝수다", "2가 짝수다"),
        ("10을(를) 더한다", "10을 더한다"),
        ("2025와(과) 2026", "2025와 2026"),
        ("1,000은(는)", "1,000은"),
        ("OAuth 2.0은(는) 표준이다", "OAuth 2.0은 표준이다"),
        ("7(으)로 나눈다", "7로 나눈다"),
        ("50%이(가) 넘는다", "50%가 넘는다"),
        # what is set aside before the word: a parenthesis, quotes
        ("인공지능(AI)은(는) 분야다", "인공지능(AI)은 분야다"),
        ("검색 증강 생성(RAG)(이)란 무엇인가?", "검색 증강 생성(RAG)이란 무엇인가?"),
        ('참/거짓: "캐시는 빠르다"은(는) 캐시에 해당한다.', '참/거짓: "캐시는 빠르다"는 캐시에 해당한다.'),
        # nothing to resolve
        ("PyTorch is a framework (open source).", "PyTorch is a framework (open source)."),
        ("입력/출력 (참/거짓)", "입력/출력 (참/거짓)"),
    ],
)
def test_each_alternation_takes_the_form_its_word_needs(written, read):
    assert resolve_particles(written) == read


@pytest.mark.parametrize(
    ("text", "sound"),
    [("강", "consonant"), ("가", "vowel"), ("말", "rieul"), ("API", "vowel"), ("HTML", "rieul"), ("JSON", "consonant"),
     ("100", "consonant"), ("0", "consonant"), ("9", "vowel"), ("黃金", "consonant"), ("", "consonant")],
)  # fmt: skip
def test_final_sound_always_picks_one(text, sound):
    assert final_sound(text) == sound


def test_with_particle_takes_any_form_of_the_particle():
    assert with_particle("PyTorch", "을") == "PyTorch를"
    assert with_particle("모델", "로") == "모델로"
    assert with_particle("집", "로") == "집으로"
    assert with_particle("API", "은(는)") == "API는"
    assert with_particle("모델", "의") == "모델의"


@pytest.mark.parametrize(
    ("word", "bare"),
    [
        ("PyTorch가", "PyTorch"),
        ("AES가", "AES"),
        ("GPT-4o를", "GPT-4o"),
        ("Kubernetes에서", "Kubernetes"),
        ("API화", "API화"),  # 화 is a suffix, not a particle
        ("머신러닝은", "머신러닝"),
        ("알고리즘으로", "알고리즘"),
        ("사용자로", "사용자"),
        ("정밀도와", "정밀도"),
        ("결과의", "결과"),
        ("스케줄링함", "스케줄링"),
        ("사용됨", "사용"),
        # nouns whose last syllable looks like a particle stay whole
        ("전문가", "전문가"),
        ("게이트웨이", "게이트웨이"),
        ("효과", "효과"),
        ("역효과", "역효과"),
        ("정확도", "정확도"),
        ("원으로", "원으로"),
        ("포함", "포함"),
        ("사용하는", "사용하는"),
        ("PyTorch", "PyTorch"),
    ],
)
def test_keywords_lose_an_attached_particle_only(word, bare):
    assert bare_term(word) == bare


def test_a_particle_nouns_also_end_with_goes_only_when_the_rest_is_a_known_term():
    assert bare_term("유사도만") == "유사도만"
    assert bare_term("유사도만", known={"유사도"}) == "유사도"


def test_the_ending_of_a_verb_is_no_particle_and_a_verbs_form_reads_as_one():
    from slea.language.korean_particles import bare_term
    from slea.language.shown_terms import reads_as_a_verb

    # -거나 ("or") after a verb's stem, not the particle 나 after a noun.
    assert bare_term("답하거나") == "답하거나"
    assert bare_term("저장되거나") == "저장되거나"
    assert bare_term("데이터나") == "데이터"  # a noun and 나 still lose the particle
    for verb in ("답하거나", "저장되는", "정해진", "사용한", "연결된", "처리한다", "분산하는"):
        assert reads_as_a_verb(verb), verb
    for noun in ("제한", "권한", "데이터", "인공지능", "정확도", "이해관계자", "학습"):
        assert not reads_as_a_verb(noun), noun
