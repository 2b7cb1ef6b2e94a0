"""The HTTP API's shared pieces: who is calling, the ErrorResponse body, and the one place a
domain refusal becomes an HTTP status (api.py)."""
