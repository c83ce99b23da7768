"""The model test's state machine: every role's steps through the running suite's HTTP API beside
the reference model (model_marketplace.py), each answer checked against what the model says it
must be, and after every step what must always hold, waited for while the services' event
followers catch up.

Each example opens a store of its own, with its owner, manager, two staff members, two couriers
and a customer, so that every account starts at zero; the platform's users (admin, support,
supervisor, accountant) and another store, whose ids nobody of this store may read, are made
once per run (`Platform`)."""
import functools
import os
import sys
import threading
import time
import traceback
import unicodedata
import uuid

from hypothesis import strategies as st
from hypothesis.errors import HypothesisException
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from model_api import Actor, Api, paged, provider_secret
from suite import mailed_link
from model_marketplace import (BY_DISTANCE, DELIVERY_AREA, DELIVERY_FEE, FIRST_STATUS, IN_FLIGHT, OPEN_STATUSES,
                               PLACES, STORE_PLACE, Marketplace, Order, Outcome, Payment, Product, Shift,
                               commission)

PASSWORD = "Model-Pass-12345"
ALL_WEEK = [{"day": day, "open": "00:00", "close": "24:00"}
            for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
# How long what the event followers apply may take to show before a check fails.
SETTLE_SECONDS = float(os.environ.get("MODEL_SETTLE_SECONDS", "15"))
BIDI = "\u202e"
ZERO_WIDTH = "\u200b"


class ModelMismatch(AssertionError):
    """An answer or a state of the suite that is not what the model says it must be."""


class Tally:
    """What the run did, for its last line."""
    examples = 0
    steps = 0
    checks = 0
    last_journal = None
    # The first failure as it happened: when Hypothesis's replay of it diverges (the suite's
    # timing made a precondition differ), this is all that shows what failed.
    first_failure = None


class Platform:
    """What every example shares: the API, the platform's users (signed in once per run, so
    that sign-ins stay few) and another store with an order and a payment whose ids this store's
    users must not read."""
    shared = None

    @classmethod
    def get(cls):
        """The run's one platform, made on first use."""
        if cls.shared is None:
            cls.shared = cls()
        return cls.shared

    def __init__(self):
        provider, secret = provider_secret()
        self.api = Api(f"http://127.0.0.1:{os.environ['ORDERLY_HTTP_PORT']}", provider, secret)
        self.run = uuid.uuid4().hex[:6]
        self.serial = 0
        api = self.api
        api.journal.begin("the platform's users and another store")
        self.admin = Actor("admin", "admin", email=os.environ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"])
        api.sign_in(self.admin, os.environ["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"])
        self.staff = {}
        for role in ("support", "supervisor", "accountant"):
            self.staff[role] = self.user(role, role)
        store = self.created(api.send(self.admin, "POST", "/v1/stores", {
            "name": "Elsewhere", "address": "9 Herzl St", "phone": "03-5550000", "opening_hours": ALL_WEEK}))
        self.foreign_store = store["id"]
        product = self.created(api.send(self.admin, "POST", f"/v1/stores/{self.foreign_store}/products",
                                        {"name": "Soup", "price": 1500}))
        shopper = self.sign_up("shopper")
        self.foreign_order = self.created(api.send(shopper, "POST", "/v1/orders", {
            "store_id": self.foreign_store, "payment_method": "cash_on_delivery", "fulfillment": "pickup",
            "items": [{"product_id": product["id"]}]}))["id"]
        self.foreign_payment = self.created(api.send(self.admin, "POST", "/v1/payments", {
            "store_id": self.foreign_store, "method": "cash",
            "items": [{"name": "Tea", "unit_price": 800, "quantity": 1, "vat_rate_bp": 1700}]}))["id"]

    def email(self, name, domain="model.test"):
        """A new e-mail address, unique in the run."""
        self.serial += 1
        return f"{name}-{self.run}-{self.serial}@{domain}"

    def created(self, reply):
        """The body of a setup request's answer, which must have succeeded."""
        if reply.status not in (200, 201):
            raise RuntimeError(f"setting up failed: {reply.summary()}")
        return reply.body

    def user(self, name, role, store_id=None):
        """A user the admin creates, signed in once."""
        actor = Actor(name, role, store_id=store_id, email=self.email(name))
        body = {"email": actor.email, "name": name.replace("_", " ").title(), "role": role, "password": PASSWORD}
        if store_id:
            body["store_id"] = store_id
        self.created(self.api.send(self.admin, "POST", "/v1/users", body))
        self.api.sign_in(actor, PASSWORD)
        return actor

    def sign_up(self, name):
        """A customer who signs up (and is signed in by it)."""
        actor = Actor(name, "customer", email=self.email(name))
        reply = self.api.send(None, "POST", "/v1/auth/register", {
            "email": actor.email, "password": PASSWORD, "name": "Dana Levi", "phone": "050-1112223"})
        self.created(reply)
        self.api.adopt(actor, reply)
        return actor


def step(method):
    """Marks a rule as one step of the example: the journal groups the requests it makes under
    its call as Hypothesis prints it, and the run counts it."""
    @functools.wraps(method)
    def run(self, **arguments):
        """The rule, journalled and counted."""
        shown = ", ".join(f"{name}={value!r}" for name, value in arguments.items())
        self.api.journal.begin(f"state.{method.__name__}({shown})")
        Tally.steps += 1
        return method(self, **arguments)
    return run


def ids_in(value):
    """Every string and every number inside a JSON value, as two lists."""
    if isinstance(value, dict):
        found = [ids_in(item) for item in value.values()]
    elif isinstance(value, list):
        found = [ids_in(item) for item in value]
    elif isinstance(value, bool):
        return [], []
    elif isinstance(value, int):
        return [], [value]
    elif isinstance(value, str):
        return [value], []
    else:
        return [], []
    return [s for strings, _ in found for s in strings], [n for _, numbers in found for n in numbers]


MENU = {
    # key: (name, price, track_stock, quantity, allow_negative_stock)
    "falafel": ("Falafel", 2500, True, 4, False),
    "shawarma": ("Shawarma", 1800, False, 0, False),
    "pita": ("Pita", 900, True, 1, True),
}
SIZE_OPTIONS = {"small": [], "large": ["large"], "large_tahini": ["large", "tahini"]}
# The login attempts an account is allowed in five minutes (docs/SECURITY.md).
LOGIN_ATTEMPTS_PER_ACCOUNT = 10
ACTORS = ["owner", "manager", "staff_a", "staff_b", "courier_a", "courier_b", "customer", "other_customer",
          "admin", "support", "supervisor", "accountant"]


class MarketplaceMachine(RuleBasedStateMachine):
    """One store's marketplace, walked by every role beside the model."""

    def teardown(self):
        """Keeps the first failure of the run with the requests that led to it: Hypothesis runs
        this in a `finally`, so an example's failure is still the exception being handled."""
        error = sys.exc_info()[1]
        if Tally.first_failure is None and isinstance(error, Exception) and not isinstance(error, HypothesisException):
            Tally.first_failure = ("".join(traceback.format_exception(error)), self.api.journal.render())

    def __init__(self):
        super().__init__()
        self.platform = Platform.get()
        self.api = self.platform.api
        self.api.journal = type(self.api.journal)()
        Tally.last_journal = self.api.journal
        Tally.examples += 1
        self.api.journal.begin("setup: a store, its menu, its users, two couriers on duty, a customer")
        platform, api = self.platform, self.api
        store = platform.created(api.send(platform.admin, "POST", "/v1/stores", {
            "name": "Falafel Dana", "address": "1 Herzl St", "phone": "03-5551234", "opening_hours": ALL_WEEK}))
        self.model = Marketplace(store["id"], platform.foreign_store)
        for key, (name, price, track, quantity, negative) in MENU.items():
            body = {"name": name, "price": price, "track_stock": track, "quantity": quantity,
                    "allow_negative_stock": negative}
            if key == "shawarma":
                body["option_groups"] = [
                    {"name": "Size", "min_select": 1, "max_select": 1,
                     "options": [{"name": "Small"}, {"name": "Large", "price_delta": 500}]},
                    {"name": "Extras", "max_select": 2,
                     "options": [{"name": "Tahini", "price_delta": 200}, {"name": "Egg", "price_delta": 300}]}]
            made = platform.created(api.send(platform.admin, "POST", f"/v1/stores/{self.store_id}/products", body))
            product = Product(key, made["id"], price, track, quantity if track else 0, allow_negative=negative)
            if key == "shawarma":
                groups = made["option_groups"]
                small, large = (option["id"] for option in groups[0]["options"])
                product.options = {"small": (small, 0), "large": (large, 500),
                                   "tahini": (groups[1]["options"][0]["id"], 200)}
            self.model.products[key] = product
        self.actors = {name: platform.user(name, role, self.store_id) for name, role in
                       (("owner", "owner"), ("manager", "manager"), ("staff_a", "staff"), ("staff_b", "staff"))}
        for name in ("courier_a", "courier_b"):
            courier = platform.user(name, "courier")
            self.actors[name] = courier
            self.send(courier, "PUT", "/v1/couriers/me/availability", {"on_duty": True}, [Outcome(200)])
            self.model.on_duty.add(courier.id)
        self.actors.update({"admin": platform.admin, **platform.staff})
        self.customers = [platform.sign_up("customer_1")]
        self.cards = []
        # How many times each person's password was checked in this example (login attempts).
        self.password_checks = {}
        # The repair orders, with their status, a courier on duty was refused (404) a claim of.
        self.repair_claims_tried = set()

    @property
    def store_id(self):
        """The example's store."""
        return self.model.store_id

    # Talking to the suite.

    def send(self, actor, method, path, body, outcomes, key=None):
        """A request whose answer must be one of `outcomes`; the answer."""
        reply = self.api.send(actor, method, path, body, key=key)
        self.expect(reply, outcomes, f"{actor.name if actor else 'anyone'}: {method} {path}")
        return reply

    def expect(self, reply, outcomes, what):
        """Fails unless `reply` is one of `outcomes`; `what` names the request."""
        if not any(outcome.matches(reply) for outcome in outcomes):
            raise ModelMismatch(
                f"{what} answered {reply.summary()} {reply.details or ''}; the model expects "
                + " or ".join(str(o) for o in outcomes))

    def agree(self, what, actual, expected):
        """Fails unless the suite's `actual` value of `what` is the model's `expected`."""
        if actual != expected:
            raise ModelMismatch(f"{what}: the suite says {actual!r}, the model {expected!r}")

    def actor(self, name, order=None):
        """The actor a step names: `customer` is the order's (or the first), `other_customer`
        another one, when there is one."""
        mine = order.customer if order is not None and order.customer is not None else self.customers[0]
        if name == "customer":
            return mine
        if name == "other_customer":
            others = [c for c in self.customers if c is not mine]
            return others[0] if others else self.platform_customer()
        return self.actors[name]

    def platform_customer(self):
        """A customer of no order of this store: another one signed up once for the example."""
        if "stranger" not in self.actors:
            self.actors["stranger"] = self.platform.sign_up("stranger")
        return self.actors["stranger"]

    def pick(self, items, index, usable=None):
        """One of `items` by a drawn index: among those `usable` accepts when there are any."""
        candidates = [item for item in items if usable is None or usable(item)] or list(items)
        return candidates[index % len(candidates)] if candidates else None

    # The store's terms.

    @initialize(commission_bp=st.sampled_from([0, 1000, 1250]), staff_refund_limit=st.sampled_from([0, 2000, 100000]),
                require_clock_in=st.booleans(), dispatch=st.sampled_from(["when_ready", "on_create"]),
                workflow=st.sampled_from(["standard", "standard", "standard", "repair"]),
                area=st.sampled_from([False, False, True]))
    @step
    def set_terms(self, commission_bp, staff_refund_limit, require_clock_in, dispatch="when_ready",
                  workflow="standard", area=False):
        """The admin sets the store's commission, what staff may refund at once, whether they
        must be clocked in, when its own delivery orders reach the couriers, the workflow its
        own orders follow unless they name one, and whether it delivers only within an area,
        charging by distance (before any order, so the orders service reads it with the store's
        first)."""
        terms = {"commission_bp": commission_bp, "staff_refund_limit": staff_refund_limit,
                 "require_clock_in": require_clock_in, "dispatch": dispatch, "workflow": workflow}
        if area:
            terms.update({"location": STORE_PLACE, "delivery_area": DELIVERY_AREA, "delivery_pricing": {
                "tiers": [{"max_boxes": None, "fee": DELIVERY_FEE, "multiplier": 1}], "by_distance": BY_DISTANCE}})
        self.send(self.platform.admin, "PATCH", f"/v1/stores/{self.store_id}", terms, [Outcome(200)])
        self.model.area = area
        self.model.dispatch = dispatch
        self.model.workflow = workflow
        self.model.commission_bp = commission_bp
        self.model.staff_refund_limit = staff_refund_limit
        self.model.require_clock_in = require_clock_in

    @rule(bp=st.sampled_from([0, 1000, 1250, 333]))
    @step
    def set_commission(self, bp):
        """The admin changes the commission: payments made from now on pay the new one."""
        self.send(self.platform.admin, "PATCH", f"/v1/stores/{self.store_id}", {"commission_bp": bp}, [Outcome(200)])
        self.model.commission_bp = bp

    # Customers.

    @precondition(lambda self: len(self.customers) < 4)
    @rule(name=st.sampled_from(["plain", "plain", "bidi", "zero_width"]),
          email=st.sampled_from(["fresh", "fresh", "taken"]))
    @step
    def sign_up_customer(self, name, email):
        """A customer signs up: the e-mail address NFKC-normalised and case-folded (one another
        customer has, written otherwise, is taken), a name with bidi controls or zero-width
        characters refused naming it."""
        # Full-width letters and capitals, which NFKC and case folding make `model-…@example.com`.
        address = self.platform.email("ＭＯＤＥＬ", "Example.COM") if email == "fresh" \
            else self.customers[-1].email.upper()
        shown = {"plain": "Noa Cohen", "bidi": f"Noa{BIDI}Cohen", "zero_width": f"Noa{ZERO_WIDTH}Cohen"}[name]
        outcomes = []
        if name != "plain":
            outcomes.append(Outcome(400, None, "name"))
        if email == "taken":
            outcomes.append(Outcome(409, "already_exists", "email"))
        reply = self.send(None, "POST", "/v1/auth/register", {
            "email": address, "password": PASSWORD, "name": shown, "phone": "050-3334445"},
            outcomes or [Outcome(201)])
        if reply.status == 201:
            customer = Actor(f"customer_{len(self.customers) + 1}", "customer", email=reply["user"]["email"])
            self.api.adopt(customer, reply)
            self.agree("the e-mail address kept", customer.email, unicodedata.normalize("NFKC", address).casefold())
            self.customers.append(customer)

    @rule(customer=st.integers(0, 3), method=st.sampled_from(["card", "cash_on_delivery"]),
          fulfillment=st.sampled_from(["delivery", "delivery", "pickup"]),
          items=st.lists(st.tuples(st.sampled_from(sorted(MENU)), st.integers(1, 3),
                                   st.sampled_from(sorted(SIZE_OPTIONS))),
                         min_size=1, max_size=2, unique_by=lambda line: line[0]),
          tip=st.sampled_from([0, 500, 1200]), text=st.sampled_from(["plain", "plain", "plain", "bidi", "zero_width"]),
          place=st.sampled_from([None, "near", "near", "farther", "outside"]))
    @step
    def checkout(self, customer, method, fulfillment, items, tip, text, place=None):
        """A customer checks out their cart: priced from the menu with the delivery fee (and the
        distance's tier, for a store with an area), holding the stock of tracked products;
        refused when stock is short (naming the products, no counts), for a fourth unpaid card
        order, for a delivery outside the store's area or to an address without its place, or for
        bidi or zero-width characters in the address or the notes (naming the field)."""
        buyer = self.customers[customer % len(self.customers)]
        model = self.model
        body = {"store_id": self.store_id, "payment_method": method, "fulfillment": fulfillment, "items": []}
        gross, lines = 0, {}
        for key, quantity, size in items:
            product = model.products[key]
            line = {"product_id": product.id, "quantity": quantity}
            price = product.price
            if product.options:
                chosen = SIZE_OPTIONS[size] or ["small"]
                line["option_ids"] = [product.options[name][0] for name in chosen]
                price += sum(product.options[name][1] for name in chosen)
            gross += price * quantity
            if product.track_stock:
                lines[key] = quantity
            body["items"].append(line)
        if fulfillment == "delivery":
            body["address"] = {"street": f"Allen{BIDI}by" if text == "bidi" else "Allenby", "building_no": "3"}
            if place is not None:
                body["address"]["location"] = PLACES[place][0]
            body["tip"] = tip
        if text == "zero_width" or (text == "bidi" and fulfillment == "pickup"):
            body["notes"] = f"no{ZERO_WIDTH}onions"
        if text != "plain":
            outcomes = [Outcome(400, None, "street" if "address" in body and text == "bidi" else "notes")]
        else:
            outcomes = model.expect_checkout(buyer, method, lines)
            # Where it goes is checked after the unpaid card orders and before the stock.
            refusal = model.delivery_refusal(fulfillment, place)
            if refusal is not None:
                outcomes = [o for o in outcomes if o.reason == "too_many_unpaid"] + [refusal]
        reply = self.send(buyer, "POST", "/v1/orders", body, outcomes)
        if reply.status == 409:
            self.check_shortage_answer(reply, [model.products[key].id for key in model.short_products(lines)])
        if reply.status != 201:
            return
        order = Order(reply["id"], buyer, method, fulfillment, gross, body.get("tip", 0), lines,
                      surcharge=model.surcharge(fulfillment, place))
        for name, actual, expected in (("items_gross", reply["items_gross"], gross),
                                       ("delivery_fee", reply["delivery_fee"], order.delivery_fee),
                                       ("total", reply["total"], order.total),
                                       ("tip", reply.get("tip") or 0, order.tip),
                                       ("workflow", reply.get("workflow"), order.workflow)):
            self.agree(f"the new order's {name}", actual, expected)
        model.hold(lines)
        model.orders.append(order)

    STORE_USERS = ["staff_a", "staff_b", "manager", "owner"]
    STORE_USERS_AND_STRAYS = STORE_USERS * 3 + ["courier_a", "customer", "admin", "accountant"]

    @rule(hand=st.sampled_from(STORE_USERS_AND_STRAYS), fulfillment=st.sampled_from(["delivery", "delivery", "pickup"]),
          workflow=st.sampled_from([None, None, None, None, "standard", "repair"]))
    @step
    def store_creates_order(self, hand, fulfillment, workflow=None):
        """A store user enters an order of one box (a delivery or a pickup, no lines) of the
        `workflow` it names, or else the store's: a standard one `pending`, or, for a delivery of a
        store that dispatches on creation, `ready` and in the couriers' pool at once; a repair
        `booked_in`, whatever the store's dispatch; anyone else is refused."""
        actor = self.actor(hand)
        body = {"fulfillment": fulfillment, "customer_name": "Dana Levi", "boxes_count": 1}
        if workflow is not None:
            body["workflow"] = workflow
        if fulfillment == "delivery":
            body.update({"recipient_first_name": "Dana", "recipient_last_name": "Levi", "phone": "050-1234567",
                         "street": "Herzl", "building_no": "12"})
        if self.model.works_in(actor):
            outcomes = [Outcome(201)]
        elif actor.role in ("admin", "supervisor", "support", "accountant"):
            outcomes = [Outcome(400, None, "store_id"), Outcome(403)]
        elif actor.role == "customer":
            outcomes = [Outcome(400)]  # a customer's POST /v1/orders is a checkout, which names a store and items
        else:
            outcomes = [Outcome(403)]
        reply = self.send(actor, "POST", "/v1/orders", body, outcomes)
        if reply.status != 201:
            return
        order = Order(reply["id"], None, "store", fulfillment, 0, 0, {}, workflow=workflow or self.model.workflow)
        order.status = FIRST_STATUS[order.workflow]
        if not order.repair and fulfillment == "delivery" and self.model.dispatch == "on_create":
            order.status = "ready"
        self.agree("the store's new order's workflow", reply.get("workflow"), order.workflow)
        self.agree("the store's new order's status", reply["status"], order.status)
        self.agree("the store's new order's total", reply["total"], order.total)
        self.model.orders.append(order)

    def check_shortage_answer(self, reply, short):
        """A customer told of short stock learns which products, not how many are left."""
        strings, numbers = ids_in(reply.details)
        if not set(short) <= set(strings) or numbers:
            raise ModelMismatch(
                f"a customer's insufficient_stock must name the products short ({short}) and no counts: "
                f"{reply.details}")

    @rule(customer=st.integers(0, 3), pick=st.integers(0, 31), stray=st.sampled_from([False, False, False, True]))
    @step
    def customer_pays(self, customer, pick, stray):
        """A customer pays for their card order online: a pending card payment of what is left and
        the tip, which the provider's report completes."""
        model = self.model
        if stray:
            payer = self.customers[customer % len(self.customers)]
            order = self.pick(model.orders, pick)
        else:
            order = self.pick(model.orders, pick, lambda o: o.method == "card" and o.awaits_payment
                              and o.status != "cancelled" and o.left_to_ring_up > 0)
            # No card order waiting: any order, by its customer (a store's own has none: the first).
            payer = (order.customer or self.customers[customer % len(self.customers)]) if order else None
        if order is not None:
            self.pay_online(payer, order)

    def pay_online(self, payer, order):
        """`payer` pays for `order` online, answered as the model says."""
        model = self.model
        reply = self.send(payer, "POST", "/v1/payments", {"order_id": order.id, "method": "card"},
                          model.expect_online_payment(payer, order))
        if reply.status == 201:
            left, tip = order.left_to_ring_up, order.tip_left
            self.agree("the online payment's amount and tip", (reply["amount"], reply["tip"]), (left + tip, tip))
            payment = Payment(reply["id"], "card", left, tip, payer, commission(left + tip, tip, model.commission_bp),
                              order, customer=payer)
            order.payments.append(payment)
            model.payments.append(payment)

    # The payment provider.

    @precondition(lambda self: any(p.method != "cash" and p.id for p in self.model.payments))
    @rule(pick=st.integers(0, 31), kind=st.sampled_from(["completed", "completed", "completed", "failed", "confirmed",
                                                         "processing"]),
          again=st.sampled_from([False, False, False, True]), wrong_amount=st.sampled_from([False] * 5 + [True]),
          stray=st.sampled_from([False] * 5 + [True]))
    @step
    def provider_reports(self, pick, kind, again, wrong_amount, stray):
        """The provider reports on a payment: forward along pending → confirmed → processing →
        completed | failed; a repeat (same event id) is a duplicate, one late or out of order is
        ignored, another amount than the payment's is refused."""
        model = self.model
        payment = self.pick(model.payments, pick, None if stray else lambda p: p.method != "cash" and p.id)
        if payment is None or payment.id is None:
            return
        if again and payment.provider_events:
            self.report(payment, payment.provider_events[-1], repeated=True)
        else:
            self.report(payment, self.provider_event(payment, kind, payment.amount + (1 if wrong_amount else 0)))

    def provider_event(self, payment, kind, amount):
        """A new report of `kind` on `payment` (with the `amount` taken, when completed)."""
        fields = {"id": f"evt-{uuid.uuid4().hex[:12]}", "provider": self.api.provider, "payment_id": payment.id,
                  "type": kind, "provider_ref": f"ch_{payment.id[:8]}"}
        if kind == "completed":
            fields.update(amount=amount, currency="ILS")
        return fields

    def report(self, payment, fields, repeated=False):
        """The provider sends `fields` on `payment`, answered as the model says."""
        model = self.model
        outcomes, status = model.expect_report(payment, fields["type"], fields.get("amount"), repeated)
        reply = self.api.report(fields)
        self.expect(reply, outcomes, f"the provider's {fields['type']} report on {payment.id}")
        if reply.status != 200:
            return
        payment.provider_events.append(fields)
        self.agree("the payment's status after the report", reply["status"], status)
        if reply["outcome"] == "applied":
            if status == "completed":
                model.complete(payment)
            elif status == "failed":
                model.fail(payment, "failed")
            else:
                payment.status = status

    # Orders through their statuses, by every role.


    @precondition(lambda self: any(o.status in OPEN_STATUSES for o in self.model.orders))
    @rule(pick=st.integers(0, 31), hand=st.sampled_from(STORE_USERS),
          courier=st.sampled_from(["courier_a", "courier_b"]),
          steps=st.sampled_from([1, 1, 1, 2, 2, 3, 5, 8]), parts=st.sampled_from([False, False, True]))
    @step
    def advance_order(self, pick, hand, courier, steps, parts=False):
        """An open order takes up to `steps` steps on its usual way (what must hold is checked
        between them): a card order is paid (its customer's payment, then the provider's report),
        the store accepts, prepares and readies it, and its customer collects it, or a courier on
        duty claims it, picks it up and delivers it, collecting what is owed; a repair is
        repaired (first waiting for `parts`), readied, and collected or despatched by the store."""
        order = self.pick([o for o in self.model.orders if o.status in OPEN_STATUSES], pick)
        for taken in range(steps):
            if order.status not in OPEN_STATUSES:
                return
            if taken:
                self.the_books_hold()
            self.next_step(order, self.actors[hand], order.courier or self.actors[courier], parts)

    REPAIR_STEPS = {"booked_in": "start_repair", "awaiting_parts": "start_repair", "in_repair": "mark_ready"}

    def next_step(self, order, store_user, carrier, parts=False):
        """The next step of `order` on its usual way."""
        model = self.model
        if order.repair:
            if order.status == "ready":
                action = "despatch" if order.fulfillment == "delivery" else "mark_collected"
            else:
                action = "await_parts" if parts and order.status == "booked_in" else self.REPAIR_STEPS[order.status]
            self.perform(store_user, order, action)
        elif order.status == "pending" and order.awaits_payment:
            paying = [p for p in order.payments if p.status in IN_FLIGHT and p.method != "cash" and p.id]
            if paying:
                self.report(paying[0], self.provider_event(paying[0], "completed", paying[0].amount))
            elif order.left_to_ring_up > 0:
                self.pay_online(order.customer, order)
        elif order.status in ("pending", "accepted", "preparing"):
            self.perform(store_user, order, {"pending": "accept", "accepted": "start_preparing",
                                             "preparing": "mark_ready"}[order.status])
        elif order.status == "ready" and order.fulfillment == "pickup":
            self.perform(store_user, order, "mark_collected")
        elif order.status == "ready" and order.courier is None:
            if carrier.id not in model.on_duty:
                self.send(carrier, "PUT", "/v1/couriers/me/availability", {"on_duty": True}, [Outcome(200)])
                model.on_duty.add(carrier.id)
            self.perform(carrier, order, "claim")
        elif order.status == "ready":
            self.perform(carrier, order, "pick_up")
        else:
            self.perform(carrier, order, "deliver", order.cash_owed or None)

    CANCELLERS = ["customer", "staff_a", "staff_a", "staff_b", "manager", "owner", "support", "support", "supervisor",
                  "supervisor", "admin"]

    @precondition(lambda self: self.model.orders)
    @rule(action=st.sampled_from(["accept", "accept", "start_preparing", "mark_ready", "mark_collected", "start_repair",
                                  "await_parts", "despatch"]),
          pick=st.integers(0, 31), hand=st.sampled_from(STORE_USERS), stray=st.sampled_from([None] * 12 + ACTORS))
    @step
    def store_acts(self, action, pick, hand, stray):
        """A store user accepts, prepares, marks ready or marks collected an order, or starts a
        repair, sets it waiting for parts or despatches it, where the step fits (a card order once
        paid); with `stray`, that actor on any order."""
        order = self.pick(self.model.orders, pick, None if stray else lambda o: o.fits(action))
        self.perform(self.actor(stray or hand, order), order, action)

    @precondition(lambda self: self.model.orders)
    @rule(action=st.sampled_from(["claim", "claim", "release", "pick_up", "pick_up", "deliver", "deliver", "deliver"]),
          pick=st.integers(0, 31), hand=st.sampled_from(["courier_a", "courier_b"]),
          stray=st.sampled_from([None] * 12 + ACTORS + ["supervisor"] * 2),
          cash=st.sampled_from(["owed", "owed", "over", "short", "none"]))
    @step
    def courier_acts(self, action, pick, hand, stray, cash):
        """A courier on duty claims an order in the pool; the courier carrying one releases it
        before pickup, picks it up when ready and delivers it, collecting the cash owed for an
        unpaid cash-on-delivery order (`owed`, `over`, `short` or `none` of it); with `stray`,
        that actor on any order."""
        order = self.pick(self.model.orders, pick, None if stray else lambda o: o.fits(action))
        if stray:
            actor = self.actor(stray, order)
        else:
            actor = self.actors[hand] if action == "claim" else order.courier or self.actors[hand]
        collected = None
        if action == "deliver":
            owed = order.cash_owed
            collected = {"owed": owed or None, "over": owed + 700, "short": max(0, owed - 100) if owed else None,
                         "none": None}[cash]
        self.perform(actor, order, action, collected)

    @precondition(lambda self: self.model.orders)
    @rule(pick=st.integers(0, 31), canceller=st.sampled_from(CANCELLERS), paid=st.booleans(),
          stray=st.sampled_from([None] * 12 + ACTORS))
    @step
    def cancel_order(self, pick, canceller, paid, stray):
        """Someone cancels an order (with a reason), a `paid` one when there is one: its completed
        card payments are refunded in full, only for a caller who may refund them; with `stray`,
        that actor on any order."""
        cancellable = [o for o in self.model.orders if o.fits("cancel")]
        if paid and any(o.refundable_card_payments() for o in cancellable):
            cancellable = [o for o in cancellable if o.refundable_card_payments()]
        order = self.pick(self.model.orders if stray else cancellable or self.model.orders, pick)
        self.perform(self.actor(stray or canceller, order), order, "cancel")

    @precondition(lambda self: self.model.orders)
    @rule(pick=st.integers(0, 31), archiver=st.sampled_from(CANCELLERS + ["courier_a"]), pending=st.booleans())
    @step
    def archive_order(self, pick, archiver, pending):
        """Someone archives an order (`DELETE /v1/orders/{id}`), a pending or cancelled one when
        there is one: a pending one is cancelled by it, its payments refunded as a cancel's are;
        archived, it leaves the store's lists."""
        wanted = "pending" if pending else "cancelled"
        candidates = [o for o in self.model.orders if o.status == wanted and not o.archived]
        order = self.pick(candidates or self.model.orders, pick)
        actor = self.actor(archiver, order)
        reply = self.send(actor, "DELETE", f"/v1/orders/{order.id}", None, self.model.expect_archive(actor, order))
        if reply.status == 200:
            if not order.archived and order.status == "pending" and actor.role in ("support", "supervisor"):
                order.refunds_by = (actor, "archived by the store")
            self.model.archive(actor, order)
            self.agree("the archived order's status", reply["status"], order.status)

    def perform(self, actor, order, action, collected=None):
        """`actor` does `action` to `order`, answered as the model says."""
        body = {}
        if action == "cancel":
            body["reason"] = f"cancelled by {actor.name}"
        if collected is not None:
            body["cash_collected"] = collected
        reply = self.send(actor, "POST", f"/v1/orders/{order.id}/actions/{action}", body,
                          self.model.expect_action(actor, order, action, collected))
        if reply.status == 422 and reply.reason == "illegal_transition":
            self.agree(f"the actions open to {actor.name} on the {order.status} order {order.id} ({order.workflow})",
                       reply.details.get("allowed_actions"), self.model.allowed_actions(actor, order))
        if reply.status == 200:
            if action == "cancel" and actor.role in ("support", "supervisor"):
                order.refunds_by = (actor, body["reason"])
            self.model.act(actor, order, action)
            self.agree("the order's status", reply["status"], order.status)

    @precondition(lambda self: any(o.in_pool for o in self.model.orders))
    @rule(pick=st.integers(0, 31))
    @step
    def couriers_race_to_claim(self, pick):
        """Both couriers claim the same order at once: exactly one wins."""
        model = self.model
        order = self.pick(model.orders, pick, lambda o: o.in_pool)
        couriers = [self.actors["courier_a"], self.actors["courier_b"]]
        expected = [model.expect_claim(c, order) for c in couriers]
        replies = self.at_once([(c, "POST", f"/v1/orders/{order.id}/actions/claim", {}) for c in couriers])
        winners = [c for c, r in zip(couriers, replies) if r.status == 200]
        if len(winners) > 1:
            raise ModelMismatch(f"both couriers claimed order {order.id}")
        for courier, reply, outcomes in zip(couriers, replies, expected):
            if winners and courier is not winners[0] and Outcome(200) in outcomes:
                outcomes = [Outcome(409, "already_claimed")]
            elif winners and courier is not winners[0]:
                outcomes = outcomes + [Outcome(409, "already_claimed")]
            self.expect(reply, outcomes, f"{courier.name}'s claim of {order.id}")
        if winners:
            model.act(winners[0], order, "claim")

    def at_once(self, requests):
        """The requests sent together, one thread each; their answers, in order."""
        replies = [None] * len(requests)
        start = threading.Barrier(len(requests))

        def send(index, actor, method, path, body):
            """One of the requests, sent when every thread is ready."""
            start.wait()
            replies[index] = self.api.send(actor, method, path, body)
        threads = [threading.Thread(target=send, args=(i, *request)) for i, request in enumerate(requests)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return replies

    @rule(courier=st.sampled_from(["courier_a", "courier_b"]), on_duty=st.booleans())
    @step
    def courier_duty(self, courier, on_duty):
        """A courier goes on or off duty."""
        actor = self.actors[courier]
        self.send(actor, "PUT", "/v1/couriers/me/availability", {"on_duty": on_duty}, [Outcome(200)])
        (self.model.on_duty.add if on_duty else self.model.on_duty.discard)(actor.id)

    @precondition(lambda self: self.model.orders)
    @rule(pick=st.integers(0, 31), editor=st.sampled_from(["supervisor", "support"]))
    @step
    def platform_staff_edit_order(self, pick, editor):
        """A supervisor or the support desk tries to add a line to an order: they change no order
        line, price, tip or cash amount."""
        order = self.pick(self.model.orders, pick)
        self.send(self.actors[editor], "POST", f"/v1/orders/{order.id}/items",
                  {"type": "product", "description": "Extra falafel", "unit_price_gross": 500}, [Outcome(403)])

    EDITORS = STORE_USERS * 2 + ["admin", "supervisor", "support", "courier_a", "customer", "accountant"]

    @precondition(lambda self: any(o.customer is None for o in self.model.orders))
    @rule(pick=st.integers(0, 31), editor=st.sampled_from(EDITORS),
          change=st.sampled_from(["notes", "notes", "same_workflow", "other_workflow", "part"]),
          locked=st.sampled_from([False, False, True]))
    @step
    def store_edits_order(self, pick, editor, change, locked):
        """Someone edits one of the store's own orders, a `locked` one (out for delivery,
        delivered, collected, despatched or cancelled) when there is one: its notes, perhaps
        naming its workflow again or another (which cannot change: 400 naming `workflow`), or a
        falafel added as a line (a part, for a repair), which holds its stock until the order is
        collected, delivered or despatched (committed) or cancelled (given back). Only while the
        order still changes (else 422 `order_locked`); by the store's people, admins and
        supervisors, who change no line."""
        model = self.model
        own = [o for o in model.orders if o.customer is None]
        # A line changes the total, and the payment status is the payments' to set: an order with none.
        usable = (lambda o: not o.editable) if locked else \
            (lambda o: o.editable and not o.payments) if change == "part" else (lambda o: o.editable)
        order = self.pick(own, pick, usable)
        actor = self.actor(editor, order)
        if change == "part" and order.payments:
            change = "notes"
        if change == "part":
            falafel = model.products["falafel"]
            lines = {"falafel": 1}
            reply = self.send(actor, "POST", f"/v1/orders/{order.id}/items", {"product_id": falafel.id, "quantity": 1},
                              model.expect_edit(actor, order, lines=lines))
            if reply.status == 201:
                model.add_lines(order, lines, falafel.price)
                self.agree("the order's items_gross after a line was added", reply["items_gross"], order.items_gross)
                self.agree("the order's total after a line was added", reply["total"], order.total)
            return
        body = {"notes": f"edited by {actor.name}"}
        if change != "notes":
            body["workflow"] = order.workflow if change == "same_workflow" else \
                {"standard": "repair", "repair": "standard"}[order.workflow]
        reply = self.send(actor, "PATCH", f"/v1/orders/{order.id}", body,
                          model.expect_edit(actor, order, workflow=body.get("workflow")))
        if reply.status == 200:
            self.agree("the edited order's workflow", reply.get("workflow"), order.workflow)
            self.agree("the edited order's status", reply["status"], order.status)

    # Refunds.

    REFUNDERS = ["owner", "manager", "admin", "staff_a", "staff_b", "accountant", "supervisor", "customer"]

    def refund_amount(self, payment, kind):
        """The amount a refund of `kind` asks for: a third, the rest (None: what is left), one more than is left, or
        1.00."""
        left = payment.amount - payment.refunded
        return {"part": max(1, left // 3), "rest": None, "over": left + 1, "small": 100}[kind]

    @precondition(lambda self: any(p.left > 0 and p.id for p in self.model.payments))
    @rule(pick=st.integers(0, 31), refunder=st.sampled_from(REFUNDERS + ["owner", "manager", "staff_a"]),
          amount=st.sampled_from(["part", "part", "rest", "over", "small"]),
          stray=st.sampled_from([False] * 5 + [True]))
    @step
    def refund(self, pick, refunder, amount, stray):
        """Someone refunds part or all of a payment: never beyond what is left; owners, managers
        and admins, staff only payments they took within the store's limit; cash out of the
        refunder's drawer."""
        model = self.model
        payment = self.pick(model.payments, pick, None if stray else lambda p: p.left > 0 and p.id)
        if payment.id is None:
            return
        actor = self.actor(refunder, payment.order)
        value = self.refund_amount(payment, amount)
        outcomes = model.expect_refund(actor, payment, value if value is not None else payment.left)
        body = {"reason": f"refund by {actor.name}"}
        if value is not None:
            body["amount"] = value
        reply = self.send(actor, "POST", f"/v1/payments/{payment.id}/refunds", body, outcomes)
        if reply.status == 201:
            model.refund(payment, reply["amount"], actor if payment.method == "cash" else None)

    @precondition(lambda self: any(p.left > 0 and p.id for p in self.model.payments))
    @rule(pick=st.integers(0, 31), refunder=st.sampled_from(["owner", "manager", "admin", "staff_a"]),
          amounts=st.sampled_from([("rest", "rest"), ("rest", "rest"), ("half", "half"), ("third", "half")]))
    @step
    def refunds_race(self, pick, refunder, amounts):
        """Two refunds of one payment at once: together never beyond what was paid; the model
        takes them in the order the answers show. (Both of what is left, or two that fit
        together: whichever wins, the payment ends the same, so that a sequence runs again
        alike.)"""
        model = self.model
        payment = self.pick(model.payments, pick, lambda p: p.left > 0 and p.id)
        actor = self.actor(refunder, payment.order)
        left = payment.left
        amounts = [{"half": max(1, left // 2), "rest": left, "third": max(1, left // 3)}[k] for k in amounts]
        replies = self.at_once([(actor, "POST", f"/v1/payments/{payment.id}/refunds",
                                 {"amount": a, "reason": f"race {i}"}) for i, a in enumerate(amounts)])
        for order in ((0, 1), (1, 0)):
            if self.refunds_fit(actor, payment, [(amounts[i], replies[i]) for i in order]):
                for i in order:
                    if replies[i].status == 201:
                        model.refund(payment, amounts[i], actor if payment.method == "cash" else None)
                return
        raise ModelMismatch(
            f"refunds of {amounts} of payment {payment.id} ({left} left) at once answered "
            f"{[r.summary() for r in replies]}, which no order of them explains")

    def refunds_fit(self, actor, payment, refunds):
        """Whether refunds taken one after another in this order get these answers."""
        saved = (payment.refunded, payment.status)
        try:
            for amount, reply in refunds:
                if not any(o.matches(reply) for o in self.model.expect_refund(actor, payment, amount)):
                    return False
                if reply.status == 201:
                    payment.refunded += amount
                    payment.status = "refunded" if payment.refunded == payment.amount else "partially_refunded"
            return True
        finally:
            payment.refunded, payment.status = saved

    # The till.

    TILL = ["staff_a", "staff_a", "staff_b", "manager", "owner", "admin"]

    @rule(cashier=st.sampled_from(TILL + ["courier_a", "customer"]),
          method=st.sampled_from(["cash", "cash", "card", "nfc"]),
          units=st.integers(0, 3), typed=st.sampled_from([0, 1250, 4000]), tip=st.sampled_from([0, 0, 300]),
          for_record=st.booleans())
    @step
    def ring_up(self, cashier, method, units, typed, tip, for_record):
        """A cashier rings up a sale at the till: tracked falafels held until it ends, a line they
        type, a tip, perhaps for one of the store's customer records; cash is confirmed at the
        till, card and NFC by the provider; an NFC payment names a card tapped (a blocked one
        pays nothing), whose customer it is for."""
        model = self.model
        actor = self.actor(cashier)
        falafel = model.products["falafel"]
        body = {"method": method, "tip": tip, "items": []}
        if units:
            body["items"].append({"product_id": falafel.id, "quantity": units})
        if typed or not units:
            body["items"].append({"name": "Lemonade", "unit_price": typed or 1250, "quantity": 1, "vat_rate_bp": 1700})
        if actor.role == "admin":
            body["store_id"] = self.store_id
        if for_record and self.cards and method != "nfc":
            body["customer_id"] = self.cards[-1]["customer_id"]
        lines = {"falafel": units} if units else {}
        outcomes = model.expect_ring_up(actor, lines)
        if method == "nfc" and not self.cards:
            body["method"] = "card"
        elif method == "nfc":
            body["card_uid"] = self.cards[-1]["uid"]
            if self.cards[-1]["blocked"] and outcomes[0].status in (201, 409):
                # A blocked card pays nothing: refused, and stock short or not, the rules say not
                # which comes first.
                outcomes = [Outcome(422, "card_blocked")] + [o for o in outcomes if o.status == 409]
        reply = self.send(actor, "POST", "/v1/payments", body, outcomes)
        if reply.status == 201:
            subtotal = units * falafel.price + (typed or (1250 if not units else 0))
            self.agree("the sale's subtotal", reply["subtotal"], subtotal)
            payment = Payment(reply["id"], body["method"], subtotal, tip, actor,
                              commission(subtotal + tip, tip, model.commission_bp), lines=lines)
            model.hold(lines)
            model.payments.append(payment)

    @precondition(lambda self: self.model.orders)
    @rule(pick=st.integers(0, 31), cashier=st.sampled_from(TILL),
          tip=st.sampled_from(["absent", "absent", "zero", "own"]),
          part=st.sampled_from([False, False, True]), method=st.sampled_from(["cash", "cash", "card"]),
          stray=st.sampled_from([False] * 5 + [True]))
    @step
    def pay_order_at_till(self, pick, cashier, tip, part, method, stray):
        """A cashier takes a payment for a customer's order at the till: what is left of it (or a
        part), with the order's tip unless the request says otherwise (0: the tip was not
        paid)."""
        model = self.model
        order = self.pick(model.orders, pick, None if stray else lambda o: o.status != "cancelled"
                          and o.left_to_ring_up > 0)
        actor = self.actor(cashier)
        left = order.left_to_ring_up
        amount = max(1, left // 2) if part else None
        body = {"order_id": order.id, "method": method}
        if actor.role == "admin":
            body["store_id"] = self.store_id
        if amount is not None:
            body["amount"] = amount
        if tip == "zero":
            body["tip"], tips = 0, {0}
        elif tip == "own":
            body["tip"], tips = 250, {250}
        elif part:
            body["tip"], tips = order.tip, {order.tip}
        else:
            # What is left of the order's tip once other payments, those in flight too, paid some.
            tips = {order.tip_left}
        reply = self.send(actor, "POST", "/v1/payments", body, model.expect_ring_up(actor, {}, order, amount))
        if reply.status != 201:
            return
        self.agree("the payment's share of the order", reply["subtotal"], amount or left)
        if reply["tip"] not in tips:
            raise ModelMismatch(f"a payment for order {order.id} carries a tip of {reply['tip']}; the model "
                                f"expects {' or '.join(map(str, sorted(tips)))}")
        payment = Payment(reply["id"], method, reply["subtotal"], reply["tip"], actor,
                          commission(reply["amount"], reply["tip"], model.commission_bp), order)
        order.payments.append(payment)
        model.payments.append(payment)

    @precondition(lambda self: any(p.method == "cash" and p.status == "pending" for p in self.model.payments))
    @rule(pick=st.integers(0, 31), cashier=st.sampled_from(TILL),
          tendered=st.sampled_from(["exact", "more", "more", "less"]),
          stray=st.sampled_from([False] * 5 + [True]))
    @step
    def confirm_cash(self, pick, cashier, tendered, stray):
        """A cashier completes a pending cash payment with the cash handed over: into the drawer of
        their open shift, the change given back."""
        model = self.model
        payment = self.pick(model.payments, pick,
                            None if stray else lambda p: p.method == "cash" and p.status == "pending")
        if payment.id is None:
            return
        actor = self.actor(cashier)
        on_shift = [self.actors[name] for name in self.STORE_USERS if self.actors[name].id in model.shifts]
        if on_shift and not stray:
            # Usually one whose drawer is open takes the cash.
            actor = on_shift[self.TILL.index(cashier) % len(on_shift)]
        handed = payment.amount + {"exact": 0, "more": 1000, "less": -1}[tendered]
        reply = self.send(actor, "POST", f"/v1/payments/{payment.id}/confirm", {"amount_tendered": max(0, handed)},
                          model.expect_confirm(actor, payment, max(0, handed)))
        if reply.status == 200:
            self.agree("the change due", reply["change_due"], max(0, handed) - payment.amount)
            model.shifts[actor.id].cash_sales += payment.amount
            model.complete(payment)

    @rule(who=st.sampled_from(["staff_a", "staff_a", "staff_b", "manager", "owner", "admin"]), clock_in=st.booleans(),
          cash=st.sampled_from([0, 5000]))
    @step
    def clock(self, who, clock_in, cash):
        """A store user clocks in (the drawer opening with `cash`) or out (counting `cash` more
        than it should hold, or what it should): the drawer's expected cash is the opening cash,
        plus cash sales, less cash refunds."""
        model = self.model
        actor = self.actor(who)
        shift = model.shifts.get(actor.id)
        if clock_in:
            outcomes = [Outcome(403)] if actor.role == "admin" else [Outcome(409, "already_clocked_in")] if shift \
                else [Outcome(201)]
            reply = self.send(actor, "POST", "/v1/shifts/clock-in", {"opening_cash": cash}, outcomes)
            if reply.status == 201:
                model.shifts[actor.id] = Shift(cash)
            return
        outcomes = [Outcome(403)] if actor.role == "admin" else [Outcome(200)] if shift \
            else [Outcome(422, "not_clocked_in")]
        counted = (shift.expected_cash if shift else 0) + cash
        reply = self.send(actor, "POST", "/v1/shifts/clock-out", {"counted_cash": max(0, counted)}, outcomes)
        if reply.status == 200:
            self.agree("the drawer's expected cash", reply["expected_cash"], shift.expected_cash)
            self.agree("the drawer's difference", reply["difference"], max(0, counted) - shift.expected_cash)
            del model.shifts[actor.id]

    @precondition(lambda self: len(self.cards) < 3)
    @rule(who=st.sampled_from(["staff_a", "owner"]), blocked=st.sampled_from([False, False, True]))
    @step
    def register_card(self, who, blocked):
        """The till keeps a customer record and an NFC card linked to it (perhaps blocked)."""
        actor = self.actor(who)
        record = self.send(actor, "POST", f"/v1/stores/{self.store_id}/customers", {"name": "Yael Mizrahi"},
                           [Outcome(201)])
        uid = uuid.uuid4().hex[:14].upper()
        card = self.send(actor, "POST", f"/v1/stores/{self.store_id}/cards",
                         {"uid": uid, "customer_id": record["id"]}, [Outcome(201)])
        if blocked:
            self.send(actor, "PATCH", f"/v1/cards/{card['id']}", {"status": "blocked"}, [Outcome(200)])
        self.cards.append({"uid": uid, "blocked": blocked, "customer_id": record["id"]})

    # Payouts.

    @rule(holder=st.sampled_from(["store", "store", "courier_a", "courier_b"]),
          amount=st.sampled_from(["available", "half", "over", "cash_in", "cash_in_over"]),
          payer=st.sampled_from(["accountant", "accountant", "accountant", "admin", "owner", "courier_a", "staff_a"]))
    @step
    def payout(self, holder, amount, payer):
        """The accountant pays out what a store or courier earned (at most what is available), or
        records the cash they paid in (at most what they hold)."""
        model = self.model
        actor = self.actor(payer)
        courier = None if holder == "store" else self.actors[holder]
        figures = (model.store if courier is None else model.books_of(courier)).figures()
        value = {"available": figures["available"], "half": figures["available"] // 2,
                 "over": figures["available"] + 1, "cash_in": -figures["cash_held"],
                 "cash_in_over": -figures["cash_held"] - 1}[amount] or 1
        path = f"/v1/stores/{self.store_id}/payouts" if courier is None else f"/v1/couriers/{courier.id}/payouts"
        reply = self.send(actor, "POST", path, {"amount": value, "currency": "ILS", "reference": "TRF-model"},
                          model.expect_payout(actor, courier, value))
        if reply.status == 201:
            model.pay_out(courier, value)

    # Who reads what.

    READABLE = ["order", "order", "payment", "store_balance", "courier_balance", "foreign_order", "foreign_payment",
                "foreign_balance"]

    @rule(reader=st.sampled_from(ACTORS), thing=st.sampled_from(READABLE), pick=st.integers(0, 31))
    @step
    def read_as(self, reader, thing, pick):
        """Someone reads an order, a payment or a balance, of this store or another: exactly what
        the access table lets them read; anything else is 404."""
        model = self.model
        order = None
        if thing == "order" and model.orders:
            order = self.pick(model.orders, pick)
            actor = self.actor(reader, order)
            path, visible = f"/v1/orders/{order.id}", model.can_see_order(actor, order)
        elif thing == "payment" and any(p.id for p in model.payments):
            payment = self.pick(model.payments, pick, lambda p: p.id)
            actor = self.actor(reader, payment.order)
            visible = model.can_see_payment(actor, payment)
            path = f"/v1/payments/{payment.id}"
        elif thing == "courier_balance":
            actor = self.actor(reader)
            courier = self.actors[("courier_a", "courier_b")[pick % 2]]
            path, visible = f"/v1/couriers/{courier.id}/balance", model.can_see_courier_balance(actor, courier)
        elif thing == "foreign_order":
            actor = self.actor(reader)
            path = f"/v1/orders/{self.platform.foreign_order}"
            visible = actor.role in ("admin", "supervisor", "support")
        elif thing == "foreign_payment":
            actor = self.actor(reader)
            path, visible = f"/v1/payments/{self.platform.foreign_payment}", actor.role in ("admin", "accountant")
        elif thing == "foreign_balance":
            actor = self.actor(reader)
            path = f"/v1/stores/{model.foreign_store_id}/balance"
            visible = model.can_see_store_balance(actor, model.foreign_store_id)
        else:
            # The store's balance; also what is read while there is no order or payment to read.
            actor = self.actor(reader)
            path, visible = f"/v1/stores/{self.store_id}/balance", model.can_see_store_balance(actor)
        reply = self.send(actor, "GET", path, None, [Outcome(200)] if visible else [Outcome(404)])
        if order is not None and reply.status == 200:
            self.agree(f"the actions open to {actor.name} on the {order.status} order {order.id} ({order.workflow})",
                       reply.get("allowed_actions"), model.allowed_actions(actor, order))

    @rule(courier=st.sampled_from(["courier_a", "courier_b"]))
    @step
    def courier_reads_own_entries(self, courier):
        """A courier reads their balance: their figures as the model has them, and in each entry
        their own accounts' postings alone (no store's account, no platform commission, no
        commission figure)."""
        actor = self.actors[courier]
        figures, entries = self.balance(actor, "/v1/couriers/me/balance", check=False)
        self.agree(f"{courier}'s own balance", figures, self.model.books_of(actor).figures())
        shown = self.shown_beyond_own(courier, entries)
        if shown:
            raise ModelMismatch(shown[0])

    def shown_beyond_own(self, courier, entries):
        """What a courier's own entries show beyond their own accounts' postings: another account's
        postings, or a commission."""
        actor = self.actors[courier]
        own = {f"courier:{actor.id}", f"courier_cash:{actor.id}"}
        shown = []
        for entry in entries:
            foreign = [p["account"] for p in entry["postings"] if p["account"] not in own]
            if foreign or entry.get("commission"):
                shown.append(f"{courier} reads postings of {foreign or 'no other account'} and a commission "
                             f"of {entry.get('commission')} in their own entry {entry['reference']}")
        return shown

    # Joining.

    @rule(kind=st.sampled_from(["courier", "store"]), reviewer=st.sampled_from(["supervisor", "supervisor", "admin"]))
    @step
    def apply_and_approve(self, kind, reviewer):
        """A restaurant or a courier applies to join; a supervisor (or an admin) approves it."""
        body = {"kind": kind, "name": "Avi Peretz", "email": self.platform.email("applicant"), "password": PASSWORD,
                "phone": "050-7778889"}
        if kind == "courier":
            body["vehicle"] = "scooter"
        else:
            body["store"] = {"name": "Hummus Avi", "address": "5 Dizengoff St", "phone": "03-5557777"}
        applied = self.send(None, "POST", "/v1/applications", body, [Outcome(201)])
        approve = f"/v1/applications/{applied['id']}/approve"
        # Approval waits for the applicant to follow the link mailed to their address.
        self.send(self.actors[reviewer], "POST", approve, None, [Outcome(422, "email_unverified", "email")])
        link = mailed_link(os.environ["MODEL_MAIL_DIR"], body["email"].lower(), "verify-email")
        self.send(None, "POST", "/v1/auth/verify-email", {"token": link.rsplit("/", 1)[1]}, [Outcome(204)])
        approved = self.send(self.actors[reviewer], "POST", approve, None, [Outcome(200)])
        self.agree("the application's status", approved["status"], "approved")

    # Leaving.

    @rule(who=st.sampled_from(["customer", "courier_a", "courier_b", "owner", "staff_a", "stranger"]))
    @step
    def a_person_tries_to_leave(self, who):
        """Someone asks to close their account with their password. Only customers and couriers
        close their own (anyone else 403); nobody while an order of theirs is on its way; a
        courier not while holding more cash than they earned (the model's books say which). A
        customer of no order here (`stranger`) leaves: the books must not move, and a new one is
        signed up when a step next needs one. The example's own customer and couriers are only
        refused: their orders and books are what the other steps work on."""
        actor = self.platform_customer() if who == "stranger" else self.actor(who)
        attempt = lambda outcome: self.send(actor, "DELETE", "/v1/me", {"password": PASSWORD}, [outcome])
        if who in ("owner", "staff_a"):
            attempt(Outcome(403))
            return
        courier = who.startswith("courier")
        underway = [o for o in self.model.orders if o.status in OPEN_STATUSES
                    and (o.courier is actor if courier else o.customer is actor)]
        if underway:
            outcome = Outcome(422, "orders_in_progress")
        elif courier and self.model.books_of(actor).figures()["balance"] < 0:
            outcome = Outcome(422, "cash_outstanding")
        elif who == "stranger":
            outcome = Outcome(204)
        else:
            return
        # Each password checked counts as a login attempt of the account: the eleventh in five
        # minutes is refused whatever else holds.
        tries = self.password_checks.get(actor.id, 0)
        if tries >= LOGIN_ATTEMPTS_PER_ACCOUNT:
            attempt(Outcome(429, "rate_limited"))
            return
        self.password_checks[actor.id] = tries + 1
        attempt(outcome)
        if outcome.status == 204:
            del self.actors["stranger"]

    # What must always hold.

    @invariant()
    def the_books_hold(self):
        """Waits, up to MODEL_SETTLE_SECONDS, until the suite shows what the model holds (what the
        event followers apply comes a moment after the answers); fails with what still differs.
        What can never come right (an entry that does not balance, a refund beyond its payment,
        stock below zero, a courier shown another's postings, a courier credited what was not
        paid) fails as soon as the rest has come right or the time is up, with the rest."""
        deadline = time.monotonic() + SETTLE_SECONDS
        violations = {}
        while True:
            differences = self.differences(violations)
            if not differences and not violations:
                return
            if not differences or time.monotonic() > deadline:
                raise ModelMismatch("after the step, the suite and the model differ:\n  "
                                    + "\n  ".join(list(violations) + differences))
            time.sleep(0.1)

    @precondition(lambda self: self.model.orders)
    @invariant()
    def the_pool_holds(self):
        """The store's orders in the couriers' pool (`GET /v1/orders?available=true`, read as a
        courier on duty, or a supervisor when none is) are the model's: unclaimed standard
        deliveries accepted, preparing or ready, and never a repair; and a courier on duty who
        claims a repair order is answered 404, as for any order they cannot see (once for each
        repair order in each status it reaches)."""
        model = self.model
        on_duty = [self.actors[n] for n in ("courier_a", "courier_b") if self.actors[n].id in model.on_duty]
        reader = on_duty[0] if on_duty else self.platform.staff["supervisor"]
        _, pool = self.listed(reader, f"/v1/orders?available=true&store_id={self.store_id}")
        Tally.checks += 1
        found = {o["id"] for o in pool}
        repairs = sorted(o.id for o in model.orders if o.repair and o.id in found)
        if repairs:
            raise ModelMismatch(f"repair orders {repairs} are in the couriers' pool, as {reader.name} reads it")
        expected = {o.id for o in model.orders if o.in_pool}
        if found != expected:
            raise ModelMismatch(f"the couriers' pool, as {reader.name} reads it, has orders {sorted(found - expected)} "
                                f"the model's has not, and lacks {sorted(expected - found)}")
        if not on_duty:
            return
        for order in model.orders:
            if order.repair and (order.id, order.status) not in self.repair_claims_tried:
                self.send(on_duty[0], "POST", f"/v1/orders/{order.id}/actions/claim", {}, [Outcome(404)])
                self.repair_claims_tried.add((order.id, order.status))

    def differences(self, violations):
        """What the suite shows that the model does not hold now, and (into `violations`) what can
        never come right. Counts each invariant checked."""
        differences = []
        for check in (self.store_books, self.courier_books, self.orders_and_payments, self.drawers, self.stock,
                      self.refunds_audited):
            differences += check(violations)
            Tally.checks += 1
        return differences

    def listed(self, actor, path, check=True):
        """The first page's answer at `path` and every item of its list (read by a check, or not);
        a read refused fails the step."""
        reply, items = paged(self.api, actor, path, check)
        if reply.status != 200:
            raise ModelMismatch(f"{actor.name} could not read {path}: {reply.summary()}")
        return reply, items

    def balance(self, actor, path, check=True):
        """A holder's ILS figures and every one of their entries (read by a check, or not)."""
        reply, entries = self.listed(actor, path, check)
        figures = next((b for b in reply["balances"] if b["currency"] == "ILS"), {})
        return {name: figures.get(name, 0) for name in ("earned", "cash_held", "balance", "available")}, entries

    def entries_balance(self, entries, whose, violations):
        """Invariant 1: every ledger entry's postings add up to zero."""
        for entry in entries:
            total = sum(p["amount"] for p in entry["postings"])
            if total != 0:
                violations[f"{whose}'s ledger entry {entry['reference']} does not balance ({total}): {entry}"] = True

    def store_books(self, violations):
        """Invariants 1 and 2 for the store: every entry balances, and its account is the model's
        (each delivered order's share to its courier learnt from the ledger, among those the
        rules allow)."""
        model = self.model
        figures, entries = self.balance(self.platform.staff["accountant"], f"/v1/stores/{self.store_id}/balance")
        self.entries_balance(entries, "the store", violations)
        by_reference = {entry["reference"]: entry for entry in entries}
        differences = []
        for order_id, (order, shares) in list(model.deliveries.items()):
            entry = by_reference.get(f"delivery:{order_id}")
            if entry is None:
                differences.append(f"order {order_id} was delivered, and the ledger has no delivery entry for it")
                continue
            share = sum(p["amount"] for p in entry["postings"] if p["account"] == f"courier:{order.courier.id}")
            if share not in shares:
                violations[f"order {order_id}'s courier was credited {share}; the fee and the tips paid come to "
                           f"{' or '.join(map(str, shares))}: {entry}"] = True
            model.settle_delivery(order, share)
        if figures != model.store.figures():
            differences.append(f"the store's balance is {figures}, the model's {model.store.figures()}")
        return differences

    def courier_books(self, violations):
        """Invariants 1, 2, 3 and 5 for each courier: their entries balance, their account and the
        cash they hold are the model's, the fees and tips credited to them are what was paid, and
        what they read of their own entries is their own postings alone."""
        model, differences = self.model, []
        for name in ("courier_a", "courier_b"):
            courier = self.actors[name]
            figures, entries = self.balance(self.platform.staff["accountant"], f"/v1/couriers/{courier.id}/balance")
            self.entries_balance(entries, name, violations)
            for shown in self.shown_beyond_own(name, self.balance(courier, "/v1/couriers/me/balance")[1]):
                violations[shown] = True
            expected = model.books_of(courier).figures()
            if figures != expected:
                differences.append(f"{name}'s balance is {figures}, the model's {expected}")
            credited = sum(p["amount"] for e in entries if e["kind"] != "payout" for p in e["postings"]
                           if p["account"] == f"courier:{courier.id}")
            if credited != model.fees_and_tips.get(courier.id, 0):
                differences.append(f"{name} was credited {credited} of fees and tips, "
                                   f"the model {model.fees_and_tips.get(courier.id, 0)}")
        return differences

    def orders_and_payments(self, violations):
        """Invariant 4 and the orders' payment figures: no payment refunded beyond what it took,
        each payment's status and refunds and each order's status, courier and paid amount as the
        model has them (the payment a courier's cash became is learnt here)."""
        model, accountant, differences = self.model, self.platform.staff["accountant"], []
        _, payments = self.listed(accountant, f"/v1/stores/{self.store_id}/payments")
        known = {p.id: p for p in model.payments if p.id}
        for found in payments:
            if found["refunded_amount"] > found["amount"]:
                violations[f"payment {found['id']} refunded {found['refunded_amount']} of {found['amount']}"] = True
            if found["id"] in known:
                continue
            waiting = [p for p in model.unidentified_cash if p.order.id == found.get("order_id")]
            if waiting and found.get("collected_on_delivery"):
                waiting[0].id = found["id"]
                model.unidentified_cash.remove(waiting[0])
                known[found["id"]] = waiting[0]
            else:
                differences.append(f"payment {found['id']} ({found['method']}, {found['amount']}) is not the model's")
        by_id = {found["id"]: found for found in payments}
        for payment in model.payments:
            found = by_id.get(payment.id)
            if found is None:
                differences.append(f"the model's {payment.method} payment {payment.id or '(collected on delivery)'} "
                                   f"of {payment.amount} is not in the store's payments")
                continue
            for name, expected in (("status", payment.status), ("refunded_amount", payment.refunded),
                                   ("amount", payment.amount), ("tip", payment.tip)):
                if found[name] != expected:
                    differences.append(f"payment {payment.id}'s {name} is {found[name]!r}, the model's {expected!r}")
        _, orders = self.listed(self.platform.admin, f"/v1/orders?store_id={self.store_id}")
        _, archived = self.listed(self.platform.admin, f"/v1/orders?store_id={self.store_id}&archived=true")
        for found in orders:
            if found.get("archived_at"):
                differences.append(f"order {found['id']} is archived and still listed")
        for found in archived:
            if found.get("status") != "cancelled" or not found.get("archived_at"):
                differences.append(f"order {found['id']} is listed as archived, {found.get('status')}")
        listed_apart = {found["id"] for found in orders} & {found["id"] for found in archived}
        if listed_apart:
            differences.append(f"orders {sorted(listed_apart)} are listed both archived and not")
        by_id = {found["id"]: found for found in orders + archived}
        for order in model.orders:
            if order.archived != any(found["id"] == order.id for found in archived):
                differences.append(f"order {order.id} is {'not ' if order.archived else ''}listed as archived")
            found = by_id.get(order.id, {})
            courier = order.courier.id if order.courier else None
            for name, expected in (("status", order.status), ("workflow", order.workflow), ("courier_id", courier),
                                   ("paid_amount", order.paid_amount), ("payment_status", order.payment_status)):
                if found.get(name) != expected:
                    differences.append(f"order {order.id}'s {name} is {found.get(name)!r}, the model's {expected!r}")
        return differences

    def drawers(self, violations):
        """Invariant 3 for the till: each open shift's drawer took in the cash sales and gave out
        the cash refunds the model counts, and no other shift is open."""
        model = self.model
        _, shifts = self.listed(self.platform.staff["accountant"], f"/v1/stores/{self.store_id}/shifts?open=true")
        found = {shift["user_id"]: shift for shift in shifts}
        differences = []
        if set(found) != set(model.shifts):
            differences.append(f"open shifts of {sorted(found)}, the model's {sorted(model.shifts)}")
        for user, shift in model.shifts.items():
            if user in found:
                actual = (found[user]["opening_cash"], found[user]["cash_sales"], found[user]["cash_refunds"])
                expected = (shift.opening_cash, shift.cash_sales, shift.cash_refunds)
                if actual != expected:
                    differences.append(f"the drawer of {user} (opening, sales, refunds) is {actual}, "
                                       f"the model's {expected}")
        return differences

    def stock(self, violations):
        """Invariant 6: no product that disallows it below zero; each product's stock on hand and
        held is the model's (held: what open orders and pending payments hold)."""
        _, products = self.listed(self.actors["owner"], f"/v1/stores/{self.store_id}/products")
        found = {product["id"]: product for product in products}
        differences = []
        for product in self.model.products.values():
            if not product.track_stock:
                continue
            actual = found[product.id]
            if actual["quantity"] < 0 and not product.allow_negative:
                violations[f"{product.key} is oversold: {actual['quantity']} on hand"] = True
            if (actual["quantity"], actual["reserved"]) != (product.quantity, product.reserved):
                differences.append(f"{product.key}'s stock (on hand, held) is ({actual['quantity']}, "
                                   f"{actual['reserved']}), the model's ({product.quantity}, {product.reserved})")
        return differences

    def refunds_audited(self, violations):
        """A paid order cancelled by the support desk or a supervisor: its refund is in the store's
        activity with who cancelled and why."""
        model = self.model
        if not model.audited_refunds:
            return []
        feed, after = [], 0
        while True:
            path = f"/v1/stores/{self.store_id}/activity?after={after}"
            reply = self.api.send(self.actors["owner"], "GET", path, check=True)
            if reply.status != 200:
                raise ModelMismatch(f"the owner could not read {path}: {reply.summary()}")
            feed += reply["data"]
            after = reply["next_cursor"]
            if not reply["has_more"]:
                break
        differences = []
        for payment, actor in model.audited_refunds:
            reason = payment.order.refunds_by[1] if payment.order.refunds_by else ""
            entries = [e for e in feed if e["type"] == "refund" and e["data"].get("payment_id") == payment.id]
            if not any(actor.id in e["data"].values() and reason in e["title"] + " " + e["subtitle"] for e in entries):
                differences.append(f"the refund of payment {payment.id} on {actor.name}'s cancellation is not in the "
                                   f"store's activity with who ({actor.id}) and why ({reason!r}): {entries}")
        return differences
