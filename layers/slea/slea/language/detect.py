"""The one language detector: a text is Korean if it has a Hangul syllable, else English.

A question's language is decided once, by `question_language`, from everything the question says
(its stem, choices, reference answer and explanation): the grader's phrases, the feedback and the
key-leak guard all read it from here, so they cannot disagree about one question.
"""

from collections.abc import Iterable

from slea.constants import HANGUL, Language


def language_of(*texts: str | None) -> Language:
    """Korean if any of the texts has Hangul, else English."""
    return "ko" if any(text and HANGUL.search(text) for text in texts) else "en"


def question_language(
    stem: str | None,
    choices: Iterable[str] = (),
    reference_answer: str | None = None,
    explanation: str | None = None,
) -> Language:
    """The language of a question, and so of everything said about it."""
    return language_of(stem, *choices, reference_answer, explanation)
