#!/usr/bin/env python3
"""Runs schemathesis against the running suite (started by fuzz-api.sh through run.sh).

Signs in one user of each role (and runs once more as an anonymous caller, an applicant's
view: no token), makes what the id-taking operations need (a store, an order
with a line, a cash payment and its receipt, pending payments, a product, reservations, a webhook
of each role's and its deliveries), writes a schemathesis configuration that gives
those ids to the operations' path parameters, and runs `st run` once per role with every
check, all phases (examples, coverage, fuzzing, stateful). Prints one line per role and exits
non-zero when any run found a failure. FUZZ_API_EXAMPLES bounds the examples per operation;
FUZZ_API_ROLES picks roles (comma-separated, all by default); FUZZ_API_COVERAGE_ROLES, the roles
whose runs include the coverage phase (all by default), which is most of a run's time and tries
each operation's inputs at and past their bounds. Each role's full report is kept in
FUZZ_API_REPORTS, with the CPU schemathesis spent on it; FUZZ_API_SEEN, a line per answer
(fuzz_api_hooks.py)."""
import json, os, resource, subprocess, sys, time, urllib.error, urllib.request, uuid

here = os.path.dirname(os.path.abspath(__file__))
base = f"http://127.0.0.1:{os.environ['ORDERLY_HTTP_PORT']}"
work = os.environ["FUZZ_API_WORK"]
reports = os.environ["FUZZ_API_REPORTS"]
os.makedirs(reports, exist_ok=True)
examples = int(os.environ.get("FUZZ_API_EXAMPLES", "25"))
roles = os.environ.get(
    "FUZZ_API_ROLES",
    "admin,owner,manager,staff,courier,customer,supervisor,support,accountant,social_media,anonymous").split(",")
coverage_roles = os.environ.get("FUZZ_API_COVERAGE_ROLES", ",".join(roles)).split(",")


def call(method, path, body=None, token=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    with urllib.request.urlopen(request) as answer:
        text = answer.read()
        return json.loads(text) if text else None


# Each user's sign-in and the refresh token of its session, by role.
sessions = {}


def sign_in(role, email, password="Password-12345"):
    """Signs the user in as `role`'s: users[role] is its access token. The runs' own attempts at
    signing in count against the limit per address: when it is reached, it waits as the 429 says
    and tries again."""
    for _ in range(10):
        try:
            pair = call("POST", "/v1/auth/login", {"email": email, "password": password})
            break
        except urllib.error.HTTPError as error:
            if error.code != 429:
                raise
            time.sleep(min(int(error.headers.get("Retry-After", "30")), 300))
    else:
        raise SystemExit(f"{email} could not sign in: rate limited")
    sessions[role] = (email, password, pair["refresh_token"])
    users[role] = pair["access_token"]


users = {}
sign_in("admin", os.environ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"], os.environ["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"])
store = call("POST", "/v1/stores", {"name": "Fuzz", "address": "1 Herzl St", "phone": "031234567"},
             users["admin"])["id"]
for role in ["owner", "manager", "staff", "courier", "customer", "supervisor", "support", "accountant",
             "social_media"]:
    body = {"email": f"{role}@fuzz.test", "name": role.title(), "role": role, "password": "Password-12345"}
    if role in ("owner", "manager", "staff"):
        body["store_id"] = store
    call("POST", "/v1/users", body, users["admin"])
    sign_in(role, f"{role}@fuzz.test")


def sign_in_again():
    """Fresh access tokens for every user: they last 15 minutes, and on a slow machine two runs
    take longer than that (the runs before had made the next role's orders as a 401). Each
    session is refreshed; one a run ended (it signed out) is signed in again."""
    for role, (email, password, refresh) in list(sessions.items()):
        try:
            pair = call("POST", "/v1/auth/refresh", {"refresh_token": refresh})
            sessions[role] = (email, password, pair["refresh_token"])
            users[role] = pair["access_token"]
        except urllib.error.HTTPError as error:
            if error.code != 401:
                raise
            sign_in(role, email, password)


call("PUT", "/v1/couriers/me/availability", {"on_duty": True}, users["courier"])
def new_order():
    """An order of the store, with one line, made by its staff: (order id, line id)."""
    order = call(
        "POST", "/v1/orders",
        {"recipient_first_name": "Dana", "recipient_last_name": "Levi", "phone": "0501234567",
         "street": "Allenby", "building_no": "1", "boxes_count": 2},
        users["staff"], {"Idempotency-Key": str(uuid.uuid4())})["id"]
    item = call(
        "POST", f"/v1/orders/{order}/items",
        {"type": "repair", "description": "Screen", "unit_price_gross": 35000}, users["staff"])["id"]
    return order, item


order, item = new_order()
def pending_payment():
    """A cash payment for a line the cashier types, pending. The runs before may have made the
    store require clocking in: undone first."""
    call("PATCH", f"/v1/stores/{store}", {"require_clock_in": False}, users["admin"])
    return call(
        "POST", "/v1/payments",
        {"items": [{"name": "Fuzz tea", "unit_price": 500, "quantity": 1, "vat_rate_bp": 1700}], "method": "cash"},
        users["staff"], {"Idempotency-Key": str(uuid.uuid4())})["id"]


# Cash goes through an open shift's drawer: the staff member clocks in for the sale.
call("POST", "/v1/shifts/clock-in", {}, users["staff"])
payment = call(
    "POST", "/v1/payments", {"amount": 5000, "method": "cash", "order_id": order}, users["staff"],
    {"Idempotency-Key": str(uuid.uuid4())})
payment = call("POST", f"/v1/payments/{payment['id']}/confirm", {"amount_tendered": 5000}, users["staff"])
me = {role: call("GET", "/v1/me", token=users[role])["id"] for role in users}
product = call(
    "POST", f"/v1/stores/{store}/products",
    {"name": "Fuzz cola", "sku": "FUZZ-1", "category": "Drinks", "price": 900, "track_stock": True,
     "quantity": 1000000}, users["admin"])["id"]


# One endpoint per role, made before any run (a store has at most 16, and the runs make more):
# it hears of new orders, and the orders each role's ids bring give it deliveries to list and
# send again. Its URL does not resolve here, so those deliveries stay pending.
webhooks = {
    role: call("POST", f"/v1/stores/{store}/webhooks",
               {"url": "https://hooks.example.com/orderly", "events": ["order.created"]}, users["admin"])["id"]
    for role in roles
}


def delivery(webhook):
    """A delivery of the endpoint: one of the order just made, once it is stored."""
    new_order()
    for _ in range(200):
        page = call("GET", f"/v1/webhooks/{webhook}/deliveries", token=users["admin"])["data"]
        if page:
            return page[0]["id"]
        time.sleep(0.05)
    raise SystemExit("no webhook delivery was stored")


def reservation():
    """A reservation of one unit of the product, held by the store's staff. The runs before may
    have taken the product off sale, stopped tracking its stock or sold it out: undone first."""
    call("PATCH", f"/v1/products/{product}", {"active": True, "track_stock": True}, users["admin"])
    call("POST", f"/v1/products/{product}/stock-adjustments", {"new_quantity": 1000000, "reason": "restock"},
         users["admin"])
    return call("POST", "/v1/reservations", {"store_id": store, "lines": [{"product_id": product, "quantity": 1}]},
                users["staff"])["id"]


def application():
    """A courier's application, pending: each role's own, since the runs decide them."""
    return call("POST", "/v1/applications",
                {"kind": "courier", "name": "Fuzz applicant", "email": f"applicant-{uuid.uuid4().hex[:12]}@fuzz.test",
                 "password": "Password-12345", "phone": "050 1234567", "vehicle": "scooter"})["id"]


def customer_and_card():
    """A customer record of the store and an active card linked to it, made by its staff: each
    role's own, since the runs delete records and block cards."""
    customer = call("POST", f"/v1/stores/{store}/customers", {"name": "Fuzz customer"}, users["staff"])["id"]
    uid = uuid.uuid4().hex[:14]
    card = call("POST", f"/v1/stores/{store}/cards", {"uid": uid, "customer_id": customer}, users["staff"])["id"]
    return customer, card


# Ids for the path parameters: what exists, so that operations get past 404. Each role works
# on orders of its own, and its actions on another one, so that an order one run cancels does
# not lock the next run out of changing orders.
def ids_for(role):
    order, item = new_order()
    acted, _ = new_order()
    customer, card = customer_and_card()
    return [
        ("/v1/stores/{id}", {"path.id": store}),
        ("/v1/orders/{id}", {"path.id": order}),
        ("/v1/orders/{id}/actions/{action}", {"path.id": acted}),
        ("/v1/orders/{id}/history", {"path.id": order}),
        ("/v1/orders/{id}/items", {"path.id": order}),
        ("/v1/orders/{id}/items/{item_id}", {"path.id": order, "path.item_id": item}),
        ("/v1/payments/{id}", {"path.id": payment["id"]}),
        ("/v1/payments/{id}/confirm", {"path.id": pending_payment()}),
        ("/v1/payments/{id}/cancel", {"path.id": pending_payment()}),
        ("/v1/stores/{id}/payments", {"path.id": store}),
        ("/v1/stores/{id}/receipts", {"path.id": store}),
        ("/v1/stores/{id}/shifts", {"path.id": store}),
        ("/v1/stores/{id}/stats", {"path.id": store}),
        ("/v1/stores/{id}/shifts/summary", {"path.id": store}),
        ("/v1/stores/{id}/payments/changes", {"path.id": store}),
        ("/v1/receipts/{id}", {"path.id": payment["receipt_id"]}),
        ("/v1/receipts/{id}/text", {"path.id": payment["receipt_id"]}),
        ("/v1/users/{id}", {"path.id": me.get(role, me["customer"])}),
        ("/v1/users/{id}/notifications", {"path.id": me["customer"]}),
        ("/v1/users/{id}/notifications/{seq}/resend", {"path.id": me["customer"]}),
        ("/v1/stores/{id}/staff", {"path.id": store}),
        ("/v1/stores/{id}/products", {"path.id": store}),
        ("/v1/stores/{id}/menu", {"path.id": store}),
        ("/v1/products/{id}", {"path.id": product}),
        ("/v1/products/{id}/stock-adjustments", {"path.id": product}),
        ("/v1/products/{id}/stock-ledger", {"path.id": product}),
        ("/v1/stores/{id}/stock-ledger", {"path.id": store}),
        ("/v1/reservations/{id}", {"path.id": reservation()}),
        ("/v1/reservations/{id}/commit", {"path.id": reservation()}),
        ("/v1/reservations/{id}/release", {"path.id": reservation()}),
        ("/v1/stores/{id}/customers", {"path.id": store}),
        ("/v1/customers/{id}", {"path.id": customer}),
        ("/v1/stores/{id}/cards", {"path.id": store}),
        ("/v1/stores/{id}/cards/lookup", {"path.id": store}),
        ("/v1/cards/{id}", {"path.id": card}),
        ("/v1/stores/{id}/activity", {"path.id": store}),
        ("/v1/stores/{id}/balance", {"path.id": store}),
        ("/v1/stores/{id}/payouts", {"path.id": store}),
        ("/v1/couriers/{id}/balance", {"path.id": me["courier"]}),
        ("/v1/couriers/{id}/payouts", {"path.id": me["courier"]}),
        ("/v1/applications/{id}", {"path.id": application()}),
        ("/v1/applications/{id}/approve", {"path.id": application()}),
        ("/v1/applications/{id}/reject", {"path.id": application()}),
        ("/v1/stores/{id}/webhooks", {"path.id": store}),
        ("/v1/webhooks/{id}", {"path.id": webhooks[role]}),
        ("/v1/webhooks/{id}/rotate-secret", {"path.id": webhooks[role]}),
        ("/v1/webhooks/{id}/deliveries", {"path.id": webhooks[role]}),
        ("/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
         {"path.id": webhooks[role], "path.delivery_id": delivery(webhooks[role])}),
    ]


failed = []
for role in roles:
    sign_in_again()
    config = os.path.join(work, f"{role}.toml")
    with open(config, "w") as out:
        out.write(f'base-url = "{base}"\nrequest-timeout = 45\n')
        if role in users:
            out.write(f'[auth.openapi.bearerAuth]\nbearer = "{users[role]}"\n')
        for path, parameters in ids_for(role):
            table = ", ".join(f'"{name}" = "{value}"' for name, value in parameters.items())
            out.write(f'[[operations]]\ninclude-path = "{path}"\nparameters = {{ {table} }}\n')
        out.write(open(os.path.join(here, "fuzz-api-allowances.toml")).read())
        if role == "courier":
            # The pool (available=true) is for couriers on duty; the run itself goes off duty
            # now and then (422 off_duty).
            out.write('[[operations]]\ninclude-name = "GET /v1/orders"\n'
                      'checks.positive_data_acceptance.expected-statuses = '
                      '["2xx", "401", "403", "404", "409", "429", "422"]\n')
        if role == "admin":
            # Admins name the store of what they create; store users may leave it out (their
            # own): 400 store_id for an admin without one.
            out.write('[[operations]]\ninclude-name = ["POST /v1/orders", "POST /v1/payments"]\n'
                      'checks.positive_data_acceptance.expected-statuses = '
                      '["2xx", "401", "403", "404", "409", "429", "400"]\n')
    report = os.path.join(reports, f"{role}.txt")
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(report, "w") as out:
        status = subprocess.run(
            [sys.executable, "-c", "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'st'; schemathesis()",
             "--config-file", config, "run", base + "/openapi.yaml", "--checks", "all",
             "--max-examples", str(examples), "--seed", "1", "--phases",
             "examples,coverage,fuzzing,stateful" if role in coverage_roles else "examples,fuzzing,stateful"],
            stdout=out, stderr=subprocess.STDOUT, cwd=work,
            env=dict(os.environ, PYTHONPATH=here, SCHEMATHESIS_HOOKS="fuzz_api_hooks", FUZZ_API_ROLE=role)).returncode
    summary = [l for l in open(report).read().splitlines() if l.startswith("=") and (" in " in l)]
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu.ru_utime + cpu.ru_stime - cpu_before.ru_utime - cpu_before.ru_stime
    print(f"{role}: {summary[-1].strip('= ') if summary else 'no summary'}, schemathesis {cpu:.0f}s of CPU"
          f" (exit {status})", flush=True)
    if status != 0:
        failed.append(role)
        text = open(report).read()
        for line in text.splitlines():
            if line.startswith("___") or line.startswith("- ST") or line.startswith("  ❌"):
                print("   ", line.strip("_ ") if line.startswith("___") else line.strip())
        print(f"    full report: {report}")
# What the processes export after this load: promtool's checks, every family documented.
metrics = subprocess.run([sys.executable, os.path.join(here, "check-metrics.py"), "9200", "9201", "9202", "9203", "9204"])
if metrics.returncode != 0:
    failed.append("metrics")
sys.exit(1 if failed else 0)
