/// The notifications' texts in every language the service writes, by key. A text's `{0}`,
/// `{1}`, … are the notification's `args`; apps that render their own take the same keys and
/// arguments. A language without a text of the key falls back to English.
enum NotificationTexts {
    /// The languages written here; a user's locale is matched by its language (`ar-EG` → `ar`).
    static let languages = ["en", "he", "ar"]

    /// `text`'s rendering in `locale`'s language with `args` in place.
    static func render(_ key: String, _ args: [String], locale: String) -> String {
        let language = String(locale.prefix { $0 != "-" })
        let texts = catalogue[key] ?? [:]
        return fill(texts[language] ?? texts["en"] ?? key, with: args)
    }

    /// `template` with each `{i}` replaced by `args[i]` (one digit; a placeholder without its
    /// argument is kept as it is), in one pass: Foundation's replacing, once per argument, cost
    /// a tenth of the service's time per order.
    static func fill(_ template: String, with args: [String]) -> String {
        var text = ""
        var rest = template.utf8[...]
        while let open = rest.firstIndex(of: UInt8(ascii: "{")) {
            text += String(Substring(rest[..<open]))
            let digit = rest.index(after: open)
            if digit < rest.endIndex, case let index = Int(rest[digit]) - Int(UInt8(ascii: "0")),
                args.indices.contains(index), rest.index(after: digit) < rest.endIndex,
                rest[rest.index(after: digit)] == UInt8(ascii: "}")
            {
                text += args[index]
                rest = rest[rest.index(digit, offsetBy: 2)...]
            } else {
                text += "{"
                rest = rest[digit...]
            }
        }
        return text + String(Substring(rest))
    }

    static let catalogue: [String: [String: String]] = [
        // order.created, to the store: number; address, boxes.
        "order.created.title": ["en": "New order #{0}", "he": "הזמנה חדשה #{0}", "ar": "طلب جديد #{0}"],
        "order.created.delivery": [
            "en": "Delivery to {1}, {2} boxes", "he": "משלוח אל {1}, {2} ארגזים", "ar": "توصيل إلى {1}، {2} صناديق",
        ],
        "order.created.pickup": ["en": "Pickup", "he": "איסוף עצמי", "ar": "استلام من المتجر"],
        // order.created, to the couriers on duty: number; address without the apartment, boxes.
        "order.new_delivery.title": [
            "en": "New delivery #{0}", "he": "משלוח חדש #{0}", "ar": "توصيل جديد #{0}",
        ],
        "order.new_delivery.body": [
            "en": "{2} boxes to {1}; it can be claimed once the store accepts it",
            "he": "{2} ארגזים אל {1}; אפשר לקחת אותו כשהחנות תאשר",
            "ar": "{2} صناديق إلى {1}؛ يمكن حجزه بعد أن يقبله المتجر",
        ],
        // order.available: number; address without the apartment, boxes.
        "order.available.title": [
            "en": "Delivery #{0} can be claimed", "he": "אפשר לקחת את משלוח #{0}", "ar": "يمكن حجز التوصيل #{0}",
        ],
        "order.available.body": ["en": "{2} boxes to {1}", "he": "{2} ארגזים אל {1}", "ar": "{2} صناديق إلى {1}"],
        // order.claimed and order.released: number.
        "order.claimed.title": ["en": "Order #{0} claimed", "he": "הזמנה #{0} נלקחה", "ar": "تم حجز الطلب #{0}"],
        "order.claimed.body": [
            "en": "A courier is on the way to pick it up", "he": "שליח בדרך לאסוף אותה",
            "ar": "مندوب في طريقه لاستلامه",
        ],
        "order.released.title": [
            "en": "Order #{0} released", "he": "הזמנה #{0} שוחררה", "ar": "تم إلغاء حجز الطلب #{0}",
        ],
        "order.released.body": [
            "en": "It waits for another courier", "he": "היא ממתינה לשליח אחר", "ar": "ينتظر مندوبًا آخر",
        ],
        // order.status_changed: number; the cancellation's reason.
        "order.status.accepted": ["en": "Order #{0} accepted", "he": "הזמנה #{0} אושרה", "ar": "تم قبول الطلب #{0}"],
        "order.status.preparing": [
            "en": "Order #{0} is being prepared", "he": "הזמנה #{0} בהכנה", "ar": "الطلب #{0} قيد التحضير",
        ],
        "order.status.ready": ["en": "Order #{0} is ready", "he": "הזמנה #{0} מוכנה", "ar": "الطلب #{0} جاهز"],
        "order.status.collected": [
            "en": "Order #{0} collected", "he": "הזמנה #{0} נאספה", "ar": "تم استلام الطلب #{0}",
        ],
        "order.status.out_for_delivery": [
            "en": "Order #{0} is on its way", "he": "הזמנה #{0} בדרך", "ar": "الطلب #{0} في الطريق",
        ],
        "order.status.delivered": [
            "en": "Order #{0} delivered", "he": "הזמנה #{0} נמסרה", "ar": "تم توصيل الطلب #{0}",
        ],
        "order.status.cancelled": [
            "en": "Order #{0} cancelled", "he": "הזמנה #{0} בוטלה", "ar": "تم إلغاء الطلب #{0}",
        ],
        "order.status.pending": [
            "en": "Order #{0} is waiting", "he": "הזמנה #{0} ממתינה", "ar": "الطلب #{0} قيد الانتظار",
        ],
        "order.status.awaiting_parts": [
            "en": "Order #{0} is waiting for parts", "he": "הזמנה #{0} ממתינה לחלקים",
            "ar": "الطلب #{0} بانتظار قطع الغيار",
        ],
        "order.status.in_repair": [
            "en": "Order #{0} is being repaired", "he": "הזמנה #{0} בתיקון", "ar": "الطلب #{0} قيد الإصلاح",
        ],
        "order.status.despatched": [
            "en": "Order #{0} despatched", "he": "הזמנה #{0} נשלחה", "ar": "تم إرسال الطلب #{0}",
        ],
        "order.status.booked_in": [
            "en": "Order #{0} booked in", "he": "הזמנה #{0} התקבלה לתיקון", "ar": "تم استلام الطلب #{0} للإصلاح",
        ],
        "order.status.body": [
            "en": "Follow it in the app", "he": "אפשר לעקוב באפליקציה", "ar": "تابعه في التطبيق",
        ],
        "order.status.cancelled.body": ["en": "Reason: {1}", "he": "סיבה: {1}", "ar": "السبب: {1}"],
        // stock.low and stock.out: product name; how many are left to sell; how many orders and
        // sales not yet paid hold.
        "stock.low.title": ["en": "{0} is running low", "he": "{0} עומד להיגמר", "ar": "{0} على وشك النفاد"],
        "stock.low.body": [
            "en": "{1} left to sell, {2} held for orders and sales not yet paid",
            "he": "נשארו {1} למכירה, {2} שמורים להזמנות ולמכירות שטרם שולמו",
            "ar": "تبقى {1} للبيع، و{2} محجوزة لطلبات ومبيعات لم تُدفع بعد",
        ],
        "stock.out.title": ["en": "{0} is out of stock", "he": "{0} אזל מהמלאי", "ar": "نفد {0} من المخزون"],
        "stock.out.body": [
            "en": "Nothing left to sell; {2} held for orders and sales not yet paid",
            "he": "לא נשאר מה למכור; {2} שמורים להזמנות ולמכירות שטרם שולמו",
            "ar": "لم يتبق شيء للبيع؛ {2} محجوزة لطلبات ومبيعات لم تُدفع بعد",
        ],
        // payment.completed: the amount with its currency; the body by the method.
        "payment.completed.title": [
            "en": "Payment of {0} received", "he": "התקבל תשלום של {0}", "ar": "تم استلام دفعة بقيمة {0}",
        ],
        "payment.completed.cash": ["en": "Paid in cash", "he": "שולם במזומן", "ar": "دُفع نقدًا"],
        "payment.completed.card": ["en": "Paid by card", "he": "שולם בכרטיס", "ar": "دُفع بالبطاقة"],
        "payment.completed.nfc": ["en": "Paid contactless", "he": "שולם ללא מגע", "ar": "دُفع دون تلامس"],
        "payment.completed.wallet": ["en": "Paid by wallet", "he": "שולם בארנק דיגיטלי", "ar": "دُفع بالمحفظة"],
        "payment.completed.other": ["en": "Paid", "he": "שולם", "ar": "تم الدفع"],
        // payment.refunded: the amount refunded with its currency; the reason.
        "payment.refunded.title": [
            "en": "{0} refunded", "he": "הוחזרו {0}", "ar": "تم استرداد {0}",
        ],
        "payment.refunded.body": ["en": "Reason: {1}", "he": "סיבה: {1}", "ar": "السبب: {1}"],
        // application.approved, to the account it made.
        "application.approved.title": [
            "en": "Welcome to the platform", "he": "ברוכים הבאים לפלטפורמה", "ar": "مرحبًا بك في المنصة",
        ],
        "application.approved.store": [
            "en": "Your restaurant's application was approved; your store is open to set up",
            "he": "הבקשה של המסעדה שלך אושרה; החנות שלך מוכנה להגדרה",
            "ar": "تمت الموافقة على طلب مطعمك؛ متجرك جاهز للإعداد",
        ],
        "application.approved.courier": [
            "en": "Your application to deliver was approved; go on duty when you are ready",
            "he": "הבקשה שלך לשליחויות אושרה; עבור/י למשמרת כשתהיה/י מוכן/ה",
            "ar": "تمت الموافقة على طلبك للتوصيل؛ ابدأ المناوبة عندما تكون جاهزًا",
        ],
        // The stores' activity: a name; a customer's name and a card's uid as printed.
        "activity.name": ["en": "{0}", "he": "{0}", "ar": "{0}"],
        "activity.someone": ["en": "A staff member", "he": "איש צוות", "ar": "أحد الموظفين"],
        "activity.clock_in.title": ["en": "Clocked in", "he": "נכנס/ה למשמרת", "ar": "بدأ المناوبة"],
        "activity.clock_out.title": ["en": "Clocked out", "he": "יצא/ה מהמשמרת", "ar": "أنهى المناوبة"],
        "activity.product_created.title": ["en": "Product added", "he": "נוסף מוצר", "ar": "تمت إضافة منتج"],
        "activity.card_linked.title": ["en": "Card linked", "he": "כרטיס קושר", "ar": "تم ربط بطاقة"],
        "activity.card_linked.body": ["en": "{0} · {1}", "he": "{0} · {1}", "ar": "{0} · {1}"],
        // webhook.disabled: the endpoint's URL.
        "webhook.disabled.title": [
            "en": "A webhook was turned off", "he": "וובהוק כובה", "ar": "تم إيقاف خطاف ويب",
        ],
        "webhook.disabled.body": [
            "en": "Deliveries to {0} kept failing; turn it on again once it answers",
            "he": "המשלוחים אל {0} נכשלו שוב ושוב; הפעילו אותו מחדש כשהוא יענה",
            "ar": "فشلت عمليات التسليم إلى {0} مرارًا؛ أعد تشغيله عندما يستجيب",
        ],
    ]
}
