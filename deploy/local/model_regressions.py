"""The model test's regression tests: each a sequence of steps the exploration once shrank to,
replayed through the same state machine, model and checks. A failing exploration prints its
sequence as a Python program (`state = MarketplaceMachine()`, then each step and each
`state.the_books_hold()`, the invariants, as Hypothesis ran them): paste it into a new function
here, named after the rule it broke, and add the function to `ALL`."""
from model_machine import MarketplaceMachine


def regression_sign_up_refuses_bidi_controls_in_names():
    """A customer's name with a right-to-left override is 400 naming `name`, not kept."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.sign_up_customer(email='fresh', name='bidi')
    state.the_books_hold()


def regression_checkout_refuses_bidi_controls_in_the_address():
    """A delivery address with a right-to-left override is 400 naming its street."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('pita', 3, 'large_tahini')], method='card',
                   text='bidi', tip=500)
    state.the_books_hold()


def regression_checkout_refuses_zero_width_characters_in_notes():
    """A customer's notes with a zero-width space are 400 naming `notes`."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='pickup', items=[('falafel', 1, 'small')], method='cash_on_delivery',
                   text='zero_width', tip=0)
    state.the_books_hold()


def regression_sign_up_keeps_emails_nfkc_case_folded():
    """An e-mail address in full-width capitals is kept NFKC-normalised and case-folded."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.sign_up_customer(email='fresh', name='plain')
    state.the_books_hold()


def regression_supervisor_approves_a_restaurant():
    """A supervisor approves a restaurant's application, which opens its store."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.apply_and_approve(kind='store', reviewer='supervisor')
    state.the_books_hold()


def regression_till_payment_for_an_order_includes_its_tip():
    """A payment rung up at the till for an order, without `tip`, carries the order's tip."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('falafel', 1, 'large')], method='card',
                   text='plain', tip=1200)
    state.the_books_hold()
    state.pay_order_at_till(cashier='staff_a', method='cash', part=False, pick=0, stray=False, tip='absent')
    state.the_books_hold()


def regression_cod_refund_at_till_keeps_courier_debt():
    """A cash-on-delivery payment refunded by a clocked-in manager comes out of the store's till: the
    courier still owes all the cash they collected."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, require_clock_in=True, staff_refund_limit=0)
    state.the_books_hold()
    state.clock(cash=5000, clock_in=True, who='manager')
    state.the_books_hold()
    state.checkout(customer=3, fulfillment='delivery', items=[('shawarma', 3, 'large')], method='cash_on_delivery',
                   text='plain', tip=500)
    state.the_books_hold()
    state.advance_order(courier='courier_b', hand='staff_b', pick=30, steps=8)
    state.the_books_hold()
    state.refunds_race(amounts=('rest', 'rest'), pick=12, refunder='manager')
    state.the_books_hold()


def regression_supervisor_changes_no_order_line():
    """A supervisor adding a line to a customer's order is refused (403): supervisors and the support
    desk change no order line, price, tip or cash amount."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('falafel', 1, 'large')], method='card', text='plain',
                   tip=0)
    state.the_books_hold()
    state.platform_staff_edit_order(editor='supervisor', pick=0)
    state.the_books_hold()


def regression_customer_shortage_names_products_without_counts():
    """A customer told a product is short of stock (409 insufficient_stock) learns which product, not
    how many are left or held."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.ring_up(cashier='staff_a', for_record=False, method='card', tip=0, typed=0, units=2)
    state.the_books_hold()
    state.ring_up(cashier='staff_a', for_record=False, method='card', tip=0, typed=0, units=2)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('falafel', 1, 'large')], method='card', text='plain',
                   tip=0)
    state.the_books_hold()


def regression_fourth_unpaid_card_order_is_refused():
    """A customer's fourth card order while three are unpaid is refused (422 too_many_unpaid)."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=True)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('falafel', 3, 'large')], method='card', text='plain',
                   tip=0)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('pita', 2, 'large')], method='card', text='plain', tip=0)
    state.the_books_hold()
    state.checkout(customer=2, fulfillment='delivery', items=[('shawarma', 1, 'large_tahini'), ('falafel', 1, 'large')],
                   method='card', text='plain', tip=1200)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='pickup', items=[('shawarma', 2, 'large')], method='card', text='plain',
                   tip=500)
    state.the_books_hold()


def regression_courier_reads_own_postings_only():
    """A courier reading their balance sees, in each entry, their own accounts' postings alone: no
    store's account, no platform commission, no commission figure."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=True)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('falafel', 1, 'large')], method='card', text='plain',
                   tip=0)
    state.the_books_hold()
    state.advance_order(courier='courier_b', hand='staff_a', pick=11, steps=8)
    state.the_books_hold()
    state.courier_reads_own_entries(courier='courier_b')
    state.the_books_hold()


def regression_courier_is_credited_only_tips_paid():
    """A card order's tip, promised at checkout but not paid (a card payment rung up at the till for
    the order with tip 0 paid it), is credited to nobody: its courier gets the fee alone."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('falafel', 1, 'large')], method='card', text='plain',
                   tip=500)
    state.the_books_hold()
    state.pay_order_at_till(cashier='staff_a', method='card', part=False, pick=0, stray=False, tip='zero')
    state.the_books_hold()
    state.advance_order(courier='courier_a', hand='staff_a', pick=0, steps=8)
    state.the_books_hold()


def regression_cash_collected_beside_a_pending_till_payment_is_booked():
    """A cash-on-delivery order delivered while a cash payment rung up for it at the till is still
    pending: the cash the courier collected (what was left to pay and the tip) is a completed cash
    payment they hold, as any cash collected on delivery, and the till's payment is cancelled."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('pita', 2, 'large_tahini')], method='cash_on_delivery',
                   text='plain', tip=500)
    state.the_books_hold()
    state.advance_order(courier='courier_b', hand='staff_b', pick=11, steps=4)
    state.the_books_hold()
    state.pay_order_at_till(cashier='owner', method='cash', part=False, pick=7, stray=False, tip='own')
    state.the_books_hold()
    state.advance_order(courier='courier_b', hand='owner', pick=7, steps=3)
    state.the_books_hold()


def regression_staff_over_their_refund_limit_cannot_cancel_a_paid_order():
    """A staff member who may refund nothing (staff_refund_limit 0) cannot cancel a customer's paid
    card order, which would refund it in full (422 refund_not_allowed)."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, require_clock_in=True, staff_refund_limit=0)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('pita', 1, 'large'), ('falafel', 1, 'large')],
                   method='card', text='plain', tip=0)
    state.the_books_hold()
    state.advance_order(courier='courier_a', hand='staff_a', pick=16, steps=1)
    state.the_books_hold()
    state.advance_order(courier='courier_a', hand='staff_a', pick=0, steps=1)
    state.the_books_hold()
    state.cancel_order(canceller='customer', paid=False, pick=0, stray='staff_b')
    state.the_books_hold()


def regression_supervisor_cancelling_a_paid_order_is_on_record():
    """A supervisor cancels a customer's paid card order: its refund is in the store's activity with
    who cancelled it and why."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=1, fulfillment='delivery', items=[('falafel', 1, 'large')], method='card', text='plain',
                   tip=0)
    state.the_books_hold()
    state.advance_order(courier='courier_a', hand='staff_a', pick=0, steps=1)
    state.the_books_hold()
    state.advance_order(courier='courier_a', hand='staff_a', pick=0, steps=1)
    state.the_books_hold()
    state.cancel_order(canceller='supervisor', paid=False, pick=0, stray=None)
    state.the_books_hold()


def regression_cancelling_an_order_on_its_way_is_an_illegal_transition():
    """A staff member who may refund nothing cancels a paid card order already delivered: 422
    `illegal_transition`, as for any order past cancelling, not `refund_not_allowed`."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, require_clock_in=False, staff_refund_limit=0)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('pita', 2, 'large'), ('falafel', 3, 'large')],
                   method='card', text='plain', tip=0)
    state.the_books_hold()
    state.advance_order(courier='courier_b', hand='staff_a', pick=0, steps=8)
    state.the_books_hold()
    state.cancel_order(canceller='customer', paid=False, pick=0, stray='staff_b')
    state.the_books_hold()


def regression_paying_again_after_a_refund_pays_the_tip_it_gave_back():
    """A paid card order with a tip is refunded in part and paid again: the new payment is what the
    refund gave back, the tip with it (a refund gives back the tip first), and the courier who
    delivers it is credited the tip once."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('falafel', 2, 'large')], method='card',
                   text='plain', tip=1200)
    state.the_books_hold()
    state.customer_pays(customer=0, pick=0, stray=False)
    state.the_books_hold()
    state.advance_order(courier='courier_a', hand='owner', pick=0, steps=2)
    state.the_books_hold()
    state.refund(pick=0, refunder='owner', amount='part', stray=False)
    state.the_books_hold()
    state.customer_pays(customer=0, pick=0, stray=False)
    state.the_books_hold()
    state.advance_order(courier='courier_a', hand='owner', pick=0, steps=8)
    state.the_books_hold()


def regression_leaving_waits_for_orders_and_cash():
    """Nobody leaves with an order on its way; a courier not while holding the cash they collected;
    a customer of no order here leaves, and the books do not move."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False)
    state.the_books_hold()
    state.checkout(customer=0, fulfillment='delivery', items=[('shawarma', 2, 'large')], method='cash_on_delivery',
                   text='plain', tip=0)
    state.the_books_hold()
    state.a_person_tries_to_leave(who='customer')
    state.the_books_hold()
    state.advance_order(courier='courier_a', hand='owner', pick=0, steps=8)
    state.the_books_hold()
    assert state.model.orders[0].status == 'delivered', state.model.orders[0].status
    assert state.model.books_of(state.actors['courier_a']).figures()['balance'] < 0
    state.a_person_tries_to_leave(who='courier_a')
    state.the_books_hold()
    state.a_person_tries_to_leave(who='owner')
    state.a_person_tries_to_leave(who='stranger')
    assert 'stranger' not in state.actors
    state.the_books_hold()


def regression_repair_is_booked_in_and_despatched_by_the_store():
    """A store whose own orders follow the repair workflow, and which dispatches its deliveries on
    creation: a delivery it enters is `booked_in`, never in the couriers' pool (a courier's claim
    is 404); its workflow cannot change (400), a part added holds its stock; it waits for parts,
    is repaired, readied and despatched by the store, which commits the part's stock, and then
    takes no edit (422 order_locked). A standard order it names is `ready` and in the pool."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False, dispatch='on_create',
                    workflow='repair')
    state.the_books_hold()
    state.store_creates_order(hand='staff_a', fulfillment='delivery', workflow=None)
    state.the_books_hold()
    state.store_creates_order(hand='owner', fulfillment='delivery', workflow='standard')
    state.the_books_hold()
    state.the_pool_holds()
    assert [o.status for o in state.model.orders] == ['booked_in', 'ready'], state.model.orders
    state.courier_acts(action='claim', pick=0, hand='courier_a', stray='courier_b', cash='none')
    state.the_books_hold()
    state.read_as(reader='owner', thing='order', pick=0)
    state.store_edits_order(pick=0, editor='staff_a', change='other_workflow', locked=False)
    state.the_books_hold()
    state.store_edits_order(pick=0, editor='owner', change='part', locked=False)
    state.the_books_hold()
    assert state.model.orders[0].lines == {'falafel': 1}, state.model.orders[0].lines
    state.advance_order(pick=0, hand='manager', courier='courier_a', steps=8, parts=True)
    state.the_books_hold()
    state.the_pool_holds()
    assert state.model.orders[0].status == 'despatched', state.model.orders[0].status
    state.store_edits_order(pick=0, editor='staff_b', change='notes', locked=True)
    state.the_books_hold()


def regression_repair_is_collected_or_cancelled_by_the_store():
    """Repairs a standard store's staff name, booked in whatever the store's dispatch: one to be
    delivered is repaired, readied and collected all the same; another is cancelled by the
    support desk while waiting for parts. A standard action on a repair is 422 with the actions
    open to the caller; neither takes an edit once done with (422 order_locked)."""
    state = MarketplaceMachine()
    state.set_terms(commission_bp=0, staff_refund_limit=0, require_clock_in=False, dispatch='on_create')
    state.the_books_hold()
    state.store_creates_order(hand='manager', fulfillment='delivery', workflow='repair')
    state.the_books_hold()
    state.store_creates_order(hand='staff_b', fulfillment='pickup', workflow='repair')
    state.the_books_hold()
    state.the_pool_holds()
    state.store_acts(action='start_preparing', pick=0, hand='staff_a', stray='admin')
    state.the_books_hold()
    state.store_acts(action='start_repair', pick=0, hand='staff_a', stray=None)
    state.the_books_hold()
    state.store_acts(action='mark_ready', pick=0, hand='owner', stray=None)
    state.the_books_hold()
    state.store_acts(action='mark_collected', pick=0, hand='staff_b', stray=None)
    state.the_books_hold()
    state.store_acts(action='await_parts', pick=0, hand='staff_a', stray=None)
    state.the_books_hold()
    assert [o.status for o in state.model.orders] == ['collected', 'awaiting_parts'], state.model.orders
    state.cancel_order(pick=0, canceller='support', paid=False, stray=None)
    state.the_books_hold()
    state.the_pool_holds()
    state.store_edits_order(pick=0, editor='manager', change='same_workflow', locked=True)
    state.the_books_hold()


ALL = [
    regression_sign_up_refuses_bidi_controls_in_names,
    regression_checkout_refuses_bidi_controls_in_the_address,
    regression_checkout_refuses_zero_width_characters_in_notes,
    regression_sign_up_keeps_emails_nfkc_case_folded,
    regression_supervisor_approves_a_restaurant,
    regression_till_payment_for_an_order_includes_its_tip,
    regression_cod_refund_at_till_keeps_courier_debt,
    regression_supervisor_changes_no_order_line,
    regression_customer_shortage_names_products_without_counts,
    regression_fourth_unpaid_card_order_is_refused,
    regression_courier_reads_own_postings_only,
    regression_courier_is_credited_only_tips_paid,
    regression_cash_collected_beside_a_pending_till_payment_is_booked,
    regression_staff_over_their_refund_limit_cannot_cancel_a_paid_order,
    regression_supervisor_cancelling_a_paid_order_is_on_record,
    regression_cancelling_an_order_on_its_way_is_an_illegal_transition,
    regression_paying_again_after_a_refund_pays_the_tip_it_gave_back,
    regression_leaving_waits_for_orders_and_cash,
    regression_repair_is_booked_in_and_despatched_by_the_store,
    regression_repair_is_collected_or_cancelled_by_the_store,
]
