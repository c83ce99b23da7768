import Domain

extension User {
    /// The fields every new user gives, each checked: e-mail, name, phone, locale and password.
    /// What is wrong goes into `problems`; the e-mail comes back normalized, the texts trimmed.
    static func newProfile(
        email: String?, name: String?, phone: String?, locale: String?, password: String?,
        _ problems: inout FieldProblems
    ) -> (email: String, name: String, phone: String?, password: String) {
        let email = User.normalizedEmail(problems.text(email, "email", maximumLength: 254))
        if !email.isEmpty, !User.isEmailAddress(email) { problems.add("email", "must be an e-mail address") }
        let name = problems.text(name, "name")
        let phone = problems.optionalText(phone, "phone", maximumLength: 32)
        if let locale { problems.locale(locale) }
        let password = problems.text(password, "password", maximumLength: 1000, allowingInvisible: true)
        if !password.isEmpty, let problem = User.passwordProblem(password) {
            problems.add("password", problem)
        }
        return (email, name, phone, password)
    }
}
