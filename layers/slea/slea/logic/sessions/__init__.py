"""Sessions as the HTTP API and MCP serve them: create, list (to resume), questions without
keys, attempts, summary, reports."""
