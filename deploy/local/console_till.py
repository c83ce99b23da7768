"""The console's till and money screens in the browser, for deploy/local/console-test.py.

`till(browser, base, store, owner_token, owner, cashier)` starts with the owner signed in (and
clocked in, so that a payment can be taken). The cashier signs in, creates a customer from the
till's form, registers a card by its uid for them and looks it up as a tap, answering the
customer's name. The owner signs in again, blocks the card (the API says so) and unlinks it, and
sees a cash payment made through the API at the top of the activity feed without a reload; axe
on the till and on the money screen, whose balance table shows. Screenshots: `till-cards`,
`activity-feed`, `money`.
"""
import uuid
from urllib.parse import quote

from suite import call


def till(browser, base, store, owner_token, owner, cashier):
    """The till as the store's cashier (customer, card, tap), then as its owner (the card blocked and
    unlinked, the live feed, the money screen); `owner` and `cashier` are (e-mail, password) pairs.
    The owner is signed in when it starts and when it ends. AssertionError on a failure."""
    driver = browser.driver
    suffix = uuid.uuid4().hex[:6]
    api = lambda method, path, body=None: call(base, method, path, body, owner_token)

    browser.sign_out()
    browser.sign_in(*cashier)
    browser.click("#nav-till")
    browser.wait("the till's customers", lambda: browser.css("#customers table") or browser.css("#customers p.muted"))

    # A customer created from the form.
    name = f"Dana Levi {suffix}"
    browser.click("#new-customer")
    browser.type("#customer-form #customer-name", name)
    browser.type("#customer-form #customer-phone", "050-555 0123")
    browser.click("#save-customer")
    customer = browser.wait("the customer created", lambda: next(
        (found for found in api("GET", f"/v1/stores/{store['id']}/customers?q={quote(name)}")["data"] if found["name"] == name),
        None))
    browser.wait("the customer listed", lambda: any(name in cell.text for cell in browser.css("#customers td")))
    print(f"  a customer created at the till: {name}")

    # A card registered by its uid for them.
    uid_bytes = ["04"] + [uuid.uuid4().hex[i:i + 2].upper() for i in range(0, 12, 2)]
    uid = ":".join(uid_bytes)
    browser.one(f'#card-customer option[value="{customer["id"]}"]')
    browser.select("#card-customer", customer["id"])
    browser.type("#card-uid", uid)
    browser.click("#register-card")
    card = browser.wait("the card registered", lambda: next(
        iter(api("GET", f"/v1/stores/{store['id']}/cards?customer_id={customer['id']}")["data"]), None))
    if card["uid"] != "".join(uid_bytes):
        raise AssertionError(f"the card was registered with uid {card['uid']!r}, typed {uid!r}")
    browser.one(f"#block-{card['id']}")
    browser.one(f"#unlink-{card['id']}")
    print(f"  card {card['uid_display']} registered for the customer")

    # The tap looked up (typed as a reader gives it, lower case and no separators): the card and its customer.
    browser.type("#lookup-uid", "".join(uid_bytes).lower())
    browser.click("#lookup-card")
    browser.wait("the tap's customer", lambda: name in browser.one("#lookup-result #lookup-customer").text)
    print("  the tap looked up: the customer's name shown")
    browser.shot("till-cards")
    browser.sign_out()
    browser.sign_in(*owner)
    browser.click("#nav-till")

    # Blocked from its row, then unlinked from its customer.
    browser.click(f"#block-{card['id']}")
    browser.wait("the card blocked", lambda: api("GET", f"/v1/cards/{card['id']}")["status"] == "blocked")
    # The list read again: the row's button now unblocks (it is no longer the danger of blocking).
    browser.wait("the card's row showing it blocked",
                 lambda: "danger" not in (browser.one(f"#block-{card['id']}").get_attribute("class") or ""))
    browser.click(f"#unlink-{card['id']}")
    browser.wait("the card unlinked", lambda: api("GET", f"/v1/cards/{card['id']}").get("customer_id") is None)
    print("  the card blocked and unlinked from its row")

    # Activity: a cash payment made through the API shows at the top of the feed without a reload.
    browser.one("#activity")
    driver.execute_script("window.notReloaded = true")
    payment = api("POST", "/v1/payments", {
        "method": "cash", "customer_id": customer["id"],
        "items": [{"name": f"Espresso {suffix}", "unit_price": 1200, "quantity": 2, "vat_rate_bp": 1700}]})
    api("POST", f"/v1/payments/{payment['id']}/confirm", {"amount_tendered": payment["amount"]})
    shown = browser.one(f'#activity [data-payment-id="{payment["id"]}"]')
    # Newest first, the payment put at the top (only what was kept after it may be above it).
    seqs = [int(item.get_attribute("id").removeprefix("activity-")) for item in browser.css("#activity > li")]
    if seqs != sorted(seqs, reverse=True):
        raise AssertionError(f"the activity feed is not newest first: {seqs}")
    if not driver.execute_script("return window.notReloaded === true"):
        raise AssertionError("the page was reloaded while the activity feed waited for the payment")
    print(f"  the payment appeared in the activity feed without a reload: {shown.text!r}")
    browser.shot("activity-feed")
    browser.wait("the shift summary", lambda: browser.css("#summary-table table") or browser.css("#summary-table p"))
    browser.accessibility("till")

    # Money: the store's balances and entries (the ledger is kept from the payments' events: a moment later).
    browser.wait("the store's ledger", lambda: api("GET", f"/v1/stores/{store['id']}/balance?limit=1")["balances"])
    browser.click("#nav-money")
    browser.wait("the balance table", lambda: browser.css("#balances table"))
    browser.wait("the entries", lambda: browser.css("#entries table") or browser.css("#entries p.muted"))
    print("  the money screen shows the store's balance")
    browser.shot("money")
    browser.accessibility("money")
