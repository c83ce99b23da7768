"""`make backup-drill`: backups restore. A suite on SQLite takes orders and cash payments from two
writers while each service's database is backed up (`orderly-<service> backup`, `VACUUM INTO`);
then the suite stops, the backups become the data of a new suite with a new Redis, and the check
signs in there and finds, of what was acknowledged before the backups began, every order and
payment, and no event applied twice (the store's owner is told of each order's creation and each
payment once). What was acknowledged after the backups began may or may not be there: the
runbook says to restore from the backup's moment. Prints
`acknowledged=… restored=… missing=0 applied_twice=0` and exits 1 on anything missing or doubled."""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from suite import call, root, run_inside  # noqa: E402

SERVICES = ["gateway", "orders", "catalog", "payments", "notifications"]
OWNER = ("owner@drill.test", "Drill-Owner-Pass-1")


def base():
    return f"http://127.0.0.1:{os.environ['ORDERLY_HTTP_PORT']}"


def login(email, password):
    return call(base(), "POST", "/v1/auth/login", {"email": email, "password": password})["access_token"]


def binaries():
    return os.environ.get("ORDERLY_BIN") or subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def load(work):
    """Inside the first suite: the store, the writers, the backups meanwhile."""
    admin = login(os.environ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"], os.environ["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"])
    store = call(base(), "POST", "/v1/stores", {"name": "Drill", "address": "1 Herzl St", "phone": "031234567"},
                 admin)["id"]
    call(base(), "POST", "/v1/users", {"email": OWNER[0], "password": OWNER[1], "name": "Owner", "role": "owner",
                                       "store_id": store}, admin)
    owner = login(*OWNER)
    call(base(), "POST", "/v1/shifts/clock-in", {"opening_cash": 10000}, owner)  # cash goes into a drawer
    acknowledged = []  # (kind, id, when answered)
    lock = threading.Lock()
    stop = threading.Event()
    failures = []

    def writer(number):
        n = 0
        while not stop.is_set():
            n += 1
            try:
                order = call(base(), "POST", "/v1/orders", {
                    "recipient_first_name": "Dana", "recipient_last_name": f"W{number}-{n}", "phone": "050-1234567",
                    "street": "Herzl", "building_no": "12", "city": "Tel Aviv", "boxes_count": 1}, owner)
                with lock:
                    acknowledged.append(("order", order["id"], time.time()))
                if n % 3 == 0:
                    payment = call(base(), "POST", "/v1/payments", {
                        "method": "cash", "items": [{"name": "Tea", "unit_price": 500, "quantity": 1,
                                                     "vat_rate_bp": 1700}]}, owner)
                    call(base(), "POST", f"/v1/payments/{payment['id']}/confirm",
                         {"amount_tendered": payment["amount"]}, owner)
                    with lock:
                        acknowledged.append(("payment", payment["id"], time.time()))
            except AssertionError as error:
                failures.append(str(error))
                return

    writers = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
    for thread in writers:
        thread.start()
    while len(acknowledged) < 150 and not failures:
        time.sleep(0.1)
    backups = os.path.join(work, "backups")
    os.makedirs(backups)
    started = time.time()
    folder = binaries()
    for service in SERVICES:
        subprocess.run([os.path.join(folder, f"orderly-{service}"), "backup",
                        os.path.join(backups, f"{service}.sqlite")], check=True)
    finished = time.time()
    time.sleep(1)
    stop.set()
    for thread in writers:
        thread.join()
    if failures:
        print("a writer was refused:", failures[0])
        return 1
    with open(os.path.join(work, "acknowledged.json"), "w") as out:
        json.dump({"backups_started": started, "backups_took": finished - started, "store": store,
                   "acknowledged": acknowledged}, out)
    print(f"backed up {len(SERVICES)} databases in {finished - started:.2f} s under load, "
          f"{len(acknowledged)} writes acknowledged in all")
    return 0


def pages(path, token):
    """Every item of a paged list; `path` ends in `?` or `&`."""
    items, cursor = [], None
    while True:
        page = call(base(), "GET", path + "limit=100" + (f"&cursor={cursor}" if cursor else ""), token=token)
        items += page["data"]
        cursor = page.get("next_cursor")
        if not cursor:
            return items


def notifications(token):
    """Every notification of the caller's inbox, oldest first."""
    items, after = [], 0
    while True:
        page = call(base(), "GET", f"/v1/notifications?after={after}&limit=100", token=token)["data"]
        if not page:
            return items
        items += page
        after = page[-1]["seq"]


def check(work):
    """Inside the restored suite: what was acknowledged before the backups, and nothing twice."""
    with open(os.path.join(work, "acknowledged.json")) as given:
        drill = json.load(given)
    owner = login(*OWNER)
    before = [(kind, id) for kind, id, when in drill["acknowledged"] if when < drill["backups_started"]]
    orders = {order["id"] for order in pages("/v1/orders?", owner)}
    payments = {payment["id"] for payment in pages(f"/v1/stores/{drill['store']}/payments?", owner)}
    found = [(kind, id) for kind, id in before if id in (orders if kind == "order" else payments)]
    # The owner is told of each order and each payment the restored databases hold, once: the
    # events the outboxes publish again after the restore are applied once by their inboxes.
    # (Notifications, backed up last, may also tell of writes the others' backups, taken a few
    # milliseconds earlier, do not hold.)
    held = {("order.created", id) for id in orders} | {("payment.completed", id) for id in payments}

    def subjects():
        return collections.Counter(
            (n["type"], n["data"].get("order_id") if n["type"] == "order.created" else n["data"].get("payment_id"))
            for n in notifications(owner) if n["type"] in ("order.created", "payment.completed"))

    deadline = time.time() + 60
    while time.time() < deadline and not held <= set(subjects()):
        time.sleep(1)
    time.sleep(2)  # anything that would come twice comes now
    told = subjects()
    twice = sum(1 for count in told.values() if count > 1)
    untold = len(held - set(told))
    print(f"acknowledged={len(before)} restored={len(found)} missing={len(before) - len(found)} "
          f"applied_twice={twice} untold={untold} (acknowledged after the backups began: "
          f"{len(drill['acknowledged']) - len(before)}; the restored suite holds {len(held)} orders and payments, "
          f"and its notifications tell of {len(set(told) - held)} more, written between the backups)")
    return 0 if len(found) == len(before) and twice == 0 and untold == 0 else 1


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--load":
        sys.exit(load(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    work = tempfile.mkdtemp(prefix="orderly-backup-drill.")
    try:
        settings = dict(ORDERLY_BOOTSTRAP_ADMIN_EMAIL="admin@drill.test",
                        ORDERLY_BOOTSTRAP_ADMIN_PASSWORD="Drill-Admin-Pass-1")
        first = os.path.join(work, "first")
        if run_inside(__file__, ["--load", work], first, **settings):
            sys.exit(1)
        restored = os.path.join(work, "restored")
        os.makedirs(restored, mode=0o700)
        for service in SERVICES:
            shutil.copy(os.path.join(work, "backups", f"{service}.sqlite"), os.path.join(restored, f"{service}.sqlite"))
        sys.exit(1 if run_inside(__file__, ["--check", work], restored, **settings) else 0)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
