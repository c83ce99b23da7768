"""What the Python checks share: a free port, a call of the API, a command run inside a suite
started by deploy/local/run.sh (the suite's own log lines printed only when the command failed),
and a local SMTP server with the links of the mail it took. `python3 suite.py mail-server WORK`
starts that server for a shell script and prints its settings as shell assignments."""
import email as email_parser
import glob
import json
import os
import socket
import subprocess
import sys
import time
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


def start_mail_server(work):
    """A local SMTP server speaking STARTTLS with a certificate of a new authority; answers its
    process, port, the folder it writes messages to and the authority's certificate."""
    folder = os.path.join(work, "mail")
    os.makedirs(folder)
    ca_key, ca, key, request, certificate, extensions = (
        os.path.join(work, name) for name in ("ca.key", "ca.pem", "smtp.key", "smtp.csr", "smtp.pem", "leaf.ext"))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl = lambda *arguments: subprocess.run(["openssl", *arguments], check=True, capture_output=True)
    openssl("req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=mail test authority",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    with open(extensions, "w") as file:
        file.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                   "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
    openssl("req", *ec, "-keyout", key, "-out", request, "-subj", "/CN=localhost")
    openssl("x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", certificate,
            "-days", "2", "-extfile", extensions)
    port = free_port()
    process = subprocess.Popen([sys.executable, os.path.join(root, "deploy", "local", "smtp-test-server.py"),
                                str(port), folder, "starttls", certificate, key], stdout=sys.stderr)
    deadline = time.time() + 30
    while not os.path.exists(os.path.join(folder, "ready")):
        if process.poll() is not None or time.time() > deadline:
            sys.exit("the SMTP test server did not start")
        time.sleep(0.1)
    return process, port, folder, ca


def mailed_link(folder, recipient, page, timeout=60):
    """The newest link to `…/console/#/<page>/<token>` in the plain text of the mail the server in
    `folder` took for `recipient`, waiting up to `timeout` seconds for one."""
    deadline = time.time() + timeout
    while True:
        for path in sorted(glob.glob(os.path.join(folder, "*.eml")),
                           key=lambda name: -int(os.path.basename(name).split(".")[0])):
            try:
                with open(path[:-len(".eml")] + ".json") as sidecar:
                    if recipient not in json.load(sidecar)["rcpt_tos"]:
                        continue
            except (OSError, ValueError):
                continue  # still being written
            with open(path, "rb") as file:
                parsed = email_parser.message_from_bytes(file.read())
            text = next(part.get_payload(decode=True).decode() for part in parsed.walk()
                        if part.get_content_type() == "text/plain")
            link = next((word for word in text.split() if f"/console/#/{page}/" in word), None)
            if link:
                return link
        if time.time() > deadline:
            raise AssertionError(f"no {page} link was mailed to {recipient} within {timeout} s")
        time.sleep(0.1)


if __name__ == "__main__" and sys.argv[1:2] == ["mail-server"]:
    process, port, folder, authority = start_mail_server(sys.argv[2])
    print(f"MAIL_PID={process.pid} MAIL_PORT={port} MAIL_DIR={folder} MAIL_CA={authority}")
