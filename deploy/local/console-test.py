#!/usr/bin/env python3
"""`make test`'s console check: the admin web in a real browser.

Headless Chromium (Debian's `chromium` and `chromium-driver`) driven by Selenium (PyPI) against
the suite started by deploy/local/run.sh. From an empty install the bootstrap admin opens a
store, makes its owner and cashier, a courier and the platform's staff, turns a user off and on,
changes a role and sends a password reset. The owner creates a product (a bad price first, its
error shown beside the field), watches an order created through the API appear on the board
without a reload, accepts it, refunds part of a cash payment, and finds the day's revenue in the
chart. At the till (deploy/local/console_till.py) customers and NFC cards are made, found,
blocked and unlinked, the activity feed moves live and the money screen shows the balance. The
store made a repair shop in its settings books in an order made on the board, which its buttons
take through repair to collected; the store is then made standard again. A webhook is made,
tested against a receiver of the test's own (its signature checked) and deleted. The page in
Arabic is right to left; axe (`axe-selenium-python`) finds no serious or critical violation on
any screen of eight roles; the browser logged no error (a Content-Security-Policy violation
included); a staff member is never shown the takings; a staff member who forgot their password
asks for a link from the sign-in form, follows it from the e-mail a local SMTP server received
(deploy/local/smtp-test-server.py) and signs in with the new one; a payout sent again after its
answer was lost is recorded once. Screenshots of each screen are written to .build/console/.

`console-test.py --against URL` runs the same against a suite already running there, with the
bootstrap admin's e-mail address and password in ORDERLY_BOOTSTRAP_ADMIN_EMAIL and _PASSWORD.
"""
import hashlib
import hmac
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

from console_till import till
from suite import call, mailed_link, root, run_inside, start_mail_server

shots = os.path.join(root, ".build", "console")
WAIT = 20
PASSWORD = "Password-12345"
# The passwords changed during the run (a reset), by address; every other is PASSWORD.
changed_passwords = {}


def ensure_tools():
    missing = [name for name in ("selenium", "axe_selenium_python", "aiosmtpd") if not importable(name)]
    if missing:
        packages = ["selenium", "axe-selenium-python", "aiosmtpd"]
        if subprocess.run([sys.executable, "-m", "pip", "install", "-q", *packages]).returncode != 0:
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--user", "--break-system-packages",
                            *packages], check=True)
    for tool in ("chromium", "chromedriver"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            sys.exit(f"console: {tool} is missing (deploy/local/install-deps.sh test installs it)")


def importable(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


class Browser:
    def __init__(self, base):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                         "--lang=en-US", "--disable-gpu"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.base = base
        self.problems = []

    def wait(self, what, condition, seconds=WAIT):
        """Waits until `condition()` is truthy, answering it; records a problem on time out."""
        deadline = time.time() + seconds
        last = None
        while time.time() < deadline:
            try:
                value = condition()
                if value:
                    return value
            except Exception as error:  # an element not there yet
                last = error
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}" + (f" ({last})" if last else ""))

    def css(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def one(self, selector):
        return self.wait(selector, lambda: (self.css(selector) or [None])[0])

    def click(self, selector):
        """Clicks `selector`, found again if the screen drew it anew meanwhile."""
        def clicked():
            element = self.one(selector)
            self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            return True
        self.wait(f"{selector} clicked", clicked)

    def type(self, selector, text):
        element = self.one(selector)
        element.clear()
        element.send_keys(text)

    def select(self, selector, value):
        from selenium.webdriver.support.ui import Select
        Select(self.one(selector)).select_by_value(value)

    def shot(self, name):
        os.makedirs(shots, exist_ok=True)
        path = os.path.join(shots, f"{name}.png")
        self.driver.save_screenshot(path)
        print(f"  screenshot {os.path.relpath(path, root)}")

    def accessibility(self, screen):
        from axe_selenium_python import Axe
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        bad = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
        for violation in bad:
            self.problems.append(f"axe on {screen}: {violation['impact']} {violation['id']}: {violation['help']} "
                                 f"({len(violation['nodes'])} elements, e.g. {violation['nodes'][0]['target']})")
        others = ", ".join(f"{v['impact']} {v['id']}" for v in results["violations"] if v not in bad)
        print(f"  axe on {screen}: {len(bad)} serious or critical violations" + (f" (also {others})" if others else ""))

    def errors(self):
        entries = self.driver.get_log("browser")
        # The API's refusals the flow provokes (a bad price) are logged as failed loads: not errors of the page.
        return [entry["message"] for entry in entries if entry["level"] == "SEVERE"
                and "favicon.ico" not in entry["message"]
                and "the server responded with a status of 4" not in entry["message"]]

    def sign_in(self, email, password):
        self.driver.get(self.base + "/console/")
        self.type("#field-email", email)
        self.type("#field-password", password)
        self.click("#sign-in")
        self.one("#nav")
        self.shown("the first screen")

    def shown(self, what):
        """Waits until the screen in `main` is drawn (its heading, nothing loading in its place)."""
        self.wait(what, lambda: self.css("#main > h1") and not self.css("#main > .progress"))

    def sign_out(self):
        self.click("#sign-out")
        self.one("#sign-in")


def login(base, email, password=PASSWORD):
    return call(base, "POST", "/v1/auth/login", {"email": email, "password": password})["access_token"]


def flow(base, admin_email, admin_password):
    admin_login = (admin_email, admin_password)

    # The console's answers forbid framing and anything inline.
    with urllib.request.urlopen(base + "/console/", timeout=10) as response:
        policy = response.headers.get("Content-Security-Policy", "")
        framing = response.headers.get("X-Frame-Options")
    problems = []
    if "script-src 'self'" not in policy or "unsafe-inline" in policy or framing != "DENY":
        problems.append(f"/console/ answers Content-Security-Policy {policy!r}, X-Frame-Options {framing!r}")

    browser = Browser(base)
    try:
        store, people = platform_from_empty(browser, base, admin_login)
        owner, staff = login(base, people["owner"]), login(base, people["staff"])
        run_browser(browser, base, store, people, owner, staff, admin_login)
        every_screen(browser, people, admin_login)
    except AssertionError as error:
        browser.shot("failure")
        problems.append(str(error))
    finally:
        problems += [f"the browser logged: {message}" for message in browser.errors()]
        problems += browser.problems
        browser.driver.quit()
    for problem in problems:
        print("  FAILED: " + problem)
    print(f"console: {'passed' if not problems else 'FAILED'}")
    return 1 if problems else 0


def run_browser(browser, base, store, people, owner, staff, admin_login):
    driver = browser.driver
    browser.sign_in(people["owner"], PASSWORD)
    print("  signed in as the owner")

    # Menu: a bad price is refused by the server, its reason beside the field; then the product.
    browser.click("#nav-menu")
    browser.click("#new-product")
    browser.type("#field-name", "Shakshuka")
    browser.type("#field-category", "Breakfast")
    browser.type("#field-price", "cheap")
    browser.type("#field-quantity", "10")
    browser.click("#save-product")
    note = browser.one("#product-form .field-error")
    if "price" not in (note.find_element("xpath", "..").get_attribute("for") or ""):
        raise AssertionError(f"the price's error is not beside the price: {note.text!r}")
    print(f"  a bad price: {note.text!r} beside the field")
    browser.type("#field-price", "42.50")
    # A size to choose: small as it is, large for 5.00 more.
    browser.click("#add-option-group")
    browser.type('[name="option_groups[0].name"]', "Size")
    browser.type('[name="option_groups[0].min_select"]', "1")
    browser.type('[name="option_groups[0].options[0].name"]', "Small")
    browser.click('#product-form fieldset [data-path] > button')
    browser.type('[name="option_groups[0].options[1].name"]', "Large")
    browser.type('[name="option_groups[0].options[1].price_delta"]', "5")
    browser.click("#save-product")
    browser.wait("the product in the menu", lambda: any("Shakshuka" in cell.text for cell in browser.css("td")))
    browser.accessibility("menu")
    browser.shot("menu")
    product = call(base, "GET", f"/v1/stores/{store['id']}/products", token=owner)["data"][0]
    options = [(o["name"], o["price_delta"]) for group in product["option_groups"] for o in group["options"]]
    if product["price"] != 4250 or product["quantity"] != 10 or options != [("Small", 0), ("Large", 500)]:
        raise AssertionError(f"the product was stored as {product['price']} with {product['quantity']} in stock "
                             f"and options {options}")

    # Board: an order made through the API appears without a reload; accepted from its card.
    browser.click("#nav-board")
    browser.one("#column-pending")
    driver.execute_script("window.notReloaded = true")
    order = call(base, "POST", "/v1/orders", {
        "recipient_first_name": "Yael", "recipient_last_name": "Mizrahi", "phone": "050-1234567",
        "street": "Herzl", "building_no": "12", "city": "Tel Aviv", "boxes_count": 2}, staff)
    browser.one(f"#column-pending #order-{order['id']}")
    if not driver.execute_script("return window.notReloaded === true"):
        raise AssertionError("the page was reloaded")
    print(f"  order #{order['number']} appeared on the board without a reload")
    browser.shot("board")
    browser.accessibility("board")
    browser.click(f"#order-{order['id']}")
    browser.one("dialog .timeline li")
    browser.shot("order")
    browser.accessibility("order")
    browser.click("#action-accept")
    browser.one(f"#column-accepted #order-{order['id']}")
    print("  accepted from the board")
    browser.click("dialog .dialog-head button")
    # Search as browsers write it: a space is a +.
    browser.type("#board-search", "yael mizrahi")
    browser.click("form[role=search] button[type=submit]")
    browser.wait("the search's one order", lambda: browser.one("#board-count").text.startswith("1 "))

    # Takings: a cash payment of the product, refunded in part here; the day's revenue in the chart.
    call(base, "POST", "/v1/shifts/clock-in", {"opening_cash": 10000}, owner)
    payment = call(base, "POST", "/v1/payments", {"method": "cash", "items": [{"product_id": product["id"], "quantity": 2}]},
                   owner)
    call(base, "POST", f"/v1/payments/{payment['id']}/confirm", {"amount_tendered": payment["amount"]}, owner)
    browser.click("#nav-takings")
    browser.click(f"#refund-{payment['id']}")
    browser.type("#refund-form #field-amount", "42.50")
    browser.type("#refund-form #field-reason", "one was cold")
    browser.click("#confirm-refund")
    browser.wait("the refund", lambda: call(base, "GET", f"/v1/payments/{payment['id']}", token=owner)["refunded_amount"] == 4250)
    print("  refunded 42.50 of the payment")
    expected = payment["amount"] - 4250

    def revenue_shown():
        # The statistics are a read model kept from the payments' events: asked again until they have it.
        if any(int(bar.get_attribute("data-value")) == expected for bar in browser.css("#chart-days rect")):
            return True
        browser.click("#stats-range button[type=submit]")
        time.sleep(0.5)
        return False
    browser.wait("today's revenue in the chart", revenue_shown)
    print(f"  the chart shows today's revenue, {expected} minor units")
    browser.shot("takings")
    browser.accessibility("takings")
    till(browser, base, store, owner, (people["owner"], PASSWORD), (people["staff"], PASSWORD))

    # Arabic: right to left, the board's words in Arabic.
    browser.click("#nav-board")
    browser.one("#column-pending")
    browser.select("#language", "ar")
    browser.wait("the page right to left", lambda: driver.execute_script("return document.documentElement.dir") == "rtl")
    browser.wait("the board in Arabic", lambda: browser.one("#nav-board").text == "الطلبات")
    browser.one(f"#order-{order['id']}")
    missing = driver.execute_async_script(
        "import('/console/js/i18n.js').then((words) => arguments[0](words.missingWords()))")
    if any(missing.values()):
        raise AssertionError(f"words missing in a language: {missing}")
    browser.shot("board-arabic")
    browser.accessibility("board in Arabic")
    browser.select("#language", "en")

    # A staff member is shown no takings, not even by their address.
    browser.sign_out()
    browser.sign_in(people["staff"], PASSWORD)
    if browser.css("#nav-takings"):
        raise AssertionError("a staff member is shown the takings")
    driver.get(base + "/console/#/takings")
    browser.wait("the staff member sent to the board", lambda: browser.css("#board"))
    if browser.css("#stats") or browser.css("#payments"):
        raise AssertionError("a staff member reached the takings by their address")
    print("  a staff member is shown no takings")
    browser.shot("board-staff")

    # The admin: the store's people and settings (a setting saved), the platform (an application approved).
    browser.sign_out()
    password_reset(browser, people["staff"])
    applicant = f"courier-{uuid.uuid4().hex[:8]}@console.test"
    application = call(base, "POST", "/v1/applications", {
        "kind": "courier", "name": "Noa Courier", "email": applicant, "password": PASSWORD,
        "phone": "050-7654321", "vehicle": "scooter"})
    verified = verify_email(browser, applicant)
    browser.sign_in(*admin_login)
    browser.select("#store-select", store["id"])
    browser.click("#nav-people")
    browser.one("#users table")
    browser.type("#settings-form-minimum_order", "60")
    # Opening hours: a time that does not exist is refused, its reason beside it.
    browser.click('#settings-form [data-path="opening_hours"] > button')
    browser.type('[name="opening_hours[0].close"]', "25:00")
    browser.click("#save-settings")
    note = browser.one('#settings-form td .field-error')
    print(f"  a closing time of 25:00: {note.text!r} beside it")
    browser.type('[name="opening_hours[0].close"]', "22:00")
    browser.click("#save-settings")
    admin = call(base, "POST", "/v1/auth/login", {"email": admin_login[0], "password": admin_login[1]})["access_token"]
    browser.wait("the settings saved", lambda: (lambda saved: saved["minimum_order"] == 6000 and saved["opening_hours"] == [
        {"day": "mon", "open": "09:00", "close": "22:00"}])(call(base, "GET", f"/v1/stores/{store['id']}", token=admin)))
    print("  the store's minimum order and opening hours saved from its settings")
    browser.shot("people")
    browser.accessibility("people")
    repair_workflow(browser, base, store, admin)
    if os.environ.get("CONSOLE_WEBHOOKS_LOCAL"):
        webhooks(browser, base, store, admin)
    browser.click("#nav-platform")
    if verified:
        browser.click(f"#approve-{application['id']}")
        browser.wait("the application approved", lambda: call(
            base, "GET", f"/v1/applications/{application['id']}", token=admin)["status"] == "approved")
        print("  an application approved from the platform screen")
    browser.type("#payout-form #field-amount", "1000")
    browser.click("#record-payout")
    note = browser.one("#payout-form .error")
    print(f"  a payout above the balance: {note.text!r}")
    browser.shot("platform")
    browser.accessibility("platform")
    payout_sent_twice(browser, base, store, admin)
    courier = next(user for user in call(base, "GET", "/v1/users?role=courier&limit=200", token=admin)["data"]
                   if user["email"] == people["courier"])
    browser.click(f"#courier-account-{courier['id']}")
    browser.one("#courier-payout-form")
    browser.shot("courier-account")
    browser.accessibility("a courier's account")
    print("  a courier's account opened from the platform screen")


def platform_from_empty(browser, base, admin_login):
    """An admin on an empty install, in the console alone: a store opened with its settings, its
    owner and a cashier made, a courier and the platform's staff made, one turned off and on again,
    given another role and sent a password link. Answers the store and the people's addresses."""
    suffix = uuid.uuid4().hex[:8]
    admin = login(base, *admin_login)
    driver = browser.driver
    driver.get(base + "/console/")
    browser.one("#sign-in")
    browser.shot("sign-in")
    browser.accessibility("sign-in")
    browser.sign_in(*admin_login)
    # Nothing to show yet, and leaving that screen still works.
    browser.click("#nav-people")
    browser.shown("people and settings without a store")
    browser.click("#nav-platform")
    browser.one("#open-store")
    browser.shot("empty-install")

    browser.click("#open-store")
    for name, value in (("name", "Console Café"), ("address", "1 Herzl St"), ("phone", "031234567"),
                        ("cuisine", "Breakfast"), ("commission_bp", "12.5"), ("minimum_order", "30")):
        browser.type(f"#store-form-{name}", value)
    browser.type("#store-form-vat-product", "17")
    browser.click("#save-store")
    # Four VAT rates left out: the server names one, beside its field.
    note = browser.one("#store-form .field-error")
    print(f"  a store with one VAT rate of five: {note.text!r} beside its field")
    for kind in ("repair", "device_sale", "accessory", "device_purchase"):
        browser.type(f"#store-form-vat-{kind}", "18")
    browser.click("#save-store")
    store = browser.wait("the store opened", lambda: next((store for store in call(
        base, "GET", "/v1/stores?limit=200", token=admin)["data"] if store["name"] == "Console Café"), None))
    if (store["commission_bp"], store["vat_rates"]["product"], store["minimum_order"], store["cuisine"]) != (
            1250, 1700, 3000, "Breakfast"):
        raise AssertionError(f"the store was opened as {store}")
    browser.wait("the store listed", lambda: any(cell.text == "Console Café" for cell in browser.css("#stores-list td")))
    browser.shot("first-store")
    browser.accessibility("platform, a store opened")
    print("  an admin opened a store with its settings from the console")

    # Its owner and a cashier, from the store's people.
    people = {}
    browser.click("#nav-people")
    browser.shown("the store's people")

    def make_user(button, role, email, staff_role=None, name=None):
        """A user made from the form; without `email`, a staff member's profile for the tills
        alone (neither address nor password, the hint shown)."""
        name = name or f"Console {role}"
        browser.click(button)
        browser.type("#user-form #field-name", name)
        browser.select("#user-form #field-role", role)
        if staff_role:
            browser.select("#user-form #field-staff_role", staff_role)
        if email:
            browser.type("#user-form #field-email", email)
            browser.type("#user-form #field-password", PASSWORD)
        elif not browser.one("#till-only-hint").is_displayed():
            raise AssertionError("the form does not say a staff member may have neither")
        browser.click("#save-user")
        browser.wait(f"the {role} made", lambda: not browser.css("#user-form"))
        user = call(base, "GET", f"/v1/users?role={role}&limit=200", token=admin)["data"]
        return next(user for user in user if user.get("email") == email and user["name"] == name)

    for role, staff_role in (("owner", None), ("staff", "cashier")):
        people[role] = f"{role}-{suffix}@console.test"
        made = make_user("#store-users-new", role, people[role], staff_role)
        if made.get("store_id") != store["id"] or made.get("staff_role", staff_role) != staff_role:
            raise AssertionError(f"the {role} was made as {made}")
    browser.wait("the owner and the cashier listed", lambda: len(browser.css("#store-users-list tbody tr")) == 2)
    # A barista with a name alone, for the tills: no address, so no password link to send.
    barista = make_user("#store-users-new", "staff", None, "barista", name="Console till barista")
    browser.wait("the barista listed", lambda: len(browser.css("#store-users-list tbody tr")) == 3)
    if browser.css(f"#reset-{barista['id']}") or not browser.css(f"#deactivate-{barista['id']}"):
        raise AssertionError("the till-only barista's row offers a password link, or no switch")
    browser.shot("people-made")
    print("  its owner, a cashier and a barista for the tills alone made from the store's people")

    # The platform's people: a courier and a supervisor; the supervisor turned off and on, made
    # support, and sent a link to choose a password.
    browser.click("#nav-platform")
    browser.one("#platform-users-new")
    people["courier"] = f"courier-{suffix}@console.test"
    make_user("#platform-users-new", "courier", people["courier"])
    people["support"] = f"support-{suffix}@console.test"
    helper = make_user("#platform-users-new", "supervisor", people["support"])
    browser.select("#platform-role", "supervisor")
    user = lambda: call(base, "GET", f"/v1/users/{helper['id']}", token=admin)
    browser.click(f"#deactivate-{helper['id']}")
    browser.wait("the supervisor turned off", lambda: user()["active"] is False)
    try:
        login(base, people["support"])
        raise RuntimeError("a deactivated user signed in")
    except AssertionError:
        pass
    browser.click(f"#reactivate-{helper['id']}")
    browser.wait("the supervisor turned on", lambda: user()["active"] is True)
    browser.click(f"#role-{helper['id']}")
    browser.select("#role-form #field-role", "support")
    browser.click("#save-role")
    browser.wait("the supervisor made support", lambda: user()["role"] == "support")
    browser.select("#platform-role", "support")
    browser.click(f"#reset-{helper['id']}")
    folder = os.environ.get("CONSOLE_MAIL_DIR")
    if folder:
        mailed_link(folder, people["support"], "reset-password")
        print("  a password link sent from the platform's people arrived")
    browser.shot("platform-people")
    print("  a courier and a supervisor made; the supervisor turned off, on, and made support")

    # The other roles, for the visit of every screen.
    for role in ("manager", "supervisor", "accountant", "social_media"):
        people[role] = f"{role}-{suffix}@console.test"
        call(base, "POST", "/v1/users", {"email": people[role], "password": PASSWORD, "name": f"Console {role}",
                                         "role": role, "store_id": store["id"] if role == "manager" else None}, admin)
    browser.sign_out()
    return store, people


def repair_workflow(browser, base, store, admin):
    """The store made a repair shop from its settings: an order made on the board is booked in,
    repaired, made ready and collected with its buttons, into the done column; then the store is
    made standard again from its settings. Starts and ends on the store's people and settings."""
    def set_workflow(workflow):
        form = browser.one("#settings-form")
        browser.select("#settings-form-workflow", workflow)
        browser.click("#save-settings")
        # Drawn again from the server's answer, which the console now looks at.
        browser.wait(f"the settings drawn again, {workflow}", lambda: browser.one("#settings-form") != form)
        browser.wait(f"the store's workflow {workflow}", lambda: call(
            base, "GET", f"/v1/stores/{store['id']}", token=admin)["workflow"] == workflow)

    set_workflow("repair")
    browser.click("#nav-board")
    browser.one("#column-booked_in")
    browser.click("#new-order")
    if browser.one("#new-order-form #field-workflow").get_attribute("value") != "repair":
        raise AssertionError("a new order of a repair shop is not a repair by default")
    browser.select("#new-order-form #field-fulfillment", "pickup")
    browser.type("#new-order-form #field-recipient_first_name", "Dana")
    browser.type("#new-order-form #field-phone", "050-2345678")
    browser.type("#new-order-form #field-notes", "Cracked screen")
    browser.click("#create-order")
    card = browser.one("#column-booked_in .card")
    order = call(base, "GET", f"/v1/orders/{card.get_attribute('id').removeprefix('order-')}", token=admin)
    if (order["workflow"], order["status"]) != ("repair", "booked_in"):
        raise AssertionError(f"the order made in a repair shop is {order['workflow']}, {order['status']}")
    print(f"  order #{order['number']} made on the board of a repair shop, booked in")
    browser.click(f"#order-{order['id']}")
    browser.one("dialog .timeline li")
    for action, column in (("start_repair", "in_repair"), ("mark_ready", "ready"), ("mark_collected", "done")):
        browser.click(f"#action-{action}")
        browser.one(f"#column-{column} #order-{order['id']}")
    browser.wait("the repair in the timeline", lambda: any(
        item.text.endswith("in repair") for item in browser.css("dialog .timeline li")))
    browser.shot("repair-order")
    browser.click("dialog .dialog-head button")
    if call(base, "GET", f"/v1/orders/{order['id']}", token=admin)["status"] != "collected":
        raise AssertionError("the repair was not collected")
    print("  repaired, made ready and collected from its buttons, into the done column")
    browser.click("#nav-people")
    set_workflow("standard")


def webhooks(browser, base, store, admin):
    """A webhook made in the store's people, its secret shown once, a test sent and received,
    its delivery listed, then deleted."""
    received = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            received.append((self.headers.get("Orderly-Event-Type"), self.headers.get("Orderly-Signature"), body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.click("#new-webhook")
        browser.type("#webhook-form #field-url", f"http://127.0.0.1:{server.server_address[1]}/hook")
        browser.click("#save-webhook")
        secret = browser.one("#webhook-secret").text
        if not secret.startswith("whsec_"):
            raise AssertionError(f"the webhook's secret shown is {secret!r}")
        browser.click("dialog .dialog-head button")
        hook = browser.wait("the webhook made", lambda: (call(
            base, "GET", f"/v1/stores/{store['id']}/webhooks", token=admin)["data"] or [None])[0])
        browser.click(f"#test-{hook['id']}")
        kind, signature, body = browser.wait("the test received", lambda: next(
            (delivery for delivery in received if delivery[0] == "webhook.test"), None))
        parts = dict(part.split("=", 1) for part in (signature or "").split(","))
        expected = hmac.new(secret.encode(), parts.get("t", "").encode() + b"." + body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(parts.get("v1", ""), expected):
            raise AssertionError(f"the test's signature {signature!r} is not the secret's")
        browser.click(f"#deliveries-{hook['id']}")
        browser.wait("the test's delivery listed", lambda: any(
            cell.text == "webhook.test" for cell in browser.css("#deliveries-list td")))
        browser.shot("webhook-deliveries")
        browser.accessibility("webhook deliveries")
        browser.click("dialog .dialog-head button")
        browser.click(f"#delete-{hook['id']}")
        browser.click("#confirm-delete")
        browser.wait("the webhook deleted", lambda: not call(
            base, "GET", f"/v1/stores/{store['id']}/webhooks", token=admin)["data"])
        print("  a webhook made, tested (its receiver got the signed test) and deleted from the console")
    finally:
        server.shutdown()


def every_screen(browser, people, admin_login):
    """Every role's every screen: drawn, no browser error, axe without a serious or critical
    violation; and for the admin, who is shown them all, every screen reached from every other."""
    browser.sign_out()
    accounts = [("admin", admin_login)] + [(role, (people[role], changed_passwords.get(people[role], PASSWORD))) for role in (
        "owner", "manager", "staff", "supervisor", "support", "accountant", "social_media")]
    for role, account in accounts:
        browser.sign_in(*account)
        screens = [link.get_attribute("id") for link in browser.css("#nav a")] + ["me-link"]
        for screen in screens:
            browser.click(f"#{screen}")
            browser.shown(f"{screen} for the {role}")
            if browser.css("#main > p.error"):
                raise AssertionError(f"{screen} for the {role}: {browser.one('#main > p.error').text}")
            browser.accessibility(f"{screen} for the {role}")
        if role == "admin":
            pairs = 0
            for first in screens:
                for second in screens:
                    if first == second:
                        continue
                    browser.click(f"#{first}")
                    browser.shown(first)
                    browser.click(f"#{second}")
                    browser.shown(f"{second} after {first}")
                    pairs += 1
            print(f"  the admin went from each screen to each other: {pairs} pairs")
        browser.sign_out()
    print(f"  every screen of {len(accounts)} roles drawn, checked by axe")


def verify_email(browser, email):
    """An applicant follows the link mailed to their address; answers whether it was tried."""
    folder = os.environ.get("CONSOLE_MAIL_DIR")
    if not folder:
        print("  (no mail server here: the applicant's address is not verified, nor the application approved)")
        return False
    browser.driver.get(mailed_link(folder, email, "verify-email"))
    notice = browser.one("#signin-notice")
    browser.shot("email-verified")
    print(f"  an applicant's address verified by the e-mail's link: {notice.text!r}")
    return True


def password_reset(browser, email):
    """A forgotten password, from the sign-in form to the e-mail's link and a sign-in with the new one."""
    folder = os.environ.get("CONSOLE_MAIL_DIR")
    if not folder:
        print("  (no mail server here: the password reset is not tried)")
        return
    browser.click("#forgot-password")
    browser.type("#field-email", email)
    browser.shot("forgot-password")
    browser.accessibility("forgotten password")
    browser.click("#send-reset")
    browser.one("#signin-notice")
    link = mailed_link(folder, email, "reset-password")
    browser.driver.get(link)
    browser.type("#field-password", "A-new-Password-678")
    browser.shot("reset-password")
    browser.accessibility("new password")
    browser.click("#set-password")
    browser.one("#signin-notice")
    changed_passwords[email] = "A-new-Password-678"
    browser.sign_in(email, changed_passwords[email])
    browser.sign_out()
    print("  a forgotten password reset from the sign-in form and the e-mail's link")


def card_sale(base, store, token, amount):
    """A card payment of `amount` at the store, rung up with `token` and completed by the suite's
    payment provider (`local`, its secret in ORDERLY_PAYMENT_PROVIDER_SECRETS), signed as providers
    sign: `t=<seconds>,v1=<HMAC-SHA256(secret, "<t>.<body>")>`."""
    payment = call(base, "POST", "/v1/payments", {
        "store_id": store["id"], "method": "card",
        "items": [{"name": "Catering", "unit_price": amount, "quantity": 1, "vat_rate_bp": 1700}]}, token)
    secret = dict(entry.split("=", 1) for entry in os.environ["ORDERLY_PAYMENT_PROVIDER_SECRETS"].split(","))["local"]
    report = {"id": str(uuid.uuid4()), "provider": "local", "payment_id": payment["id"], "type": "completed",
              "provider_ref": f"ch_{payment['id'][:8]}", "amount": payment["amount"], "currency": payment["currency"]}
    seconds = int(time.time())
    code = hmac.new(secret.encode(), f"{seconds}.{json.dumps(report)}".encode(), hashlib.sha256).hexdigest()
    call(base, "POST", "/v1/payments/provider-events", report, headers={"Orderly-Signature": f"t={seconds},v1={code}"})


def payout_sent_twice(browser, base, store, admin):
    """A payout whose answer is lost on the way (the page's `fetch` fails after the server has
    answered) and which is sent again with the same fields is recorded once: the console sends the
    submission's `Idempotency-Key` again."""
    card_sale(base, store, admin, 20000)
    balance = lambda: call(base, "GET", f"/v1/stores/{store['id']}/balance?limit=50", token=admin)
    browser.wait("the sale credited", lambda: balance()["balances"][0]["available"] >= 2000)
    browser.driver.execute_script("""
        const sent = window.fetch;
        let lost = false;
        window.fetch = async (url, options) => {
          const answer = await sent(url, options);
          if (!lost && String(url).endsWith("/payouts")) { lost = true; throw new TypeError("the answer was lost"); }
          return answer;
        };""")
    browser.type("#payout-form #field-amount", "10")
    browser.click("#record-payout")
    browser.one("#payout-form .error")
    browser.wait("the form ready again", lambda: browser.one("#record-payout").is_enabled())
    browser.click("#record-payout")
    browser.wait("the payout shown recorded", lambda: not browser.css("#payout-form .error")
                 and browser.one("#payout-form #field-amount").get_attribute("value") == "")
    payouts = [entry for entry in balance()["data"] if entry["kind"] == "payout"]
    if len(payouts) != 1:
        raise AssertionError(f"a payout sent again after its answer was lost was recorded {len(payouts)} times")
    print("  a payout sent again after its answer was lost: recorded once")


def main():
    ensure_tools()
    if sys.argv[1:2] == ["--against"]:
        return flow(sys.argv[2], os.environ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"], os.environ["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"])
    with tempfile.TemporaryDirectory() as work:
        mail, port, folder, authority = start_mail_server(work)
        try:
            return run_inside(__file__, ["--inside"], os.path.join(work, "data"),
                              ORDERLY_BOOTSTRAP_ADMIN_EMAIL="admin@console.test",
                              ORDERLY_BOOTSTRAP_ADMIN_PASSWORD="Console-Admin-Pass-1", ORDERLY_LEDGER_HOLD_HOURS="0",
                              ORDERLY_SMTP_URL=f"smtp://localhost:{port}", ORDERLY_SMTP_CA_FILE=authority,
                              ORDERLY_WEBHOOKS_ALLOWED_NETWORKS="127.0.0.0/8", ORDERLY_WEBHOOKS_PLAIN_HTTP="allowed",
                              CONSOLE_MAIL_DIR=folder, CONSOLE_WEBHOOKS_LOCAL="1")
        finally:
            mail.terminate()
            mail.wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["--inside"]:
        sys.exit(flow(f"http://127.0.0.1:{os.environ['ORDERLY_HTTP_PORT']}",
                      os.environ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"], os.environ["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"]))
    sys.exit(main())
