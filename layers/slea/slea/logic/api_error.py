"""The error the HTTP API's logic raises; functions/api/app.py turns it into an ErrorResponse."""


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.retry_after = retry_after  # seconds, sent as Retry-After (a 429's or a 503's)
