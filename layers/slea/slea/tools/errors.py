"""The error the HTTP API's logic raises; functions/api/app.py turns it into an ErrorResponse."""


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
