"""The model test's way to the suite's HTTP API: each request made as one actor (a signed-in user,
the payment provider, or nobody), answered as a `Reply`, and recorded in the run's `Journal` so
that a failing sequence can be printed as the requests it made."""
import hashlib
import hmac
import json
import os
import threading
import time
import urllib.error
import urllib.request
import uuid


class Reply:
    """An answer: its status and JSON body, with the error envelope's reason and details read out."""

    def __init__(self, status, body):
        self.status = status
        self.body = body

    @property
    def error(self):
        """The error envelope's body, or an empty dict for an answer that is not an error."""
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"]
        return {}

    @property
    def reason(self):
        """The refusal's `error.reason`, when it has one."""
        return self.error.get("reason")

    @property
    def details(self):
        """The refusal's `error.details` (for a 400, the fields it names)."""
        return self.error.get("details") or {}

    def __getitem__(self, key):
        """A field of a JSON object answer."""
        return self.body[key]

    def get(self, key, default=None):
        """A field of a JSON object answer, or `default`."""
        return self.body.get(key, default) if isinstance(self.body, dict) else default

    def summary(self):
        """The answer in a few words: the status, and the reason of a refusal."""
        if self.status >= 400:
            message = self.error.get("message", "")
            return f"{self.status} {self.reason or self.error.get('code', '')}: {message}"[:200]
        return str(self.status)


class Actor:
    """Someone who calls the API: a name for the journal (`owner`, `courier_a`, `customer_2`), the
    user's role, id, store and access token."""

    def __init__(self, name, role, user_id=None, token=None, store_id=None, email=None, refresh_token=None):
        self.name = name
        self.role = role
        self.id = user_id
        self.token = token
        self.store_id = store_id
        self.email = email
        self.refresh_token = refresh_token
        self.signed_at = time.monotonic()

    def __repr__(self):
        return self.name


class Journal:
    """Every request of the current example, grouped by the step that made it; steps are named as
    Hypothesis prints them, so that the printed program and the requests read side by side."""

    def __init__(self):
        self.lock = threading.Lock()
        self.steps = []

    def begin(self, title):
        """Starts a step: the requests from now on are its own."""
        with self.lock:
            self.steps.append((title, []))

    def record(self, line):
        """Adds a request's line to the current step."""
        with self.lock:
            if not self.steps:
                self.steps.append(("setup", []))
            self.steps[-1][1].append(line)

    def render(self):
        """The steps and their requests as text, the invariant checks' reads left out but for the
        last step's, which show what failed."""
        lines = []
        for index, (title, requests) in enumerate(self.steps):
            lines.append(f"-- {title}")
            last = index == len(self.steps) - 1
            for line in requests:
                if last or not line.startswith("  (check)"):
                    lines.append(line)
        return "\n".join(lines)


class Api:
    """The gateway at `base`, with the payment provider's secret to sign reports; each request is
    recorded in `journal`."""

    def __init__(self, base, provider, secret):
        self.base = base
        self.provider = provider
        self.secret = secret
        self.journal = Journal()

    def send(self, actor, method, path, body=None, key=None, check=False):
        """One request as `actor` (None: without a token); POSTs and PATCHes carry an
        `Idempotency-Key` (`key`, or a fresh one). `check` marks an invariant check's read, which
        the journal prints apart. Tokens older than ten minutes are refreshed first (they last
        fifteen)."""
        if actor is not None and actor.refresh_token and time.monotonic() - actor.signed_at > 600:
            self.refresh(actor)
        headers = {"Content-Type": "application/json"}
        if method in ("POST", "PATCH", "PUT"):
            headers["Idempotency-Key"] = key or str(uuid.uuid4())
        if actor is not None and actor.token:
            headers["Authorization"] = "Bearer " + actor.token
        data = json.dumps(body).encode() if body is not None else None
        reply = self.exchange(method, path, data, headers)
        self.note(actor.name if actor else "anyone", method, path, body, reply, check)
        return reply

    def exchange(self, method, path, data, headers):
        """The request on the wire; a connection refused is tried again for a few seconds (a
        request that reached the server never is: it may have been carried out)."""
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        for attempt in range(20):
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    text = response.read()
                    return Reply(response.status, json.loads(text) if text else None)
            except urllib.error.HTTPError as error:
                text = error.read()
                try:
                    return Reply(error.code, json.loads(text) if text else None)
                except ValueError:
                    return Reply(error.code, {"error": {"code": "unparsed", "message": text.decode(errors="replace")}})
            except (ConnectionRefusedError, urllib.error.URLError) as error:
                refused = isinstance(getattr(error, "reason", error), ConnectionRefusedError)
                if not refused or attempt == 19:
                    raise
                time.sleep(0.25)

    def note(self, who, method, path, body, reply, check):
        """Records a request and its answer in the journal, one line."""
        prefix = "  (check) " if check else "  "
        shown = "" if body is None else " " + json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        self.journal.record(f"{prefix}{who}: {method} {path}{shown} -> {reply.summary()}")

    def sign_in(self, actor, password):
        """Signs `actor` in by e-mail and password: their token and id. A 429 of the limit on
        sign-ins per address waits as its `Retry-After` says and tries again."""
        for _ in range(10):
            reply = self.send(None, "POST", "/v1/auth/login", {"email": actor.email, "password": password})
            if reply.status != 429:
                break
            time.sleep(min(int(reply.details.get("retry_after_seconds", 30)), 300))
        if reply.status != 200:
            raise RuntimeError(f"{actor.name} could not sign in: {reply.summary()}")
        self.adopt(actor, reply)

    def adopt(self, actor, reply):
        """Takes the tokens and the user's id from a sign-in, sign-up or refresh answer."""
        actor.token = reply["access_token"]
        actor.refresh_token = reply["refresh_token"]
        actor.id = reply["user"]["id"]
        actor.signed_at = time.monotonic()

    def refresh(self, actor):
        """Exchanges the actor's refresh token for a new pair."""
        refresh, actor.refresh_token = actor.refresh_token, None
        reply = self.send(None, "POST", "/v1/auth/refresh", {"refresh_token": refresh})
        if reply.status != 200:
            raise RuntimeError(f"{actor.name}'s session could not be refreshed: {reply.summary()}")
        self.adopt(actor, reply)

    def report(self, fields):
        """The payment provider's report (`POST /v1/payments/provider-events`), signed as providers
        sign: `Orderly-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`."""
        text = json.dumps(fields, separators=(",", ":"))
        seconds = int(time.time())
        code = hmac.new(self.secret.encode(), f"{seconds}.{text}".encode(), hashlib.sha256).hexdigest()
        headers = {"Content-Type": "application/json", "Orderly-Signature": f"t={seconds},v1={code}"}
        reply = self.exchange("POST", "/v1/payments/provider-events", text.encode(), headers)
        self.note(self.provider, "POST", "/v1/payments/provider-events", fields, reply, False)
        return reply


def provider_secret():
    """The payment provider run.sh configured (`ORDERLY_PAYMENT_PROVIDER_SECRETS=name=secret`),
    the first one named: (name, secret)."""
    configured = os.environ["ORDERLY_PAYMENT_PROVIDER_SECRETS"].split(",")[0]
    name, _, secret = configured.partition("=")
    return name, secret


def paged(api, actor, path, check=True):
    """Every item of a keyset-paged list (`data`, `next_cursor`), and the first page's answer
    (for the figures beside the list, such as a balance's)."""
    separator = "&" if "?" in path else "?"
    reply = api.send(actor, "GET", f"{path}{separator}limit=200", check=check)
    if reply.status != 200:
        return reply, None
    items = list(reply["data"])
    cursor = reply.get("next_cursor")
    while cursor:
        page = api.send(actor, "GET", f"{path}{separator}limit=200&cursor={cursor}", check=check)
        if page.status != 200:
            return page, None
        items += page["data"]
        cursor = page.get("next_cursor")
    return reply, items
