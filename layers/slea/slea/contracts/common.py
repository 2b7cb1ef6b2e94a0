"""Field types shared by several contracts, and the bridge from pydantic errors to the
`ValueError`/`TypeError` that the tools' callers (Step Functions, agents) expect."""

import math
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)
from pydantic_core import PydanticCustomError

from slea.constants import (
    CATEGORY_MAX_LENGTH,
    CHOICE_MAX_LENGTH,
    DIFFICULTY_MAX,
    DIFFICULTY_MIN,
    ID_MAX_LENGTH,
    KEYWORD_MAX_LENGTH,
    SUPPORTED_CATEGORIES,
    Category,
)


class Contract(BaseModel):
    """Base of every contract: unknown keys are ignored so callers may pass extra context."""

    model_config = ConfigDict(extra="ignore")


class OptionalExtras(Contract):
    """A contract with optional fields added to a spec shape: left out of the output when unset,
    so the spec's output object is unchanged for records that do not use them."""

    OMIT_WHEN_UNSET: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _omit_unset_extras(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in self.OMIT_WHEN_UNSET:
            if data.get(name) is None:
                data.pop(name, None)
        return data


def _difficulty_before(value: Any) -> Any:
    # A float is truncated to int; a string (even "7") or a bool is a type error.
    if isinstance(value, (bool, str)):
        raise PydanticCustomError(
            "int_type", "difficulty must be an integer, not {kind}", {"kind": type(value).__name__}
        )
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return value


def _category_before(value: Any) -> Any:
    # A category is compared lower-cased; a non-string is a type error.
    if not isinstance(value, str):
        raise PydanticCustomError(
            "string_type", "category must be a string, not {kind}", {"kind": type(value).__name__}
        )
    normalised = value.strip().lower()
    if normalised not in SUPPORTED_CATEGORIES:
        raise PydanticCustomError("category", "category must be one of {technical, business, general}")
    return normalised


Difficulty = Annotated[
    int,
    BeforeValidator(_difficulty_before),
    Field(ge=DIFFICULTY_MIN, le=DIFFICULTY_MAX, description="1-3 beginner, 4-6 intermediate, 7-9 advanced, 10 expert"),
]
CategoryName = Annotated[Category, BeforeValidator(_category_before)]
NonEmptyStr = Annotated[str, Field(strict=True, min_length=1)]
# Identifiers and answers: at least one non-space character.
NonBlankStr = Annotated[str, Field(strict=True, min_length=1, pattern=r"\S")]
# Ids in the HTTP API's paths (session, question, attempt): what a route can name.
ID_PATTERN = r"^[A-Za-z0-9_\-]+$"
# Bounded texts a caller can have stored (slea.constants, docs/security.md).
ChoiceText = Annotated[NonBlankStr, Field(max_length=CHOICE_MAX_LENGTH)]
KeywordText = Annotated[NonBlankStr, Field(max_length=KEYWORD_MAX_LENGTH)]
CategoryText = Annotated[NonBlankStr, Field(max_length=CATEGORY_MAX_LENGTH)]
IdText = Annotated[NonBlankStr, Field(max_length=ID_MAX_LENGTH)]


# Pydantic error types that mean "wrong type" rather than "wrong value".
def _is_type_error(error_type: str) -> bool:
    return error_type.endswith("_type") or error_type in {"is_instance_of", "none_required"}


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def to_python_error(error: ValidationError) -> ValueError | TypeError:
    """The first validation problem as `TypeError` (wrong type) or `ValueError` (wrong value),
    with a message that starts with the offending field's name."""
    first = error.errors(include_url=False)[0]
    field = _field_path(first["loc"])
    message = first["msg"]
    # Model-level rules (e.g. "choices required for multiple_choice") name their field themselves.
    text = message if not field or message.startswith(field) else f"{field}: {message}"
    remaining = error.error_count() - 1
    if remaining:
        text += f" (and {remaining} more problem{'s' if remaining > 1 else ''})"
    return TypeError(text) if _is_type_error(first["type"]) else ValueError(text)


def parse_input[ModelT: BaseModel](model: type[ModelT], event: Any) -> ModelT:
    """Validate a tool's direct-invocation event against its input contract."""
    if not isinstance(event, dict):
        raise TypeError(f"event must be a JSON object with the tool's parameters, not {type(event).__name__}")
    try:
        return model.model_validate(event)
    except ValidationError as error:
        raise to_python_error(error) from error
