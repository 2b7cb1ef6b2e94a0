"""The project's constants, in one place: ranges, thresholds and limits, each tool's time budget
and retries, and the LLM settings. Contracts, logic and docs import these; nothing else hard-codes
them."""

import re
from typing import Final, Literal

# Question types and categories
QuestionType = Literal["multiple_choice", "true_false", "short_answer"]
Category = Literal["technical", "business", "general"]
SelfLevel = Literal["beginner", "intermediate", "advanced"]
Language = Literal["en", "ko"]  # a learner's language and an item's
HANGUL: Final = re.compile("[\uac00-\ud7a3]")  # any Hangul syllable: the text is (partly) Korean

QUESTION_TYPES: Final = frozenset({"multiple_choice", "true_false", "short_answer"})
SUPPORTED_CATEGORIES: Final = frozenset({"technical", "business", "general"})
SELF_LEVELS: Final = ("beginner", "intermediate", "advanced")

# Difficulty scale: 1-3 beginner, 4-6 intermediate, 7-9 advanced, 10 expert
DIFFICULTY_MIN: Final = 1
DIFFICULTY_MAX: Final = 10

# Tool 4 thresholds (validation score 0.0-1.0)
PASS_THRESHOLD: Final = 0.85
REVISE_THRESHOLD: Final = (0.70, 0.85)
REJECT_THRESHOLD: Final = 0.70
DEFAULT_VALIDATION_LLM_SCORE: Final = 0.5

MAX_QUESTIONS_PER_ROUND: Final = 20

# Tool 6 thresholds (answer score 0-100)
HIGH_SCORE_THRESHOLD: Final = 80
PARTIAL_CREDIT_RANGE: Final = (70, 79)
DEFAULT_SCORING_LLM_SCORE: Final = 50

# Text limits
STEM_MAX_LENGTH: Final = 250  # Tool 4 rule
QUESTION_STEM_MAX: Final = 2000  # Tool 5 input
EXPLANATION_MIN_LENGTH: Final = 500  # Tool 6
REFERENCE_ANSWER_MAX: Final = 4000  # a short answer's model answer (Tools 5 and 6)

# Every other text a caller can have stored is bounded too (docs/security.md): a stored question
# stays far below DynamoDB's 400 KB item limit, and a listing of many stays far below Lambda's 6 MB
# response.
# Each bound is several times what a real item needs; a longer value is refused naming its field.
CHOICE_MAX_LENGTH: Final = 500  # one multiple-choice option; also the longest answer key
CORRECT_KEY_MAX_LENGTH: Final = CHOICE_MAX_LENGTH  # an MC key names one of the choices
KEYWORD_MAX_LENGTH: Final = 100  # one of a short answer's correct keywords
CORRECT_KEYWORDS_MAX: Final = 20
EXPLANATION_MAX_LENGTH: Final = 4000  # an item's stored explanation
CATEGORY_MAX_LENGTH: Final = 100
CATEGORIES_MAX: Final = 10
ANSWER_MAX_LENGTH: Final = 4000  # a learner's answer
REPORT_REASON_MAX_LENGTH: Final = 500  # a learner's report on a question
REVIEW_NOTE_MAX_LENGTH: Final = 1000  # a reviewer's note
ID_MAX_LENGTH: Final = 128  # session, question, attempt and user ids
ROUND_ID_MAX_LENGTH: Final = 200  # "{session_id}_{round}_{timestamp}"

# Tool 4 batch bounds. Each stem is compared with every earlier one and every existing stem, and
# a stem may be QUESTION_STEM_MAX characters long: at these sizes, with every stem that long, the
# comparisons take about 2 s on one core (bench/near_duplicates.py), about 7 s at the function's
# 512 MB (a third of a vCPU), inside the 22 s its 120 s timeout leaves beside the LLM call's worst
# case (94.5 s, slea.llm.budget). A round is at most 20 questions; Tool 2 returns <= 10 templates.
VALIDATION_BATCH_MAX: Final = 200
VALIDATION_EXISTING_STEMS_MAX: Final = 200

# Counts
MIN_CHOICES: Final = 4
MAX_CHOICES: Final = 5
SOURCES_MAX: Final = 5  # a concept's sources (title + https URL), the references its explanations cite
SOURCE_TITLE_MAX_LENGTH: Final = 200
SOURCE_URL_MAX_LENGTH: Final = 500

# Tool 1: profile and survey ranges
YEARS_EXPERIENCE_MAX: Final = 60
SCORE_MAX: Final = 100

# Tool 2: search rules (the interests a search accepts, the difficulty window, the result cap)
INTERESTS_MIN_ITEMS: Final = 1
INTERESTS_MAX_ITEMS: Final = 10
INTEREST_MIN_LENGTH: Final = 1
INTEREST_MAX_LENGTH: Final = 50
TEMPLATE_DIFFICULTY_WINDOW: Final = 1.5
TEMPLATE_SEARCH_LIMIT: Final = 10

# Tool 3: keyword record limits and cache
KEYWORDS_MAX: Final = 20
CONCEPTS_MAX: Final = 60  # a 20-question round needs 20 distinct concepts in the learner's language
EXAMPLE_QUESTIONS_MAX: Final = 5
KEYWORDS_CACHE_TTL_SECONDS: Final = 3600

# Per-tool time budgets in seconds: each tool's AWS clients time out within them (slea.platform.aws)
TOOL_CONFIG: Final = {
    "get_user_profile": 3,
    "search_question_templates": 5,
    "get_difficulty_keywords": 2,
    "validate_question_quality": 10,
    "save_generated_question": 10,
    "score_and_explain": 15,
    # Not one of the six tools: the per-user rate limiter (slea.security.rate_limits) fails open, so
    # it waits little for DynamoDB before letting a request through.
    "rate_limits": 1,
}

# Attempts per DynamoDB call: Tool 1 three, Tools 2-3 one, the rate limiter two
TOOL_DB_ATTEMPTS: Final = {
    "get_user_profile": 3,
    "search_question_templates": 1,
    "get_difficulty_keywords": 1,
    "rate_limits": 2,
}

# LLM settings for question writing (grading runs colder: slea.llm.gemini); the model is
# configurable, see slea.llm
LLM_DEFAULT_MODEL: Final = "gemini-2.5-flash"
LLM_TEMPERATURE: Final = 0.7
LLM_TOP_P: Final = 0.95
LLM_MAX_OUTPUT_TOKENS: Final = 1024
LLM_TIMEOUT_SECONDS: Final = 30

# Fallbacks: Tool 1's profile when a learner's survey is missing or unreadable, Tool 3's keywords
# when nothing better is available
FALLBACK_PROFILE: Final = {
    "self_level": "beginner",
    "years_experience": 0,
    "job_role": "Unknown",
    "duty": "Not specified",
    "interests": [],
    "previous_score": 0,
}

DEFAULT_KEYWORDS: Final = {
    "keywords": ["Communication", "Problem Solving", "Teamwork", "Critical Thinking", "Adaptability"],
    "concepts": [
        {
            "name": "Effective Communication",
            "acronym": "EC",
            "definition": "Clear and efficient exchange of information",
            "key_points": ["Clear message formulation", "Active listening", "Feedback exchange"],
        },
        {
            "name": "Problem-Solving Approach",
            "acronym": "PSA",
            "definition": "Systematic method for addressing challenges",
            "key_points": ["Define the problem", "Generate solutions", "Evaluate and implement"],
        },
    ],
    "example_questions": [
        {
            "stem": "What is effective communication in a team?",
            "type": "short_answer",
            "difficulty_score": 5.0,
            "answer_summary": "Clear exchange of information with active listening",
        }
    ],
}

# The largest request body the HTTP API and the MCP server read (413 past it): the largest valid
# request (an answer of 4,000 characters, an author's question) is far smaller.
MAX_BODY_BYTES: Final = 64 * 1024
