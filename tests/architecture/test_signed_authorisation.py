"""Authorisation is tested with signed tokens. A test module of tests/security or tests/integration
that asserts a refusal (a 401 or 403 status, or a FORBIDDEN / UNAUTHORIZED error code) must not
send its requests with development tokens (the bearer string taken as the subject, an unsigned
JWT's claims read as they stand): those pass whatever API Gateway's authorizer would refuse.

What counts as the development-token path, read from each module's syntax tree:
- a test or fixture taking the `http` fixture when the module does not override `http` with
  `signed_http` (tests/conftest.py: the pool-signed path);
- `serve_in_background(...)`, `HttpApiAdapter(...)` or `local_server(...)` called without
  `signed_tokens=True`;
- `python -m slea_local serve` started without `--signed-tokens`.
Functions invoked directly with claims (the event API Gateway hands on after its check) and the
MCP server's in-memory client with a caller send no token at all: they test what the functions
do with claims already checked, and are not counted.

A module whose subject is the development mode itself is on ALLOWED, with the reason."""

import ast

from slea_local import REPO_ROOT

SCANNED = ("tests/security", "tests/integration")
REFUSAL_STATUSES = {401, 403}
REFUSAL_CODES = {"FORBIDDEN", "UNAUTHORIZED", "Unauthorized"}
DEVELOPMENT_SERVERS = {"serve_in_background", "HttpApiAdapter", "local_server"}

ALLOWED = {
    "tests/security/test_signed_tokens.py": "checks that the development mode stays the default of the local server",
    "tests/security/test_malformed_requests.py": "the development mode's own reading of a token's claims (never a 500)",
    "tests/security/test_hosted_signin.py": "that the development mode keeps its local sign-in, with no hosted one",
}


def asserts_a_refusal(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Constant)
        and not isinstance(node.value, bool)
        and (node.value in REFUSAL_STATUSES or node.value in REFUSAL_CODES)
        for node in ast.walk(tree)
    )


def _arguments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = function.args
    return {argument.arg for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}


def _signed_keyword(call: ast.Call) -> bool:
    return any(
        keyword.arg == "signed_tokens" and isinstance(keyword.value, ast.Constant) and keyword.value.value is True
        for keyword in call.keywords
    )


def development_token_uses(tree: ast.Module) -> list[str]:
    """Where the module sends requests with development tokens (empty: nowhere)."""
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    overridden = any(
        function.name == "http" and "signed_http" in _arguments(function)
        for function in tree.body
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    )
    found = []
    if not overridden:
        found += [f"{function.name}: the `http` fixture" for function in functions if "http" in _arguments(function)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name in DEVELOPMENT_SERVERS and not _signed_keyword(node):
                found.append(f"line {node.lineno}: {name}(...) without signed_tokens=True")
        if isinstance(node, (ast.List, ast.Tuple)):
            strings = {item.value for item in node.elts if isinstance(item, ast.Constant)}
            if {"slea_local", "serve"} <= strings and "--signed-tokens" not in strings:
                found.append(f"line {node.lineno}: slea_local serve without --signed-tokens")
    return found


def scanned_modules() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(REPO_ROOT)): ast.parse(path.read_text(encoding="utf-8"))
        for folder in SCANNED
        for path in sorted((REPO_ROOT / folder).rglob("test_*.py"))
    }


def test_no_module_checks_authorisation_with_development_tokens() -> None:
    offending = {
        name: uses
        for name, tree in scanned_modules().items()
        if asserts_a_refusal(tree) and (uses := development_token_uses(tree)) and name not in ALLOWED
    }
    assert offending == {}, "use signed tokens (the `signed_http` fixture): " + repr(offending)


def test_each_allowed_module_still_needs_its_place() -> None:
    modules = scanned_modules()
    assert {
        name: (asserts_a_refusal(modules[name]), bool(development_token_uses(modules[name]))) for name in ALLOWED
    } == dict.fromkeys(ALLOWED, (True, True))


def test_the_scan_finds_each_development_path_and_takes_the_signed_ones() -> None:
    refusing = "def test_x(http):\n    assert http('GET', '/review/queue', None, 'a')[0] == 403\n"
    assert asserts_a_refusal(ast.parse(refusing))
    assert not asserts_a_refusal(ast.parse("def test_x(http):\n    assert http('GET', '/x')[0] == 200\n"))
    assert development_token_uses(ast.parse(refusing)) == ["test_x: the `http` fixture"]
    overridden = "@pytest.fixture\ndef http(signed_http):\n    return signed_http\n\n" + refusing
    assert development_token_uses(ast.parse(overridden)) == []
    for source in (
        "with serve_in_background(runtime) as url: pass",
        "adapter = slea_local.http.HttpApiAdapter(runtime, signed_tokens=False)",
        "subprocess.Popen([sys.executable, '-m', 'slea_local', 'serve', '--port', '0'])",
    ):
        assert development_token_uses(ast.parse(source)), source
    for source in (
        "with serve_in_background(runtime, signed_tokens=True) as url: pass",
        "adapter = HttpApiAdapter(runtime, signed_tokens=True)",
        "subprocess.Popen([sys.executable, '-m', 'slea_local', 'serve', '--signed-tokens'])",
    ):
        assert development_token_uses(ast.parse(source)) == [], source
