"""Schemathesis hooks for `make fuzz-api` (loaded through SCHEMATHESIS_HOOKS).

An Idempotency-Key that the document allows is replaced by a new one for every request:
schemathesis draws keys from a small space and sends one key with different requests, which the
server rightly refuses (422 idempotency_key_reused). Keys the document forbids are sent as drawn."""
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
