"""The semantic signal (slea.grading.semantic): word vectors read from the files the wordllama wheel
ships, with nothing downloaded, loaded only when first needed, and values that make sense."""

import json
import os
import socket
import subprocess
import sys
from typing import Any

import pytest

from slea.grading import semantic
from slea_local import REPO_ROOT

QUESTION = "What is retrieval-augmented generation (RAG) and why is it used with LLMs?"
REFERENCE = (
    "RAG retrieves documents relevant to the user's query from an external knowledge source and adds them to "
    "the prompt, so the LLM generates an answer grounded in that retrieved context."
)
CASUAL_PARAPHRASE = "it looks stuff up first and then writes the answer using what it found"
JUNK = "Bananas are purple on Tuesdays and my cat likes jazz piano."


@pytest.fixture
def fresh_vectors() -> Any:
    """The vectors as if never loaded in this process."""
    semantic._vectors.cache_clear()
    semantic._unit_vector.cache_clear()
    yield
    semantic._vectors.cache_clear()
    semantic._unit_vector.cache_clear()


def test_the_vectors_load_and_compare_texts_with_every_connection_refused(monkeypatch, fresh_vectors):
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"network attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    assert semantic.available() is True
    assert semantic.similarity(REFERENCE, CASUAL_PARAPHRASE) is not None


def test_a_text_is_most_similar_to_itself_and_far_from_an_unrelated_one():
    itself = semantic.similarity(REFERENCE, REFERENCE)
    paraphrase = semantic.similarity(REFERENCE, CASUAL_PARAPHRASE)
    junk = semantic.similarity(REFERENCE, JUNK)
    assert itself == pytest.approx(1.0, abs=1e-6)
    assert paraphrase is not None
    assert junk is not None
    assert itself > paraphrase > junk
    assert abs(junk) < 0.1  # the vocabulary's common direction is removed: unrelated is near 0


def test_korean_is_compared_on_its_latin_script_words_only():
    korean_with_terms = "RAG는 LLM이 답하기 전에 외부 문서를 검색하는 방식입니다."
    assert semantic.latin_part(korean_with_terms) == "RAG LLM"
    assert semantic.similarity("검색 증강 생성", REFERENCE) is None  # no Latin word: no vector
    assert semantic.similarity(korean_with_terms, "RAG LLM") == pytest.approx(1.0, abs=1e-6)


def test_without_the_wordllama_files_there_is_no_similarity(monkeypatch, fresh_vectors):
    monkeypatch.setattr(semantic, "find_spec", lambda name: None)
    assert semantic.available() is False
    assert semantic.similarity(REFERENCE, REFERENCE) is None


def test_the_background_vector_belongs_to_the_installed_weights():
    background = json.loads(semantic.BACKGROUND.read_text(encoding="utf-8"))
    assert len(background["mean"]) == 256
    assert semantic.WORDLLAMA_VERSION in background["source"]
    assert semantic.available() is True  # loading checks the weights' sha256 against it


LAZY_SCRIPT = """
import json, sys
from slea.grading.evidence import Material
from slea.grading.offline import grade
at_import = sorted(name for name in ("tokenizers", "slea.grading.semantic") if name in sys.modules)
grade(Material(answer={on_topic!r}, reference={reference!r}, keywords=["retrieve"], stem={question!r}))
after_on_topic = "tokenizers" in sys.modules
grade(Material(answer={junk!r}, reference={reference!r}, keywords=["retrieve"], stem={question!r}))
after_junk = "tokenizers" in sys.modules
heavy = sorted(name for name in ("numpy", "requests", "wordllama", "huggingface_hub") if name in sys.modules)
print(json.dumps([at_import, after_on_topic, after_junk, heavy]))
"""


def test_the_vectors_are_loaded_when_a_short_answer_is_graded_never_at_import():
    script = LAZY_SCRIPT.format(on_topic=REFERENCE, reference=REFERENCE, question=QUESTION, junk=JUNK)
    path = os.pathsep.join([str(REPO_ROOT / "layers" / "slea"), *sys.path[1:]])
    output = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        check=True,
    )
    at_import, after_on_topic, after_junk, heavy = json.loads(output.stdout.strip().splitlines()[-1])
    assert at_import == []
    assert after_on_topic is True  # the fitted model reads the answer's similarity to the reference
    assert after_junk is True
    assert heavy == []  # no numpy, no wordllama import, no HTTP client
