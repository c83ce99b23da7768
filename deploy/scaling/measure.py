#!/usr/bin/env python3
"""What each operation costs the suite, measured: the inputs of the scaling model (model.py).

`python3 deploy/scaling/measure.py [OUT.json]` builds and starts the release suite
(deploy/local/run.sh, SQLite's durable default) and drives it through its public API from this
process, which is not counted: each phase's CPU is read from /proc for every process of the
suite, and divided by the operations the phase made:

  create    orders created by store staff, 8 couriers on duty told of each
  status    each of those orders moved through its five statuses (accepted, preparing, ready,
            out for delivery, delivered; the courier's claim counted as a sixth change)
  payment   cash payments rung up at the till and confirmed (two requests each)
  stream    event streams held open (the gateway's memory per stream), then orders created while
            they are open (CPU per notification delivered to a stream)
  webhook   each store's endpoint (a receiver in this process) told of new orders: the
            notifications service's CPU per delivery, signature included

and the bytes each order and payment adds to its service's database (its pages, indexes
included; the notifications' for an order's notifications), and each event to Redis's memory. The clients are threads with keep-alive connections, at a rate
well under the suite's ceiling: costs per operation, not the suite's best rate.
"""
import http.client
import http.server
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "local"))
from suite import root, run_inside  # noqa: E402
TICK = os.sysconf("SC_CLK_TCK")
PASSWORD = "Password-12345"
local = threading.local()
# Each request's time in the current phase, in milliseconds.
timings = []


def call(method, path, body=None, token=None):
    """One request on this thread's keep-alive connection; answers (status, JSON)."""
    connection = getattr(local, "connection", None)
    if connection is None:
        connection = local.connection = http.client.HTTPConnection("127.0.0.1", int(os.environ["ORDERLY_HTTP_PORT"]), timeout=60)
    headers = {"Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4())}
    if token:
        headers["Authorization"] = "Bearer " + token
    try:
        started = time.perf_counter()
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = connection.getresponse()
        data = response.read()
        timings.append((time.perf_counter() - started) * 1000)
    except (http.client.HTTPException, OSError):
        local.connection = None
        raise
    answer = json.loads(data) if data else None
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: {response.status} {data[:300]!r}")
    return answer


def processes():
    return {name: int(pid) for name, pid in (pair.split(":") for pair in os.environ["ORDERLY_PROCESSES"].split())}


def cpu(pids):
    """Each process's CPU seconds so far."""
    seconds = {}
    for name, pid in pids.items():
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        seconds[name] = (int(fields[11]) + int(fields[12])) / TICK
    return seconds


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def steal():
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    return values[7], sum(values)


def file_bytes(name):
    """The size of a service's database as a reader sees it now (its pages, those still in the WAL included)."""
    path = os.path.join(os.environ["ORDERLY_DATA_DIR"], name + ".sqlite")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as database:
        pages = database.execute("PRAGMA page_count").fetchone()[0]
        size = database.execute("PRAGMA page_size").fetchone()[0]
    return pages * size


def redis_memory():
    url = os.environ["ORDERLY_REDIS_URL"]
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    out = subprocess.run(["redis-cli", "-h", host, "-p", port, "info", "memory"], capture_output=True, text=True).stdout
    return next(int(line.split(":")[1]) for line in out.splitlines() if line.startswith("used_memory:"))


class Phase:
    """CPU per operation of each process over a phase, and the machine's stolen share."""

    def __init__(self, name, pids):
        self.name, self.pids = name, pids

    def __enter__(self):
        timings.clear()
        self.cpu, self.steal, self.started = cpu(self.pids), steal(), time.time()
        return self

    def __exit__(self, *exc):
        after, stolen = cpu(self.pids), steal()
        self.seconds = {name: after[name] - self.cpu[name] for name in self.pids}
        self.stolen = (stolen[0] - self.steal[0]) / max(1, stolen[1] - self.steal[1])
        self.wall = time.time() - self.started
        ordered = sorted(timings)
        self.latency = {"p50_ms": round(ordered[len(ordered) // 2], 2) if ordered else None,
                        "p99_ms": round(ordered[int(len(ordered) * 0.99)], 2) if ordered else None}

    def per(self, operations):
        return {name: round(seconds * 1000 / operations, 4) for name, seconds in self.seconds.items()}


def run(workers, jobs):
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda job: job(), jobs))


def inside(out):
    pids = processes()
    admin = call("POST", "/v1/auth/login", {"email": os.environ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"],
                                            "password": os.environ["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"]})["access_token"]
    login = lambda email: call("POST", "/v1/auth/login", {"email": email, "password": PASSWORD})["access_token"]
    stores, staff, couriers = [], [], []
    for index in range(16):
        store = call("POST", "/v1/stores", {"name": f"Store {index}", "address": "1 Herzl St", "phone": "031234567"}, admin)
        email = f"staff{index}@scale.test"
        call("POST", "/v1/users", {"email": email, "password": PASSWORD, "name": "Staff", "role": "staff",
                                   "store_id": store["id"]}, admin)
        token = login(email)
        call("POST", "/v1/shifts/clock-in", {"opening_cash": 0}, token)
        product = call("POST", f"/v1/stores/{store['id']}/products", {"name": "Falafel", "price": 2500}, admin)
        stores.append(store)
        staff.append((store, token, product))
    for index in range(32):
        email = f"courier{index}@scale.test"
        call("POST", "/v1/users", {"email": email, "password": PASSWORD, "name": "Courier", "role": "courier"}, admin)
        token = login(email)
        if index < 8:
            call("PUT", "/v1/couriers/me/availability", {"on_duty": True}, token)
        couriers.append(token)
    print("measuring: 16 stores, 32 couriers (8 on duty)", flush=True)
    results = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine_cores": os.cpu_count(),
               "processes": sorted(pids), "phases": {}}

    def create(index):
        store, token, _ = staff[index % len(staff)]
        return call("POST", "/v1/orders", {"recipient_first_name": "Dana", "recipient_last_name": "Levi",
                                           "phone": "050-1234567", "street": "Herzl", "building_no": "12",
                                           "city": "Tel Aviv", "boxes_count": 1}, token)

    orders_file, notifications_file, memory = file_bytes("orders"), file_bytes("notifications"), redis_memory()
    count = 3000
    with Phase("create", pids) as phase:
        orders = run(32, [lambda i=i: create(i) for i in range(count)])
    results["phases"]["create"] = {"operations": count, "cpu_ms": phase.per(count), "stolen": phase.stolen,
                                   "rate": round(count / phase.wall), **phase.latency}
    time.sleep(2)  # the notifications of the last orders, and the relay's marks, land in their files
    results["bytes_per_order"] = {"orders_database": round((file_bytes("orders") - orders_file) / count),
                                  "notifications_database": round((file_bytes("notifications") - notifications_file) / count),
                                  "redis_memory": round((redis_memory() - memory) / count)}
    print(f"  create: {results['phases']['create']}", flush=True)

    # Five statuses each: the store accepts, prepares and readies; a courier claims, picks up, delivers.
    by_store = {store["id"]: token for store, token, _ in staff}

    def move(index, order):
        store_token = by_store[order["store_id"]]
        for action in ("accept", "start_preparing", "mark_ready"):
            call("POST", f"/v1/orders/{order['id']}/actions/{action}", {}, store_token)
        courier = couriers[index % 8]
        for action in ("claim", "pick_up", "deliver"):
            call("POST", f"/v1/orders/{order['id']}/actions/{action}", {}, courier)

    moved = orders[:1200]
    with Phase("status", pids) as phase:
        run(8, [lambda i=i, o=o: move(i, o) for i, o in enumerate(moved)])
    changes = len(moved) * 6
    results["phases"]["status"] = {"operations": changes, "cpu_ms": phase.per(changes), "stolen": phase.stolen,
                                   "rate": round(changes / phase.wall), **phase.latency}
    print(f"  status: {results['phases']['status']}", flush=True)

    def pay(index):
        store, token, product = staff[index % len(staff)]
        payment = call("POST", "/v1/payments", {"method": "cash", "items": [{"product_id": product["id"], "quantity": 1}]}, token)
        call("POST", f"/v1/payments/{payment['id']}/confirm", {"amount_tendered": payment["amount"]}, token)

    payments_file = file_bytes("payments")
    count = 1500
    with Phase("payment", pids) as phase:
        run(32, [lambda i=i: pay(i) for i in range(count)])
    results["phases"]["payment"] = {"operations": count, "cpu_ms": phase.per(count), "stolen": phase.stolen,
                                    "rate": round(count / phase.wall), **phase.latency}
    results["bytes_per_payment"] = {"payments_database": round((file_bytes("payments") - payments_file) / count)}
    print(f"  payment: {results['phases']['payment']}", flush=True)

    # Streams: four a user (the most one may hold) for the staff and the couriers on duty.
    holders = [token for _, token, _ in staff] + couriers[:8]
    received = [0]
    lock = threading.Lock()
    stop = threading.Event()
    opened = threading.Barrier(len(holders) * 4 + 1)

    def newest(token):
        after = 0
        while True:
            page = call("GET", f"/v1/notifications?after={after}&limit=200", token=token)
            after = page["next_cursor"]
            if not page["has_more"]:
                return after

    cursors = {token: newest(token) for token in holders}

    def listen(token):
        connection = http.client.HTTPConnection("127.0.0.1", int(os.environ["ORDERLY_HTTP_PORT"]), timeout=120)
        connection.request("GET", f"/v1/notifications/stream?after={cursors[token]}",
                           headers={"Authorization": "Bearer " + token, "Accept": "text/event-stream"})
        response = connection.getresponse()
        opened.wait()
        while not stop.is_set():
            line = response.fp.readline()
            if not line:
                break
            if line.startswith(b"event: notification"):
                with lock:
                    received[0] += 1
        connection.close()

    gateway_before = rss(pids["gateway"])
    listeners = [threading.Thread(target=listen, args=(token,), daemon=True) for token in holders for _ in range(4)]
    for listener in listeners:
        listener.start()
    opened.wait()
    time.sleep(1)
    streams = len(listeners)
    results["bytes_per_stream"] = {"gateway_memory": round((rss(pids["gateway"]) - gateway_before) / streams)}
    count = 1000
    with Phase("stream", pids) as phase:
        run(16, [lambda i=i: create(i) for i in range(count)])
        expected = count * 4 + count * 8 * 4  # each store's staff member, and the 8 couriers on duty, 4 streams each
        deadline = time.time() + 60
        while received[0] < expected and time.time() < deadline:
            time.sleep(0.05)
    stop.set()
    delivered = received[0]
    gateway_create = results["phases"]["create"]["cpu_ms"]["gateway"] * count
    stream_gateway_ms = phase.seconds["gateway"] * 1000 - gateway_create
    results["phases"]["stream"] = {
        "streams": streams, "orders": count, "delivered": delivered, "expected": expected, "stolen": phase.stolen,
        "gateway_cpu_ms_per_delivery": round(stream_gateway_ms / max(1, delivered), 4)}
    print(f"  stream: {results['phases']['stream']}, {results['bytes_per_stream']}", flush=True)

    # Webhooks: every store's endpoint is told of each new order; the notifications service signs
    # and sends each delivery.
    class Receiver(http.server.BaseHTTPRequestHandler):
        received = 0

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                Receiver.received += 1
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    for store, token, _ in staff:
        call("POST", f"/v1/stores/{store['id']}/webhooks",
             {"url": f"http://127.0.0.1:{sink.server_address[1]}/hook", "events": ["order.created"]}, admin)
    count = 1000
    with Phase("webhook", pids) as phase:
        run(16, [lambda i=i: create(i) for i in range(count)])
        deadline = time.time() + 60
        while Receiver.received < count and time.time() < deadline:
            time.sleep(0.05)
    sink.shutdown()
    notifications_create = results["phases"]["create"]["cpu_ms"]["notifications"] * count
    hooks_ms = phase.seconds["notifications"] * 1000 - notifications_create
    results["phases"]["webhook"] = {
        "orders": count, "delivered": Receiver.received, "stolen": phase.stolen,
        "notifications_cpu_ms_per_delivery": round(max(0.0, hooks_ms) / max(1, Receiver.received), 4)}
    print(f"  webhook: {results['phases']['webhook']}", flush=True)
    with open(out, "w") as f:
        json.dump(results, f, indent=2)
    print(f"measured: {out}")
    return 0 if delivered >= expected and Receiver.received >= count else 1


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build", "scaling-costs.json"))
    subprocess.run(["swift", "build", "-c", "release"], cwd=root, check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as work:
        return run_inside(__file__, ["--inside", out], os.path.join(work, "data"), ORDERLY_BUILD="release",
                          ORDERLY_BOOTSTRAP_ADMIN_EMAIL="admin@scale.test",
                          ORDERLY_BOOTSTRAP_ADMIN_PASSWORD="Scale-Admin-Pass-1", ORDERLY_AUTH_BCRYPT_COST="4",
                          ORDERLY_WEBHOOKS_ALLOWED_NETWORKS="127.0.0.0/8", ORDERLY_WEBHOOKS_PLAIN_HTTP="allowed")


if __name__ == "__main__":
    sys.exit(inside(sys.argv[2]) if sys.argv[1:2] == ["--inside"] else main())
