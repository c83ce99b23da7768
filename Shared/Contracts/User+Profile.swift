import Domain

extension User {
    /// The fields every new user gives, each checked: e-mail, name, phone, locale and password.
    /// What is wrong goes into `problems`; the e-mail comes back normalized, the texts trimmed.
    ///
    /// Without `credentials` (a staff member's profile for the tills alone), `email` and
    /// `password` are not read and come back empty.
    static func newProfile(
        email: String?, name: String?, phone: String?, locale: String?, password: String?,
        credentials: Bool = true, _ problems: inout FieldProblems
    ) -> (email: String, name: String, phone: String?, password: String) {
        var (checkedEmail, checkedPassword) = ("", "")
        if credentials {
            checkedEmail = User.normalizedEmail(problems.text(email, "email", maximumLength: 254))
            if !checkedEmail.isEmpty, !User.isEmailAddress(checkedEmail) {
                problems.add("email", "must be an e-mail address")
            }
        }
        let name = problems.text(name, "name")
        let phone = problems.optionalText(phone, "phone", maximumLength: 32)
        if let locale { problems.locale(locale) }
        if credentials {
            checkedPassword = problems.text(password, "password", maximumLength: 1000, allowingInvisible: true)
            if !checkedPassword.isEmpty, let problem = User.passwordProblem(checkedPassword) {
                problems.add("password", problem)
            }
        }
        return (checkedEmail, name, phone, checkedPassword)
    }
}
