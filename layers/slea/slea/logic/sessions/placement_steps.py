"""A placement test's next step (POST /sessions/{id}/next, the MCP server's
next_placement_question): placement.py, with the planner, loaded by placements only (the route
and the tool import this module with their first request)."""

from slea.contracts.sessions import PlacementNext
from slea.logic.sessions.placement import next_question
from slea.platform.observability import tracer


@tracer.capture_method
def next_placement_question(session_id: str, user_id: str) -> PlacementNext:
    return next_question(session_id, user_id)
