"""The MCP server's own inputs (functions/mcp): what an agent sends where the HTTP API reads a
path parameter or the token. The six spec tools keep their own contracts; these cover Tool 6 on a
stored question, the Mode 1 round tools and the placement test's tools."""

from typing import Literal

from pydantic import Field

from slea.contracts.common import CategoryName, Contract
from slea.contracts.scoring import AnswerRequest
from slea.contracts.sessions import QuestionView, RoundStatus, StartRoundRequest

SessionIdText = Field(
    min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$", examples=["3f2b6c1e-9a4d-4e8b-b1f7-0c5d2a9e7f31"]
)


class AgentAnswerInput(AnswerRequest):
    """score_and_explain over MCP: a question of one of the caller's sessions; the answer key is
    looked up server-side (an agent never sends, nor sees, the key before answering)."""

    session_id: str = SessionIdText


class AgentSkipInput(Contract):
    """skip_question over MCP: a question of one of the caller's sessions, counted as a wrong
    answer (as POST /sessions/{session_id}/questions/{question_id}/skip)."""

    session_id: str = SessionIdText
    question_id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_\-]+$")


class AgentStartRoundInput(StartRoundRequest):
    """start_round over MCP: in one of the caller's sessions, or (session_id absent) a new one."""

    session_id: str | None = Field(
        default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$", description="absent: a new session"
    )


class AgentRoundInput(Contract):
    """get_round over MCP."""

    session_id: str = SessionIdText
    round: Literal[1, 2] = 1


class AgentRoundStatus(RoundStatus):
    """get_round's answer: the round's status and its questions as learners see them (no keys)."""

    questions: list[QuestionView] = Field(default_factory=list)


class AgentStartPlacementInput(Contract):
    """start_placement over MCP: a new placement test of the caller's in one category."""

    category: CategoryName = Field(description="the category the test measures (technical, business, general)")


class AgentPlacementInput(Contract):
    """next_placement_question over MCP: one of the caller's placement tests."""

    session_id: str = SessionIdText
