#!/usr/bin/env python3
"""`make test`'s trace check: one order, from `POST /v1/orders` to the courier's notification, is
one trace across the gateway, the orders service, its outbox relay and the notifications service,
and the services' log lines for it carry its trace_id (the orders service's, the request's id too).
The client's own `traceparent` does not choose that trace: the gateway starts a new one and links
the client's; and a card's uid looked up is in no span.

It runs the suite (deploy/local/run.sh) with traces sent over OTLP/HTTP to a receiver of its own,
which decodes the export requests with `opentelemetry-proto` (from PyPI); in the suite a store,
a courier on duty and a staff member are made, the staff member creates an order, and the
courier's notification is waited for. Once the suite has stopped (each process sends what its
exporter holds as it stops), the spans and the log lines are checked.
"""
import http.server
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid

here = os.path.dirname(os.path.abspath(__file__))
# What the client sends as its own trace, and a card's uid it looks up.
CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CARD_UID = "04A1B2C3D4E5F6"

from suite import call, free_port  # noqa: E402


def flow():
    """Inside the suite: the order, and the courier's notification of it."""
    base = f"http://127.0.0.1:{os.environ['ORDERLY_HTTP_PORT']}"
    login = lambda email, password: call(base, "POST", "/v1/auth/login",
                                         {"email": email, "password": password})["access_token"]
    admin = login(os.environ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"], os.environ["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"])
    # The store dispatches on creation, so the courier on duty is told of the order as it is made.
    store = call(base, "POST", "/v1/stores", {"name": "Traced", "address": "1 Herzl St", "phone": "031234567",
                                              "dispatch": "on_create"}, admin)["id"]
    for email, role, extra in [("courier@trace.test", "courier", {}), ("staff@trace.test", "staff", {"store_id": store})]:
        call(base, "POST", "/v1/users", dict({"email": email, "password": "Password-12345", "name": "T",
                                              "role": role}, **extra), admin)
    courier = login("courier@trace.test", "Password-12345")
    call(base, "PUT", "/v1/couriers/me/availability", {"on_duty": True}, courier)
    staff = login("staff@trace.test", "Password-12345")
    request_id = f"trace-test-{uuid.uuid4().hex[:12]}"
    order = call(base, "POST", "/v1/orders", {
        "recipient_first_name": "Dana", "recipient_last_name": "Levi", "phone": "050-1234567",
        "street": "Herzl", "building_no": "12", "city": "Tel Aviv", "boxes_count": 1}, staff,
        headers={"X-Request-Id": request_id, "traceparent": f"00-{CLIENT_TRACE}-00f067aa0ba902b7-01"})
    try:
        call(base, "GET", f"/v1/stores/{store}/cards/lookup?uid={CARD_UID}", token=staff)
        print("the lookup of a card the store does not have was answered", flush=True)
        return 1
    except AssertionError as refusal:  # 404, no such card: the lookup's span is what is checked
        if ": 404 " not in str(refusal):
            print(f"the card's lookup: {refusal}", flush=True)
            return 1
    deadline = time.time() + 30
    while time.time() < deadline:
        told = call(base, "GET", "/v1/notifications?wait=1", token=courier)["data"]
        if any((n.get("data") or {}).get("order_id") == order["id"] for n in told):
            print("ORDER", order["id"], request_id, flush=True)
            return 0
    print("the courier was never told of order", order["id"], flush=True)
    return 1


class Receiver(http.server.BaseHTTPRequestHandler):
    spans = []

    def do_POST(self):
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        export = trace_service_pb2.ExportTraceServiceRequest()
        export.ParseFromString(body)
        for resource_spans in export.resource_spans:
            service = next((a.value.string_value for a in resource_spans.resource.attributes
                            if a.key == "service.name"), "?")
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    attributes = {a.key: (a.value.string_value or a.value.int_value) for a in span.attributes}
                    Receiver.spans.append({
                        "service": service, "name": span.name, "trace": span.trace_id.hex(),
                        "id": span.span_id.hex(), "parent": span.parent_span_id.hex(), "attributes": attributes,
                        "links": [link.trace_id.hex() for link in span.links]})
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def main():
    try:
        import opentelemetry.proto  # noqa: F401
    except ImportError:
        if subprocess.run([sys.executable, "-m", "pip", "install", "-q", "opentelemetry-proto"]).returncode != 0:
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--user", "--break-system-packages",
                            "opentelemetry-proto"], check=True)
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as work:
        environment = dict(
            os.environ, ORDERLY_DATA_DIR=os.path.join(work, "data"), ORDERLY_HTTP_PORT=str(free_port()),
            ORDERLY_LOG_LEVEL="debug", ORDERLY_BOOTSTRAP_ADMIN_EMAIL="admin@trace.test",
            ORDERLY_BOOTSTRAP_ADMIN_PASSWORD="Trace-Admin-Pass-1",
            OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}", OTEL_TRACES_SAMPLER="always_on",
            OTEL_BSP_SCHEDULE_DELAY="200")
        run = subprocess.run([os.path.join(here, "run.sh"), sys.executable, os.path.abspath(__file__), "--flow"],
                             env=environment, capture_output=True, text=True, cwd=os.path.join(here, "..", ".."))
    server.shutdown()
    logs = run.stdout.splitlines()
    order, request_id = next((line.split()[1:3] for line in logs if line.startswith("ORDER ")), (None, None))
    problems = []
    if run.returncode != 0 or order is None:
        print(run.stdout[-4000:], run.stderr[-4000:])
        print("traces: the suite or the flow failed")
        return 1
    spans = Receiver.spans
    roots = [s for s in spans if s["service"] == "orderly-gateway" and s["attributes"].get("http.route") == "/v1/orders"
             and s["attributes"].get("http.request.method") == "POST"]
    if len(roots) != 1:
        problems.append(f"{len(roots)} gateway spans of POST /v1/orders, not 1 (of {len(spans)} spans)")
    else:
        trace = roots[0]["trace"]
        if trace == CLIENT_TRACE:
            problems.append("the client's traceparent chose the order's trace")
        if CLIENT_TRACE not in roots[0]["links"]:
            problems.append(f"the gateway's span does not link the client's trace: {roots[0]['links']}")
        if any(s["trace"] == CLIENT_TRACE for s in spans):
            problems.append("a span was recorded in the client's trace")
        leaked = [s["name"] for s in spans if any(CARD_UID in str(value) for value in s["attributes"].values())]
        if leaked:
            problems.append(f"a card's uid is an attribute of {leaked}")
        lookups = [s["attributes"] for s in spans if s["service"] == "orderly-gateway"
                   and str(s["attributes"].get("http.route", "")).endswith("/cards/lookup")]
        if [attributes.get("url.query") for attributes in lookups] != ["uid=REDACTED"]:
            problems.append(f"not one gateway span of the card's lookup with its uid redacted: {lookups}")
        ours = [s for s in spans if s["trace"] == trace]
        services = {s["service"] for s in ours}
        for wanted in ["orderly-gateway", "orderly-orders", "orderly-notifications"]:
            if wanted not in services:
                problems.append(f"the order's trace has no span of {wanted}")
        if not any(s["name"] == "outbox.publish" and s["service"] == "orderly-orders" for s in ours):
            problems.append("the order's trace has no span of the orders service's relay (outbox.publish)")
        if not any(s["service"] == "orderly-notifications" and "order.created" in s["name"] for s in ours):
            problems.append("the order's trace has no span of the notifications service consuming order.created")
        ids = {s["id"] for s in ours}
        orphans = [s["name"] for s in ours if s["parent"] and s["parent"] not in ids]
        if orphans:
            problems.append(f"spans whose parent is not in the trace: {orphans}")
        for name in ["orders", "notifications"]:
            if not any(line.startswith(f"[{name}]") and trace in line for line in logs):
                problems.append(f"no log line of {name} carries the trace's id {trace}")
        if not any(line.startswith("[orders]") and request_id in line for line in logs):
            problems.append(f"no log line of orders carries the request's id {request_id}")
        print(f"traces: order {order} is trace {trace}: {len(ours)} spans over {', '.join(sorted(services))}")
        for s in sorted(ours, key=lambda s: s["service"]):
            print(f"    {s['service']:22} {s['name']}")
    for problem in problems:
        print("  FAILED: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(flow() if sys.argv[1:] == ["--flow"] else main())
