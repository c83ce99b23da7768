"""Schemathesis hooks for `make fuzz-api` (loaded through SCHEMATHESIS_HOOKS).

An Idempotency-Key that the document allows is replaced by a new one for every request:
schemathesis draws keys from a small space and sends one key with different requests, which the
server rightly refuses (422 idempotency_key_reused). Keys the document forbids are sent as drawn.

With FUZZ_API_SEEN naming a file, every answer's role, operation, status, error code and the
fields its details name are appended to it, one tab-separated line each: what a run reached, to
compare runs of different sizes by."""
import json
import os
import re
import uuid

import schemathesis

VALID_KEY = re.compile(r"^[\x21-\x7E]{1,255}$")


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str) and VALID_KEY.match(headers[name]):
            headers[name] = "fuzz-" + uuid.uuid4().hex


SEEN = os.environ.get("FUZZ_API_SEEN")
ROLE = os.environ.get("FUZZ_API_ROLE", "")


@schemathesis.hook
def after_call(context, case, response):
    if not SEEN:
        return
    code, fields = "", ""
    try:
        body = json.loads(response.content or b"null")
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            code = str(body["error"].get("code", ""))
            if isinstance(body["error"].get("details"), dict):
                fields = ",".join(sorted(body["error"]["details"]))
    except ValueError:
        code = "(not json)"
    with open(SEEN, "a") as out:
        out.write(f"{ROLE}\t{case.operation.label}\t{response.status_code}\t{code}\t{fields}\n")
