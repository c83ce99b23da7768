#!/usr/bin/env python3
"""`make demo`: the suite, as `make run` starts it, filled through the public API with a small
platform (three Tel Aviv stores with their menus, people, couriers, customers, cards) and a week
of business behind it, then a gentle trickle of new orders until Ctrl-C.

The API stamps everything with the server's clock, so the week is made on a moved clock: the
services run under libfaketime (Debian's `faketime`), each reading its offset from a file this
demo rewrites; it moves the clock forward a few hours at a time through the last seven days (the
timers stay on the real monotonic clock; Redis is not faked), signs in again after each move, and
ends at the real time for the trickle. libfaketime 0.9.10 moves libdispatch's timers (Swift's
`Task.sleep`) along with the wall clock, so a clock moved back days would keep them waiting days:
a few lines of C, built here and loaded before it, keep the timers on the monotonic and boot
clocks real. Without a C compiler, libfaketime or a data directory of its own, the history is made
at the real time instead, and the output says so.

    python3 deploy/local/demo.py              # what `make demo` runs (data in .build/demo)
    python3 deploy/local/demo.py --force      # fill a suite that holds data already
    python3 deploy/local/demo.py --against URL  # fill a running suite (real time), with
                                                # ORDERLY_BOOTSTRAP_ADMIN_EMAIL and _PASSWORD
    python3 deploy/local/demo.py --check      # start it in a temporary directory, check, stop

Nothing is written to a database but through the API.
"""
import argparse
import datetime as dt
import hashlib
import hmac
import importlib.util
import json
import os
import queue
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite import call, free_port, root  # noqa: E402

try:
    from zoneinfo import ZoneInfo
    LOCAL = ZoneInfo("Asia/Jerusalem")
except Exception:  # no time zone database: Israel's standard time
    LOCAL = dt.timezone(dt.timedelta(hours=2))

PASSWORD = "Orderly-Demo-2026"
PRODUCTS = ("orderly-gateway", "orderly-orders", "orderly-catalog", "orderly-payments", "orderly-notifications")
FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
UTC = dt.timezone.utc
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

# Images that have stood at the same Wikimedia Commons address for years; the rest have none.
MARGHERITA = "https://upload.wikimedia.org/wikipedia/commons/a/a3/Eq_it-na_pizza-margherita_sep2005_sml.jpg"
PEPPERONI = "https://upload.wikimedia.org/wikipedia/commons/d/d1/Pepperoni_pizza.jpg"
COFFEE = "https://upload.wikimedia.org/wikipedia/commons/4/45/A_small_cup_of_coffee.JPG"

# ---------------------------------------------------------------------------------------------
# The platform: stores (their settings, menus, people, regulars) and the customers who order.
# A product: (name, price in agorot, emoji, description, option groups, opening stock or None,
# image). An option group: (name, min, max, [(option, price delta)]).

BREAD = ("Bread", 1, 1, [("Pita", 0), ("Whole-wheat pita", 200), ("No bread", 0)])
STORES = [
    {
        "key": "hummus", "name": "Hummus HaCarmel", "domain": "hummus-hacarmel.example",
        "address": "Rabbi Meir St 11, Kerem HaTeimanim, Tel Aviv", "phone": "03-516-2234",
        "cuisine": "Hummus & Middle Eastern", "image_url": None,
        "description": "Warm hummus, ful and fresh pita a step from the Carmel Market, since 1998. "
                       "Closed on Saturdays.",
        "hours": {**{day: ("10:00", "22:00") for day in ("sun", "mon", "tue", "wed", "thu")}, "fri": ("09:00", "15:00")},
        "tiers": [{"max_boxes": 2, "fee": 1200, "multiplier": 1}, {"max_boxes": 6, "fee": 2200, "multiplier": 2},
                  {"fee": 3500, "multiplier": 3}],
        "minimum_order": 4000, "auto_accept": False, "require_clock_in": True, "staff_refund_limit": 3000,
        "low_stock_default": 8, "tier": "starter", "commission_bp": 1200, "busy": 1.0,
        "people": [("owner", "Avi Mizrahi", "avi", None), ("manager", "Rina Azulay", "rina", None),
                   ("staff", "Tomer Peretz", "tomer", "cashier"), ("staff", "Shira Ben-David", "shira", "kitchen")],
        "menu": [
            ("Hummus", [
                ("Hummus classic", 3200, "🥣", "Chickpeas, tahini, olive oil and a hard-boiled egg.",
                 [("Topping", 0, 2, [("Ful", 500), ("Mushrooms", 600), ("Extra egg", 400), ("Schug", 0)]), BREAD],
                 None, None),
                ("Masabacha", 3600, "🥣", "Whole warm chickpeas over hummus, lemon and garlic.", [BREAD], None, None),
                ("Hummus with meat", 5200, "🍖", "Minced beef, pine nuts and baharat.", [BREAD], None, None),
            ]),
            ("Sides", [
                ("Falafel, six balls", 1800, "🧆", "Fried to order, with tahini.", [], None, None),
                ("Israeli salad", 1600, "🥗", "Cucumber, tomato, onion, parsley, lemon.", [], None, None),
                ("Pickles and olives", 900, "🫒", None, [], None, None),
            ]),
            ("Drinks", [
                ("Lemonade with mint", 1400, "🍋", None, [], 60, None),
                ("Malt beer", 1200, "🍺", "Non-alcoholic.", [], 48, None),
                ("Mineral water", 800, "💧", None, [], 100, None),
            ]),
        ],
        "regulars": [("noam", None), ("galit", None), (None, ("Sara Malka", "052-611-2090"))],
    },
    {
        "key": "pizza", "name": "Pizza Lila", "domain": "pizzalila.example",
        "address": "Florentin St 32, Tel Aviv", "phone": "03-682-4455", "cuisine": "Pizza",
        "image_url": MARGHERITA,
        "description": "Neapolitan-style pies from a wood oven in Florentin, open late.",
        "hours": {**{day: ("12:00", "24:00") for day in ("sun", "mon", "tue", "wed", "thu")},
                  "fri": ("12:00", "02:00"), "sat": ("12:00", "02:00")},
        "tiers": [{"max_boxes": 3, "fee": 1500, "multiplier": 1}, {"max_boxes": 8, "fee": 2500, "multiplier": 2},
                  {"fee": 4000, "multiplier": 3}],
        "minimum_order": 5000, "auto_accept": False, "require_clock_in": True, "staff_refund_limit": 2000,
        "low_stock_default": 6, "tier": "pro", "commission_bp": 1500, "busy": 1.3,
        "people": [("owner", "Lila Katz", "lila", None), ("manager", "Oren Shapiro", "oren", None),
                   ("staff", "Maya Friedman", "maya", "cashier"), ("staff", "Yossi Dahan", "yossi", "kitchen")],
        "menu": [
            ("Pizzas", [
                ("Margherita", 5400, "🍕", "San Marzano tomatoes, fior di latte, basil.",
                 [("Size", 1, 1, [("Personal", 0), ("Family", 2400)]),
                  ("Extras", 0, 3, [("Olives", 400), ("Mushrooms", 500), ("Extra mozzarella", 700), ("Anchovies", 600)])],
                 None, MARGHERITA),
                ("Pepperoni", 6200, "🍕", "Spicy beef pepperoni, mozzarella, oregano.",
                 [("Size", 1, 1, [("Personal", 0), ("Family", 2400)])], None, PEPPERONI),
                ("Funghi", 5800, "🍄", "Mushrooms, mozzarella, thyme, garlic oil.",
                 [("Size", 1, 1, [("Personal", 0), ("Family", 2400)])], None, None),
                ("Quattro formaggi", 6400, "🧀", "Mozzarella, gorgonzola, parmesan, goat cheese.",
                 [("Size", 1, 1, [("Personal", 0), ("Family", 2400)])], None, None),
            ]),
            ("Starters", [
                ("Garlic focaccia", 2200, "🥖", "From the wood oven, with rosemary.", [], None, None),
                ("Caesar salad", 3900, "🥗", None, [("Add", 0, 1, [("Grilled chicken", 1200)])], None, None),
            ]),
            ("Drinks", [
                ("Cola", 1000, "🥤", None, [], 96, None),
                ("Sparkling water", 900, "💧", None, [], 60, None),
            ]),
            ("Desserts", [("Tiramisu", 2800, "🍰", "Made every morning.", [], 20, None)]),
        ],
        "regulars": [("hila", None), ("ben", None), (None, ("Moti Ohana", "054-302-7781"))],
    },
    {
        "key": "cafe", "name": "Café Rothschild 24/7", "domain": "caferothschild.example",
        "address": "Rothschild Blvd 71, Tel Aviv", "phone": "03-620-7171", "cuisine": "Café & bakery",
        "image_url": COFFEE,
        "description": "Coffee, shakshuka and fresh pastries on the boulevard, around the clock.",
        "hours": {day: ("00:00", "24:00") for day in DAYS},
        "tiers": [{"max_boxes": 4, "fee": 1000, "multiplier": 1}, {"max_boxes": 10, "fee": 2000, "multiplier": 2},
                  {"fee": 3000, "multiplier": 3}],
        "minimum_order": 3000, "auto_accept": True, "require_clock_in": False, "staff_refund_limit": 5000,
        "low_stock_default": 10, "tier": "pro", "commission_bp": 1000, "busy": 1.1,
        "people": [("owner", "Noa Goldberg", "noa", None), ("manager", "Eitan Levi", "eitan", None),
                   ("staff", "Tamar Cohen", "tamar", "barista"), ("staff", "Daniel Amar", "daniel", "cashier")],
        "menu": [
            ("Coffee", [
                ("Espresso", 900, "☕", None, [("Size", 1, 1, [("Single", 0), ("Double", 400)])], None, COFFEE),
                ("Cappuccino", 1400, "☕", None,
                 [("Size", 1, 1, [("Regular", 0), ("Large", 300)]),
                  ("Milk", 0, 1, [("Oat", 200), ("Soy", 200), ("Almond", 300)])], None, None),
                ("Iced coffee", 1600, "🧊", "Cold brew over ice, a little sweet.", [], None, None),
            ]),
            ("Breakfast", [
                ("Shakshuka", 4800, "🍳", "Two eggs in tomato and pepper sauce, with challah.",
                 [("Extras", 0, 2, [("Feta", 500), ("Merguez", 900), ("Eggplant", 400)])], None, None),
                ("Israeli breakfast for one", 6200, "🥚", "Eggs your way, salads, cheeses, bread, juice and coffee.",
                 [("Eggs", 1, 1, [("Omelette", 0), ("Fried", 0), ("Scrambled", 0)])], None, None),
            ]),
            ("Bakery", [
                ("Croissant", 1100, "🥐", "Butter, baked at dawn.", [], 40, None),
                ("Chocolate rugelach", 1400, "🍫", None, [], 30, None),
                ("Cheese bourekas", 1600, "🥟", None, [], 30, None),
            ]),
            ("Cold drinks", [("Fresh orange juice", 1600, "🍊", None, [], 50, None)]),
        ],
        "regulars": [("amir", None), ("roni", None), (None, ("Shlomo Peretz", "050-774-1203"))],
    },
]
COURIERS = [("Moshe Biton", "moshe", "050-881-2201"), ("Yael Avraham", "yael", "052-440-9812"),
            ("Karim Haddad", "karim", "054-671-3390"), ("Lior Segal", "lior", "053-220-5578")]
CUSTOMERS = [
    ("noam", "Noam Weiss", "he", "050-123-4411", [("Home", "Dizengoff St", "120", "3", "7", "Intercom 7, third floor"),
                                                   ("Work", "Rothschild Blvd", "22", "11", None, "Reception on 11")]),
    ("hila", "Hila Rosen", "he", "052-998-1020", [("Home", "Shenkin St", "21", "2", "4", None)]),
    ("amir", "Amir Khoury", "ar", "054-332-7788", [("Home", "Yefet St", "20", "1", "2", "Jaffa, the blue door"),
                                                    ("Studio", "Jerusalem Blvd", "8", None, None, None)]),
    ("galit", "Galit Navon", "he", "053-441-2299", [("Home", "Ibn Gabirol St", "45", "5", "18", None)]),
    ("ben", "Ben Sasson", "en", "050-667-3003", [("Home", "Ben Yehuda St", "88", "4", "9", "Knock, the bell is broken")]),
    ("roni", "Roni Adler", "he", "058-210-4545", [("Home", "Nordau Blvd", "64", "6", "23", None),
                                                  ("Parents", "Arlozorov St", "100", "1", "1", None)]),
]
# Each slot of a day: when (Tel Aviv time) and what happens then.
SLOTS = (("10:45", "open"), ("12:40", "lunch"), ("13:10", "lunch served"), ("19:40", "dinner"),
         ("20:10", "dinner served"), ("23:20", "close"))
WEEKDAY_TRADE = {"sun": 1.0, "mon": 0.8, "tue": 0.9, "wed": 1.0, "thu": 1.3, "fri": 1.4, "sat": 1.2}


def shekels(agorot):
    return f"₪{agorot / 100:,.2f}"


def local_at(day, hhmm):
    hours, minutes = map(int, hhmm.split(":"))
    return dt.datetime(day.year, day.month, day.day, hours, minutes, tzinfo=LOCAL).astimezone(UTC)


def day_name(when):
    return DAYS[when.astimezone(LOCAL).weekday()]


def open_at(spec, when):
    """Whether the store's hours hold at `when` (the hours running past midnight included)."""
    local = when.astimezone(LOCAL)
    minute = local.hour * 60 + local.minute
    for shift, day in ((0, DAYS[local.weekday()]), (1440, DAYS[(local.weekday() - 1) % 7])):
        if day not in spec["hours"]:
            continue
        start, end = (int(t[:2]) * 60 + int(t[3:]) for t in spec["hours"][day])
        if end <= start:
            end += 1440
        if start <= minute + shift < end:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# The API as the demo uses it.

class Refused(Exception):
    """The API's refusal: its status, reason and whole answer."""

    def __init__(self, status, text):
        self.status = status
        self.text = text
        try:
            self.error = json.loads(text).get("error") or {}
        except (ValueError, AttributeError):
            self.error = {}
        self.reason = self.error.get("reason") or self.error.get("code")
        super().__init__(f"{status} {self.reason}: {text[:400]}")


class Clock:
    """The suite's clock: libfaketime in each service reads its offset from `path` (none: the
    real time, never moved). Each process reads the file again when a second has passed since it
    last did, so a move holds everywhere within about two seconds."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.moves = 0
        if path:
            with open(path) as file:
                self.offset = int(float(file.read().strip() or 0))

    @property
    def moving(self):
        return bool(self.path)

    def now(self):
        return dt.datetime.now(UTC) + dt.timedelta(seconds=self.offset)

    def move_to(self, when):
        if not self.path:
            return
        offset = min(0, round((when - dt.datetime.now(UTC)).total_seconds()))
        if offset <= self.offset:
            return  # never backwards
        temporary = self.path + ".new"
        with open(temporary, "w") as file:
            file.write(f"{offset:+d}\n")
        os.replace(temporary, self.path)
        self.offset = offset
        self.moves += 1
        time.sleep(2.2)


class Api:
    def __init__(self, base, clock, provider_secret):
        self.base = base
        self.clock = clock
        self.secret = provider_secret
        self.calls = 0

    def send(self, method, path, body=None, who=None, headers=None):
        """One request as `who` (an Account, or nobody): signs in again when the token has run out,
        waits out a rate limit; a refusal is a `Refused`. Every attempt carries one idempotency key,
        so a write whose answer was lost on the way is not made twice."""
        headers = {"Idempotency-Key": str(uuid.uuid4()), **(headers or {})}
        for attempt in range(8):
            token = who.token() if who else None
            self.calls += 1
            try:
                return call(self.base, method, path, body, token, headers)
            except AssertionError as error:
                match = re.search(r": (\d{3}) (.*)$", str(error), re.S)
                if not match:
                    raise
                refusal = Refused(int(match.group(1)), match.group(2))
            except OSError:  # the connection, while a process restarts
                if attempt >= 4:
                    raise
                time.sleep(1 + attempt)
                continue
            if refusal.status == 401 and who and attempt == 0:
                who.forget()
                continue
            if refusal.status == 429:
                wait = refusal.error.get("details", {}).get("retry_after_seconds", 2)
                print(f"  (rate limited: waiting {wait} s)", flush=True)
                time.sleep(min(float(wait), 60))
                continue
            if refusal.status in (503, 504) and attempt < 4:
                time.sleep(1 + attempt)
                continue
            raise refusal
        raise refusal

    def report(self, payment, kind="completed"):
        """The payment provider's signed report on `payment` (`POST /v1/payments/provider-events`),
        signed at the suite's time: a report more than five minutes from it is refused."""
        body = {"id": str(uuid.uuid4()), "provider": "local", "payment_id": payment["id"], "type": kind,
                "provider_ref": f"ch_{payment['id'][:8]}"}
        if kind == "completed":
            body.update(amount=payment["amount"], currency=payment["currency"])
        seconds = int(self.clock.now().timestamp())
        code = hmac.new(self.secret.encode(), f"{seconds}.{json.dumps(body)}".encode(), hashlib.sha256).hexdigest()
        return self.send("POST", "/v1/payments/provider-events", body,
                         headers={"Orderly-Signature": f"t={seconds},v1={code}"})


class Account:
    """A demo user: signs in once, then keeps its session going with the refresh token (sign-ins
    are counted per client address); after a move of the clock its access token has run out."""

    def __init__(self, api, role, name, email, password=PASSWORD, store=None, detail=None):
        self.api, self.role, self.name, self.email, self.password = api, role, name, email, password
        self.store, self.detail = store, detail
        self.user = None
        self.access = self.refresh_token = None
        self.issued = (0, 0.0)

    def adopt(self, pair):
        self.access, self.refresh_token = pair["access_token"], pair["refresh_token"]
        self.user = pair.get("user") or self.user
        self.issued = (self.api.clock.moves, time.monotonic())

    def sign_in(self):
        self.adopt(self.api.send("POST", "/v1/auth/login", {"email": self.email, "password": self.password}))
        return self

    def forget(self):
        self.access = None

    def token(self):
        moves, at = self.issued
        if self.access and moves == self.api.clock.moves and time.monotonic() - at < 600:
            return self.access
        if self.refresh_token:
            try:
                self.adopt(self.api.send("POST", "/v1/auth/refresh", {"refresh_token": self.refresh_token}))
                return self.access
            except Refused:
                pass
        self.sign_in()
        return self.access

    @property
    def id(self):
        return self.user["id"]


# ---------------------------------------------------------------------------------------------
# The demo itself, inside a running suite.

class Demo:
    def __init__(self, base, admin_email, admin_password, clock, provider_secret, log_path, force, note):
        self.base = base
        self.api = Api(base, clock, provider_secret)
        self.clock = clock
        self.admin = Account(self.api, "admin", "the bootstrap admin", admin_email, admin_password)
        self.log_path = log_path
        self.force = force
        self.note = note
        self.random = random.Random(20261206)
        self.tag = ""
        self.stores = {}  # key: {"spec", "store", "people": {short: Account}, "products": [...], ...}
        self.couriers = []
        self.customers = {}
        self.orders_made = 0
        self.day_tally = None
        self.meal = []
        self.applicant_verified = False

    def say(self, line=""):
        print(line, flush=True)

    def email(self, local, domain):
        return f"{local}{self.tag}@{domain}"

    # -- setting up ------------------------------------------------------------------------

    def refuse_if_filled(self):
        self.admin.sign_in()
        stores = self.api.send("GET", "/v1/stores?limit=200", who=self.admin)["data"]
        if not stores:
            return False
        if not self.force:
            self.say(f"\nThe suite at {self.base} holds data already ({len(stores)} store(s), e.g. "
                     f"{stores[0]['name']!r}): the demo fills only an empty install.")
            self.say("Run it with --force to add the demo beside what is there "
                     "(make demo DEMO_ARGS=--force, or demo.py --force)"
                     + (f", or remove {os.environ['ORDERLY_DEMO_DATA']} for a fresh suite." if
                        os.environ.get("ORDERLY_DEMO_DATA") else "."))
            return True
        self.tag = "+" + uuid.uuid4().hex[:4]
        self.say(f"--force: the suite holds {len(stores)} store(s) already; the demo's accounts get "
                 f"'{self.tag}' in their addresses")
        return False

    def setup(self):
        self.say(f"setting up on {self.clock.now().astimezone(LOCAL):%a %d %b %H:%M} (the suite's clock, Tel Aviv)")
        for spec in STORES:
            self.open_store(spec)
        self.check_clock(self.stores[STORES[0]["key"]]["store"]["created_at"], "the catalog")
        for spec in STORES:
            self.staff_store(spec)
            self.fill_menu(spec)
        self.hire_couriers()
        self.sign_up_customers()
        for spec in STORES:
            self.register_regulars(spec)
        products = sum(len(entry["products"]) for entry in self.stores.values())
        cards = sum(len(entry["cards"]) for entry in self.stores.values())
        self.say(f"  {len(self.stores)} stores with {products} products, "
                 f"{sum(len(entry['people']) for entry in self.stores.values())} store users, {len(self.couriers)} couriers, "
                 f"{len(self.customers)} customers, {cards} NFC cards of the stores' regulars")

    def check_clock(self, stamp, service):
        """Whether `stamp`, just written by `service`, is of the suite's clock as the demo set it."""
        written = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        off = abs((written - self.clock.now()).total_seconds())
        if off > 600:
            self.say(f"WARNING: {service} stamped {stamp}, {off / 3600:.1f} hours from the clock the demo set "
                     f"({self.clock.now():%Y-%m-%dT%H:%M}Z): the history's days will not be where they should")
        elif self.clock.moving:
            self.say(f"  {service} stamps {stamp}: the services' clock is a week back, as set")

    def store_fields(self, spec, admin):
        fields = {
            "name": spec["name"], "address": spec["address"], "phone": spec["phone"], "currency": "ILS",
            "timezone": "Asia/Jerusalem", "cuisine": spec["cuisine"], "description": spec["description"],
            "opening_hours": [{"day": day, "open": hours[0], "close": hours[1]} for day, hours in spec["hours"].items()],
            "delivery_pricing": {"tiers": spec["tiers"]}, "minimum_order": spec["minimum_order"],
            "auto_accept": spec["auto_accept"], "require_clock_in": spec["require_clock_in"],
            "staff_refund_limit": spec["staff_refund_limit"], "low_stock_default": spec["low_stock_default"],
            "accepting_orders": True,
        }
        if spec["image_url"]:
            fields["image_url"] = spec["image_url"]
        if admin:
            fields.update(tier=spec["tier"], commission_bp=spec["commission_bp"])
        return fields

    def open_store(self, spec):
        """A store and its owner: the pizzeria applies to join and is approved when the gateway's
        mail (its log lines here) can be read for the link that verifies the owner's address;
        the others, and every store elsewhere, the admin opens."""
        role, name, local, _ = spec["people"][0]
        owner = Account(self.api, "owner", name, self.email(local, spec["domain"]), store=spec["name"])
        entry = {"spec": spec, "people": {local: owner}, "products": [], "cards": [], "regulars": []}
        self.stores[spec["key"]] = entry
        if spec["key"] == "pizza" and self.log_path:
            application = self.api.send("POST", "/v1/applications", {
                "kind": "store", "name": name, "email": owner.email, "password": PASSWORD, "phone": "054-555-1230",
                "locale": "he", "store": {"name": spec["name"], "address": spec["address"], "phone": spec["phone"],
                                          "cuisine": spec["cuisine"], "timezone": "Asia/Jerusalem"}})
            if self.verify(owner.email):
                approved = self.api.send("POST", f"/v1/applications/{application['id']}/approve", who=self.admin)
                owner.sign_in()
                store = self.api.send("GET", f"/v1/stores/{approved['store_id']}", who=owner)
                store = self.api.send("PATCH", f"/v1/stores/{store['id']}", {**self.store_fields(spec, False),
                                                                             "expected_version": store["version"]}, owner)
                store = self.api.send("PATCH", f"/v1/stores/{store['id']}", {
                    "tier": spec["tier"], "commission_bp": spec["commission_bp"], "expected_version": store["version"]},
                    self.admin)
                entry["store"] = store
                entry["how"] = "applied to join; approved by the admin"
                return
            self.say("  (the pizzeria's application stays pending: no verification link in the log)")
        store = self.api.send("POST", "/v1/stores", self.store_fields(spec, True), self.admin)
        self.api.send("POST", "/v1/users", {"email": owner.email, "password": PASSWORD, "name": name, "role": "owner",
                                            "store_id": store["id"], "phone": spec["phone"], "locale": "he"}, self.admin)
        owner.sign_in()
        entry["store"] = store
        entry["how"] = "opened by the admin"

    def verify(self, email, seconds=20):
        """Verifies `email` with the token the gateway logged for it (no SMTP server here)."""
        deadline = time.monotonic() + seconds
        pattern = re.compile(r"verify-email/([A-Za-z0-9._~%-]+)")
        while time.monotonic() < deadline:
            try:
                with open(self.log_path, errors="replace") as file:
                    tokens = [pattern.search(line).group(1) for line in file
                              if email in line and pattern.search(line)]
            except OSError:
                tokens = []
            if tokens:
                self.api.send("POST", "/v1/auth/verify-email", {"token": tokens[-1]})
                return True
            time.sleep(0.5)
        return False

    def staff_store(self, spec):
        entry = self.stores[spec["key"]]
        owner = entry["people"][spec["people"][0][2]]
        for role, name, local, staff_role in spec["people"][1:]:
            account = Account(self.api, role, name, self.email(local, spec["domain"]), store=spec["name"],
                              detail=staff_role)
            body = {"email": account.email, "password": PASSWORD, "name": name, "role": role,
                    "store_id": entry["store"]["id"], "locale": "he",
                    "phone": f"05{self.random.randint(0, 9)}-{self.random.randint(100, 999)}-{self.random.randint(1000, 9999)}"}
            if staff_role:
                body["staff_role"] = staff_role
            self.api.send("POST", "/v1/users", body, owner)
            entry["people"][local] = account.sign_in()

    def manager(self, entry):
        return next(a for a in entry["people"].values() if a.role == "manager")

    def cashier(self, entry):
        return next(a for a in entry["people"].values() if a.role == "staff")

    def kitchen(self, entry):
        return [a for a in entry["people"].values() if a.role == "staff"][-1]

    def fill_menu(self, spec):
        entry = self.stores[spec["key"]]
        manager = self.manager(entry)
        for category, items in spec["menu"]:
            for name, price, emoji, description, groups, stock, image in items:
                body = {"name": name, "price": price, "category": category, "emoji": emoji,
                        "sku": f"{spec['key'][:3].upper()}-{len(entry['products']) + 101}",
                        "option_groups": [{"name": g, "min_select": low, "max_select": high,
                                           "options": [{"name": o, "price_delta": d} for o, d in options]}
                                          for g, low, high, options in groups]}
                if description:
                    body["description"] = description
                if image:
                    body["image_url"] = image
                if stock is not None:
                    body.update(track_stock=True, quantity=stock)
                product = self.api.send("POST", f"/v1/stores/{entry['store']['id']}/products", body, manager)
                product["par"] = stock
                entry["products"].append(product)

    def hire_couriers(self):
        """Three couriers the admin creates; the fourth applies to join and is approved (when the
        log can be read for the link that verifies the address). One more applicant waits."""
        for name, local, phone in COURIERS:
            account = Account(self.api, "courier", name, self.email(local, "couriers.orderly.example"))
            if local == "lior" and self.log_path:
                application = self.api.send("POST", "/v1/applications", {
                    "kind": "courier", "name": name, "email": account.email, "password": PASSWORD, "phone": phone,
                    "locale": "he", "vehicle": "bicycle"})
                if self.verify(account.email):
                    self.api.send("POST", f"/v1/applications/{application['id']}/approve", who=self.admin)
                    account.detail = "bicycle; applied to join, approved"
                    self.couriers.append(account.sign_in())
                    continue
                self.say("  (a courier's application stays pending: no verification link in the log)")
                continue
            self.api.send("POST", "/v1/users", {"email": account.email, "password": PASSWORD, "name": name,
                                                "role": "courier", "phone": phone, "locale": "he"}, self.admin)
            account.detail = "scooter"
            self.couriers.append(account.sign_in())
        # Someone waiting for the platform's decision, for the console's platform screen.
        waiting = self.email("dor", "couriers.orderly.example")
        self.api.send("POST", "/v1/applications", {"kind": "courier", "name": "Dor Malul", "email": waiting,
                                                   "password": PASSWORD, "phone": "050-909-1122", "vehicle": "e-bike"})
        self.applicant_verified = bool(self.log_path) and self.verify(waiting, seconds=5)

    def sign_up_customers(self):
        for local, name, locale, phone, addresses in CUSTOMERS:
            account = Account(self.api, "customer", name, self.email(local, "mail.example"))
            account.adopt(self.api.send("POST", "/v1/auth/register", {
                "email": account.email, "password": PASSWORD, "name": name, "phone": phone, "locale": locale}))
            account.addresses = []
            for label, street, number, floor, apartment, notes in addresses:
                body = {"label": label, "street": street, "building_no": number, "city": "Tel Aviv"}
                for key, value in (("floor", floor), ("apartment", apartment), ("delivery_notes", notes)):
                    if value:
                        body[key] = value
                account.addresses.append(self.api.send("POST", "/v1/me/addresses", body, account))
            account.detail = f"{len(addresses)} saved address{'es' if len(addresses) > 1 else ''}"
            self.customers[local] = account
        if self.log_path:  # they follow the link mailed at sign-up (read from the gateway's log lines)
            for account in self.customers.values():
                self.verify(account.email, seconds=5)

    def register_regulars(self, spec):
        """The store's own records of its regulars (two linked to their accounts), each with an NFC
        card; one lost card blocked."""
        entry = self.stores[spec["key"]]
        cashier = self.cashier(entry)
        for index, (customer, walk_in) in enumerate(spec["regulars"]):
            if customer:
                account = self.customers[customer]
                phone = next(c[3] for c in CUSTOMERS if c[0] == customer)
                body = {"name": account.name, "email": account.email, "phone": phone, "user_id": account.id}
            else:
                body = {"name": walk_in[0], "phone": walk_in[1], "notes": "Comes every morning; pays with the card."}
            record = self.api.send("POST", f"/v1/stores/{entry['store']['id']}/customers", body, cashier)
            uid = "04:" + ":".join(hashlib.sha256(f"{spec['key']}{index}".encode()).hexdigest()[i:i + 2].upper()
                                   for i in range(0, 12, 2))
            card = self.api.send("POST", f"/v1/stores/{entry['store']['id']}/cards",
                                 {"uid": uid, "name": f"{record['name'].split()[0]}'s card", "customer_id": record["id"]},
                                 cashier)
            entry["regulars"].append(record)
            entry["cards"].append(card)
            if not customer:
                lost = "04:" + ":".join(hashlib.sha256(f"{spec['key']}lost".encode()).hexdigest()[i:i + 2].upper()
                                        for i in range(0, 12, 2))
                old = self.api.send("POST", f"/v1/stores/{entry['store']['id']}/cards",
                                    {"uid": lost, "name": "Lost card", "customer_id": record["id"], "status": "blocked"},
                                    cashier)
                entry["cards"].append(old)

    # -- a day's business ---------------------------------------------------------------------

    def history(self):
        """The last seven days, a slot at a time, each on the clock moved to its time (or, with the
        clock not moving, all at the real time, one after another)."""
        now = dt.datetime.now(UTC)
        today = now.astimezone(LOCAL).date()
        plan = []
        for back in range(6, -1, -1):
            day = today - dt.timedelta(days=back)
            for hhmm, kind in SLOTS:
                when = local_at(day, hhmm)
                if not self.clock.moving or when < now - dt.timedelta(minutes=3):
                    plan.append((when, kind))
        self.say("history, a slot at a time" + (" on the moved clock:" if self.clock.moving else
                                                 " (at the real time: the clock is not moved here):"))
        self.meal = []
        self.day = None
        for when, kind in plan:
            self.clock.move_to(when)
            at = when if self.clock.moving else self.clock.now()
            local_day = when.astimezone(LOCAL).date()
            if local_day != self.day:
                if self.day:
                    self.summarize_day()
                self.day = local_day
                self.day_tally = {key: [0, 0, 0] for key in self.stores}  # orders, sales, refunds
                self.day_started = time.monotonic()
            getattr(self, "slot_" + kind.replace(" ", "_"))(at, when)
        self.summarize_day()

    def summarize_day(self):
        words = " · ".join(f"{self.stores[key]['spec']['name']} {orders} orders, {sales} till sales"
                           + (f", {refunds} refund{'s' if refunds > 1 else ''}" if refunds else "")
                           for key, (orders, sales, refunds) in self.day_tally.items() if orders or sales)
        label = self.day.strftime("%a %d %b") if self.clock.moving else f"day {self.day:%a}"
        self.say(f"  {label}  {words or 'closed'}  ({time.monotonic() - self.day_started:.0f} s)")

    def open_stores(self, at):
        return [entry for entry in self.stores.values() if open_at(entry["spec"], at)]

    def trading_today(self, when):
        """The stores that open at some time today (lunch or dinner)."""
        day = when.astimezone(LOCAL).date()
        return [entry for entry in self.stores.values()
                if open_at(entry["spec"], local_at(day, "12:40")) or open_at(entry["spec"], local_at(day, "19:40"))]

    def slot_open(self, at, when):
        day = day_name(when)
        for entry in self.trading_today(when):
            manager = self.manager(entry)
            par = {p["id"]: p["par"] for p in entry["products"] if p["par"]}
            stock = self.api.send("GET", f"/v1/stores/{entry['store']['id']}/products?limit=200", who=manager)["data"]
            for product in stock:
                if product["id"] in par and product["quantity"] < par[product["id"]]:
                    self.api.send("POST", f"/v1/products/{product['id']}/stock-adjustments",
                                  {"new_quantity": par[product["id"]], "reason": "restock"}, manager)
            for account in entry["people"].values():
                if account.role in ("manager", "staff"):
                    self.clock_in(account, self.float_of(entry, account))
        resting = self.couriers[DAYS.index(day) % len(self.couriers)]
        for courier in self.couriers:
            courier.user = self.api.send("PUT", "/v1/couriers/me/availability", {"on_duty": courier is not resting},
                                         courier)
        for entry in self.open_stores(at):
            if entry["spec"]["key"] == "cafe":
                for _ in range(self.random.randint(2, 4)):
                    self.till_sale(entry)

    def float_of(self, entry, account):
        """The cash a drawer starts the shift with: the cashier's 500 shekels, the manager's 200 (for
        refunds), none in the kitchen."""
        return 50000 if account is self.cashier(entry) else 20000 if account.role == "manager" else 0

    def clock_in(self, account, opening):
        try:
            self.api.send("POST", "/v1/shifts/clock-in", {"opening_cash": opening}, account)
        except Refused as refusal:
            if refusal.reason != "already_clocked_in":
                raise

    def slot_lunch(self, at, when):
        self.meal_rush(at, when, 2)

    def slot_dinner(self, at, when):
        self.meal_rush(at, when, 3)

    def slot_lunch_served(self, at, when):
        self.serve_meal(when)

    def slot_dinner_served(self, at, when):
        self.serve_meal(when)

    def meal_rush(self, at, when, base):
        trade = WEEKDAY_TRADE[day_name(when)]
        for entry in [e for e in self.open_stores(at) if open_at(e["spec"], when)]:
            count = max(1, round(base * trade * entry["spec"]["busy"] + self.random.uniform(-1, 1)))
            for _ in range(count):
                flow = self.checkout(entry)
                if flow:
                    self.meal.append(flow)
                    self.day_tally[entry["spec"]["key"]][0] += 1
            for _ in range(self.random.randint(1, 2)):
                self.till_sale(entry)
        # The kitchens take the paid orders in; couriers claim the deliveries.
        for flow in self.meal:
            self.advance(flow, until="claimed")

    def serve_meal(self, when):
        for flow in self.meal:
            self.advance(flow, until="done")
        # Now and then something goes wrong: part of an order refunded.
        for flow in self.meal:
            if flow.get("payment") and flow["state"] == "done" and not flow.get("cancelled") \
                    and self.random.random() < 0.12:
                entry = flow["entry"]
                amount = min(flow["payment"]["amount"], self.random.choice((600, 900, 1200)))
                try:
                    self.api.send("POST", f"/v1/payments/{flow['payment']['id']}/refunds",
                                  {"amount": amount, "reason": self.random.choice(
                                      ("The fries were missing", "Arrived cold", "Wrong drink", "Late delivery"))},
                                  self.manager(entry))
                    self.day_tally[entry["spec"]["key"]][2] += 1
                except Refused as refusal:
                    self.say(f"  (a refund refused: {refusal})"[:200])
        self.meal = []

    def slot_close(self, at, when):
        for entry in self.trading_today(when):
            # A till sale given back in full: the manager refunds it from their drawer, stock restocked.
            sale = entry.get("last_cash_sale")
            if sale and self.random.random() < 0.4:
                lines = [{"product_id": item["product_id"], "quantity": item["quantity"]}
                         for item in sale["items"] if item.get("tracked")]
                body = {"reason": "Customer changed their mind"}
                if lines:
                    body["restock_lines"] = lines
                try:
                    self.api.send("POST", f"/v1/payments/{sale['id']}/refunds", body, self.manager(entry))
                    self.day_tally[entry["spec"]["key"]][2] += 1
                except Refused as refusal:
                    self.say(f"  (a refund refused: {refusal})"[:200])
            entry["last_cash_sale"] = None
            manager = self.manager(entry)
            shifts = self.api.send("GET", f"/v1/stores/{entry['store']['id']}/shifts?open=true", who=manager)["data"]
            for shift in shifts:
                expected = shift["opening_cash"] + shift["cash_sales"] - shift["cash_refunds"]
                counted = max(0, expected + self.random.choice((0, 0, 0, 0, -500, 200, -1000)))
                body = {"counted_cash": counted}
                account = next((a for a in entry["people"].values() if a.user and a.id == shift["user_id"]), None)
                if account is None or account is manager:
                    body["user_id"] = shift["user_id"]
                self.api.send("POST", "/v1/shifts/clock-out", body, account or manager)
        for courier in self.couriers:
            courier.user = self.api.send("PUT", "/v1/couriers/me/availability", {"on_duty": False}, courier)

    # -- a sale at the till -------------------------------------------------------------------

    def till_sale(self, entry, cashier=None):
        """A sale rung up at the till: cash (with change), card or a regular's NFC card."""
        cashier = cashier or self.cashier(entry)
        products = self.random.sample(entry["products"], self.random.randint(1, 3))
        items = [{"product_id": p["id"], "quantity": self.random.choice((1, 1, 1, 2))} for p in products]
        method = self.random.choice(("cash", "cash", "card", "nfc"))
        body = {"method": method, "items": items}
        card = None
        if method == "nfc":
            card = self.random.choice([c for c in entry["cards"] if c["status"] == "active"])
            body["card_uid"] = card["uid"]
        elif self.random.random() < 0.3:
            body["customer_id"] = self.random.choice(entry["regulars"])["id"]
        if method != "cash" and not self.api.secret:
            method = body["method"] = "cash"
            body.pop("card_uid", None)
        try:
            payment = self.api.send("POST", "/v1/payments", body, cashier)
        except Refused as refusal:
            if refusal.reason in ("insufficient_stock", "not_clocked_in", "product_inactive"):
                return None
            raise
        if method == "cash":
            tendered = -(-payment["amount"] // 5000) * 5000 if self.random.random() < 0.7 else payment["amount"]
            try:
                payment = self.api.send("POST", f"/v1/payments/{payment['id']}/confirm",
                                        {"amount_tendered": tendered}, cashier)
            except Refused as refusal:  # no drawer open: the sale is called off
                self.api.send("POST", f"/v1/payments/{payment['id']}/cancel", {}, cashier)
                if refusal.reason == "not_clocked_in":
                    return None
                raise
            entry["last_cash_sale"] = payment
        else:
            self.api.report(payment)
        if self.day_tally:
            self.day_tally[entry["spec"]["key"]][1] += 1
        return payment

    # -- a customer's order ----------------------------------------------------------------

    def checkout(self, entry, customer=None):
        """A customer checks out: a delivery (card or cash at the door) or a pickup, paid by card
        straight away (now and then a card order is left unpaid, which the suite cancels after 15
        minutes)."""
        customer = customer or self.random.choice(list(self.customers.values()))
        menu = [p for p in entry["products"]]
        chosen = self.random.sample(menu, self.random.randint(1, 3))
        items = []
        for product in chosen:
            options = []
            for group in product["option_groups"]:
                picks = self.random.randint(group["min_select"], min(group["max_select"], group["min_select"] + 1))
                options += [o["id"] for o in self.random.sample(group["options"], picks)]
            item = {"product_id": product["id"], "quantity": self.random.choice((1, 1, 1, 2))}
            if options:
                item["option_ids"] = options
            items.append(item)
        # Enough to pass the store's minimum.
        kind = self.random.choices(("delivery-card", "delivery-cash", "pickup"), (6, 3, 2))[0]
        if not self.api.secret and kind != "delivery-cash":
            kind = "delivery-cash"
        body = {"store_id": entry["store"]["id"], "items": items,
                "payment_method": "cash_on_delivery" if kind == "delivery-cash" else "card"}
        if kind == "pickup":
            body["fulfillment"] = "pickup"
        else:
            body["address_id"] = self.random.choice(customer.addresses)["id"]
            body["tip"] = self.random.choice((0, 0, 500, 1000, 1500))
        if self.random.random() < 0.25:
            body["notes"] = self.random.choice(("Extra tahini please", "No onions", "Ring twice",
                                                "Cutlery for two", "Leave it at the door"))
        for _ in range(3):
            try:
                order = self.api.send("POST", "/v1/orders", body, customer)
                break
            except Refused as refusal:
                if refusal.reason == "below_minimum":
                    extra = self.random.choice([p for p in menu if not p["option_groups"]] or menu)
                    body["items"].append({"product_id": extra["id"], "quantity": 2})
                    body["items"] = list({i["product_id"]: i for i in body["items"]}.values())
                    continue
                if refusal.reason in ("store_closed", "insufficient_stock", "too_many_unpaid", "product_inactive"):
                    return None
                raise
        else:
            return None
        self.orders_made += 1
        flow = {"entry": entry, "order": order, "customer": customer, "kind": kind, "state": "placed", "payment": None}
        if kind != "delivery-cash":
            if self.random.random() < 0.04:
                flow["state"] = "done"  # left unpaid: cancelled by the suite once its time is up
                return flow
            payment = self.api.send("POST", "/v1/payments", {"order_id": order["id"], "method": "card"}, customer)
            self.api.report(payment)
            flow["payment"] = payment
        return flow

    def order_now(self, flow, who=None):
        who = who or self.cashier(flow["entry"])
        flow["order"] = self.api.send("GET", f"/v1/orders/{flow['order']['id']}", who=who)
        return flow["order"]

    def act(self, flow, action, who, body=None):
        flow["order"] = self.api.send("POST", f"/v1/orders/{flow['order']['id']}/actions/{action}", body or {}, who)
        return flow["order"]

    def wait_for(self, flow, condition, what, seconds=20):
        """Waits for what the suite does on its own from its events (a card payment reaching the
        order, a store accepting by itself)."""
        deadline = time.monotonic() + seconds
        while True:
            order = self.order_now(flow)
            if condition(order):
                return order
            if time.monotonic() > deadline:
                raise RuntimeError(f"order #{order['number']} of {flow['entry']['spec']['name']}: {what} did not "
                                   f"happen within {seconds} s (status {order['status']}, "
                                   f"payment {order.get('payment_status')})")
            time.sleep(0.3)

    def step(self, flow):
        """Moves the order one step on; answers a few words for the trickle, or None when there is
        nothing more to do."""
        entry, order = flow["entry"], flow["order"]
        cashier, kitchen = self.cashier(entry), self.kitchen(entry)
        state = flow["state"]
        if state == "placed":
            if flow["payment"]:
                self.wait_for(flow, lambda o: o.get("payment_status") == "paid", "the card payment")
            if entry["spec"]["auto_accept"]:
                self.wait_for(flow, lambda o: o["status"] != "pending", "accepting by itself")
                flow["state"] = "accepted"
                return "accepted by itself"
            if self.random.random() < 0.03:
                self.act(flow, "cancel", self.manager(entry), {"reason": self.random.choice(
                    ("Out of dough tonight", "Kitchen closing early", "Address outside our delivery area"))})
                flow["state"], flow["cancelled"] = "done", True
                return "cancelled by the store" + (" (card payment refunded)" if flow["payment"] else "")
            self.act(flow, "accept", cashier)
            flow["state"] = "accepted"
            return "accepted"
        if state == "accepted":
            self.act(flow, "start_preparing", kitchen)
            flow["state"] = "preparing"
            return "preparing"
        if state == "preparing" and flow["kind"] != "pickup" and not order.get("courier_id"):
            courier = self.claim(flow)
            if courier:
                return f"claimed by {courier.name}"
        if state == "preparing":
            self.act(flow, "mark_ready", kitchen)
            flow["state"] = "ready"
            return "ready"
        if state == "ready":
            if flow["kind"] == "pickup":
                self.act(flow, "mark_collected", cashier)
                flow["state"] = "done"
                return "collected"
            courier = flow.get("courier") or self.claim(flow)
            if not courier:
                return None
            self.act(flow, "pick_up", courier)
            flow["state"] = "out"
            return f"out for delivery with {courier.name}"
        if state == "out":
            body = {}
            if flow["kind"] == "delivery-cash":
                body["cash_collected"] = order["total"] + (order.get("tip") or 0)
            self.act(flow, "deliver", flow["courier"], body)
            flow["state"] = "done"
            return "delivered" + (f", {shekels(body['cash_collected'])} collected in cash" if body else "")
        return None

    def claim(self, flow):
        """An on-duty courier claims the delivery (a courier carries three at most)."""
        couriers = [c for c in self.couriers if c.user.get("on_duty")] or self.couriers
        self.random.shuffle(couriers)
        for courier in couriers:
            try:
                self.act(flow, "claim", courier)
                flow["courier"] = courier
                return courier
            except Refused as refusal:
                if refusal.reason in ("too_many_claims", "off_duty", "already_claimed"):
                    continue
                raise
        return None

    def advance(self, flow, until):
        """Steps the order on until it is claimed (or out of the pool's reach), or done."""
        while flow["state"] != "done":
            if until == "claimed" and (flow.get("courier") or flow["state"] == "preparing" and flow["kind"] == "pickup"):
                return
            if until == "claimed" and flow["state"] in ("ready", "out"):
                return
            if self.step(flow) is None and flow["state"] != "done":
                return

    # -- the takings, read back ------------------------------------------------------------------

    def takings(self):
        """Each store's takings of the last seven days (`GET /v1/stores/{id}/stats`): a read model
        the payments service keeps from its events, so it is asked again until it holds every
        payment the demo completed."""
        today = self.clock.now().astimezone(LOCAL).date()
        start = today - dt.timedelta(days=6)
        self.say("takings of the last seven days (GET /v1/stores/{id}/stats), in shekels:")
        busy_days = {}
        for key, entry in self.stores.items():
            owner = entry["people"][entry["spec"]["people"][0][2]]
            deadline = time.monotonic() + 20
            previous = None
            while True:
                stats = self.api.send("GET", f"/v1/stores/{entry['store']['id']}/stats?from={start}&to={today}", who=owner)
                figures = [(day["date"], day["figures"]["revenue"]) for day in stats["days"]]
                if figures == previous or time.monotonic() > deadline:
                    break
                previous = figures
                time.sleep(1.5)
            days = [f"{dt.date.fromisoformat(date):%a} {revenue / 100:,.0f}" for date, revenue in figures]
            busy_days[key] = sum(1 for _, revenue in figures if revenue > 0)
            self.say(f"  {entry['spec']['name']:<22} " + " · ".join(days)
                     + f"   (takings on {busy_days[key]} of 7 days)")
        return busy_days

    # -- the trickle ---------------------------------------------------------------------------

    def prepare_trickle(self):
        now = self.clock.now()
        self.open_now = [e for e in self.stores.values() if open_at(e["spec"], now)]
        for index, courier in enumerate(self.couriers):
            courier.user = self.api.send("PUT", "/v1/couriers/me/availability", {"on_duty": index < 3}, courier)
        for entry in self.open_now:
            for account in (self.cashier(entry), self.kitchen(entry), self.manager(entry)):
                self.clock_in(account, self.float_of(entry, account))
        # A rush to start with, so that the boards show orders in every column.
        for entry in self.open_now:
            for steps in range(self.random.randint(2, 3)):
                flow = self.checkout(entry)
                if flow:
                    for _ in range(steps * 2):
                        if flow["state"] == "done" or self.step(flow) is None:
                            break
                    self.meal.append(flow)

    def trickle(self, stop):
        """Every few seconds, one thing: a customer checks out, a store moves an order on, a
        courier claims, picks up or delivers, or the café sells at the till. Today's orders still
        on their way when the history ended go on first."""
        live = [flow for flow in self.meal if flow["state"] != "done"]
        self.meal = []
        ticks = 0
        stores_checked = time.monotonic()
        while not stop.is_set():
            stop.wait(self.random.uniform(2.5, 5.0))
            if stop.is_set():
                break
            ticks += 1
            if time.monotonic() - stores_checked > 120:
                self.open_now = [e for e in self.stores.values() if open_at(e["spec"], self.clock.now())]
                stores_checked = time.monotonic()
            stamp = dt.datetime.now(LOCAL).strftime("%H:%M:%S")
            flow = None
            try:
                if ticks % 7 == 0 and self.open_now:
                    entry = self.random.choice(self.open_now)
                    payment = self.till_sale(entry)
                    if payment:
                        how = {"cash": "a cash", "card": "a card", "nfc": "an NFC card"}[payment["method"]]
                        self.say(f"  {stamp}  {entry['spec']['name']}: {how} sale at the till, "
                                 f"{shekels(payment['amount'])}")
                    continue
                if self.open_now and (len(live) < 2 or (len(live) < 6 and self.random.random() < 0.3)):
                    entry = self.random.choice(self.open_now)
                    flow = self.checkout(entry)
                    if flow:
                        order = flow["order"]
                        live.append(flow)
                        how = {"delivery-card": "delivery, card", "delivery-cash": "delivery, cash at the door",
                               "pickup": "pickup, card"}[flow["kind"]]
                        self.say(f"  {stamp}  {entry['spec']['name']} #{order['number']}: {flow['customer'].name} "
                                 f"checked out ({how}, {shekels(order['total'] + (order.get('tip') or 0))})")
                    continue
                if not live:
                    continue
                flow = live[0] if self.random.random() < 0.6 else self.random.choice(live)
                words = self.step(flow)
                if words:
                    self.say(f"  {stamp}  {flow['entry']['spec']['name']} #{flow['order']['number']}: {words}")
                if flow["state"] == "done":
                    live.remove(flow)
                else:
                    live.remove(flow)
                    live.append(flow)
            except OSError as problem:  # the suite stopped under the demo
                self.say(f"  {stamp}  the suite does not answer ({problem}): the trickle stops")
                return
            except (Refused, RuntimeError) as problem:
                self.say(f"  {stamp}  (skipped: {problem})"[:300])
                if flow in live and isinstance(problem, Refused) and problem.status in (404, 409, 422):
                    live.remove(flow)

    # -- what to sign in with ----------------------------------------------------------------

    def print_logins(self):
        self.say(f"\nOrderly demo: the console is at {self.base}/console/")
        self.say(f"Every demo account's password is {PASSWORD}. Logins (e-mail / password):")
        rows = [("admin", self.admin.email, self.admin.password, "the platform's bootstrap admin")]
        for entry in self.stores.values():
            for account in entry["people"].values():
                what = entry["spec"]["name"] + (f", {account.detail}" if account.detail else "")
                if account.role == "owner":
                    what += f" ({entry['how']})"
                rows.append((account.role, account.email, account.password, what))
        for account in self.couriers:
            rows.append(("courier", account.email, account.password, account.detail or ""))
        for account in self.customers.values():
            rows.append(("customer", account.email, account.password, f"{account.name}, {account.detail}"))
        for role, email, password, what in rows:
            self.say(f"  {role:<9} {email} / {password}   {what}")
        if self.applicant_verified:
            self.say("A courier's application (Dor Malul) waits on the platform screen for the admin's decision.")
        else:
            self.say("A courier's application (Dor Malul) waits on the platform screen; approving it needs the link "
                     "mailed to his address first (rejecting does not).")


def provider_secret():
    configured = os.environ.get("ORDERLY_PAYMENT_PROVIDER_SECRETS", "")
    secrets = dict(entry.split("=", 1) for entry in configured.split(",") if "=" in entry)
    return secrets.get("local")


def inside(base, force, against=False):
    """The demo in a running suite: refuses a filled one, sets up, makes the history, then trickles."""
    started = time.monotonic()
    clock = Clock(os.environ.get("ORDERLY_DEMO_CLOCK") or None)
    demo = Demo(base, os.environ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"], os.environ["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"],
                clock, provider_secret(), os.environ.get("ORDERLY_DEMO_LOG") or None, force,
                os.environ.get("ORDERLY_DEMO_NOTE"))
    if clock.moving:
        demo.say("the clock: the services run under libfaketime, moved back a week; the demo moves it on a few "
                 "hours at a time and ends at the real time (Redis keeps the real time)")
    else:
        demo.say("the clock: not moved" + (f" ({demo.note})" if demo.note else "")
                 + ": the history is made at the real time, so its takings all fall on today")
    if not demo.api.secret:
        demo.say("no payment provider's secret (ORDERLY_PAYMENT_PROVIDER_SECRETS=local=…): cash payments only")
    try:
        return demo_phases(demo, clock, started, against)
    except KeyboardInterrupt:
        demo.say("\nstopped")
        return 0


def demo_phases(demo, clock, started, against):
    if demo.refuse_if_filled():
        return 3
    phase = time.monotonic()
    demo.setup()
    demo.say(f"phase: setup took {time.monotonic() - phase:.0f} s")
    phase = time.monotonic()
    demo.history()
    clock.move_to(dt.datetime.now(UTC) + dt.timedelta(hours=1))  # back to the real time: an offset of +0
    demo.day_tally = None
    demo.say(f"phase: history took {time.monotonic() - phase:.0f} s ({demo.orders_made} orders, "
             f"{clock.moves} moves of the clock, {demo.api.calls} requests)")
    phase = time.monotonic()
    busy = demo.takings()
    demo.say(f"phase: takings read back in {time.monotonic() - phase:.0f} s")
    if clock.moving and max(busy.values()) < 3:
        demo.say("WARNING: the takings fall on fewer than three days: the services' clock did not move as asked")
    demo.prepare_trickle()
    demo.print_logins()
    demo.say(f"\nready in {time.monotonic() - started:.0f} s. The trickle (every few seconds; Ctrl-C stops "
             + ("the demo" if against else "everything") + "):")
    demo.trickle(threading.Event())
    return 0


# ---------------------------------------------------------------------------------------------
# Starting the suite, as `make run` does, with the services on the demo's clock.

KEEP_TIMERS_REAL = r"""
/* Loaded before libfaketime (deploy/local/demo.py): libfaketime 0.9.10 converts every absolute
   timer as if it ran on CLOCK_REALTIME, so with the wall clock moved back days libdispatch's
   timers (on the monotonic and boot clocks; Swift's Task.sleep) would wait days longer. Timers and
   sleeps on any clock but the real-time ones go straight to libc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/timerfd.h>
#include <time.h>

#define TRACKED 65536
static signed char clocks[TRACKED]; /* a timerfd's clock + 1; 0 when unknown */

static void *from_libc(const char *name) {
    static void *libc;
    if (!libc) libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    return libc ? dlsym(libc, name) : NULL;
}

static int realtime(int clock) { return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_ALARM; }

int timerfd_create(int clock, int flags) {
    int (*create)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "timerfd_create");
    int fd = create(clock, flags);
    if (fd >= 0 && fd < TRACKED) clocks[fd] = (signed char)(clock + 1);
    return fd;
}

typedef int (*set_timer)(int, int, const struct itimerspec *, struct itimerspec *);
int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
    int clock = fd >= 0 && fd < TRACKED ? clocks[fd] - 1 : -1;
    set_timer set = (set_timer)(clock >= 0 && !realtime(clock) ? from_libc("timerfd_settime")
                                                               : dlsym(RTLD_NEXT, "timerfd_settime"));
    return set(fd, flags, value, old);
}

typedef int (*sleeper)(clockid_t, int, const struct timespec *, struct timespec *);
int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request, struct timespec *remain) {
    sleeper sleep = (sleeper)(realtime(clock) ? dlsym(RTLD_NEXT, "clock_nanosleep") : from_libc("clock_nanosleep"));
    return sleep(clock, flags, request, remain);
}
"""

# Run under the moved clock: the wall clock must read about a day back, and a libdispatch timer
# (what Swift's Task.sleep waits on) must fire on time.
CLOCK_PROBE = r"""
import ctypes, select, sys, time
behind = time.time()
dispatch = ctypes.CDLL(sys.argv[1])
dispatch.dispatch_time.restype = ctypes.c_uint64
dispatch.dispatch_time.argtypes = [ctypes.c_uint64, ctypes.c_int64]
dispatch.dispatch_get_global_queue.restype = ctypes.c_void_p
dispatch.dispatch_get_global_queue.argtypes = [ctypes.c_long, ctypes.c_ulong]
Callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
fired = []
callback = Callback(lambda context: fired.append(time.monotonic()))
dispatch.dispatch_after_f.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p, Callback]
start = time.monotonic()
dispatch.dispatch_after_f(dispatch.dispatch_time(0, 300_000_000), dispatch.dispatch_get_global_queue(0, 0), None, callback)
while not fired and time.monotonic() - start < 3:
    select.select([], [], [], 0.1)
print(f"{behind:.0f} {fired[0] - start if fired else -1:.2f}")
"""


def build(configuration):
    """The five services, built as run.sh builds them (its build logs in .build/run-<product>.log)."""
    for product in PRODUCTS:
        started = time.monotonic()
        print(f"building {product:<22}", end="", flush=True)
        with open(os.path.join(root, ".build", f"run-{product}.log"), "w") as log:
            status = subprocess.run(["swift", "build", "-c", configuration, "--product", product], cwd=root,
                                    stdout=log, stderr=subprocess.STDOUT).returncode
        if status:
            print(" failed")
            with open(os.path.join(root, ".build", f"run-{product}.log"), errors="replace") as log:
                errors = sorted({line.rstrip() for line in log if "error:" in line})
            print("\n".join(errors[:40]), file=sys.stderr)
            sys.exit(1)
        print(f" done ({time.monotonic() - started:.0f} s)")
    return subprocess.run(["swift", "build", "-c", configuration, "--show-bin-path"], cwd=root, check=True,
                          capture_output=True, text=True).stdout.strip()


def prepare_clock(binaries, folder, start):
    """Wrappers that run each service under libfaketime with the clock file `folder`/offset set
    to `start`; answers the wrappers' folder and the clock file, or None and why not."""
    if not os.path.exists(FAKETIME):
        return None, f"{FAKETIME} is missing (deploy/local/install-deps.sh demo installs faketime)"
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        return None, "no C compiler to build the fix that keeps libdispatch's timers real"
    os.makedirs(os.path.join(folder, "bin"), exist_ok=True)
    source, fix = os.path.join(folder, "keep-timers-real.c"), os.path.join(folder, "keep-timers-real.so")
    with open(source, "w") as file:
        file.write(KEEP_TIMERS_REAL)
    built = subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", fix, source, "-ldl"], capture_output=True, text=True)
    if built.returncode:
        return None, f"the timer fix did not build: {built.stderr.strip()[:300]}"
    preload = f"{fix} {FAKETIME}"
    clock = os.path.join(folder, "offset")
    settings = {"LD_PRELOAD": preload, "FAKETIME_TIMESTAMP_FILE": clock, "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                "FAKETIME_CACHE_DURATION": "1"}
    # The probe, on a clock file of its own a day back.
    linked = subprocess.run(["ldd", os.path.join(binaries, "orderly-gateway")], capture_output=True, text=True).stdout
    dispatch = re.search(r"libdispatch\.so\S* => (\S+)", linked)
    if not dispatch:
        return None, "the services do not link libdispatch dynamically, where the probe looks"
    probe_clock = os.path.join(folder, "probe-offset")
    with open(probe_clock, "w") as file:
        file.write("-86400\n")
    probe = subprocess.run([sys.executable, "-c", CLOCK_PROBE, dispatch.group(1)], capture_output=True, text=True,
                           env=dict(os.environ, **dict(settings, FAKETIME_TIMESTAMP_FILE=probe_clock)), timeout=30)
    try:
        behind, fired = probe.stdout.split()
        behind = time.time() - float(behind)
        fired = float(fired)
    except ValueError:
        return None, f"the clock probe failed: {(probe.stderr or probe.stdout).strip()[:300]}"
    if not 86000 < behind < 86800 or not 0 <= fired < 1.5:
        return None, f"libfaketime did not move the clock as asked here (a day back read {behind:.0f} s back; a 0.3 s " \
                     f"libdispatch timer fired after {fired:.2f} s)"
    with open(clock, "w") as file:
        file.write(f"{min(0, round((start - dt.datetime.now(UTC)).total_seconds())):+d}\n")
    for product in PRODUCTS:
        wrapper = os.path.join(folder, "bin", product)
        with open(wrapper, "w") as file:
            file.write("#!/bin/sh\n# The service on the demo's clock (deploy/local/demo.py).\n"
                       + "".join(f"export {name}='{value}'\n" for name, value in settings.items())
                       + f"exec '{os.path.join(binaries, product)}' \"$@\"\n")
        os.chmod(wrapper, 0o755)
    return (os.path.join(folder, "bin"), clock), None


def run_suite(force):
    """`make demo`: builds as run.sh does, starts the suite (its processes' log lines into
    `<data>/suite.log`), and runs the demo inside it."""
    data = os.path.abspath(os.environ.get("ORDERLY_DATA_DIR") or os.path.join(root, ".build", "demo"))
    os.makedirs(data, exist_ok=True)
    configuration = os.environ.get("ORDERLY_BUILD", "debug")
    binaries = os.environ.get("ORDERLY_BIN") or build(configuration)
    fresh = not any(name.endswith(".sqlite") for name in os.listdir(data))
    environment = dict(os.environ, ORDERLY_DATA_DIR=data, ORDERLY_BIN=binaries, ORDERLY_DEMO_DATA=data)
    if fresh:
        # The setup's morning, a week back, in Tel Aviv.
        start = local_at(dt.datetime.now(LOCAL).date() - dt.timedelta(days=7), "09:00")
        prepared, why = prepare_clock(binaries, os.path.join(data, "clock"), start)
        if prepared:
            environment.update(ORDERLY_BIN=prepared[0], ORDERLY_DEMO_CLOCK=prepared[1])
        else:
            environment["ORDERLY_DEMO_NOTE"] = why
    else:
        environment["ORDERLY_DEMO_NOTE"] = f"{data} holds an earlier suite's data, which a clock moved back would contradict"
    log_path = os.path.join(data, "suite.log")
    environment["ORDERLY_DEMO_LOG"] = log_path
    shown = lambda path: os.path.relpath(path, root) if path.startswith(root + os.sep) else path
    print(f"starting the suite (data: {shown(data)}; its processes' log lines: {shown(log_path)})", flush=True)
    command = [os.path.join(root, "deploy", "local", "run.sh"), sys.executable, os.path.abspath(__file__), "--inside"]
    process = subprocess.Popen(command + (["--force"] if force else []), env=environment, cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    with open(log_path, "a") as log:
        while True:
            try:
                line = process.stdout.readline()
            except KeyboardInterrupt:
                continue  # run.sh stops the suite; its last lines follow
            if not line:
                break
            if line.startswith("["):
                log.write(line)
                log.flush()
            else:
                print(line, end="", flush=True)
    while True:
        try:
            status = process.wait()
            break
        except KeyboardInterrupt:
            continue
    return 0 if status in (0, 130) else status


# ---------------------------------------------------------------------------------------------
# The check.

def check():
    """Starts the demo in a temporary directory; waits until each printed login signs in and an
    order changes status in the trickle (within a minute); takes a screenshot of the console's
    board signed in as an owner when Selenium and Chromium are there; stops everything. Prints
    the time each phase took; 0, or 1 with the reason."""
    began = last = time.monotonic()

    def phase(name):
        nonlocal last
        print(f"check: {name}: {time.monotonic() - last:.0f} s", flush=True)
        last = time.monotonic()

    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 9200)) == 0:
            print("check FAILED: something listens on 9200, the gateway's admin port: is a suite running already?")
            return 1
    work = tempfile.mkdtemp(prefix="orderly-demo-check-")
    environment = dict(os.environ, ORDERLY_DATA_DIR=os.path.join(work, "data"), ORDERLY_HTTP_PORT=str(free_port()))
    process = subprocess.Popen([sys.executable, os.path.abspath(__file__)], env=environment, cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                               start_new_session=True)
    lines = queue.Queue()
    transcript = []

    def read():
        for line in process.stdout:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=read, daemon=True).start()

    def next_line(seconds):
        try:
            line = lines.get(timeout=seconds)
        except queue.Empty:
            return ""
        if line is None:
            raise EOFError
        transcript.append(line)
        print("  | " + line, end="", flush=True)
        return line

    problem = None
    try:
        # The demo's own phases, as it prints them.
        marks = [("setting up", "build and start the suite"), ("phase: setup", "set up the platform"),
                 ("phase: history", "a week of history"), ("ready in", "takings read back, logins printed")]
        deadline = time.monotonic() + 1800
        while marks:
            if time.monotonic() > deadline:
                raise TimeoutError
            line = next_line(5)
            if line.startswith(marks[0][0]):
                phase(marks.pop(0)[1])
        text = "".join(transcript)
        if "on the moved clock" in text:
            busy = [int(n) for n in re.findall(r"takings on (\d) of 7 days", text)]
            if not busy or max(busy) < 3:
                raise AssertionError(f"the clock was moved, yet the takings fall on {max(busy or [0])} days at most")
        console = re.search(r"the console is at (\S+)", text)
        logins = re.findall(r"^  (\w+)\s+(\S+@\S+) / (\S+)", text, re.M)
        if not console or len(logins) < 10:
            raise AssertionError(f"the demo printed {len(logins)} logins and {'a' if console else 'no'} console")
        base = console.group(1).rsplit("/console/", 1)[0]
        tokens = {email: call(base, "POST", "/v1/auth/login", {"email": email, "password": password})["access_token"]
                  for role, email, password in logins}
        phase(f"the {len(tokens)} printed logins signed in")
        admin = tokens[logins[0][1]]
        before = {o["id"]: o["status"] for o in call(base, "GET", "/v1/orders?limit=100", token=admin)["data"]}
        deadline = time.monotonic() + 60
        changed = None
        while not changed:
            if time.monotonic() > deadline:
                raise AssertionError("no order changed status in the trickle within a minute")
            next_line(1)
            for order in call(base, "GET", "/v1/orders?limit=100", token=admin)["data"]:
                if order["status"] != before.get(order["id"], "pending"):
                    changed = (f"{order.get('store_name') or 'a store'} #{order['number']}: "
                               f"{before.get(order['id'], 'pending')} → {order['status']}")
                    break
        phase(f"an order changed status in the trickle ({changed})")
        # The owner whose board is busiest.
        def on_the_way(owner):
            return len(call(base, "GET", "/v1/orders?status=pending,accepted,preparing,ready,out_for_delivery",
                            token=tokens[owner[0]])["data"])
        owners = [(email, password) for role, email, password in logins if role == "owner"]
        note = screenshot(base, *max(owners, key=on_the_way))
        phase(f"screenshot: {note}")
    except (AssertionError, TimeoutError, EOFError, OSError) as error:
        problem = {TimeoutError: "the demo printed nothing new for too long",
                   EOFError: "the demo stopped before it was ready"}.get(type(error)) or str(error)
    finally:
        try:
            os.killpg(process.pid, signal.SIGINT)
            process.wait(timeout=90)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
        while True:  # the demo's last words
            try:
                if not next_line(0.5):
                    break
            except EOFError:
                break
        phase("stopped")
        shutil.rmtree(work, ignore_errors=True)
    print(f"check: total {time.monotonic() - began:.0f} s")
    if problem:
        print(f"check FAILED: {problem}")
        return 1
    print("check passed")
    return 0


def screenshot(base, email, password):
    """The console's board signed in as `email`, to .build/console/demo-board.png, with the Browser
    of deploy/local/console-test.py, when Selenium and Chromium are installed."""
    try:
        importlib.import_module("selenium")
    except ImportError:
        return "skipped (no Selenium)"
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        return "skipped (no chromium or chromedriver)"
    try:
        spec = importlib.util.spec_from_file_location(
            "console_test", os.path.join(os.path.dirname(os.path.abspath(__file__)), "console-test.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        browser = module.Browser(base)
    except Exception as error:  # the test's file or the browser is not usable now
        return f"skipped ({type(error).__name__}: {error})"[:200]
    try:
        browser.sign_in(email, password)
        browser.one("#board")
        browser.wait("orders on the board", lambda: browser.css("#board [id^=order-]"), seconds=20)
        time.sleep(1)
        browser.shot("demo-board")
        return f"the board of {email} in .build/console/demo-board.png"
    finally:
        browser.driver.quit()


def main():
    # Ctrl-C reaches the demo even when it was started with SIGINT ignored (in the background).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--force", action="store_true", help="fill a suite that holds data already")
    parser.add_argument("--against", metavar="URL", help="fill the suite running at URL (its history at the real time)")
    parser.add_argument("--check", action="store_true", help="start it in a temporary directory, check it, stop it")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.check:
        return check()
    if arguments.inside:
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        return inside(f"http://127.0.0.1:{os.environ['ORDERLY_HTTP_PORT']}", arguments.force)
    if arguments.against:
        for name in ("ORDERLY_BOOTSTRAP_ADMIN_EMAIL", "ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"):
            if not os.environ.get(name):
                sys.exit(f"--against needs {name} in the environment")
        os.environ.pop("ORDERLY_DEMO_CLOCK", None)
        os.environ["ORDERLY_DEMO_NOTE"] = "a suite already running: its clock is its own"
        try:
            return inside(arguments.against.rstrip("/"), arguments.force, against=True)
        except KeyboardInterrupt:
            return 0
    return run_suite(arguments.force)


if __name__ == "__main__":
    sys.exit(main())
