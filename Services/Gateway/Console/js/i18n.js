// The console's words in English, Hebrew and Arabic; the last two right to left. The language
// is the browser's until the user picks one (kept in localStorage) or saves one to their profile.

const RTL = new Set(["he", "ar"]);
const KEY = "orderly.language";

const en = {
  open_store: "Open a store", store_opened: "{0} is open", vat_rates: "VAT", vat_percent: "{0} VAT %", vat_product: "Products", vat_repair: "Repairs", vat_device_sale: "Devices sold", vat_accessory: "Accessories", vat_device_purchase: "Devices bought", image_address: "Picture (address)", tier: "Plan", tier_free: "Free", tier_starter: "Starter", tier_pro: "Pro", tier_enterprise: "Enterprise", dispatch: "Couriers see a delivery", dispatch_when_ready: "Once accepted", dispatch_on_create: "As soon as it is created", timezone: "Time zone", cuisine: "Cuisine", low_stock_default: "Low stock at (default)", commission_percent: "Commission %",
  new_user: "New user", staff_role: "Job", staff_role_cashier: "cashier", staff_role_barista: "barista", staff_role_server: "server", staff_role_kitchen: "kitchen", staff_role_other: "other", first_password: "First password (8 to 72 characters)", till_only_hint: "A staff member may have neither: they sign in on the store's tills with a PIN alone.", user_created: "{0} can sign in now", change_role: "Change role", role_change_ends_sessions: "A new role signs the user out everywhere.", role_changed: "{0} is now {1}", deactivate: "Turn off", reactivate: "Turn on", deactivated: "{0} can no longer sign in", reactivated: "{0} can sign in again", send_reset: "Send a password link", reset_sent: "A link to choose a password is on its way to {0}", platform_people: "The platform's people",
  new_webhook: "New webhook", send_test: "Send a test", test_sent: "A test event is on its way", delete: "Delete", deleted: "Deleted", delete_webhook: "Delete the webhook", delete_webhook_confirm: "Stop sending events to {0}?", webhook_secret: "The signing secret", webhook_secret_once: "Keep it now: it is shown only this once. Your receiver checks each delivery's signature with it.", older_orders: "Older orders",
  screen_till: "Till", screen_money: "Money", customers: "Customers", new_customer: "New customer", milestones: "Milestones", no_milestones: "None yet", milestone_first_card_linked_at: "First card linked", milestone_first_payment_at: "First payment", milestone_auto_sign_enabled_at: "Auto-sign turned on", auto_sign: "Wallet signs by itself", wallet_address: "Wallet address", cards: "NFC cards", card_uid: "Card UID", card_label: "Card name", register_card: "Register a card", card_registered: "Card {0} registered", card_for: "New card", no_customer: "No customer", look_up_tap: "Look up a tap", tapped_uid: "UID tapped", look_up: "Look up", card_will_not_pay: "This card will not pay until it is active.", card_active: "active", card_inactive: "inactive", card_blocked: "blocked", block: "Block", unblock: "Unblock", unlink: "Unlink", activity: "Activity", shift_summary: "Shift summary", shifts_count: "Shifts", hours_worked: "Hours worked", sales_count: "Sales", payouts_received: "Payouts received", no_payouts: "No payouts yet.", paid_out: "paid out", cash_paid_in: "cash paid in", commission: "Commission", entry_payment: "payment", entry_refund: "refund", entry_delivery: "delivery", entry_tip: "tip", entry_payout: "payout", entry_correction: "correction", account: "Account", payouts_recorded: "Payouts recorded", courier_id: "Courier's id", courier_accounts: "Couriers' accounts",
  add_row: "Add a row", remove: "Remove", option_groups: "Options", option_group: "Option group", option: "Option",
  price_delta: "Price added", min_select: "Pick at least", max_select: "Pick at most", remove_group: "Remove the group",
  add_option_group: "Add an option group", opening_hours: "Opening hours", day: "Day", opens: "Opens", closes: "Closes",
  up_to_boxes: "Up to boxes (empty: any)", multiplier: "Courier load", record_payout: "Record",
  payout_amount: "Payout (negative: cash handed in)", reference: "Reference", payout_recorded: "{0} recorded",
  forgot_password: "Forgot your password?", forgot_password_title: "Reset your password", forgot_password_hint: "We will e-mail a link to choose a new password; it works once, within 30 minutes.", send_reset_link: "Send the link", back_to_sign_in: "Back to sign-in", reset_link_sent: "If an account has this address, an e-mail with a link is on its way.", reset_password_title: "Choose a new password", new_password: "New password (8 to 72 characters)", set_password: "Set the password", password_set: "Your password is set and every other session ended. Sign in with it.", email_verified: "Your e-mail address is verified. Thank you.", verification_failed: "This link cannot verify the address: it was used, or it expired.",
  loading: "Loading…", sign_in: "Sign in", sign_in_title: "Sign in to the Orderly console", sign_out: "Sign out",
  email: "E-mail", password: "Password", language: "Language", store: "Store", close: "Close",
  not_for_role: "The console is for stores and the platform's staff; couriers and customers use their apps.",
  screen_board: "Orders", screen_menu: "Menu and stock", screen_takings: "Takings", screen_people: "People and settings",
  screen_platform: "Platform", screen_profile: "Profile",
  role_admin: "admin", role_owner: "owner", role_manager: "manager", role_staff: "staff", role_courier: "courier",
  role_customer: "customer", role_supervisor: "supervisor", role_support: "support", role_accountant: "accountant",
  role_social_media: "social media",
  search: "Search", fulfillment: "Fulfilment", any: "Any", delivery: "Delivery", pickup: "Pickup", apply: "Apply",
  new_order: "New order", orders_shown: "{0} orders", due: "due", order: "Order", lines: "Lines", item: "Item",
  quantity: "Qty", amount: "Amount", no_lines: "No lines.", items_total: "Items", delivery_fee: "Delivery fee", tip: "Tip",
  total: "Total", paid: "Paid", timeline: "Timeline", actions: "Actions", cancel_reason: "Reason to cancel",
  cash_collected: "Cash collected", done_action: "{0}: done", order_created: "Order #{0} created",
  first_name: "First name", last_name: "Last name", phone: "Phone", street: "Street", building: "Building",
  floor: "Floor", apartment: "Apartment", city: "City", boxes: "Boxes", customer: "Customer",
  delivery_notes: "Delivery notes", notes: "Notes", create: "Create",
  status_pending: "Pending", status_accepted: "Accepted", status_preparing: "Preparing", status_ready: "Ready",
  status_out_for_delivery: "Out for delivery", status_done: "Done", status_delivered: "Delivered",
  status_collected: "Collected", status_cancelled: "Cancelled",
  action_accept: "Accept", action_start_preparing: "Start preparing", action_mark_ready: "Mark ready",
  action_mark_collected: "Mark collected", action_cancel: "Cancel order", action_claim: "Claim", action_release: "Release",
  action_pick_up: "Pick up", action_deliver: "Deliver",
  change_created: "created", change_accept: "accepted", change_start_preparing: "preparing", change_mark_ready: "ready",
  change_mark_collected: "collected", change_cancel: "cancelled", change_claim: "claimed by a courier",
  change_release: "released by the courier", change_pick_up: "picked up", change_deliver: "delivered", change_edit: "edited",
  payment_pending: "pending", payment_confirmed: "confirmed", payment_processing: "processing", payment_completed: "completed",
  payment_failed: "failed", payment_cancelled: "cancelled", payment_expired: "expired",
  payment_partially_refunded: "partly refunded", payment_refunded: "refunded", payment_unpaid: "unpaid",
  awaiting_payment: "awaiting payment, its stock held until {0}",
  payment_partially_paid: "partly paid", payment_paid: "paid",
  no_store: "No store to show.", new_product: "New product", uncategorised: "Other", no_products: "No products yet.",
  product: "Product", price: "Price", stock: "Stock", stock_status: "Stock status", on_sale: "On sale", yes: "Yes", no: "No",
  not_sellable: "cannot be sold now", edit: "Edit", adjust_stock: "Adjust stock", ledger: "Ledger", save: "Save",
  name: "Name", category: "Category", sku: "SKU", barcode: "Barcode", emoji: "Emoji", description: "Description",
  track_stock: "Count stock", opening_stock: "Opening stock", low_stock_threshold: "Low-stock threshold",
  saved: "{0} saved", adjustment: "Adjustment", reason: "Reason", stock_now: "{0}: {1} in stock", when: "When",
  stock_not_tracked: "not counted", stock_in_stock: "in stock", stock_low: "low", stock_out_of_stock: "out of stock",
  reason_sale: "sale", reason_restock: "restock", reason_adjustment: "count", reason_return: "return",
  reason_damage: "damage", reason_expired: "expired", reason_transfer: "transfer", reason_initial: "opening stock",
  from: "From", to: "To", show: "Show", statistics: "Statistics", payments: "Payments", receipts: "Receipts",
  shifts: "Shifts", revenue: "Revenue", sales: "Sales", average_ticket: "Average ticket", tips: "Tips",
  refunds: "Refunds", revenue_per_day: "Revenue per day", revenue_by_method: "Revenue by method",
  revenue_by_staff: "Revenue by staff member", top_products: "Top products", refunded: "Refunded", method: "Method",
  status: "Status", refund: "Refund", number: "Number", kind: "Kind", print: "Print", receipt: "Receipt",
  receipt_sale: "sale", receipt_refund: "refund", staff_member: "Staff member", clocked_in: "Clocked in",
  clocked_out: "Clocked out", expected_cash: "Expected cash", counted_cash: "Counted cash", difference: "Difference",
  none_yet: "Nothing yet.", more: "More", shown_of: "{0} of {1} shown", refunded_amount: "{0} refunded",
  method_cash: "cash", method_card: "card", method_nfc: "NFC card", method_wallet: "wallet", method_other: "other",
  users: "Users", settings: "Settings", webhooks: "Webhooks", role: "Role", clock: "Clock", active: "Active",
  address: "Address", accepting_orders: "Accepting orders", auto_accept: "Accepts by itself",
  require_clock_in: "Clock-in required", minimum_order: "Minimum order", staff_refund_limit: "Staff refund limit",
  open_now: "Open now", delivery_tiers: "Delivery fees", events: "Events",
  deliveries: "Deliveries", attempts: "Attempts", answer: "Answer", redeliver: "Deliver again", redelivered: "Sent again",
  day_mon: "Mon", day_tue: "Tue", day_wed: "Wed", day_thu: "Thu", day_fri: "Fri", day_sat: "Sat", day_sun: "Sun",
  stores: "Stores", applications: "Applications", couriers: "Couriers", balance: "Balance",
  application_store: "store", application_courier: "courier", approve: "Approve", approved: "Approved", reject: "Reject",
  on_duty: "On duty", currency: "Currency", earned: "Earned",
  cash_held: "Cash held", pending: "Pending", available: "Available", entries: "Entries",
};

const he = {
  open_store: "פתיחת חנות", store_opened: "{0} נפתחה", vat_rates: "מע״מ", vat_percent: "מע״מ % על {0}", vat_product: "מוצרים", vat_repair: "תיקונים", vat_device_sale: "מכשירים שנמכרו", vat_accessory: "אביזרים", vat_device_purchase: "מכשירים שנקנו", image_address: "תמונה (כתובת)", tier: "מסלול", tier_free: "חינם", tier_starter: "בסיסי", tier_pro: "מקצועי", tier_enterprise: "ארגוני", dispatch: "השליחים רואים משלוח", dispatch_when_ready: "לאחר אישור", dispatch_on_create: "מיד עם יצירתו", timezone: "אזור זמן", cuisine: "מטבח", low_stock_default: "מלאי נמוך מ־ (ברירת מחדל)", commission_percent: "עמלה %",
  new_user: "משתמש חדש", staff_role: "תפקיד", staff_role_cashier: "קופאי", staff_role_barista: "בריסטה", staff_role_server: "מלצר", staff_role_kitchen: "מטבח", staff_role_other: "אחר", first_password: "סיסמה ראשונה (8 עד 72 תווים)", till_only_hint: "לעובד אפשר להשאיר את שניהם ריקים: הוא ייכנס לקופות החנות בקוד בלבד.", user_created: "{0} יכול להיכנס עכשיו", change_role: "שינוי הרשאה", role_change_ends_sessions: "הרשאה חדשה מנתקת את המשתמש בכל מקום.", role_changed: "{0} הוא עכשיו {1}", deactivate: "השבתה", reactivate: "הפעלה", deactivated: "{0} לא יכול עוד להיכנס", reactivated: "{0} יכול להיכנס שוב", send_reset: "שליחת קישור לסיסמה", reset_sent: "קישור לבחירת סיסמה נשלח אל {0}", platform_people: "אנשי הפלטפורמה",
  new_webhook: "Webhook חדש", send_test: "שליחת בדיקה", test_sent: "אירוע בדיקה בדרך", delete: "מחיקה", deleted: "נמחק", delete_webhook: "מחיקת ה־webhook", delete_webhook_confirm: "להפסיק לשלוח אירועים אל {0}?", webhook_secret: "סוד החתימה", webhook_secret_once: "שמרו אותו עכשיו: הוא מוצג רק פעם אחת. המקבל שלכם בודק בעזרתו את החתימה של כל משלוח.", older_orders: "הזמנות קודמות",
  screen_till: "קופה", screen_money: "כספים", customers: "לקוחות", new_customer: "לקוח חדש", milestones: "אבני דרך", no_milestones: "עדיין אין", milestone_first_card_linked_at: "כרטיס ראשון קושר", milestone_first_payment_at: "תשלום ראשון", milestone_auto_sign_enabled_at: "חתימה אוטומטית הופעלה", auto_sign: "הארנק חותם מעצמו", wallet_address: "כתובת ארנק", cards: "כרטיסי NFC", card_uid: "מזהה הכרטיס (UID)", card_label: "שם הכרטיס", register_card: "רישום כרטיס", card_registered: "הכרטיס {0} נרשם", card_for: "כרטיס חדש", no_customer: "ללא לקוח", look_up_tap: "בדיקת כרטיס שהוצמד", tapped_uid: "UID שנקרא", look_up: "בדיקה", card_will_not_pay: "כרטיס זה לא ישלם עד שיהיה פעיל.", card_active: "פעיל", card_inactive: "לא פעיל", card_blocked: "חסום", block: "חסימה", unblock: "ביטול חסימה", unlink: "ניתוק", activity: "פעילות", shift_summary: "סיכום משמרות", shifts_count: "משמרות", hours_worked: "שעות עבודה", sales_count: "מכירות", payouts_received: "תשלומים שהתקבלו", no_payouts: "עדיין אין תשלומים.", paid_out: "שולם", cash_paid_in: "מזומן שהופקד", commission: "עמלה", entry_payment: "תשלום", entry_refund: "החזר", entry_delivery: "משלוח", entry_tip: "טיפ", entry_payout: "העברה", entry_correction: "תיקון", account: "חשבון", payouts_recorded: "תשלומים שנרשמו", courier_id: "מזהה השליח", courier_accounts: "חשבונות השליחים",
  add_row: "הוספת שורה", remove: "הסרה", option_groups: "תוספות ואפשרויות", option_group: "קבוצת אפשרויות", option: "אפשרות",
  price_delta: "תוספת מחיר", min_select: "בחירה של לפחות", max_select: "בחירה של לכל היותר", remove_group: "הסרת הקבוצה",
  add_option_group: "הוספת קבוצת אפשרויות", opening_hours: "שעות פתיחה", day: "יום", opens: "פתיחה", closes: "סגירה",
  up_to_boxes: "עד ארגזים (ריק: ללא הגבלה)", multiplier: "עומס לשליח", record_payout: "רישום",
  payout_amount: "תשלום (שלילי: מזומן שהופקד)", reference: "אסמכתא", payout_recorded: "נרשמו {0}",
  forgot_password: "שכחת את הסיסמה?", forgot_password_title: "איפוס סיסמה", forgot_password_hint: "נשלח בדוא״ל קישור לבחירת סיסמה חדשה; הוא עובד פעם אחת, במשך 30 דקות.", send_reset_link: "שליחת הקישור", back_to_sign_in: "חזרה לכניסה", reset_link_sent: "אם יש חשבון עם הכתובת הזו, דוא״ל עם קישור בדרך.", reset_password_title: "בחירת סיסמה חדשה", new_password: "סיסמה חדשה (8 עד 72 תווים)", set_password: "שמירת הסיסמה", password_set: "הסיסמה נשמרה וכל שאר החיבורים הסתיימו. אפשר להיכנס איתה.", email_verified: "כתובת הדוא״ל שלך אומתה. תודה.", verification_failed: "הקישור הזה לא יכול לאמת את הכתובת: כבר השתמשו בו, או שפג תוקפו.",
  loading: "טוען…", sign_in: "כניסה", sign_in_title: "כניסה למסוף Orderly", sign_out: "יציאה",
  email: "דוא״ל", password: "סיסמה", language: "שפה", store: "חנות", close: "סגירה",
  not_for_role: "המסוף מיועד לחנויות ולצוות הפלטפורמה; שליחים ולקוחות משתמשים באפליקציות שלהם.",
  screen_board: "הזמנות", screen_menu: "תפריט ומלאי", screen_takings: "הכנסות", screen_people: "אנשים והגדרות",
  screen_platform: "פלטפורמה", screen_profile: "פרופיל",
  role_admin: "מנהל מערכת", role_owner: "בעלים", role_manager: "מנהל", role_staff: "עובד", role_courier: "שליח",
  role_customer: "לקוח", role_supervisor: "מפקח", role_support: "תמיכה", role_accountant: "חשבונאות",
  role_social_media: "מדיה חברתית",
  search: "חיפוש", fulfillment: "אופן מסירה", any: "הכול", delivery: "משלוח", pickup: "איסוף", apply: "החל",
  new_order: "הזמנה חדשה", orders_shown: "{0} הזמנות", due: "יעד", order: "הזמנה", lines: "שורות", item: "פריט",
  quantity: "כמות", amount: "סכום", no_lines: "אין שורות.", items_total: "פריטים", delivery_fee: "דמי משלוח", tip: "טיפ",
  total: "סה״כ", paid: "שולם", timeline: "ציר זמן", actions: "פעולות", cancel_reason: "סיבת ביטול",
  cash_collected: "מזומן שנגבה", done_action: "{0}: בוצע", order_created: "הזמנה #{0} נוצרה",
  first_name: "שם פרטי", last_name: "שם משפחה", phone: "טלפון", street: "רחוב", building: "בניין",
  floor: "קומה", apartment: "דירה", city: "עיר", boxes: "ארגזים", customer: "לקוח",
  delivery_notes: "הערות למשלוח", notes: "הערות", create: "יצירה",
  status_pending: "ממתינה", status_accepted: "התקבלה", status_preparing: "בהכנה", status_ready: "מוכנה",
  status_out_for_delivery: "במשלוח", status_done: "הושלמה", status_delivered: "נמסרה",
  status_collected: "נאספה", status_cancelled: "בוטלה",
  action_accept: "קבלה", action_start_preparing: "התחלת הכנה", action_mark_ready: "סימון כמוכנה",
  action_mark_collected: "סימון כנאספה", action_cancel: "ביטול הזמנה", action_claim: "לקיחה", action_release: "שחרור",
  action_pick_up: "איסוף", action_deliver: "מסירה",
  change_created: "נוצרה", change_accept: "התקבלה", change_start_preparing: "בהכנה", change_mark_ready: "מוכנה",
  change_mark_collected: "נאספה", change_cancel: "בוטלה", change_claim: "נלקחה על ידי שליח",
  change_release: "שוחררה על ידי השליח", change_pick_up: "נאספה לשליחות", change_deliver: "נמסרה", change_edit: "נערכה",
  payment_pending: "ממתין", payment_confirmed: "אושר", payment_processing: "בעיבוד", payment_completed: "הושלם",
  payment_failed: "נכשל", payment_cancelled: "בוטל", payment_expired: "פג תוקף",
  payment_partially_refunded: "הוחזר חלקית", payment_refunded: "הוחזר", payment_unpaid: "לא שולם",
  awaiting_payment: "ממתין לתשלום, המלאי שלו שמור עד {0}",
  payment_partially_paid: "שולם חלקית", payment_paid: "שולם",
  no_store: "אין חנות להצגה.", new_product: "מוצר חדש", uncategorised: "אחר", no_products: "אין מוצרים עדיין.",
  product: "מוצר", price: "מחיר", stock: "מלאי", stock_status: "מצב מלאי", on_sale: "במכירה", yes: "כן", no: "לא",
  not_sellable: "לא ניתן למכור כעת", edit: "עריכה", adjust_stock: "עדכון מלאי", ledger: "יומן מלאי", save: "שמירה",
  name: "שם", category: "קטגוריה", sku: "מק״ט", barcode: "ברקוד", emoji: "אימוג׳י", description: "תיאור",
  track_stock: "ספירת מלאי", opening_stock: "מלאי פתיחה", low_stock_threshold: "סף מלאי נמוך",
  saved: "{0} נשמר", adjustment: "שינוי", reason: "סיבה", stock_now: "{0}: {1} במלאי", when: "מתי",
  stock_not_tracked: "לא נספר", stock_in_stock: "במלאי", stock_low: "נמוך", stock_out_of_stock: "אזל",
  reason_sale: "מכירה", reason_restock: "חידוש מלאי", reason_adjustment: "ספירה", reason_return: "החזרה",
  reason_damage: "נזק", reason_expired: "פג תוקף", reason_transfer: "העברה", reason_initial: "מלאי פתיחה",
  from: "מ־", to: "עד", show: "הצגה", statistics: "סטטיסטיקה", payments: "תשלומים", receipts: "קבלות",
  shifts: "משמרות", revenue: "הכנסות", sales: "מכירות", average_ticket: "עסקה ממוצעת", tips: "טיפים",
  refunds: "החזרים", revenue_per_day: "הכנסות ליום", revenue_by_method: "הכנסות לפי אמצעי תשלום",
  revenue_by_staff: "הכנסות לפי עובד", top_products: "המוצרים המובילים", refunded: "הוחזר", method: "אמצעי",
  status: "מצב", refund: "החזר", number: "מספר", kind: "סוג", print: "הדפסה", receipt: "קבלה",
  receipt_sale: "מכירה", receipt_refund: "החזר", staff_member: "עובד", clocked_in: "במשמרת",
  clocked_out: "מחוץ למשמרת", expected_cash: "מזומן צפוי", counted_cash: "מזומן שנספר", difference: "הפרש",
  none_yet: "אין עדיין.", more: "עוד", shown_of: "מוצגים {0} מתוך {1}", refunded_amount: "הוחזרו {0}",
  method_cash: "מזומן", method_card: "כרטיס", method_nfc: "כרטיס NFC", method_wallet: "ארנק", method_other: "אחר",
  users: "משתמשים", settings: "הגדרות", webhooks: "Webhooks", role: "תפקיד", clock: "נוכחות", active: "פעיל",
  address: "כתובת", accepting_orders: "מקבלת הזמנות", auto_accept: "קבלה אוטומטית",
  require_clock_in: "חובת כניסה למשמרת", minimum_order: "הזמנת מינימום", staff_refund_limit: "תקרת החזר לעובד",
  open_now: "פתוחה עכשיו", delivery_tiers: "דמי משלוח", events: "אירועים",
  deliveries: "משלוחים", attempts: "ניסיונות", answer: "תשובה", redeliver: "שליחה חוזרת", redelivered: "נשלח שוב",
  day_mon: "ב׳", day_tue: "ג׳", day_wed: "ד׳", day_thu: "ה׳", day_fri: "ו׳", day_sat: "ש׳", day_sun: "א׳",
  stores: "חנויות", applications: "בקשות הצטרפות", couriers: "שליחים", balance: "יתרה",
  application_store: "חנות", application_courier: "שליח", approve: "אישור", approved: "אושר", reject: "דחייה",
  on_duty: "בתורנות", currency: "מטבע", earned: "נצבר",
  cash_held: "מזומן מוחזק", pending: "ממתין", available: "זמין", entries: "רישומים",
};

const ar = {
  open_store: "فتح متجر", store_opened: "تم فتح {0}", vat_rates: "ضريبة القيمة المضافة", vat_percent: "ضريبة % على {0}", vat_product: "المنتجات", vat_repair: "التصليحات", vat_device_sale: "الأجهزة المبيعة", vat_accessory: "الملحقات", vat_device_purchase: "الأجهزة المشتراة", image_address: "صورة (عنوان)", tier: "الباقة", tier_free: "مجانية", tier_starter: "أساسية", tier_pro: "احترافية", tier_enterprise: "مؤسسات", dispatch: "يرى المندوبون التوصيل", dispatch_when_ready: "بعد القبول", dispatch_on_create: "فور إنشائه", timezone: "المنطقة الزمنية", cuisine: "المطبخ", low_stock_default: "مخزون منخفض عند (افتراضي)", commission_percent: "العمولة %",
  new_user: "مستخدم جديد", staff_role: "الوظيفة", staff_role_cashier: "أمين صندوق", staff_role_barista: "باريستا", staff_role_server: "نادل", staff_role_kitchen: "مطبخ", staff_role_other: "أخرى", first_password: "كلمة المرور الأولى (من 8 إلى 72 حرفًا)", till_only_hint: "يمكن ترك الحقلين فارغين لموظف: يسجّل الدخول إلى صناديق المتجر برمز فقط.", user_created: "يمكن لـ {0} تسجيل الدخول الآن", change_role: "تغيير الدور", role_change_ends_sessions: "الدور الجديد يُخرج المستخدم من كل مكان.", role_changed: "{0} الآن {1}", deactivate: "إيقاف", reactivate: "تفعيل", deactivated: "لم يعد بإمكان {0} تسجيل الدخول", reactivated: "يمكن لـ {0} تسجيل الدخول مجددًا", send_reset: "إرسال رابط كلمة المرور", reset_sent: "رابط لاختيار كلمة مرور في طريقه إلى {0}", platform_people: "فريق المنصة",
  new_webhook: "Webhook جديد", send_test: "إرسال تجربة", test_sent: "حدث تجريبي في الطريق", delete: "حذف", deleted: "تم الحذف", delete_webhook: "حذف الـ webhook", delete_webhook_confirm: "هل نتوقف عن إرسال الأحداث إلى {0}؟", webhook_secret: "سر التوقيع", webhook_secret_once: "احتفظ به الآن: يُعرض هذه المرة فقط. يتحقق المستقبِل لديك من توقيع كل إرسال به.", older_orders: "طلبات أقدم",
  screen_till: "الصندوق", screen_money: "الأموال", customers: "الزبائن", new_customer: "زبون جديد", milestones: "المحطات", no_milestones: "لا شيء بعد", milestone_first_card_linked_at: "ربط أول بطاقة", milestone_first_payment_at: "أول دفعة", milestone_auto_sign_enabled_at: "تفعيل التوقيع التلقائي", auto_sign: "المحفظة توقّع تلقائيًا", wallet_address: "عنوان المحفظة", cards: "بطاقات NFC", card_uid: "معرّف البطاقة (UID)", card_label: "اسم البطاقة", register_card: "تسجيل بطاقة", card_registered: "سُجّلت البطاقة {0}", card_for: "بطاقة جديدة", no_customer: "بلا زبون", look_up_tap: "البحث عن بطاقة ممرَّرة", tapped_uid: "المعرّف المقروء", look_up: "بحث", card_will_not_pay: "لن تدفع هذه البطاقة حتى تصبح نشطة.", card_active: "نشطة", card_inactive: "غير نشطة", card_blocked: "محظورة", block: "حظر", unblock: "إلغاء الحظر", unlink: "فكّ الربط", activity: "النشاط", shift_summary: "ملخص المناوبات", shifts_count: "المناوبات", hours_worked: "ساعات العمل", sales_count: "المبيعات", payouts_received: "الدفعات المستلمة", no_payouts: "لا دفعات بعد.", paid_out: "مدفوع", cash_paid_in: "نقد مُسلَّم", commission: "العمولة", entry_payment: "دفعة", entry_refund: "استرداد", entry_delivery: "توصيل", entry_tip: "إكرامية", entry_payout: "تحويل", entry_correction: "تصحيح", account: "الحساب", payouts_recorded: "الدفعات المسجّلة", courier_id: "معرّف السائق", courier_accounts: "حسابات السائقين",
  add_row: "إضافة صف", remove: "إزالة", option_groups: "الخيارات", option_group: "مجموعة خيارات", option: "خيار",
  price_delta: "السعر الإضافي", min_select: "اختيار على الأقل", max_select: "اختيار على الأكثر", remove_group: "إزالة المجموعة",
  add_option_group: "إضافة مجموعة خيارات", opening_hours: "ساعات العمل", day: "اليوم", opens: "يفتح", closes: "يغلق",
  up_to_boxes: "حتى صناديق (فارغ: بلا حد)", multiplier: "حمل السائق", record_payout: "تسجيل",
  payout_amount: "دفعة (سالبة: نقد مُسلَّم)", reference: "المرجع", payout_recorded: "تم تسجيل {0}",
  forgot_password: "نسيت كلمة المرور؟", forgot_password_title: "إعادة تعيين كلمة المرور", forgot_password_hint: "سنرسل رابطًا بالبريد الإلكتروني لاختيار كلمة مرور جديدة؛ يعمل مرة واحدة خلال 30 دقيقة.", send_reset_link: "إرسال الرابط", back_to_sign_in: "العودة إلى تسجيل الدخول", reset_link_sent: "إذا كان هناك حساب بهذا العنوان، فالبريد الذي يحمل الرابط في طريقه إليك.", reset_password_title: "اختر كلمة مرور جديدة", new_password: "كلمة مرور جديدة (من 8 إلى 72 حرفًا)", set_password: "حفظ كلمة المرور", password_set: "حُفظت كلمة المرور وانتهت كل الجلسات الأخرى. سجّل الدخول بها.", email_verified: "تم التحقق من عنوان بريدك الإلكتروني. شكرًا لك.", verification_failed: "لا يمكن لهذا الرابط التحقق من العنوان: فقد استُخدم أو انتهت صلاحيته.",
  loading: "جارٍ التحميل…", sign_in: "تسجيل الدخول", sign_in_title: "تسجيل الدخول إلى لوحة Orderly", sign_out: "تسجيل الخروج",
  email: "البريد الإلكتروني", password: "كلمة المرور", language: "اللغة", store: "المتجر", close: "إغلاق",
  not_for_role: "اللوحة مخصصة للمتاجر ولطاقم المنصة؛ يستخدم السائقون والزبائن تطبيقاتهم.",
  screen_board: "الطلبات", screen_menu: "القائمة والمخزون", screen_takings: "الإيرادات", screen_people: "الأشخاص والإعدادات",
  screen_platform: "المنصة", screen_profile: "الملف الشخصي",
  role_admin: "مدير النظام", role_owner: "المالك", role_manager: "المدير", role_staff: "موظف", role_courier: "سائق توصيل",
  role_customer: "زبون", role_supervisor: "مشرف", role_support: "الدعم", role_accountant: "محاسب",
  role_social_media: "وسائل التواصل",
  search: "بحث", fulfillment: "طريقة التسليم", any: "الكل", delivery: "توصيل", pickup: "استلام", apply: "تطبيق",
  new_order: "طلب جديد", orders_shown: "{0} طلبات", due: "الموعد", order: "طلب", lines: "البنود", item: "البند",
  quantity: "الكمية", amount: "المبلغ", no_lines: "لا بنود.", items_total: "البنود", delivery_fee: "رسوم التوصيل", tip: "إكرامية",
  total: "المجموع", paid: "المدفوع", timeline: "الخط الزمني", actions: "الإجراءات", cancel_reason: "سبب الإلغاء",
  cash_collected: "النقد المحصّل", done_action: "{0}: تم", order_created: "تم إنشاء الطلب #{0}",
  first_name: "الاسم الأول", last_name: "اسم العائلة", phone: "الهاتف", street: "الشارع", building: "المبنى",
  floor: "الطابق", apartment: "الشقة", city: "المدينة", boxes: "الصناديق", customer: "الزبون",
  delivery_notes: "ملاحظات التوصيل", notes: "ملاحظات", create: "إنشاء",
  status_pending: "قيد الانتظار", status_accepted: "مقبول", status_preparing: "قيد التحضير", status_ready: "جاهز",
  status_out_for_delivery: "في الطريق", status_done: "مكتمل", status_delivered: "تم التوصيل",
  status_collected: "تم الاستلام", status_cancelled: "ملغى",
  action_accept: "قبول", action_start_preparing: "بدء التحضير", action_mark_ready: "تعليم كجاهز",
  action_mark_collected: "تعليم كمستلم", action_cancel: "إلغاء الطلب", action_claim: "أخذ الطلب", action_release: "ترك الطلب",
  action_pick_up: "استلام للتوصيل", action_deliver: "تسليم",
  change_created: "أُنشئ", change_accept: "قُبل", change_start_preparing: "قيد التحضير", change_mark_ready: "جاهز",
  change_mark_collected: "استُلم", change_cancel: "أُلغي", change_claim: "أخذه سائق",
  change_release: "تركه السائق", change_pick_up: "استُلم للتوصيل", change_deliver: "سُلّم", change_edit: "عُدّل",
  payment_pending: "قيد الانتظار", payment_confirmed: "مؤكد", payment_processing: "قيد المعالجة", payment_completed: "مكتمل",
  payment_failed: "فشل", payment_cancelled: "ملغى", payment_expired: "منتهي",
  payment_partially_refunded: "مسترد جزئيًا", payment_refunded: "مسترد", payment_unpaid: "غير مدفوع",
  awaiting_payment: "بانتظار الدفع، مخزونه محجوز حتى {0}",
  payment_partially_paid: "مدفوع جزئيًا", payment_paid: "مدفوع",
  no_store: "لا يوجد متجر لعرضه.", new_product: "منتج جديد", uncategorised: "أخرى", no_products: "لا منتجات بعد.",
  product: "المنتج", price: "السعر", stock: "المخزون", stock_status: "حالة المخزون", on_sale: "معروض للبيع", yes: "نعم", no: "لا",
  not_sellable: "لا يمكن بيعه الآن", edit: "تعديل", adjust_stock: "تعديل المخزون", ledger: "سجل المخزون", save: "حفظ",
  name: "الاسم", category: "الفئة", sku: "رمز المنتج", barcode: "الباركود", emoji: "رمز تعبيري", description: "الوصف",
  track_stock: "عدّ المخزون", opening_stock: "المخزون الافتتاحي", low_stock_threshold: "حد المخزون المنخفض",
  saved: "تم حفظ {0}", adjustment: "التعديل", reason: "السبب", stock_now: "{0}: {1} في المخزون", when: "متى",
  stock_not_tracked: "غير معدود", stock_in_stock: "متوفر", stock_low: "منخفض", stock_out_of_stock: "نفد",
  reason_sale: "بيع", reason_restock: "إعادة تخزين", reason_adjustment: "جرد", reason_return: "إرجاع",
  reason_damage: "تلف", reason_expired: "منتهي الصلاحية", reason_transfer: "نقل", reason_initial: "مخزون افتتاحي",
  from: "من", to: "إلى", show: "عرض", statistics: "الإحصاءات", payments: "المدفوعات", receipts: "الإيصالات",
  shifts: "المناوبات", revenue: "الإيرادات", sales: "المبيعات", average_ticket: "متوسط الفاتورة", tips: "الإكراميات",
  refunds: "المبالغ المستردة", revenue_per_day: "الإيرادات اليومية", revenue_by_method: "الإيرادات حسب طريقة الدفع",
  revenue_by_staff: "الإيرادات حسب الموظف", top_products: "المنتجات الأكثر مبيعًا", refunded: "المسترد", method: "الطريقة",
  status: "الحالة", refund: "استرداد", number: "الرقم", kind: "النوع", print: "طباعة", receipt: "إيصال",
  receipt_sale: "بيع", receipt_refund: "استرداد", staff_member: "الموظف", clocked_in: "في المناوبة",
  clocked_out: "خارج المناوبة", expected_cash: "النقد المتوقع", counted_cash: "النقد المعدود", difference: "الفرق",
  none_yet: "لا شيء بعد.", more: "المزيد", shown_of: "معروض {0} من {1}", refunded_amount: "تم استرداد {0}",
  method_cash: "نقدًا", method_card: "بطاقة", method_nfc: "بطاقة NFC", method_wallet: "محفظة", method_other: "أخرى",
  users: "المستخدمون", settings: "الإعدادات", webhooks: "Webhooks", role: "الدور", clock: "الحضور", active: "نشط",
  address: "العنوان", accepting_orders: "يستقبل الطلبات", auto_accept: "قبول تلقائي",
  require_clock_in: "تسجيل الحضور إلزامي", minimum_order: "الحد الأدنى للطلب", staff_refund_limit: "حد الاسترداد للموظف",
  open_now: "مفتوح الآن", delivery_tiers: "رسوم التوصيل", events: "الأحداث",
  deliveries: "عمليات الإرسال", attempts: "المحاولات", answer: "الرد", redeliver: "إعادة الإرسال", redelivered: "أُعيد الإرسال",
  day_mon: "الإثنين", day_tue: "الثلاثاء", day_wed: "الأربعاء", day_thu: "الخميس", day_fri: "الجمعة", day_sat: "السبت", day_sun: "الأحد",
  stores: "المتاجر", applications: "طلبات الانضمام", couriers: "السائقون", balance: "الرصيد",
  application_store: "متجر", application_courier: "سائق", approve: "موافقة", approved: "تمت الموافقة", reject: "رفض",
  on_duty: "في الخدمة", currency: "العملة", earned: "المكتسب",
  cash_held: "النقد المحتفظ به", pending: "معلّق", available: "المتاح", entries: "القيود",
};

const WORDS = { en, he, ar };

function chosen() {
  const stored = localStorage.getItem(KEY);
  if (stored && WORDS[stored]) return stored;
  const browser = (navigator.language || "en").slice(0, 2);
  return WORDS[browser] ? browser : "en";
}

let current = chosen();

export function language() { return current; }

/** The page's language and direction set to the chosen language. */
export function applyLanguage() {
  document.documentElement.lang = current;
  document.documentElement.dir = RTL.has(current) ? "rtl" : "ltr";
}

export function setLanguage(next) {
  if (!WORDS[next]) return;
  current = next;
  localStorage.setItem(KEY, next);
  applyLanguage();
}

/** The words for `key` with `{0}`, `{1}`… filled from `args`; English where a language lacks them, else the key's own words. */
export function t(key, args = []) {
  const text = WORDS[current][key] ?? en[key] ?? key.replace(/^[a-z]+_/, "").replaceAll("_", " ");
  return text.replace(/\{(\d)\}/g, (_, index) => String(args[Number(index)] ?? ""));
}

/** The keys each language lacks that English has (the browser test requires none). */
export function missingWords() {
  return Object.fromEntries(Object.entries(WORDS).map(([name, words]) => [name, Object.keys(en).filter((key) => !(key in words))]));
}
