"""The reference model of one store's marketplace: its orders, payments, stock, drawers and the
ledger's accounts of the store and its couriers, kept as the rules say they must be
(docs/ARCHITECTURE.md's ledger, Shared/Domain/Ledger.swift, AccessPolicy.swift), and the answer
each request must get.

It does no I/O. The state machine (model_machine.py) asks it what a request must be answered
(`Outcome`s: a status, and for a refusal its `error.reason` or the field it names), makes the
request, and tells it what happened."""
from dataclasses import dataclass, field

POOL_STATUSES = {"accepted", "preparing", "ready"}
OPEN_STATUSES = {"pending", "accepted", "preparing", "ready", "out_for_delivery", "booked_in", "awaiting_parts",
                 "in_repair"}
# The statuses in which an order's fields and lines still change (later: 422 order_locked).
EDITABLE_STATUSES = {"pending", "accepted", "preparing", "ready", "booked_in", "awaiting_parts", "in_repair"}
COMPLETED = {"completed", "partially_refunded", "refunded"}
IN_FLIGHT = {"pending", "confirmed", "processing"}
TERMINAL = {"completed", "failed", "cancelled", "expired", "partially_refunded", "refunded"}
PROGRESS = {"pending": 0, "confirmed": 1, "processing": 2, "completed": 3, "failed": 3}
STORE_ROLES = {"owner", "manager", "staff"}
STORE_ACTIONS = {"accept", "start_preparing", "start_repair", "await_parts", "mark_ready", "mark_collected",
                 "despatch", "cancel"}
# Every order action, in the order the server lists those open to the caller (`allowed_actions`).
ACTIONS = ["accept", "start_preparing", "start_repair", "await_parts", "mark_ready", "mark_collected", "despatch",
           "cancel", "claim", "release", "pick_up", "deliver"]
# Where each order action starts from, and where it leads (None: the status stays), by the order's workflow: an
# action its workflow lacks never fits the order.
PATHS = {
    "standard": {
        "accept": ({"pending"}, "accepted"),
        "start_preparing": ({"accepted"}, "preparing"),
        "mark_ready": ({"preparing"}, "ready"),
        "mark_collected": ({"ready"}, "collected"),
        "cancel": ({"pending", "accepted", "preparing", "ready"}, "cancelled"),
        "claim": (POOL_STATUSES, None),
        "release": (POOL_STATUSES, None),
        "pick_up": ({"ready"}, "out_for_delivery"),
        "deliver": ({"out_for_delivery"}, "delivered"),
    },
    "repair": {
        "start_repair": ({"booked_in", "awaiting_parts"}, "in_repair"),
        "await_parts": ({"booked_in", "in_repair"}, "awaiting_parts"),
        "mark_ready": ({"in_repair"}, "ready"),
        "mark_collected": ({"ready"}, "collected"),
        "despatch": ({"ready"}, "despatched"),
        "cancel": ({"booked_in", "awaiting_parts", "in_repair", "ready"}, "cancelled"),
    },
}
# Where a store's order of each workflow starts (a standard delivery of a store that dispatches on creation: `ready`).
FIRST_STATUS = {"standard": "pending", "repair": "booked_in"}
MAXIMUM_CARRIED = 3
MAXIMUM_RELEASES = 5
MAXIMUM_UNPAID_CARD_ORDERS = 3
DELIVERY_FEE = 3500
# Where a store with an area is, the area and what distance adds (a kilometre free, then 7.00).
STORE_PLACE = {"lat": 32.08, "lng": 34.78}
DELIVERY_AREA = {"radius_m": 2000}
BY_DISTANCE = [{"max_m": 1000, "fee": 0}, {"fee": 700}]
# Where a customer's address may be: its location and its distance's surcharge from the store
# (None: outside the area): 613 m, 1.7 km, and Haifa.
PLACES = {
    "near": ({"lat": 32.0853, "lng": 34.7818}, 0),
    "farther": ({"lat": 32.0953, "lng": 34.78}, 700),
    "outside": ({"lat": 32.794, "lng": 34.9896}, None),
}


@dataclass(frozen=True)
class Outcome:
    """One legal answer: its status and, for a refusal, the `error.reason` it must carry or the
    field its details must name (None: not checked)."""
    status: int
    reason: str = None
    field: str = None

    def matches(self, reply):
        """Whether `reply` is this answer."""
        if reply.status != self.status:
            return False
        # A provider's report that is answered 200 says what became of it in `outcome`.
        told = reply.get("outcome") if reply.status < 300 else reply.reason
        if self.reason is not None and told != self.reason:
            return False
        if self.field is not None:
            return any(key == self.field or key.endswith("." + self.field) for key in reply.details)
        return True

    def __str__(self):
        return f"{self.status}" + (f" {self.reason}" if self.reason else "") + (
            f" naming {self.field}" if self.field else "")


def commission(amount, tip, bp):
    """The platform's commission on a payment: `commission_bp` of its amount without the tip,
    rounded down."""
    base = amount - tip
    return base * bp // 10000 if base > 0 and bp > 0 else 0


@dataclass
class Books:
    """A store's or a courier's two accounts: what they earned, and the cash they hold."""
    earned: int = 0
    cash_held: int = 0

    def figures(self):
        """The balance as the API reads it, with nothing pending (the hold is 0 here)."""
        balance = self.earned - self.cash_held
        return {"earned": self.earned, "cash_held": self.cash_held, "balance": balance,
                "available": max(0, balance)}


@dataclass
class Product:
    """A product of the store's menu, and its stock."""
    key: str
    id: str
    price: int
    track_stock: bool
    quantity: int = 0
    reserved: int = 0
    allow_negative: bool = False
    options: dict = field(default_factory=dict)

    @property
    def available(self):
        """What may still be held or sold: on hand less held."""
        return self.quantity - self.reserved


@dataclass
class Payment:
    """A payment as the model holds it: who took it, what it pays, its commission (decided when
    it was made) and the stock its lines hold."""
    id: str
    method: str
    subtotal: int
    tip: int
    taken_by: object
    commission: int
    order: object = None
    lines: dict = field(default_factory=dict)
    collected_by: object = None
    customer: object = None
    status: str = "pending"
    refunded: int = 0
    provider_events: list = field(default_factory=list)

    @property
    def amount(self):
        """The subtotal and the tip."""
        return self.subtotal + self.tip

    @property
    def left(self):
        """What is left to refund."""
        return self.amount - self.refunded if self.status in COMPLETED else 0

    @property
    def order_share(self):
        """What it pays, or will pay, of its order: in flight its subtotal; completed its subtotal
        less what refunds gave back beyond its tip (`Payment.orderShare`)."""
        if self.status in IN_FLIGHT:
            return self.subtotal
        if self.status in COMPLETED:
            return max(0, min(self.subtotal, self.amount - self.refunded))
        return 0

    @property
    def tip_share(self):
        """What it pays, or will pay, of its order's tip: in flight its tip; completed what refunds
        left of it, as a refund gives back the tip first (`Payment.tipShare`)."""
        if self.status in IN_FLIGHT:
            return self.tip
        if self.status in COMPLETED:
            return max(0, self.tip - self.refunded)
        return 0

    def commission_given_back(self, amount):
        """The commission a refund of `amount` gives back: the commission's share of what has
        been refunded after it less before it."""
        def share(refunded):
            """The commission's share of `refunded` of the payment."""
            return self.commission * refunded // self.amount if self.amount > 0 else 0
        return share(self.refunded + amount) - share(self.refunded)


@dataclass
class Order:
    """A customer's order of the store, or the store's own (no customer, `method` "store"), of the
    standard workflow or (only the store's own) the repair one, which it keeps."""
    id: str
    customer: object
    method: str
    fulfillment: str
    items_gross: int
    tip: int
    lines: dict
    status: str = "pending"
    courier: object = None
    payments: list = field(default_factory=list)
    refunds_by: object = None
    archived: bool = False
    workflow: str = "standard"
    # What the distance from the store adds to a delivery's fee (its `by_distance` tier).
    surcharge: int = 0

    @property
    def delivery_fee(self):
        """One box's fee for a delivery (the default tiers) and its distance's tier, none for a
        pickup."""
        return DELIVERY_FEE + self.surcharge if self.fulfillment == "delivery" else 0

    @property
    def total(self):
        """The items and the delivery fee (the tip beside it)."""
        return self.items_gross + self.delivery_fee

    @property
    def paid_amount(self):
        """What its completed payments pay of the total."""
        return sum(p.order_share for p in self.payments if p.status in COMPLETED)

    @property
    def payment_status(self):
        """`unpaid`, `partially_paid`, `paid`, or `refunded` once refunds took it back to nothing."""
        paid = self.paid_amount
        if paid <= 0:
            return "refunded" if any(p.status in COMPLETED for p in self.payments) else "unpaid"
        return "paid" if paid >= self.total else "partially_paid"

    @property
    def left_to_pay(self):
        """What is left to pay of the total by completed payments (the tip aside)."""
        return max(0, self.total - self.paid_amount)

    @property
    def cash_owed(self):
        """What the courier collects at the door: of a cash-on-delivery order not paid in full,
        what is left to pay and the tip; else nothing."""
        return self.left_to_pay + self.tip if self.method == "cash_on_delivery" and self.left_to_pay > 0 else 0

    @property
    def left_to_ring_up(self):
        """What is left to pay of the total counting payments still in flight."""
        return self.total - sum(p.order_share for p in self.payments)

    @property
    def tip_left(self):
        """What is left to pay of the tip counting payments still in flight: a tip a refund gave
        back is due again."""
        return max(0, self.tip - sum(p.tip_share for p in self.payments))

    @property
    def awaits_payment(self):
        """Whether it is a card order not paid in full, which the store cannot accept."""
        return self.method == "card" and self.payment_status != "paid"

    @property
    def repair(self):
        """Whether it follows the repair workflow."""
        return self.workflow == "repair"

    @property
    def in_pool(self):
        """Whether couriers on duty see it and may claim it: never a repair, which the store despatches itself."""
        return not self.repair and self.fulfillment == "delivery" and self.courier is None \
            and self.status in POOL_STATUSES

    @property
    def editable(self):
        """Whether its fields and lines still change."""
        return self.status in EDITABLE_STATUSES

    def fits(self, action):
        """Whether `action` fits the order as it is now, whoever asks."""
        path = PATHS[self.workflow].get(action)
        if path is None or self.status not in path[0]:
            return False
        if action == "mark_collected":
            # A repair is collected however it was to go back; a standard order only when a pickup.
            return self.repair or self.fulfillment == "pickup"
        if action == "despatch":
            return self.fulfillment == "delivery"
        if action == "claim":
            return self.fulfillment == "delivery" and self.courier is None
        if action == "release":
            return self.courier is not None
        if action == "pick_up":
            return self.fulfillment == "delivery" and self.courier is not None
        return True

    def refundable_card_payments(self):
        """The completed payments not in cash that a cancellation refunds in full."""
        return [p for p in self.payments if p.method != "cash" and p.status in COMPLETED and p.left > 0]


@dataclass
class Shift:
    """A store user's open shift: their drawer."""
    opening_cash: int
    cash_sales: int = 0
    cash_refunds: int = 0

    @property
    def expected_cash(self):
        """What the drawer should hold: the opening cash, plus cash sales, less cash refunds."""
        return self.opening_cash + self.cash_sales - self.cash_refunds


class Marketplace:
    """One store, its products, orders, payments, drawers and couriers, and the ledger's accounts
    of the store and each courier."""

    def __init__(self, store_id, foreign_store_id):
        self.store_id = store_id
        self.foreign_store_id = foreign_store_id
        self.commission_bp = 0
        self.staff_refund_limit = 0
        self.require_clock_in = False
        self.dispatch = "when_ready"
        self.workflow = "standard"
        # Whether the store delivers only within its area (`STORE_PLACE`, `DELIVERY_AREA`).
        self.area = False
        self.store = Books()
        self.couriers = {}
        self.on_duty = set()
        # Each courier's releases today: theirs, and those of orders they carried that someone
        # else released (whether those count against them, the rules leave open).
        self.releases = {}
        self.releases_by_others = {}
        self.products = {}
        self.orders = []
        self.payments = []
        self.shifts = {}
        # Each delivered order whose courier's share (the fee and the tips paid) the ledger is yet
        # to show, with the shares the rules allow (whether the tip of a payment refunded since
        # counts, they leave open): `settle_delivery` books the one it shows.
        self.deliveries = {}
        # Cash collected on delivery, a payment whose id the payments list is yet to show.
        self.unidentified_cash = []
        # Cancellations whose refunds must show in the store's activity with who and why.
        self.audited_refunds = []
        # The fees and tips credited to each courier.
        self.fees_and_tips = {}

    # Who sees what (AccessPolicy).

    def works_in(self, actor, store_id=None):
        """Whether the actor is one of the store's (or `store_id`'s) owners, managers or staff."""
        return actor.role in STORE_ROLES and actor.store_id == (store_id or self.store_id)

    def runs(self, actor, store_id=None):
        """Whether the actor is one of the store's (or `store_id`'s) owners or managers."""
        return actor.role in ("owner", "manager") and self.works_in(actor, store_id)

    def can_see_order(self, actor, order):
        """Admins, supervisors and support see every order; store users their store's; couriers the ones they carry and,
        on duty, the pool; customers their own."""
        if actor.role in ("admin", "supervisor", "support"):
            return True
        if actor.role in STORE_ROLES:
            return self.works_in(actor)
        if actor.role == "courier":
            return order.courier is actor or (actor.id in self.on_duty and order.in_pool)
        if actor.role == "customer":
            return order.customer is actor
        return False

    def can_see_payment(self, actor, payment):
        """Admins and accountants see every payment; store users their store's; a customer the ones made out to them."""
        if actor.role in ("admin", "accountant") or self.works_in(actor):
            return True
        return actor.role == "customer" and payment.customer is actor

    def can_see_store_balance(self, actor, store_id=None):
        """Admins, accountants, and the store's owners and managers (of `store_id`, when given)."""
        return actor.role in ("admin", "accountant") or self.runs(actor, store_id)

    def can_see_courier_balance(self, actor, courier):
        """Admins, accountants, and the courier themself."""
        return actor.role in ("admin", "accountant") or actor is courier

    # Orders: who may do which action now (AccessPolicy.permits, transition, claim).

    def permits(self, actor, action, order):
        """Whether the actor may ever do `action` to `order`, whatever its status."""
        role = actor.role
        if role in ("admin", "supervisor"):
            return action != "claim"
        if role == "support":
            return action == "cancel"
        if role in STORE_ROLES:
            return self.works_in(actor) and action in STORE_ACTIONS
        if role == "courier":
            if action == "claim":
                return actor.id in self.on_duty and order.in_pool
            return action in ("release", "pick_up", "deliver") and order.courier is actor
        if role == "customer":
            return action == "cancel" and order.customer is actor
        return False

    def status_allows(self, actor, action, order):
        """Whether the order's state lets the actor do `action` now."""
        if not order.fits(action):
            return False
        if actor.role == "customer" and action == "cancel" and order.status != "pending":
            return False
        return not (action == "accept" and order.awaits_payment)

    def allowed_actions(self, actor, order):
        """The actions open to the actor on `order` now (`allowed_actions`), in the server's order."""
        return [a for a in ACTIONS if self.permits(actor, a, order) and self.status_allows(actor, a, order)]

    def carried(self, courier):
        """How many orders the courier carries: claimed, neither delivered nor cancelled."""
        return sum(1 for o in self.orders if o.courier is courier and o.status not in ("delivered", "cancelled"))

    def expect_claim(self, courier, order):
        """The answers a claim of `order` by `courier` may get (the claim rule)."""
        if courier.role != "courier":
            return [Outcome(403)] if self.can_see_order(courier, order) else [Outcome(404)]
        if courier.id not in self.on_duty:
            return [Outcome(422, "off_duty")]
        if order.in_pool:
            if self.carried(courier) >= MAXIMUM_CARRIED:
                return [Outcome(422, "too_many_claims")]
            return [Outcome(200)]
        if order.courier is not None and order.courier is not courier and order.fulfillment == "delivery" \
                and order.status in POOL_STATUSES:
            return [Outcome(409, "already_claimed")]
        if not self.can_see_order(courier, order):
            return [Outcome(404)]
        return [Outcome(422, "illegal_transition")]

    def clocked_in(self, actor):
        """Whether the actor has an open shift at the store."""
        return actor.id in self.shifts

    def may_refund_on_cancel(self, actor, order):
        """Whether the caller may cancel `order` as far as its refunds go: True, False, or None
        when the rules leave it open (staff within the limit, not clocked in, at a store that
        does not require it)."""
        refunds = order.refundable_card_payments()
        # A store's own order refunds nothing by being cancelled (`cancel`).
        if order.customer is None or not refunds or actor.role != "staff":
            return True
        if any(p.left > self.staff_refund_limit for p in refunds):
            return False
        if self.clocked_in(actor):
            return True
        return False if self.require_clock_in else None

    def expect_action(self, actor, order, action, cash=None):
        """The answers `action` on `order` by `actor` may get, `cash` collected on delivery."""
        if action == "claim":
            return self.expect_claim(actor, order)
        if not self.can_see_order(actor, order):
            return [Outcome(404)]
        outcomes = self.expect_transition(actor, order, action, cash)
        if action == "release" and actor.role == "courier":
            released = self.releases.get(actor.id, 0)
            if released >= MAXIMUM_RELEASES:
                return [Outcome(422, "too_many_releases")]
            if released + self.releases_by_others.get(actor.id, 0) >= MAXIMUM_RELEASES:
                return outcomes + [Outcome(422, "too_many_releases")]
        if action == "deliver" and cash is not None and actor.role in ("supervisor", "support"):
            # Supervisors and the support desk change no cash amount: refused, whatever else is.
            return [Outcome(403)] + [o for o in outcomes if o.status != 200]
        return outcomes

    def expect_archive(self, actor, order):
        """The answers archiving `order` by `actor` may get: an archived order is answered as it
        is; the store's people, admins and supervisors archive a cancelled order as it is and a
        pending one by cancelling it (under the cancel's rules); any other status is refused."""
        if not self.can_see_order(actor, order):
            return [Outcome(404)]
        if order.archived:
            return [Outcome(200)]
        if not (actor.role in ("admin", "supervisor") or (actor.role in STORE_ROLES and self.works_in(actor))):
            return [Outcome(403)]
        if order.status == "cancelled":
            return [Outcome(200)]
        if order.status == "pending":
            return self.expect_transition(actor, order, "cancel", None)
        return [Outcome(422, "illegal_transition")]

    def archive(self, actor, order):
        """An archived order: a pending one cancelled by the archiver first."""
        if order.status == "pending":
            order.status = "cancelled"
            self.cancel(actor, order)
        order.archived = True

    def expect_edit(self, actor, order, workflow=None, lines=None):
        """The answers a change of `order`'s own fields (PATCH, perhaps naming a `workflow`) or, with `lines`, a line
        of a catalog product added (product key: units) may get: the store's people, admins and supervisors edit, but
        supervisors change no line; nobody once the order is out for delivery, delivered, collected, despatched or
        cancelled (422 order_locked); the workflow never changes (400 naming it); a line holds its stock."""
        if not self.can_see_order(actor, order):
            return [Outcome(404)]
        if not (actor.role in ("admin", "supervisor") or self.works_in(actor)):
            return [Outcome(403)]
        if lines is not None and actor.role == "supervisor":
            return [Outcome(403)]
        if not order.editable:
            return [Outcome(422, "order_locked")]
        if lines is not None:
            return [Outcome(409, "insufficient_stock")] if self.short_products(lines) else [Outcome(201)]
        if workflow is not None and workflow != order.workflow:
            return [Outcome(400, None, "workflow")]
        return [Outcome(200)]

    def add_lines(self, order, lines, gross):
        """Catalog lines added to `order` (product key: units, `gross` in all): their stock held by it."""
        for key, quantity in lines.items():
            order.lines[key] = order.lines.get(key, 0) + quantity
        order.items_gross += gross
        self.hold(lines)

    def expect_transition(self, actor, order, action, cash):
        """The answers an action the actor sees may get: who may, whether the state allows it, and what cancelling and
        delivering ask."""
        if not self.permits(actor, action, order):
            return [Outcome(403)]
        if action == "accept" and order.status == "pending" and order.awaits_payment:
            return [Outcome(422, "payment_required")]
        if not self.status_allows(actor, action, order):
            return [Outcome(422, "illegal_transition")]
        if action == "cancel":
            allowed = self.may_refund_on_cancel(actor, order)
            if allowed is False:
                return [Outcome(422, "refund_not_allowed")]
            if allowed is None:
                return [Outcome(200), Outcome(422, "refund_not_allowed")]
        if action == "deliver":
            if order.cash_owed:
                if cash is None or cash < order.cash_owed:
                    return [Outcome(422, "cash_required", "cash_collected")]
            elif cash is not None:
                return [Outcome(400, None, "cash_collected")]
        return [Outcome(200)]

    # What happens.

    def books_of(self, courier):
        """The courier's accounts."""
        return self.couriers.setdefault(courier.id, Books())

    def hold(self, lines):
        """Stock held for `lines` (product key: units)."""
        for key, quantity in lines.items():
            self.products[key].reserved += quantity

    def release(self, lines):
        """Stock `lines` held, given back."""
        for key, quantity in lines.items():
            self.products[key].reserved -= quantity

    def sell(self, lines):
        """Stock `lines` held, sold."""
        for key, quantity in lines.items():
            self.products[key].reserved -= quantity
            self.products[key].quantity -= quantity

    def act(self, actor, order, action):
        """Applies an action the server carried out."""
        if action == "claim":
            order.courier = actor
        elif action == "release":
            counted = self.releases if actor.role == "courier" else self.releases_by_others
            counted[order.courier.id] = counted.get(order.courier.id, 0) + 1
            order.courier = None
        else:
            order.status = PATHS[order.workflow][action][1]
        if action == "cancel":
            self.cancel(actor, order)
        elif action in ("mark_collected", "despatch"):
            self.sell(order.lines)
        elif action == "deliver":
            self.deliver(order)

    def cancel(self, actor, order):
        """A cancelled order: its stock given back, its completed card payments refunded in full by
        the canceller (in the store's activity when the platform's staff cancelled), its pending
        ones cancelled. A store's own order (no customer) leaves its payments to the till: what
        was rung up for it is settled or refunded there, as any sale of the till."""
        self.release(order.lines)
        if order.customer is None:
            return
        for payment in order.payments:
            if payment.method == "cash":
                continue
            if payment.status in COMPLETED and payment.left > 0:
                if actor.role in ("support", "supervisor"):
                    self.audited_refunds.append((payment, actor))
                self.refund(payment, payment.left, None)
            elif payment.status in ("pending", "confirmed"):
                payment.status = "cancelled"
                self.release(payment.lines)

    def deliver(self, order):
        """A delivered order: its stock sold; cash collected at the door becomes a completed cash
        payment of what was left to pay and the tip (what the courier had to collect), taken by
        the courier (whose payment it is, the model learns from the payments list); its courier
        gets the fee and the tips paid. A payment rung up for it and not completed (pending or
        confirmed) is cancelled, as the customer paid at the door instead; one with its provider
        (processing) is left to it."""
        self.sell(order.lines)
        if order.cash_owed:
            for payment in order.payments:
                if payment.status in ("pending", "confirmed"):
                    payment.status = "cancelled"
                    self.release(payment.lines)
            payment = Payment(
                id=None, method="cash", subtotal=order.left_to_pay, tip=order.tip, taken_by=order.courier,
                commission=commission(order.cash_owed, order.tip, self.commission_bp),
                order=order, collected_by=order.courier, customer=order.customer)
            order.payments.append(payment)
            self.payments.append(payment)
            self.unidentified_cash.append(payment)
            self.complete(payment)
        paid_tips = sum(p.tip_share for p in order.payments if p.status in COMPLETED)
        self.deliveries[order.id] = (order, [order.delivery_fee + paid_tips])

    def settle_delivery(self, order, share):
        """Books the delivery share the ledger shows, one the rules allow."""
        self.store.earned -= share
        self.books_of(order.courier).earned += share
        self.fees_and_tips[order.courier.id] = self.fees_and_tips.get(order.courier.id, 0) + share
        del self.deliveries[order.id]

    def complete(self, payment):
        """A payment completed: its stock sold, and in the ledger its amount from where the money
        is (the platform's funds, the store's till, the courier's cash) to the store, less the
        commission; a tip paid for an order already delivered goes on to its courier."""
        payment.status = "completed"
        self.sell(payment.lines)
        if payment.method == "cash":
            if payment.collected_by is not None:
                self.books_of(payment.collected_by).cash_held += payment.amount
            else:
                self.store.cash_held += payment.amount
        self.store.earned += payment.amount - payment.commission
        order = payment.order
        if order is not None and order.status == "delivered" and payment.collected_by is None and payment.tip:
            self.store.earned -= payment.tip
            self.books_of(order.courier).earned += payment.tip
            self.fees_and_tips[order.courier.id] = self.fees_and_tips.get(order.courier.id, 0) + payment.tip

    def fail(self, payment, status):
        """A payment ended unpaid (`failed`, `cancelled`): its stock given back."""
        payment.status = status
        self.release(payment.lines)

    def refund(self, payment, amount, refunder):
        """A refund: from the store, less the commission it gives back, to where the money goes
        back from (a cash payment's, collected at the door too, out of the store's till and the
        refunder's drawer; a card payment's to the platform's funds)."""
        given_back = payment.commission_given_back(amount)
        payment.refunded += amount
        payment.status = "refunded" if payment.refunded == payment.amount else "partially_refunded"
        self.store.earned -= amount - given_back
        if payment.method == "cash":
            self.store.cash_held -= amount
            if refunder is not None:
                self.shifts[refunder.id].cash_refunds += amount

    # Refunds, payouts, the till.

    def may_refund(self, actor, payment, amount):
        """Whether the actor may refund `amount` of `payment`: admins, the store's owners and managers, its staff a
        payment they took within the store's limit."""
        if actor.role == "admin" or self.runs(actor):
            return True
        return actor.role == "staff" and self.works_in(actor) and payment.taken_by is actor \
            and amount <= self.staff_refund_limit

    def expect_refund(self, actor, payment, amount):
        """The answers a refund of `amount` of `payment` by `actor` may get: any refusal that
        applies (the rules do not order them), or 201."""
        if not self.can_see_payment(actor, payment):
            return [Outcome(404)]
        if payment.status not in ("completed", "partially_refunded"):
            return [Outcome(422, "illegal_transition")]
        refusals = []
        if amount > payment.left:
            refusals.append(Outcome(422, "refund_exceeds_payment", "amount"))
        if not self.may_refund(actor, payment, amount):
            refusals.append(Outcome(403))
        if actor.role == "staff" and self.require_clock_in and not self.clocked_in(actor):
            refusals.append(Outcome(422, "not_clocked_in"))
        if payment.method == "cash" and not self.clocked_in(actor):
            refusals.append(Outcome(422, "not_clocked_in"))
        return refusals or [Outcome(201)]

    def expect_payout(self, actor, holder, amount):
        """The answers a payout of `amount` to `holder` (the store, or a courier) may get."""
        books = self.store if holder is None else self.books_of(holder)
        sees = self.can_see_store_balance(actor) if holder is None else self.can_see_courier_balance(actor, holder)
        if not sees:
            return [Outcome(404)]
        if actor.role not in ("admin", "accountant"):
            return [Outcome(403)]
        figures = books.figures()
        limit = figures["available"] if amount > 0 else figures["cash_held"]
        if abs(amount) > limit:
            return [Outcome(422, "insufficient_balance")]
        return [Outcome(201)]

    def pay_out(self, holder, amount):
        """A payout recorded: what was earned paid out, or (negative) the cash held paid in."""
        books = self.store if holder is None else self.books_of(holder)
        if amount > 0:
            books.earned -= amount
        else:
            books.cash_held += amount

    def expect_ring_up(self, actor, lines, order=None, amount=None):
        """The answers a payment rung up at the till may get (`lines` of tracked products, or an
        `order` with perhaps an `amount`)."""
        if actor.role == "customer":
            # A customer pays online for their order alone: a till's payment is not theirs.
            return [Outcome(400)]
        if actor.role not in STORE_ROLES and actor.role != "admin":
            return [Outcome(403)]
        if actor.role == "staff" and self.require_clock_in and not self.clocked_in(actor):
            return [Outcome(422, "not_clocked_in")]
        if order is not None:
            if order.status == "cancelled":
                return [Outcome(422, "order_cancelled")]
            left = order.left_to_ring_up
            if left <= 0:
                return [Outcome(422, "order_paid")]
            if amount is not None and amount > left:
                return [Outcome(422, None, "amount")]
            return [Outcome(201)]
        short = [key for key, quantity in lines.items()
                 if not self.products[key].allow_negative and quantity > self.products[key].available]
        return [Outcome(409, "insufficient_stock")] if short else [Outcome(201)]

    def expect_confirm(self, actor, payment, tendered):
        """The answers completing a pending cash payment with `tendered` cash may get."""
        if not self.can_see_payment(actor, payment):
            return [Outcome(404)]
        if actor.role not in STORE_ROLES and actor.role != "admin":
            return [Outcome(403)]
        if payment.method != "cash":
            return [Outcome(422, "provider_payment")]
        if payment.status != "pending":
            return [Outcome(422, "illegal_transition")]
        refusals = []
        if tendered < payment.amount:
            refusals.append(Outcome(422, None, "amount_tendered"))
        if not self.clocked_in(actor):
            refusals.append(Outcome(422, "not_clocked_in"))
        return refusals or [Outcome(200)]

    def expect_report(self, payment, kind, amount, repeated):
        """The answers a provider's report of `kind` (with `amount` on completed) may get, and the
        payment's status after it."""
        if payment.method == "cash":
            return [Outcome(422, "cash_payment")], payment.status
        if amount is not None and amount != payment.amount:
            return [Outcome(422, "amount_mismatch")], payment.status
        if repeated:
            return [Outcome(200, "duplicate")], payment.status
        if payment.status in TERMINAL or PROGRESS[kind] <= PROGRESS[payment.status]:
            return [Outcome(200, "ignored")], payment.status
        return [Outcome(200, "applied")], kind

    # Customers.

    def unpaid_card_orders(self, customer):
        """The customer's card orders not paid, for certain and perhaps (one paid and then refunded
        in part, which the rules leave open)."""
        mine = [o for o in self.orders if o.customer is customer and o.method == "card" and o.status != "cancelled"]
        sure = sum(1 for o in mine if o.payment_status == "unpaid")
        maybe = sum(1 for o in mine if o.payment_status in ("partially_paid", "refunded"))
        return sure, maybe

    def short_products(self, lines):
        """The keys of the tracked products, which may not go below zero, that cannot hold `lines`."""
        return sorted(key for key, quantity in lines.items()
                      if self.products[key].track_stock and not self.products[key].allow_negative
                      and quantity > self.products[key].available)

    def delivery_refusal(self, fulfillment, place):
        """The refusal a customer's checkout gets for where it goes, if any: a store with an area
        refuses a delivery outside it (422 outside_delivery_area) or to an address that does not
        say where it is (400 naming address.location)."""
        if fulfillment != "delivery" or not self.area:
            return None
        if place is None:
            return Outcome(400, None, "address.location")
        return Outcome(422, "outside_delivery_area") if PLACES[place][1] is None else None

    def surcharge(self, fulfillment, place):
        """What the distance adds to a delivery's fee: the store's `by_distance` tier, for a store
        that has a place and an area; nothing otherwise."""
        if fulfillment != "delivery" or not self.area or place is None:
            return 0
        return PLACES[place][1] or 0

    def expect_checkout(self, customer, method, lines):
        """The answers a customer's checkout may get: 201, 409 insufficient_stock, 422
        too_many_unpaid (the 4th unpaid card order; for a cash-on-delivery one the rules leave it
        open), any of the refusals that apply."""
        sure, maybe = self.unpaid_card_orders(customer)
        refusals = []
        if self.short_products(lines):
            refusals.append(Outcome(409, "insufficient_stock"))
        too_many = Outcome(422, "too_many_unpaid")
        if method == "card" and sure >= MAXIMUM_UNPAID_CARD_ORDERS:
            refusals.append(too_many)
        elif sure + maybe >= MAXIMUM_UNPAID_CARD_ORDERS:
            return refusals + [too_many] + ([] if refusals else [Outcome(201)])
        return refusals or [Outcome(201)]

    def expect_online_payment(self, customer, order):
        """The answers a customer paying for `order` online may get."""
        if order.customer is not customer:
            return [Outcome(400, None, "order_id")]
        if order.method != "card":
            return [Outcome(422, "not_card_order")]
        if order.status == "cancelled":
            return [Outcome(422, "order_cancelled")]
        if order.left_to_ring_up <= 0:
            return [Outcome(422, "order_paid")]
        return [Outcome(201)]
