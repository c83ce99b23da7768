#!/usr/bin/env python3
"""What `make deploy-test` checks against the suite it started in containers, through the
gateway alone, as the apps would:

1. An order from the store's iPad to the courier's phone: an admin opens a store with a staff
   member and a courier on duty; the courier long-polls the inbox; the iPad creates a delivery
   order, which the courier hears of; the store accepts it and marks it ready, the courier claims,
   picks up and delivers it, and the store hears of each step.
2. Replicas going away: orders are created at a steady pace while `--kill` runs (it kills one
   orders replica and one notifications replica); each order is retried with its own
   Idempotency-Key until answered, as an app does, and must be created exactly once; the courier
   must hear of every one of them, once.

Standard library only. Exits non-zero naming what failed.
"""
import argparse
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid


class Gateway:
    def __init__(self, base):
        self.base = base.rstrip("/")

    def call(self, method, path, token=None, body=None, headers=None, timeout=40):
        request = urllib.request.Request(self.base + path, method=method)
        if token:
            request.add_header("Authorization", "Bearer " + token)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, data, timeout=timeout) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            try:
                return error.code, json.loads(text)
            except ValueError:
                return error.code, text.decode(errors="replace")

    def require(self, expected, method, path, **kwargs):
        status, body = self.call(method, path, **kwargs)
        if status != expected:
            raise SystemExit(f"FAIL {method} {path}: {status} {body}")
        return body

    def login(self, email, password):
        return self.require(200, "POST", "/v1/auth/login", body={"email": email, "password": password})["access_token"]


class Inbox:
    """A user's phone: long-polls the inbox from the last seq it saw, in a thread of its own."""

    def __init__(self, gateway, token):
        self.gateway, self.token = gateway, token
        self.seen = []
        self.lock = threading.Lock()
        self.stopped = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        after = 0
        while not self.stopped:
            try:
                status, body = self.gateway.call(
                    "GET", f"/v1/notifications?after={after}&wait=20&limit=200", token=self.token, timeout=40)
            except OSError:
                time.sleep(0.5)
                continue
            if status != 200:
                time.sleep(0.5)
                continue
            with self.lock:
                self.seen += body["data"]
            after = body["next_cursor"]

    def of(self, kind, order_id):
        with self.lock:
            return [n for n in self.seen if n["type"] == kind and n["data"].get("order_id") == order_id]

    def wait_for(self, kind, order_id, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.of(kind, order_id):
                return
            time.sleep(0.1)
        raise SystemExit(f"FAIL no {kind} notification for order {order_id} within {seconds}s")


def delivery_order(number):
    return {
        "fulfillment": "delivery", "recipient_first_name": "Dana", "recipient_last_name": f"Levi {number}",
        "phone": "050-1234567", "street": "Herzl", "building_no": "12", "city": "Tel Aviv", "boxes_count": 2,
    }


def create_order(gateway, token, number, attempts):
    """Creates an order as an app does: the same Idempotency-Key until an answer says it is done."""
    key = f"deploy-test-{uuid.uuid4()}"
    for attempt in range(1, 30):
        try:
            status, body = gateway.call(
                "POST", "/v1/orders", token=token, body=delivery_order(number), headers={"Idempotency-Key": key})
        except OSError as error:
            status, body = 0, str(error)
        attempts.append(status)
        if status == 201:
            return body["id"], body["status"]
        if status not in (0, 502, 503, 504):
            raise SystemExit(f"FAIL order {number}: {status} {body}")
        time.sleep(min(0.2 * attempt, 2))
    raise SystemExit(f"FAIL order {number}: no answer after 30 attempts")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--admin-email", required=True)
    parser.add_argument("--admin-password", required=True)
    parser.add_argument("--kill", required=True, help="a shell command that kills the replicas")
    parser.add_argument("--orders", type=int, default=40, help="orders created around the kill")
    args = parser.parse_args()
    gateway = Gateway(args.url)
    run = uuid.uuid4().hex[:8]

    admin = gateway.login(args.admin_email, args.admin_password)
    store = gateway.require(201, "POST", "/v1/stores", token=admin, body={"name": f"Deploy test {run}"})
    for role, email in (("staff", f"ipad-{run}@deploy.test"), ("courier", f"courier-{run}@deploy.test")):
        user = {"email": email, "password": "Deploy-Test-Pass-1", "name": role.title(), "role": role}
        if role == "staff":
            user["store_id"] = store["id"]
        gateway.require(201, "POST", "/v1/users", token=admin, body=user)
    ipad = gateway.login(f"ipad-{run}@deploy.test", "Deploy-Test-Pass-1")
    courier = gateway.login(f"courier-{run}@deploy.test", "Deploy-Test-Pass-1")
    gateway.require(200, "PUT", "/v1/couriers/me/availability", token=courier, body={"on_duty": True})
    phone, store_inbox = Inbox(gateway, courier), Inbox(gateway, ipad)

    print("1. an order from the iPad to the courier's phone")
    started = time.monotonic()
    order, _ = create_order(gateway, ipad, 0, [])

    def act(token, action):
        gateway.require(200, "POST", f"/v1/orders/{order}/actions/{action}", token=token,
                        headers={"Idempotency-Key": f"{order}-{action}"})

    # Accepted, it can be claimed: couriers on duty hear of it (and, once the notifications service
    # has heard the courier went on duty, of every new delivery order as it is made).
    act(ipad, "accept")
    phone.wait_for("order.available", order)
    print(f"   the courier heard the order can be claimed {time.monotonic() - started:.2f}s after the iPad sent it")
    act(ipad, "start_preparing")
    act(ipad, "mark_ready")
    for action in ("claim", "pick_up", "deliver"):
        act(courier, action)
    store_inbox.wait_for("order.claimed", order)
    final = gateway.require(200, "GET", f"/v1/orders/{order}", token=ipad)
    if final["status"] != "delivered" or final.get("courier_id") is None:
        raise SystemExit(f"FAIL the order ended {final['status']}")
    print("   prepared, claimed, picked up and delivered; the store heard of the claim")

    print(f"2. {args.orders} orders, while one orders replica and one notifications replica are killed")
    # From here the store dispatches on creation: each delivery is ready and in the pool as it is
    # made, and the courier hears of it then. Orders are made until the orders service has the change.
    gateway.require(200, "PATCH", f"/v1/stores/{store['id']}", token=admin, body={"dispatch": "on_create"})
    probes = []
    while not probes or probes[-1][1] != "ready":
        probes.append(create_order(gateway, ipad, len(probes) + 1000, []))
        if len(probes) > 100:
            raise SystemExit("FAIL the store's dispatch on creation never reached the orders service")
    created, attempts = [], []
    kill_at = args.orders // 4

    def create_all():
        for number in range(1, args.orders + 1):
            if number == kill_at:
                print(f"   after {number - 1} orders, killing one orders and one notifications replica")
                subprocess.run(args.kill, shell=True, check=True)
            created.append(create_order(gateway, ipad, number, attempts)[0])
            time.sleep(0.1)

    create_all()
    retried = sum(1 for status in attempts if status != 201)
    print(f"   {len(created)} orders created, {retried} attempts answered 5xx or not at all and were sent again")
    listed = set()
    cursor = ""
    while True:
        page = gateway.require(200, "GET", f"/v1/orders?limit=200{cursor}", token=ipad)
        listed |= {o["id"] for o in page["data"]}
        if not page.get("next_cursor"):
            break
        cursor = "&cursor=" + page["next_cursor"]
    missing_orders = [o for o in created if o not in listed]
    if len(set(created)) != len(created) or missing_orders or len(listed) != len(created) + 1 + len(probes):
        raise SystemExit(f"FAIL orders: {len(set(created))} distinct answered, {len(listed)} listed, missing {missing_orders}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        heard = [o for o in created if phone.of("order.created", o)]
        if len(heard) == len(created):
            break
        time.sleep(0.2)
    twice = [o for o in created if len(phone.of("order.created", o)) > 1]
    lost = [o for o in created if not phone.of("order.created", o)]
    print(f"   the courier heard of {len(created) - len(lost)} of {len(created)}, {len(twice)} twice")
    phone.stopped = store_inbox.stopped = True
    if lost or twice:
        raise SystemExit(f"FAIL notifications: lost {lost}, twice {twice}")
    print("deploy-check: ok")


if __name__ == "__main__":
    main()
