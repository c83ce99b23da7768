/// The words of errors in each language the suite answers in: a sentence for every code and
/// every reason, in English, Hebrew and Arabic. An error's `code`, `reason` and `details` keys
/// never change with the language; its `message` does (`ErrorTexts.message(of:in:)`), and so do
/// the reasons given beside fields (`FieldReasonTexts`).
public enum ErrorTexts {
    /// The languages errors are answered in; the first is the fallback.
    public static let languages = ["en", "he", "ar"]

    /// The message of `error` in `language`: in English the error's own, which says the most;
    /// in another language the sentence of its reason, else of its code.
    public static func message(of error: OrderlyError, in language: String) -> String {
        guard language != "en" else { return error.message }
        let texts = error.reason.flatMap { sentences[$0.rawValue] } ?? sentences[error.code.rawValue]
        return texts?[language] ?? error.message
    }

    /// `word` after the English article it takes, for messages naming a role or a kind:
    /// "an admin", "an expired payment", "a courier".
    public static func withArticle(_ word: String) -> String {
        (word.first.map { "aeio".contains($0) } ?? false ? "an " : "a ") + word
    }

    /// A sentence for each code and reason, by language.
    public static let sentences: [String: [String: String]] = [
        // The codes.
        "invalid_argument": [
            "en": "Some of what was sent is not valid.", "he": "חלק ממה שנשלח אינו תקין.",
            "ar": "بعض ما أُرسل غير صالح.",
        ],
        "unauthenticated": [
            "en": "Sign in first.", "he": "יש להתחבר קודם.", "ar": "سجّل الدخول أولًا.",
        ],
        "permission_denied": [
            "en": "You may not do this.", "he": "אין לך הרשאה לעשות זאת.", "ar": "لا يحق لك القيام بهذا.",
        ],
        "not_found": [
            "en": "It was not found.", "he": "הפריט לא נמצא.", "ar": "لم يُعثر عليه.",
        ],
        "conflict": [
            "en": "This conflicts with what is there already.", "he": "הבקשה מתנגשת במה שכבר קיים.",
            "ar": "يتعارض هذا مع ما هو موجود بالفعل.",
        ],
        "failed_precondition": [
            "en": "This cannot be done now.", "he": "אי אפשר לעשות זאת כרגע.", "ar": "لا يمكن القيام بهذا الآن.",
        ],
        "resource_exhausted": [
            "en": "Too many requests; try again later.", "he": "יותר מדי בקשות; נסו שוב מאוחר יותר.",
            "ar": "طلبات كثيرة جدًا؛ حاول مرة أخرى لاحقًا.",
        ],
        "deadline_exceeded": [
            "en": "The request took too long; try again.", "he": "הבקשה ארכה זמן רב מדי; נסו שוב.",
            "ar": "استغرق الطلب وقتًا طويلًا جدًا؛ حاول مرة أخرى.",
        ],
        "unavailable": [
            "en": "A service is unavailable for a moment; try again shortly.",
            "he": "שירות אינו זמין לרגע; נסו שוב בעוד רגע.",
            "ar": "إحدى الخدمات غير متاحة للحظة؛ حاول مرة أخرى بعد قليل.",
        ],
        "unimplemented": [
            "en": "This is not supported.", "he": "הפעולה אינה נתמכת.", "ar": "هذا غير مدعوم.",
        ],
        "internal": [
            "en": "Something went wrong on our side.", "he": "משהו השתבש אצלנו.", "ar": "حدث خطأ من جهتنا.",
        ],
        // The reasons.
        "payload_too_large": [
            "en": "The request is too large.", "he": "הבקשה גדולה מדי.", "ar": "الطلب كبير جدًا.",
        ],
        "bad_signature": [
            "en": "The report's signature is not valid.", "he": "החתימה של הדיווח אינה תקינה.",
            "ar": "توقيع التقرير غير صالح.",
        ],
        "invalid_credentials": [
            "en": "Wrong e-mail address or password.", "he": "כתובת דוא״ל או סיסמה שגויות.",
            "ar": "البريد الإلكتروني أو كلمة المرور غير صحيحة.",
        ],
        "invalid_token": [
            "en": "Your session has ended; sign in again.", "he": "החיבור שלך הסתיים; יש להתחבר שוב.",
            "ar": "انتهت جلستك؛ سجّل الدخول مرة أخرى.",
        ],
        "refresh_token_reused": [
            "en": "This sign-in was used twice and is now ended; sign in again.",
            "he": "החיבור הזה נוצל פעמיים ולכן הסתיים; יש להתחבר שוב.",
            "ar": "استُخدم تسجيل الدخول هذا مرتين فانتهى؛ سجّل الدخول مرة أخرى.",
        ],
        "stale_signature": [
            "en": "The report was signed too long ago.", "he": "הדיווח נחתם לפני זמן רב מדי.",
            "ar": "وُقّع التقرير منذ وقت طويل جدًا.",
        ],
        "unknown_provider": [
            "en": "No payment provider of this name is set up.", "he": "לא הוגדר ספק תשלומים בשם הזה.",
            "ar": "لا يوجد مزوّد دفع مُعدّ بهذا الاسم.",
        ],
        "application_pending": [
            "en": "Your application to join is waiting for a decision.", "he": "הבקשה שלך להצטרף ממתינה להחלטה.",
            "ar": "طلب انضمامك بانتظار القرار.",
        ],
        "application_rejected": [
            "en": "Your application to join was rejected.", "he": "הבקשה שלך להצטרף נדחתה.",
            "ar": "رُفض طلب انضمامك.",
        ],
        "already_claimed": [
            "en": "Another courier took this order first.", "he": "שליח אחר לקח את ההזמנה הזו קודם.",
            "ar": "أخذ مندوب آخر هذا الطلب أولًا.",
        ],
        "already_clocked_in": [
            "en": "You are clocked in already.", "he": "כבר נרשמת לתחילת משמרת.", "ar": "سجّلت بدء ورديتك بالفعل.",
        ],
        "already_exists": [
            "en": "It exists already.", "he": "הפריט כבר קיים.", "ar": "إنه موجود بالفعل.",
        ],
        "already_verified": [
            "en": "Your e-mail address is verified already.", "he": "כתובת הדוא״ל שלך כבר אומתה.",
            "ar": "تم التحقق من بريدك الإلكتروني بالفعل.",
        ],
        "email_taken": [
            "en": "An account uses this e-mail address already.", "he": "חשבון אחר כבר משתמש בכתובת הדוא״ל הזו.",
            "ar": "هناك حساب يستخدم هذا البريد الإلكتروني بالفعل.",
        ],
        "insufficient_stock": [
            "en": "Some products are not in stock in these quantities.", "he": "חלק מהמוצרים אינם במלאי בכמויות האלה.",
            "ar": "بعض المنتجات غير متوفرة بهذه الكميات.",
        ],
        "other_reference": [
            "en": "The report names another payment reference.", "he": "הדיווח מציין אסמכתת תשלום אחרת.",
            "ar": "يذكر التقرير مرجع دفع آخر.",
        ],
        "request_in_progress": [
            "en": "The same request is still running; try again in a moment.",
            "he": "אותה בקשה עדיין מתבצעת; נסו שוב בעוד רגע.", "ar": "الطلب نفسه ما زال قيد التنفيذ؛ حاول بعد لحظة.",
        ],
        "reservation_closed": [
            "en": "The reservation has ended already.", "he": "השמירה כבר הסתיימה.", "ar": "انتهى الحجز بالفعل.",
        ],
        "reservation_expired": [
            "en": "The reservation ran out of time.", "he": "זמן השמירה תם.", "ar": "انتهت مهلة الحجز.",
        ],
        "version_conflict": [
            "en": "It changed since you read it; reload and try again.",
            "he": "הנתונים השתנו מאז שנטענו; טענו מחדש ונסו שוב.",
            "ar": "تغيّر منذ أن قرأته؛ أعد التحميل وحاول مرة أخرى.",
        ],
        "amount_mismatch": [
            "en": "The report names another amount or currency.", "he": "הדיווח מציין סכום או מטבע אחרים.",
            "ar": "يذكر التقرير مبلغًا أو عملة أخرى.",
        ],
        "application_decided": [
            "en": "The application was decided already.", "he": "כבר התקבלה החלטה על הבקשה.",
            "ar": "تم البتّ في الطلب بالفعل.",
        ],
        "cash_outstanding": [
            "en": "You still hold cash collected for the platform; settle it first.",
            "he": "עדיין מוחזק אצלך מזומן שנגבה עבור הפלטפורמה; יש להסדיר אותו קודם.",
            "ar": "ما زال لديك نقد حصّلته للمنصة؛ سوِّه أولًا.",
        ],
        "orders_in_progress": [
            "en": "An order of yours is still on its way.", "he": "הזמנה שלך עדיין בדרך.",
            "ar": "ما زال أحد طلباتك في الطريق.",
        ],
        "email_unverified": [
            "en": "The e-mail address is not verified yet.", "he": "כתובת הדוא״ל עדיין לא אומתה.",
            "ar": "لم يتم التحقق من البريد الإلكتروني بعد.",
        ],
        "below_minimum": [
            "en": "The order is below the store's minimum.", "he": "ההזמנה נמוכה מהמינימום של החנות.",
            "ar": "الطلب أقل من الحد الأدنى للمتجر.",
        ],
        "outside_delivery_area": [
            "en": "The store does not deliver to this address.", "he": "החנות אינה מבצעת משלוחים לכתובת הזו.",
            "ar": "المتجر لا يوصل إلى هذا العنوان.",
        ],
        "card_blocked": [
            "en": "This card is not active.", "he": "הכרטיס הזה אינו פעיל.", "ar": "هذه البطاقة غير مفعّلة.",
        ],
        "cash_payment": [
            "en": "A cash payment is confirmed by the cashier.", "he": "תשלום במזומן מאושר על ידי הקופאי.",
            "ar": "يؤكد أمين الصندوق الدفع النقدي.",
        ],
        "cash_required": [
            "en": "Say how much cash was collected.", "he": "יש לציין כמה מזומן נגבה.",
            "ar": "اذكر مقدار النقد المحصّل.",
        ],
        "catalog_line": [
            "en": "A catalog product's line takes the product's price, name and VAT rate.",
            "he": "שורה של מוצר מהקטלוג מקבלת את המחיר, השם ושיעור המע״מ של המוצר.",
            "ar": "سطر منتج الكتالوج يأخذ سعر المنتج واسمه ونسبة ضريبته.",
        ],
        "currency_mismatch": [
            "en": "A product is priced in another currency.", "he": "מחיר של מוצר נקוב במטבע אחר.",
            "ar": "سعر أحد المنتجات بعملة أخرى.",
        ],
        "held_for_order": [
            "en": "The reservation holds stock for an order and ends with it.",
            "he": "השמירה מחזיקה מלאי עבור הזמנה ומסתיימת איתה.", "ar": "يحجز هذا الحجز مخزونًا لطلب وينتهي معه.",
        ],
        "held_for_payment": [
            "en": "The reservation holds stock for a payment and ends with it.",
            "he": "השמירה מחזיקה מלאי עבור תשלום ומסתיימת איתו.", "ar": "يحجز هذا الحجز مخزونًا لدفعة وينتهي معها.",
        ],
        "idempotency_key_reused": [
            "en": "This Idempotency-Key was used with another request.",
            "he": "מפתח ה-Idempotency-Key הזה כבר שימש לבקשה אחרת.",
            "ar": "استُخدم مفتاح Idempotency-Key هذا مع طلب آخر.",
        ],
        "illegal_transition": [
            "en": "The order's status does not allow this.", "he": "הסטטוס של ההזמנה אינו מאפשר זאת.",
            "ar": "حالة الطلب لا تسمح بهذا.",
        ],
        "insufficient_balance": [
            "en": "The balance does not hold that much.", "he": "אין ביתרה סכום כזה.",
            "ar": "الرصيد لا يكفي لهذا المبلغ.",
        ],
        "not_card_customer": [
            "en": "This card is another customer's.", "he": "הכרטיס הזה שייך ללקוח אחר.",
            "ar": "هذه البطاقة لعميل آخر.",
        ],
        "not_card_order": [
            "en": "A cash-on-delivery order is paid to the courier.", "he": "הזמנה במזומן במסירה משולמת לשליח.",
            "ar": "يُدفع طلب الدفع عند الاستلام للمندوب.",
        ],
        "not_clocked_in": [
            "en": "Clock in at the store first.", "he": "יש להירשם לתחילת משמרת בחנות קודם.",
            "ar": "سجّل بدء ورديتك في المتجر أولًا.",
        ],
        "off_duty": [
            "en": "Go on duty first.", "he": "יש לעלות למשמרת קודם.", "ar": "ابدأ مناوبتك أولًا.",
        ],
        "order_cancelled": [
            "en": "The order is cancelled.", "he": "ההזמנה בוטלה.", "ar": "الطلب ملغى.",
        ],
        "order_claimed": [
            "en": "A courier is carrying the order.", "he": "שליח כבר מוביל את ההזמנה.",
            "ar": "يحمل أحد المندوبين الطلب.",
        ],
        "order_locked": [
            "en": "The order's lines can no longer change.", "he": "כבר אי אפשר לשנות את שורות ההזמנה.",
            "ar": "لم يعد ممكنًا تغيير أسطر الطلب.",
        ],
        "order_paid": [
            "en": "The order is paid in full.", "he": "ההזמנה שולמה במלואה.", "ar": "الطلب مدفوع بالكامل.",
        ],
        "other_provider": [
            "en": "Another payment provider handles this payment.", "he": "ספק תשלומים אחר מטפל בתשלום הזה.",
            "ar": "يتولى مزوّد دفع آخر هذه الدفعة.",
        ],
        "payment_expired": [
            "en": "The time to pay ran out.", "he": "הזמן לתשלום תם.", "ar": "انتهت مهلة الدفع.",
        ],
        "payment_required": [
            "en": "The order waits for its payment.", "he": "ההזמנה ממתינה לתשלום.", "ar": "الطلب بانتظار الدفع.",
        ],
        "product_inactive": [
            "en": "The product is not for sale now.", "he": "המוצר אינו למכירה כרגע.",
            "ar": "المنتج غير معروض للبيع الآن.",
        ],
        "provider_payment": [
            "en": "A card payment is completed by its provider.", "he": "תשלום בכרטיס מושלם על ידי ספק התשלומים.",
            "ar": "يُكمل مزوّد الدفع الدفع بالبطاقة.",
        ],
        "push_disabled": [
            "en": "This service sends no push notifications.", "he": "השירות הזה אינו שולח התראות פוש.",
            "ar": "هذه الخدمة لا ترسل إشعارات فورية.",
        ],
        "refund_exceeds_payment": [
            "en": "That is more than is left of the payment to refund.", "he": "הסכום גבוה ממה שנותר להחזר מהתשלום.",
            "ar": "هذا أكثر مما تبقى من الدفعة لاسترداده.",
        ],
        "refund_not_allowed": [
            "en": "You may not refund that much.", "he": "אין לך הרשאה להחזיר סכום כזה.",
            "ar": "لا يحق لك استرداد هذا المبلغ.",
        ],
        "store_closed": [
            "en": "The store is not taking orders now.", "he": "החנות אינה מקבלת הזמנות כרגע.",
            "ar": "المتجر لا يستقبل الطلبات الآن.",
        ],
        "too_many_addresses": [
            "en": "You keep the most addresses you may.", "he": "שמרת את המספר המרבי של כתובות.",
            "ar": "لديك أقصى عدد مسموح من العناوين.",
        ],
        "too_many_claims": [
            "en": "You carry the most orders you may.", "he": "את/ה כבר מוביל/ה את המספר המרבי של הזמנות.",
            "ar": "تحمل أقصى عدد مسموح من الطلبات.",
        ],
        "too_many_items": [
            "en": "The order holds the most lines it may.", "he": "ההזמנה מכילה את המספר המרבי של שורות.",
            "ar": "يحتوي الطلب على أقصى عدد مسموح من الأسطر.",
        ],
        "too_many_releases": [
            "en": "You released the most orders a day allows.", "he": "שחררת היום את המספר המרבי של הזמנות.",
            "ar": "أعدت أقصى عدد مسموح من الطلبات اليوم.",
        ],
        "too_many_unpaid": [
            "en": "Pay your open card orders first.", "he": "יש לשלם קודם על הזמנות הכרטיס הפתוחות שלך.",
            "ar": "ادفع أولًا طلباتك المفتوحة بالبطاقة.",
        ],
        "too_many_webhooks": [
            "en": "The store has the most webhooks it may.", "he": "לחנות יש את המספר המרבי של webhooks.",
            "ar": "لدى المتجر أقصى عدد مسموح من webhooks.",
        ],
        "total_too_large": [
            "en": "The amount is above the most one payment takes.", "he": "הסכום גבוה מהמרבי שתשלום אחד מקבל.",
            "ar": "المبلغ أعلى من الحد الأقصى لدفعة واحدة.",
        ],
        "unknown_customer": [
            "en": "The store has no such customer.", "he": "לחנות אין לקוח כזה.", "ar": "لا يوجد لدى المتجر عميل كهذا.",
        ],
        "rate_limited": [
            "en": "Too many requests; try again in a little while.", "he": "יותר מדי בקשות; נסו שוב בעוד זמן קצר.",
            "ar": "طلبات كثيرة جدًا؛ حاول مرة أخرى بعد قليل.",
        ],
        "too_many_streams": [
            "en": "You have the most live connections open that you may.",
            "he": "פתוחים אצלך מספר החיבורים החיים המרבי.", "ar": "لديك أقصى عدد مسموح من الاتصالات المباشرة المفتوحة.",
        ],
        "too_many_long_polls": [
            "en": "You have the most waiting requests that you may.", "he": "יש לך את המספר המרבי של בקשות ממתינות.",
            "ar": "لديك أقصى عدد مسموح من الطلبات المنتظرة.",
        ],
        "draining": [
            "en": "This server is restarting; try again.", "he": "השרת הזה מופעל מחדש; נסו שוב.",
            "ar": "يُعاد تشغيل هذا الخادم؛ حاول مرة أخرى.",
        ],
    ]
}
