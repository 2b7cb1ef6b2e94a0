"""Code of a function run outside an invocation (the MCP tools through an in-memory client) keeps
the function's environment while an execution's task runs on another thread: they take turns."""

import os
import threading

import pytest

from slea_local.cloud import LocalCloud
from slea_local.runtime import LocalRuntime

pytestmark = pytest.mark.aws  # builds a local cloud


def test_an_invocation_on_another_thread_waits_and_leaves_the_functions_environment_whole():
    with LocalCloud() as cloud:
        runtime = LocalRuntime(cloud)
        secret = cloud.environment_of("McpFunction")["ID_SECRET_ARN"]
        invoked = threading.Event()

        def invoke() -> None:
            runtime.invoke("GetUserProfileFunction", {"user_id": "4b1c2d3e-5f60-4a7b-8c9d-0e1f2a3b4c5d"})
            invoked.set()

        with runtime.as_function("McpFunction"):
            other = threading.Thread(target=invoke)
            other.start()
            # A slow machine can only make this pass without the turn-taking, never fail with it.
            assert not invoked.wait(0.5)
            assert os.environ.get("ID_SECRET_ARN") == secret
        other.join(30)
        assert invoked.is_set()
