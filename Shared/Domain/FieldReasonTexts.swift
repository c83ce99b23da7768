import Foundation

/// The reasons given beside fields (`details` of a 400, and of the refusals that name a field),
/// in Hebrew and Arabic: each English reason's template, `{0}`, `{1}`… standing for what it
/// quotes (a number, a list, a name), with its translations. A reason is translated by the most
/// specific template it matches; one that matches none is left in English, and the tests refuse
/// any such reason the suite gives (`ErrorLanguageTests`).
public enum FieldReasonTexts {
    /// Whether a template knows `reason`: whether it is one of ours, with its translations.
    public static func knows(_ reason: String) -> Bool { compiled.contains { $0.match(reason) != nil } }

    /// `reason` in `language`, or nil when no template matches it (or the language is English).
    public static func translate(_ reason: String, to language: String) -> String? {
        guard language != "en" else { return nil }
        for template in compiled {
            guard let values = template.match(reason) else { continue }
            guard var text = template.texts[language] else { return nil }
            for (index, value) in values.enumerated() {
                text = text.replacingOccurrences(of: "{\(index)}", with: value)
            }
            return text
        }
        return nil
    }

    /// One template, split at its placeholders.
    struct Template: Sendable {
        var literals: [String]
        var texts: [String: String]

        init(_ english: String, he: String, ar: String) {
            var literals: [String] = []
            var rest = Substring(english)
            while let open = rest.range(of: "{"), let close = rest[open.upperBound...].range(of: "}"),
                Int(rest[open.upperBound..<close.lowerBound]) != nil
            {
                literals.append(String(rest[..<open.lowerBound]))
                rest = rest[close.upperBound...]
            }
            literals.append(String(rest))
            self.literals = literals
            texts = ["he": he, "ar": ar]
        }

        var specificity: Int { literals.reduce(0) { $0 + $1.count } }

        /// The values standing for the placeholders when `reason` is this template's, else nil:
        /// each placeholder takes the shortest text that lets the rest match.
        func match(_ reason: String) -> [String]? {
            guard literals.count > 1 else { return reason == literals[0] ? [] : nil }
            guard reason.hasPrefix(literals[0]), reason.hasSuffix(literals[literals.count - 1]),
                reason.count >= literals[0].count + literals[literals.count - 1].count
            else { return nil }
            var rest = reason.dropFirst(literals[0].count).dropLast(literals[literals.count - 1].count)
            var values: [String] = []
            for literal in literals.dropFirst().dropLast() {
                guard let found = rest.range(of: literal), found.lowerBound > rest.startIndex else { return nil }
                values.append(String(rest[..<found.lowerBound]))
                rest = rest[found.upperBound...]
            }
            guard !rest.isEmpty else { return nil }
            values.append(String(rest))
            return values
        }
    }

    /// The templates, the most specific first.
    static let compiled: [Template] = templates.sorted { $0.specificity > $1.specificity }

    static let templates: [Template] = [
        Template("is required", he: "שדה חובה", ar: "حقل مطلوب"),
        Template("must not be empty", he: "אסור שיהיה ריק", ar: "يجب ألا يكون فارغًا"),
        Template("must be at most {0} characters", he: "עד {0} תווים", ar: "يجب ألا يتجاوز {0} حرفًا"),
        Template("must be from {0} to {1}", he: "חייב להיות בין {0} ל-{1}", ar: "يجب أن يكون من {0} إلى {1}"),
        Template(
            "must be an integer from {0} to {1}", he: "חייב להיות מספר שלם בין {0} ל-{1}",
            ar: "يجب أن يكون عددًا صحيحًا من {0} إلى {1}"),
        Template(
            "must be from -{0} to {1}, and not 0", he: "חייב להיות בין ‎-{0} ל-{1}, ולא 0",
            ar: "يجب أن يكون من ‎-{0} إلى {1}، وألا يكون 0"),
        Template("must be 0 or more", he: "חייב להיות 0 או יותר", ar: "يجب أن يكون 0 أو أكثر"),
        Template("must be 1 or more", he: "חייב להיות 1 או יותר", ar: "يجب أن يكون 1 أو أكثر"),
        Template("must not be 0", he: "אסור שיהיה 0", ar: "يجب ألا يكون 0"),
        Template("must be greater than {0}", he: "חייב להיות גדול מ-{0}", ar: "يجب أن يكون أكبر من {0}"),
        Template("must be true or false", he: "חייב להיות true או false", ar: "يجب أن يكون true أو false"),
        Template("must be a UUID", he: "חייב להיות UUID", ar: "يجب أن يكون UUID"),
        Template("must be one of {0}", he: "חייב להיות אחד מאלה: {0}", ar: "يجب أن يكون أحد هذه: {0}"),
        Template(
            "must be one or more of {0}", he: "חייב להיות אחד או יותר מאלה: {0}",
            ar: "يجب أن يكون واحدًا أو أكثر من هذه: {0}"),
        Template("must be a single role", he: "חייב להיות תפקיד אחד", ar: "يجب أن يكون دورًا واحدًا"),
        Template("must be a single status", he: "חייב להיות סטטוס אחד", ar: "يجب أن يكون حالة واحدة"),
        Template("must be an e-mail address", he: "חייבת להיות כתובת דוא״ל", ar: "يجب أن يكون بريدًا إلكترونيًا"),
        Template(
            "must be a phone number: digits, spaces, and + ( ) - only",
            he: "חייב להיות מספר טלפון: ספרות, רווחים ו-+ ( ) - בלבד",
            ar: "يجب أن يكون رقم هاتف: أرقام ومسافات و+ ( ) - فقط"),
        Template(
            "must be a BCP 47 language tag such as en, he or ar-EG",
            he: "חייב להיות תג שפה לפי BCP 47, כמו en,‏ he או ar-EG",
            ar: "يجب أن يكون وسم لغة وفق BCP 47 مثل en أو he أو ar-EG"),
        Template(
            "must be an http or https address", he: "חייבת להיות כתובת http או https",
            ar: "يجب أن يكون عنوان http أو https"),
        Template(
            "must not contain control characters", he: "אסור שיכיל תווי בקרה", ar: "يجب ألا يحتوي على محارف تحكم"),
        Template(
            "must not contain bidirectional controls or zero-width characters",
            he: "אסור שיכיל תווי כיווניות או תווים ברוחב אפס",
            ar: "يجب ألا يحتوي على محارف تحكم بالاتجاه أو محارف بعرض صفري"),
        Template(
            "appears in another line; give each product once", he: "מופיע בשורה אחרת; יש לציין כל מוצר פעם אחת",
            ar: "يظهر في سطر آخر؛ اذكر كل منتج مرة واحدة"),
        Template(
            "are worth {0} at the prices paid, more than the {1} refunded",
            he: "שווים {0} במחירים ששולמו, יותר מה-{1} שהוחזרו",
            ar: "قيمتها {0} بالأسعار المدفوعة، أكثر من {1} المستردة"),
        Template("cannot be changed", he: "אי אפשר לשנות", ar: "لا يمكن تغييره"),
        Template("cannot change", he: "אי אפשר לשנות", ar: "لا يمكن تغييره"),
        Template("cannot be combined with {0}", he: "אי אפשר לשלב עם {0}", ar: "لا يمكن جمعه مع {0}"),
        Template(
            "cannot be given with adjustment", he: "אי אפשר לתת יחד עם adjustment", ar: "لا يمكن إعطاؤه مع adjustment"),
        Template(
            "cannot be sent with customer_id", he: "אי אפשר לשלוח יחד עם customer_id",
            ar: "لا يمكن إرساله مع customer_id"),
        Template("cannot be sent with user_id", he: "אי אפשר לשלוח יחד עם user_id", ar: "لا يمكن إرساله مع user_id"),
        Template("must be 4 to 6 digits", he: "חייב להיות 4 עד 6 ספרות", ar: "يجب أن يكون من 4 إلى 6 أرقام"),
        Template(
            "is required without email, phone, wallet_address or user_id",
            he: "שדה חובה כשאין email, phone, wallet_address או user_id",
            ar: "حقل مطلوب عند غياب email وphone وwallet_address وuser_id"),
        Template(
            "cannot move between store and platform roles", he: "אי אפשר לעבור בין תפקידי חנות לתפקידי פלטפורמה",
            ar: "لا يمكن الانتقال بين أدوار المتجر وأدوار المنصة"),
        Template(
            "give address_id or address, not both", he: "יש לתת address_id או address, לא את שניהם",
            ar: "أعطِ address_id أو address، لا كليهما"),
        Template("give up_to_seq or ids", he: "יש לתת up_to_seq או ids", ar: "أعطِ up_to_seq أو ids"),
        Template(
            "give up_to_seq or ids, not both", he: "יש לתת up_to_seq או ids, לא את שניהם",
            ar: "أعطِ up_to_seq أو ids، لا كليهما"),
        Template(
            "has no price in this store's delivery tiers", he: "אין לו מחיר במדרגות המשלוח של החנות",
            ar: "ليس له سعر في شرائح التوصيل لهذا المتجر"),
        Template(
            "initial is recorded when the product is created", he: "initial נרשם כשהמוצר נוצר",
            ar: "تُسجَّل initial عند إنشاء المنتج"),
        Template("is a courier's", he: "שייך לשליח", ar: "يخص مندوبًا"),
        Template("is a restaurant's", he: "שייך למסעדה", ar: "يخص مطعمًا"),
        Template(
            "is changed by stock adjustments, not by editing the product",
            he: "משתנה בעדכוני מלאי, לא בעריכת המוצר", ar: "يتغير بتعديلات المخزون، لا بتحرير المنتج"),
        Template("is counted at clock-out", he: "נספר בסיום המשמרת", ar: "يُعدّ عند إنهاء الوردية"),
        Template("is for changing a card", he: "מיועד לשינוי כרטיס", ar: "مخصص لتغيير بطاقة"),
        Template("is for changing a customer", he: "מיועד לשינוי לקוח", ar: "مخصص لتغيير عميل"),
        Template("is for nfc payments only", he: "מיועד לתשלומי nfc בלבד", ar: "مخصص لمدفوعات nfc فقط"),
        Template("is for the courier of a delivery", he: "מיועד לשליח של משלוח", ar: "مخصص لمندوب التوصيل"),
        Template("is given at clock-in", he: "ניתן בתחילת המשמרת", ar: "يُعطى عند بدء الوردية"),
        Template(
            "is not a cursor this list returned", he: "אינו סמן שהרשימה הזו החזירה",
            ar: "ليس مؤشرًا أعادته هذه القائمة"),
        Template("is not a customer's account", he: "אינו חשבון של לקוח", ar: "ليس حساب عميل"),
        Template("is not a product of the store", he: "אינו מוצר של החנות", ar: "ليس منتجًا لهذا المتجر"),
        Template("is not an order of the store", he: "אינה הזמנה של החנות", ar: "ليس طلبًا لهذا المتجر"),
        Template("is not one of your addresses", he: "אינה אחת מהכתובות שלך", ar: "ليس أحد عناوينك"),
        Template("is not one of your orders", he: "אינה אחת מההזמנות שלך", ar: "ليس أحد طلباتك"),
        Template("is not valid JSON", he: "אינו JSON תקין", ar: "ليس JSON صالحًا"),
        Template("is not your current password", he: "אינה הסיסמה הנוכחית שלך", ar: "ليست كلمة مرورك الحالية"),
        Template("is not your password", he: "אינה הסיסמה שלך", ar: "ليست كلمة مرورك"),
        Template("is not verified", he: "לא אומתה", ar: "لم يتم التحقق منه"),
        Template("is taken", he: "תפוס", ar: "مستخدم بالفعل"),
        Template("is only for a delivery", he: "מיועד למשלוח בלבד", ar: "مخصص للتوصيل فقط"),
        Template(
            "is only for an unpaid cash-on-delivery order", he: "מיועד רק להזמנה במזומן במסירה שלא שולמה",
            ar: "مخصص فقط لطلب دفع عند الاستلام غير مدفوع"),
        Template("is only for deliver", he: "מיועד רק לפעולה deliver", ar: "مخصص للإجراء deliver فقط"),
        Template(
            "is product for a catalog product", he: "הוא product עבור מוצר מהקטלוג", ar: "هو product لمنتج الكتالوج"),
        Template(
            "is required for a delivery: give address_id or address",
            he: "נדרש למשלוח: יש לתת address_id או address", ar: "مطلوب للتوصيل: أعطِ address_id أو address"),
        Template("is required for a store's application", he: "נדרש לבקשה של חנות", ar: "مطلوب لطلب متجر"),
        Template("is required for admins", he: "נדרש עבור מנהלי מערכת", ar: "مطلوب للمشرفين"),
        Template(
            "is required for an nfc payment: the card tapped", he: "נדרש לתשלום nfc: הכרטיס שהוצמד",
            ar: "مطلوب لدفع nfc: البطاقة التي لُمست"),
        Template("is required for the role {0}", he: "נדרש עבור התפקיד {0}", ar: "مطلوب للدور {0}"),
        Template("is required on a completed report", he: "נדרש בדיווח על השלמה", ar: "مطلوب في تقرير الإتمام"),
        Template(
            "is required to change your own password", he: "נדרש כדי לשנות את הסיסמה שלך",
            ar: "مطلوب لتغيير كلمة مرورك"),
        Template("is required: store or courier", he: "שדה חובה: store או courier", ar: "مطلوب: store أو courier"),
        Template(
            "is required: your profile has no phone", he: "שדה חובה: בפרופיל שלך אין טלפון",
            ar: "مطلوب: لا يوجد هاتف في ملفك"),
        Template(
            "is required on every tier but the last", he: "נדרש בכל מדרגה מלבד האחרונה",
            ar: "مطلوب في كل شريحة عدا الأخيرة"),
        Template(
            "is set by the orders service for its orders' lines", he: "נקבע על ידי שירות ההזמנות לשורות ההזמנות שלו",
            ar: "تحدده خدمة الطلبات لأسطر طلباتها"),
        Template(
            "is set by the payments service for its payments", he: "נקבע על ידי שירות התשלומים לתשלומים שלו",
            ar: "تحدده خدمة المدفوعات لمدفوعاتها"),
        Template(
            "is the card's and cannot be changed", he: "שייך לכרטיס ואי אפשר לשנות אותו",
            ar: "يخص البطاقة ولا يمكن تغييره"),
        Template(
            "is the items' total; send it only with order_id", he: "הוא סכום הפריטים; יש לשלוח אותו רק עם order_id",
            ar: "هو مجموع الأصناف؛ أرسله مع order_id فقط"),
        Template(
            "is the order's: a customer pays what is left of it", he: "שייך להזמנה: הלקוח משלם את מה שנותר ממנה",
            ar: "يخص الطلب: يدفع العميل ما تبقى منه"),
        Template("is the product's VAT rate", he: "הוא שיעור המע״מ של המוצר", ar: "هو نسبة ضريبة المنتج"),
        Template("is the product's name", he: "הוא שם המוצר", ar: "هو اسم المنتج"),
        Template("is the product's price", he: "הוא מחיר המוצר", ar: "هو سعر المنتج"),
        Template(
            "is unknown, used or expired", he: "אינו מוכר, כבר נוצל או שפג תוקפו",
            ar: "غير معروف أو مستخدم أو منتهي الصلاحية"),
        Template("is another group's too", he: "שייך גם לקבוצה אחרת", ar: "يخص مجموعة أخرى أيضًا"),
        Template("is another option's too", he: "שייך גם לאפשרות אחרת", ar: "يخص خيارًا آخر أيضًا"),
        Template(
            "is not a stock-tracked item of the payment", he: "אינו פריט של התשלום שהמלאי שלו נספר",
            ar: "ليس صنفًا من الدفعة يُتتبّع مخزونه"),
        Template(
            "make another address the default instead", he: "יש להגדיר כתובת אחרת כברירת המחדל במקומה",
            ar: "اجعل عنوانًا آخر هو الافتراضي بدلًا منه"),
        Template("may only name yourself", he: "מותר לציין רק את עצמך", ar: "لا يجوز أن تذكر إلا نفسك"),
        Template(
            "must be 0 or a next_cursor this feed returned", he: "חייב להיות 0 או next_cursor שהפיד הזה החזיר",
            ar: "يجب أن يكون 0 أو next_cursor أعادته هذه التغذية"),
        Template(
            "must be 1 to 255 visible ASCII characters", he: "חייב להיות 1 עד 255 תווי ASCII נראים",
            ar: "يجب أن يكون من 1 إلى 255 محرف ASCII مرئيًا"),
        Template(
            "is for apps' devices; a browser gives endpoint and keys",
            he: "שייך למכשירים של אפליקציות; דפדפן שולח endpoint ו-keys",
            ar: "خاص بأجهزة التطبيقات؛ المتصفح يرسل endpoint وkeys"),
        Template(
            "is for web devices; an app gives token and bundle_id",
            he: "שייך למכשירי web; אפליקציה שולחת token ו-bundle_id",
            ar: "خاص بأجهزة web؛ التطبيق يرسل token وbundle_id"),
        Template("is for ios devices", he: "שייך למכשירי ios", ar: "خاص بأجهزة ios"),
        Template(
            "{0} is not pushed to by this deployment", he: "השירות הזה אינו שולח התראות ל-{0}",
            ar: "هذه الخدمة لا ترسل الإشعارات إلى {0}"),
        Template(
            "must be an FCM registration token: 1 to 4096 letters, digits, ':', '_' or '-'",
            he: "חייב להיות אסימון רישום של FCM: 1 עד 4096 אותיות, ספרות, ':', '_' או '-'",
            ar: "يجب أن يكون رمز تسجيل FCM: من 1 إلى 4096 حرفًا أو رقمًا أو ':' أو '_' أو '-'"),
        Template(
            "must be an https URL with a host, at most 2048 characters",
            he: "חייב להיות כתובת https עם שם מארח, עד 2048 תווים",
            ar: "يجب أن يكون عنوان https فيه مضيف، بحد أقصى 2048 حرفًا"),
        Template(
            "must be an uncompressed P-256 public key (65 bytes), base64url",
            he: "חייב להיות מפתח ציבורי P-256 לא דחוס (65 בתים), ב-base64url",
            ar: "يجب أن يكون مفتاحًا عامًا P-256 غير مضغوط (65 بايت)، بترميز base64url"),
        Template(
            "must be 16 bytes, base64url", he: "חייב להיות 16 בתים, ב-base64url",
            ar: "يجب أن يكون 16 بايت، بترميز base64url"),
        Template(
            "is not a point of the P-256 curve", he: "אינו נקודה על העקום P-256", ar: "ليس نقطة على المنحنى P-256"),
        Template(
            "must be 16 to 200 hexadecimal digits, an even number",
            he: "חייב להיות 16 עד 200 ספרות הקסדצימליות, במספר זוגי",
            ar: "يجب أن يكون من 16 إلى 200 رقم ست عشري، بعدد زوجي"),
        Template(
            "must be 1 to 128 letters or digits", he: "חייב להיות 1 עד 128 אותיות או ספרות",
            ar: "يجب أن يكون من 1 إلى 128 حرفًا أو رقمًا"),
        Template(
            "must be 2 to 12 capital letters or digits", he: "חייב להיות 2 עד 12 אותיות גדולות או ספרות",
            ar: "يجب أن يكون من 2 إلى 12 حرفًا كبيرًا أو رقمًا"),
        Template(
            "must be {0} URL with a host, without credentials or a fragment",
            he: "חייבת להיות כתובת {0} עם שם מארח, בלי פרטי התחברות ובלי fragment",
            ar: "يجب أن يكون عنوان {0} بمضيف، دون بيانات اعتماد أو fragment"),
        Template(
            "must be a date such as 2026-11-25", he: "חייב להיות תאריך כמו 2026-11-25",
            ar: "يجب أن يكون تاريخًا مثل 2026-11-25"),
        Template(
            "must be a decimal number such as 12.50, at most 20 digits and 18 decimals",
            he: "חייב להיות מספר עשרוני כמו 12.50, עד 20 ספרות ו-18 ספרות אחרי הנקודה",
            ar: "يجب أن يكون عددًا عشريًا مثل 12.50، بحد أقصى 20 رقمًا و18 منزلة عشرية"),
        Template(
            "must be a time from 00:00 to 23:59", he: "חייבת להיות שעה בין 00:00 ל-23:59",
            ar: "يجب أن يكون وقتًا من 00:00 إلى 23:59"),
        Template(
            "must be a time from 00:00 to 24:00", he: "חייבת להיות שעה בין 00:00 ל-24:00",
            ar: "يجب أن يكون وقتًا من 00:00 إلى 24:00"),
        Template(
            "must be absent for an order's payment: the order has them",
            he: "אסור שיופיע בתשלום של הזמנה: הם כבר בהזמנה", ar: "يجب أن يغيب في دفعة طلب: فالطلب يتضمنها"),
        Template(
            "must be absent for the role {0}", he: "אסור שיופיע עבור התפקיד {0}", ar: "يجب أن يغيب للدور {0}"),
        Template("must be after from", he: "חייב להיות אחרי from", ar: "يجب أن يكون بعد from"),
        Template("must not be before from", he: "אסור שיהיה לפני from", ar: "يجب ألا يكون قبل from"),
        Template(
            "must be at most {0} days after from", he: "חייב להיות לכל היותר {0} ימים אחרי from",
            ar: "يجب ألا يتجاوز {0} يومًا بعد from"),
        Template(
            "must be an IANA time zone such as Asia/Jerusalem", he: "חייב להיות אזור זמן של IANA כמו Asia/Jerusalem",
            ar: "يجب أن تكون منطقة زمنية وفق IANA مثل Asia/Jerusalem"),
        Template(
            "must be an RFC 3339 time such as {0}", he: "חייב להיות זמן לפי RFC 3339 כמו {0}",
            ar: "يجب أن يكون وقتًا وفق RFC 3339 مثل {0}"),
        Template(
            "must be an app's bundle id: letters, digits, '.', '-', at most 155",
            he: "חייב להיות מזהה חבילה של אפליקציה: אותיות, ספרות, '.', '-', עד 155",
            ar: "يجب أن يكون معرّف حزمة تطبيق: أحرف وأرقام و'.' و'-'، بحد أقصى 155"),
        Template(
            "must be card: a customer pays online by card", he: "חייב להיות card: לקוח משלם אונליין בכרטיס",
            ar: "يجب أن يكون card: يدفع العميل عبر الإنترنت بالبطاقة"),
        Template(
            "must be https: a plain http endpoint would let anyone on the way read the events",
            he: "חייב להיות https: כתובת http רגילה תאפשר לכל מי שבדרך לקרוא את האירועים",
            ar: "يجب أن يكون https: فعنوان http عادي يتيح لأي أحد في الطريق قراءة الأحداث"),
        Template(
            "must be letters, digits and - . _ only", he: "אותיות, ספרות ו-‎- . _ בלבד",
            ar: "أحرف وأرقام و‎- . _ فقط"),
        Template(
            "must be letters, digits and : . _ - only", he: "אותיות, ספרות ו-‎: . _ - בלבד",
            ar: "أحرف وأرقام و‎: . _ - فقط"),
        Template(
            "must be the ETag of the resource, such as \"3\"", he: "חייב להיות ה-ETag של המשאב, כמו \"3\"",
            ar: "يجب أن يكون ETag المورد، مثل \"3\""),
        Template(
            "must be the id of an event received, 0 or more", he: "חייב להיות מזהה של אירוע שהתקבל, 0 או יותר",
            ar: "يجب أن يكون معرّف حدث مستلم، 0 أو أكثر"),
        Template(
            "must hold at least one line", he: "חייב להכיל לפחות שורה אחת", ar: "يجب أن يحتوي على سطر واحد على الأقل"),
        Template("must hold at most {0} groups", he: "יכול להכיל עד {0} קבוצות", ar: "يجب ألا يتجاوز {0} مجموعة"),
        Template("must hold at most {0} lines", he: "יכול להכיל עד {0} שורות", ar: "يجب ألا يتجاوز {0} سطرًا"),
        Template("must hold at most {0} periods", he: "יכול להכיל עד {0} פרקי זמן", ar: "يجب ألا يتجاوز {0} فترة"),
        Template(
            "must hold from {0} to {1} lines", he: "חייב להכיל בין {0} ל-{1} שורות",
            ar: "يجب أن يحتوي من {0} إلى {1} سطرًا"),
        Template(
            "must hold 1 to {0} options", he: "חייב להכיל 1 עד {0} אפשרויות", ar: "يجب أن يحتوي من 1 إلى {0} خيارًا"),
        Template(
            "must leave a quantity from {0} to {1}", he: "חייב להשאיר כמות בין {0} ל-{1}",
            ar: "يجب أن يترك كمية من {0} إلى {1}"),
        Template(
            "must name {0} to {1} notifications", he: "חייב לציין {0} עד {1} התראות",
            ar: "يجب أن يذكر من {0} إلى {1} إشعارًا"),
        Template(
            "must name at most {0} products", he: "יכול לציין עד {0} מוצרים", ar: "يجب ألا يذكر أكثر من {0} منتجًا"),
        Template(
            "must name at most {0} options", he: "יכול לציין עד {0} אפשרויות", ar: "يجب ألا يذكر أكثر من {0} خيارًا"),
        Template(
            "must name each at most once, at least one, of {0}",
            he: "חייב לציין לפחות אחד מאלה, כל אחד פעם אחת לכל היותר: {0}",
            ar: "يجب أن يذكر واحدًا على الأقل من هذه، كلًّا مرة واحدة على الأكثر: {0}"),
        Template(
            "must not point at a private, loopback, link-local or metadata address",
            he: "אסור שיפנה לכתובת פרטית, loopback,‏ link-local או כתובת metadata",
            ar: "يجب ألا يشير إلى عنوان خاص أو loopback أو link-local أو عنوان metadata"),
        Template(
            "name a store or a courier, one of the two", he: "יש לציין חנות או שליח, אחד מהשניים",
            ar: "اذكر متجرًا أو مندوبًا، واحدًا من الاثنين"),
        Template(
            "no product of the store is in category '{0}'", he: "אין בחנות מוצר בקטגוריה '{0}'",
            ar: "لا يوجد منتج للمتجر في الفئة '{0}'"),
        Template(
            "only a completed report carries one", he: "רק דיווח על השלמה כולל אותו", ar: "وحده تقرير الإتمام يتضمنه"),
        Template("or new_quantity is required", he: "או ש-new_quantity נדרש", ar: "أو أن new_quantity مطلوب"),
        Template(
            "must be null on the last tier", he: "חייב להיות null במדרגה האחרונה",
            ar: "يجب أن يكون null في الشريحة الأخيرة"),
        Template(
            "must list at least one tier", he: "חייב לכלול לפחות מדרגה אחת", ar: "يجب أن يذكر شريحة واحدة على الأقل"),
        Template("must list at most 20 tiers", he: "יכול לכלול עד 20 מדרגות", ar: "يجب ألا يذكر أكثر من 20 شريحة"),
        Template(
            "must have from {0} to {1} corners", he: "חייב לכלול בין {0} ל-{1} פינות",
            ar: "يجب أن يحتوي من {0} إلى {1} زوايا"),
        Template(
            "must not span 180 degrees of longitude or more", he: "אסור שיתפרש על 180 מעלות אורך או יותר",
            ar: "يجب ألا يمتد على 180 درجة طول أو أكثر"),
        Template(
            "is required with delivery_area", he: "נדרש כאשר יש delivery_area", ar: "مطلوب مع delivery_area"),
        Template(
            "must be two numbers, latitude and longitude, as lat,lng",
            he: "חייב להיות שני מספרים, קו רוחב וקו אורך, כ-lat,lng",
            ar: "يجب أن يكون رقمين، خط العرض وخط الطول، بصيغة lat,lng"),
        Template("needs near", he: "דורש near", ar: "يتطلب near"),
        Template(
            "is required: the store delivers within an area", he: "נדרש: החנות מבצעת משלוחים בתוך אזור מוגדר",
            ar: "مطلوب: المتجر يوصل داخل منطقة محددة"),
        Template(
            "must be from 0 to 10000 basis points", he: "חייב להיות בין 0 ל-10000 נקודות בסיס",
            ar: "يجب أن يكون من 0 إلى 10000 نقطة أساس"),
        Template(
            "must choose {0} of {1}, not {2}", he: "יש לבחור {0} מתוך {1}, לא {2}", ar: "يجب اختيار {0} من {1}، لا {2}"),
        Template("must differ from open", he: "חייב להיות שונה מ-open", ar: "يجب أن يختلف عن open"),
        Template(
            "names {0}, not an option of {1}", he: "מציין את {0}, שאינו אפשרות של {1}",
            ar: "يذكر {0}، وهو ليس خيارًا لـ {1}"),
        Template("names an option twice", he: "מציין אפשרות פעמיים", ar: "يذكر خيارًا مرتين"),
        Template("must not be null", he: "אסור שיהיה null", ar: "يجب ألا يكون null"),
        Template("unknown field", he: "שדה לא מוכר", ar: "حقل غير معروف"),
        Template("must be a string", he: "חייב להיות מחרוזת", ar: "يجب أن يكون نصًا"),
        Template("must be a boolean", he: "חייב להיות true או false", ar: "يجب أن يكون true أو false"),
        Template("must be an integer", he: "חייב להיות מספר שלם", ar: "يجب أن يكون عددًا صحيحًا"),
        Template("must be a number", he: "חייב להיות מספר", ar: "يجب أن يكون رقمًا"),
        Template("must be an array", he: "חייב להיות מערך", ar: "يجب أن يكون مصفوفة"),
        Template("must be an object", he: "חייב להיות אובייקט", ar: "يجب أن يكون كائنًا"),
        Template("must be of type {0}", he: "חייב להיות מסוג {0}", ar: "يجب أن يكون من النوع {0}"),
        Template("is not an accepted value", he: "אינו ערך מותר", ar: "ليس قيمة مقبولة"),
        Template("is not a UUID", he: "אינו UUID", ar: "ليس UUID"),
        Template(
            "must be an ISO 4217 code of three upper-case letters", he: "חייב להיות קוד ISO 4217 של שלוש אותיות גדולות",
            ar: "يجب أن يكون رمز ISO 4217 من ثلاثة أحرف كبيرة"),
        Template(
            "must be 8 to 72 characters long", he: "חייבת להיות באורך 8 עד 72 תווים",
            ar: "يجب أن يكون طولها من 8 إلى 72 حرفًا"),
        Template(
            "comes from the catalog for a product line", he: "נלקח מהקטלוג בשורה של מוצר",
            ar: "يؤخذ من الكتالوج لسطر منتج"),
        Template(
            "is of no app this deployment pushes to (the operator lists them in ORDERLY_PUSH_BUNDLE_IDS)",
            he: "אינו של אפליקציה שהשירות הזה שולח אליה התראות (המפעיל מונה אותן ב-ORDERLY_PUSH_BUNDLE_IDS)",
            ar: "ليس لتطبيق ترسل إليه هذه الخدمة الإشعارات (يذكرها المشغّل في ORDERLY_PUSH_BUNDLE_IDS)"),
        Template("is active", he: "פעיל", ar: "مفعّلة"),
        Template("is inactive", he: "אינו פעיל", ar: "غير مفعّلة"),
        Template("is blocked", he: "חסום", ar: "محظورة"),
        Template(
            "must be 4 to 10 bytes in hex (8 to 20 hex digits, pairs perhaps separated by : - or spaces)",
            he: "חייב להיות 4 עד 10 בתים בהקסדצימלי (8 עד 20 ספרות, זוגות שאולי מופרדים ב-: - או רווחים)",
            ar: "يجب أن يكون من 4 إلى 10 بايت بالست عشري (من 8 إلى 20 رقمًا، أزواجًا قد تفصلها : - أو مسافات)"),
        Template("is not for sale now", he: "אינו למכירה כרגע", ar: "غير معروض للبيع الآن"),
        Template(
            "is not the customer of the card tapped", he: "אינו הלקוח של הכרטיס שהוצמד",
            ar: "ليس عميل البطاقة التي لُمست"),
        Template("must be at least {0}", he: "חייב להיות לפחות {0}", ar: "يجب أن يكون {0} على الأقل"),
        Template(
            "must be at least {0}, what is left to pay and the tip", he: "חייב להיות לפחות {0}, היתרה לתשלום והטיפ",
            ar: "يجب أن يكون {0} على الأقل، ما تبقى للدفع والإكرامية"),
        Template("must be at most {0}", he: "חייב להיות לכל היותר {0}", ar: "يجب ألا يتجاوز {0}"),
        Template(
            "must be at most {0}, the units not yet returned", he: "חייב להיות לכל היותר {0}, היחידות שטרם הוחזרו",
            ar: "يجب ألا يتجاوز {0}، الوحدات التي لم تُرجع بعد"),
        Template(
            "must be at most {0}, what is left to pay", he: "חייב להיות לכל היותר {0}, היתרה לתשלום",
            ar: "يجب ألا يتجاوز {0}، ما تبقى للدفع"),
        Template("is linked to customer {0}", he: "מקושר ללקוח {0}", ar: "مرتبط بالعميل {0}"),
        Template("is another card's of the store", he: "שייך לכרטיס אחר של החנות", ar: "يخص بطاقة أخرى للمتجر"),
        Template("is not a customer of the store", he: "אינו לקוח של החנות", ar: "ليس عميلًا للمتجر"),
        Template(
            "must be the id of a device of the order's store's customers",
            he: "חייב להיות מזהה של מכשיר של לקוח של החנות של ההזמנה", ar: "يجب أن يكون معرّف جهاز لأحد عملاء متجر الطلب"
        ),
        Template(
            "is already used by another product of the store", he: "כבר בשימוש של מוצר אחר של החנות",
            ar: "يستخدمه منتج آخر للمتجر بالفعل"),
        Template(
            "cannot be turned off while reservations hold stock", he: "אי אפשר לכבות כל עוד שמירות מחזיקות מלאי",
            ar: "لا يمكن إيقافه ما دامت الحجوزات تحجز مخزونًا"),
        Template(
            "cannot be turned off while less than nothing is available", he: "אי אפשר לכבות כל עוד הזמין קטן מאפס",
            ar: "لا يمكن إيقافه ما دام المتاح أقل من لا شيء"),
        Template(
            "does not track stock, so there is nothing to reserve", he: "אינו סופר מלאי, ולכן אין מה לשמור",
            ar: "لا يتتبع المخزون، فلا شيء لحجزه"),
        Template(
            "make the product {0} bytes; a product takes at most {1}",
            he: "המוצר תופס {0} בתים; מוצר יכול לתפוס עד {1}",
            ar: "يشغل المنتج {0} بايت؛ والحد الأقصى للمنتج {1}"),
        Template(
            "only {0} of {1} available, {2} asked for", he: "רק {0} מתוך {1} זמינים, התבקשו {2}",
            ar: "المتاح {0} فقط من {1}، والمطلوب {2}"),
    ]
}
