"""Writes bench/data/grading_cases/contradictions.jsonl (CC0, like the other constructed cases):
answers that must never be finalised as correct, built from the references of english.jsonl and
korean.jsonl by fixed rules, plus hand-written ones (HAND_WRITTEN).

Rules, applied to each question's reference answer:
- `negated`: the first sentence's main verb negated. English: "not" after the first auxiliary
  (is, are, can, does ...; "can" -> "cannot") if it is among the first six words, else the
  reference prefixed with "It is not true that". Korean: the first sentence's final predicate
  ("입니다" -> "이 아닙니다", "합니다" -> "하지 않습니다", "됩니다" -> "되지 않습니다",
  "있습니다" -> "없습니다"). A reference with neither is skipped.
- `antonym`: the first word of the reference that belongs to an opposite pair (the grader's own
  list, so this measures the wiring, not the list's reach; the hand-written rows use pairs
  phrased freely) replaced by its opposite.
- `nonsense`: the reference followed by a sentence about something else.
- `word_salad`: the reference followed by unrelated words without punctuation.
- `copied_option`: another question's reference, shown to the learner as an option of the round;
  and (COPIED_ON_TOPIC) another item's option close to this question's reference, pasted.

    PYTHONPATH=layers/slea:. python bench/contradiction_cases.py
"""

import json
import re
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parent / "data" / "grading_cases"
AUXILIARIES = re.compile(r"\b(is|are|was|were|can|does|do|will|has|have|must|should|may)\b")
MAIN_VERB_WITHIN = 6  # words before the auxiliary; later ones belong to a subordinate clause
KOREAN_PREDICATES = (
    ("있습니다", "없습니다"),
    ("입니다", "이 아닙니다"),
    ("합니다", "하지 않습니다"),
    ("됩니다", "되지 않습니다"),
)
NONSENSE = {"en": " Bananas are purple on Tuesdays.", "ko": " 바나나는 화요일마다 보라색으로 변합니다."}
SALAD = {"en": " colorless green ideas flumph furiously", "ko": " 보라색 코끼리 바이올린 화요일 춤"}
HAND_WRITTEN: list[dict[str, Any]] = [
    {
        "language": "en",
        "kind": "negated",
        "question": "What does a stack allow?",
        "keywords": ["top"],
        "reference_answer": "A stack allows access only to its top element: the element pushed last is popped first.",
        "answer": "A stack does not allow access to its top element: the element pushed last is never popped first.",
    },
    {
        "language": "en",
        "kind": "negated",
        "question": "Does a stack allow random access?",
        "keywords": ["top"],
        "reference_answer": "A stack does not allow random access; only the top element can be read.",
        "answer": "A stack allows random access, so any element can be read directly.",
    },
    {
        "language": "en",
        "kind": "antonym",
        "question": "What happens to the collision domain when the speed rises?",
        "keywords": ["diameter"],
        "reference_answer": (
            "When the transmission speed increases tenfold, the collision domain diameter decreases by a factor of ten."
        ),
        "answer": (
            "When the transmission speed increases tenfold, the collision domain diameter increases by a factor of ten."
        ),
    },
    {
        "language": "en",
        "kind": "antonym",
        "question": "How does a queue order its elements?",
        "keywords": ["FIFO"],
        "reference_answer": "A queue is FIFO: the first element added is the first one removed.",
        "answer": "A queue is LIFO: the last element added is the first one removed.",
    },
    {
        "language": "ko",
        "kind": "negated",
        "question": "스택은 임의 접근을 허용하나요?",
        "keywords": ["맨 위"],
        "reference_answer": "스택은 임의 접근을 허용하지 않으며 맨 위 원소만 읽을 수 있습니다.",
        "answer": "스택은 임의 접근을 허용하므로 어떤 원소든 바로 읽을 수 있습니다.",
    },
    {
        "language": "ko",
        "kind": "antonym",
        "question": "캐시를 쓰면 응답 시간은 어떻게 되나요?",
        "keywords": ["응답 시간"],
        "reference_answer": "캐시를 사용하면 자주 쓰는 데이터를 가까이 두어 응답 시간이 감소합니다.",
        "answer": "캐시를 사용하면 자주 쓰는 데이터를 가까이 두어 응답 시간이 증가합니다.",
    },
]


# Another item of the round shows, as one of its options, a statement close to this question's
# reference: pasting it is no evidence of knowing the answer (the rows' shown_option).
COPIED_ON_TOPIC: list[dict[str, Any]] = [
    {
        "language": "en",
        "kind": "copied_option",
        "question": "What is retrieval-augmented generation (RAG) and why is it used with LLMs?",
        "keywords": ["retrieve", "external knowledge", "prompt", "grounded"],
        "reference_answer": (
            "RAG retrieves documents relevant to the user's query from an external knowledge source and adds them "
            "to the prompt, so the LLM generates an answer grounded in that retrieved context."
        ),
        "shown_option": (
            "C) It retrieves relevant documents from an external knowledge source and puts them in the prompt so "
            "that the LLM's generated answer is grounded in them."
        ),
    },
    {
        "language": "ko",
        "kind": "copied_option",
        "question": "RAG(검색 증강 생성)란 무엇이며, LLM에 왜 사용하나요?",
        "keywords": ["검색", "외부 지식", "프롬프트"],
        "reference_answer": (
            "RAG는 질문과 관련된 문서를 외부 지식 저장소에서 먼저 검색한 뒤, 그 내용을 프롬프트에 함께 넣어 LLM이 "
            "답변을 생성하게 하는 방식입니다."
        ),
        "shown_option": (
            "B) 외부 지식 저장소에서 관련 문서를 검색해 프롬프트에 넣고, LLM이 그 문서를 근거로 답변을 생성한다."
        ),
    },
]


def negate(reference: str, language: str) -> str | None:
    if language == "en":
        match = AUXILIARIES.search(reference)
        if match is None or len(reference[: match.start()].split()) > MAIN_VERB_WITHIN:
            return "It is not true that " + reference[0].lower() + reference[1:]
        word = match.group(0)
        return reference[: match.start()] + ("cannot" if word == "can" else f"{word} not") + reference[match.end() :]
    first, dot, rest = reference.partition(".")
    for positive, negative in KOREAN_PREDICATES:
        if first.endswith(positive):
            return first[: -len(positive)] + negative + dot + rest
    return None


def swap_opposite(reference: str, language: str) -> str | None:
    from slea.grading.contradiction import ENGLISH_OPPOSITES, KOREAN_OPPOSITES

    pairs = ENGLISH_OPPOSITES if language == "en" else KOREAN_OPPOSITES
    for word in re.findall(r"\w+", reference):
        for a, b in pairs:
            if a in reference.casefold() and b in reference.casefold():
                continue  # both already stated: a swap would not change the meaning
            for this, that in ((a, b), (b, a)):
                if language == "en" and word.casefold() == this:
                    return re.sub(rf"\b{word}\b", that, reference, count=1)
                if language == "ko" and word.startswith(this) and that not in word:
                    return reference.replace(word, that + word[len(this) :], 1)
    return None


def build() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for language, code in (("english", "en"), ("korean", "ko")):
        source = [json.loads(line) for line in (CASES / f"{language}.jsonl").read_text(encoding="utf-8").splitlines()]
        questions = {row["id"].rsplit("-", 1)[0]: row for row in source}
        keys = list(questions)
        for number, key in enumerate(keys):
            row = questions[key]
            reference = row["reference_answer"]
            other = questions[keys[(number + 1) % len(keys)]]["reference_answer"]
            made = {
                "negated": negate(reference, code),
                "antonym": swap_opposite(reference, code),
                "nonsense": reference + NONSENSE[code],
                "word_salad": reference + SALAD[code],
                "copied_option": other,
            }
            for kind, answer in made.items():
                if answer is not None and answer != reference:
                    rows.append(
                        {
                            "id": f"{key}-{kind}",
                            "language": code,
                            "source": key,
                            "question": row["question"],
                            "reference_answer": reference,
                            "keywords": row["keywords"],
                            "answer": answer,
                            "kind": kind,
                            "label": "incorrect",
                            "shown_option": other,
                        }
                    )
    for number, row in enumerate(HAND_WRITTEN):
        rows.append(
            {
                "id": f"hand-{number:02d}-{row['kind']}",
                "source": "hand",
                "keywords": [],
                "label": "incorrect",
                "shown_option": "",
                **row,
            }
        )
    for number, row in enumerate(COPIED_ON_TOPIC):
        answer = row["shown_option"].split(") ", 1)[1]
        rows.append({"id": f"hand-copy-{number:02d}", "source": "hand", "label": "unknown", "answer": answer, **row})
    return rows


if __name__ == "__main__":
    lines = [json.dumps(row, ensure_ascii=False) for row in build()]
    (CASES / "contradictions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} cases written")
