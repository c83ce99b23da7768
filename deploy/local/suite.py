"""What the Python checks share: a free port, a call of the API, and a command run inside a suite
started by deploy/local/run.sh (the suite's own log lines printed only when the command failed)."""
import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
import uuid

root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, body=None, token=None, headers=None):
    """One request with a fresh `Idempotency-Key`; answers its JSON. A refusal is an
    AssertionError holding the server's answer."""
    request = urllib.request.Request(base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    request.add_header("Idempotency-Key", str(uuid.uuid4()))
    if token:
        request.add_header("Authorization", "Bearer " + token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path}: {error.code} {error.read().decode(errors='replace')}") from None


def run_inside(script, arguments, data_dir, **settings):
    """Runs `python3 script arguments…` inside a fresh suite whose data lives in `data_dir`, with
    the ORDERLY_* `settings` given (ORDERLY_HTTP_PORT a free port unless given); answers its exit code."""
    environment = dict(os.environ, ORDERLY_DATA_DIR=data_dir, ORDERLY_LOG_LEVEL="warning",
                       ORDERLY_HTTP_PORT=str(free_port()), **settings)
    run = subprocess.run([os.path.join(root, "deploy", "local", "run.sh"), sys.executable, os.path.abspath(script),
                          *arguments], env=environment, cwd=root, capture_output=True, text=True)
    lines = run.stdout.splitlines()
    print("\n".join(lines if run.returncode else [line for line in lines if not line.startswith("[")]))
    if run.returncode:
        print(run.stderr[-4000:])
    return run.returncode
