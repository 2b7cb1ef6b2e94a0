#!/usr/bin/env bash
# Print the path of a working Python 3.13 interpreter (the Lambda runtime we target), or fail
# with a message that says how to get one. pyenv shims exist for versions that are not
# selected, so every candidate is actually run before it is trusted.
set -u
candidates=("${PYTHON313:-}" python3.13)
if command -v pyenv >/dev/null 2>&1; then
  candidates+=("$(pyenv root)"/versions/3.13*/bin/python3.13)
fi
candidates+=(/usr/local/bin/python3.13 /usr/bin/python3.13 "$HOME"/.pyenv/versions/3.13*/bin/python3.13)
for candidate in "${candidates[@]}"; do
  [ -n "$candidate" ] || continue
  path=$(command -v "$candidate" 2>/dev/null) || continue
  if "$path" -c 'import sys, venv; sys.exit(sys.version_info[:2] != (3, 13))' >/dev/null 2>&1; then
    echo "$path"
    exit 0
  fi
done
echo "error: no Python 3.13 interpreter found (the Lambda runtime is python3.13)." >&2
echo "       Install one (e.g. 'pyenv install 3.13' or your OS package python3.13)," >&2
echo "       or point PYTHON313=/path/to/python3.13 at it." >&2
exit 1
