"""Invoking the functions of template.yaml in-process: the handler named by CodeUri + Handler,
run with the environment the template gives that function and a Lambda-like context."""

import importlib.util
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from slea_local import REPO_ROOT
from slea_local.cloud import ACCOUNT, REGION, LocalCloud

Handler = Callable[[Any, Any], Any]


@dataclass
class LambdaContext:
    """The attributes of the Lambda context object that Powertools and our handlers read."""

    function_name: str
    memory_limit_in_mb: int = 512
    function_version: str = "$LATEST"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    timeout_seconds: int = 10

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return "local"

    def get_remaining_time_in_millis(self) -> int:
        return self.timeout_seconds * 1000


def reset_warm_state() -> None:
    """Forget what execution environments keep between invocations (clients, caches): a cold start."""
    from slea import aws
    from slea.tools import difficulty_keywords

    aws.dynamodb.cache_clear()
    difficulty_keywords.keyword_cache.clear()


class LocalRuntime:
    def __init__(self, cloud: LocalCloud) -> None:
        self.cloud = cloud
        self._modules: dict[str, ModuleType] = {}

    def function_id(self, name: str) -> str:
        """The logical id of a function given either that id or its tool name (CodeUri folder)."""
        functions = self.cloud.template.of_type("AWS::Serverless::Function")
        if name in functions:
            return name
        for logical_id, spec in functions.items():
            if Path(spec["Properties"]["CodeUri"]).name == name:
                return logical_id
        raise KeyError(f"template.yaml has no function {name!r}")

    def handler(self, name: str) -> Handler:
        logical_id = self.function_id(name)
        properties = {
            **self.cloud.template.function_globals,
            **self.cloud.template.resources[logical_id]["Properties"],
        }
        module_name, _, attribute = properties["Handler"].rpartition(".")
        if logical_id not in self._modules:
            path = REPO_ROOT / properties["CodeUri"] / f"{module_name.replace('.', '/')}.py"
            # Every function's module is called `app`; load each under a name of its own.
            spec = importlib.util.spec_from_file_location(f"functions.{logical_id}.{module_name}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            self._modules[logical_id] = module
        handler: Handler = getattr(self._modules[logical_id], attribute)
        return handler

    def invoke(self, name: str, event: Any) -> Any:
        """Run the function's handler as Lambda would; exceptions propagate to the caller."""
        logical_id = self.function_id(name)
        handler = self.handler(logical_id)
        with self.cloud.environment(self.cloud.environment_of(logical_id)):
            return handler(event, LambdaContext(function_name=f"{self.cloud.stack_name}-{logical_id}"))
