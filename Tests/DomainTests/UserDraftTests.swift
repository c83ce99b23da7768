import Contracts
import Domain
import Testing

/// Who a new user may be without an e-mail address and a password.
@Suite("New users")
struct UserDraftTests {
    static let store = StoreID()

    /// The fields a draft's 400 names, or [] when it passes.
    static func refused(_ draft: UserDraft) -> [String] {
        do {
            _ = try draft.validated()
            return []
        } catch {
            return (error.details?.keys).map { $0.sorted() } ?? ["?"]
        }
    }

    @Test("a staff member may have neither an e-mail nor a password: a profile for the tills alone")
    func tillOnlyStaff() throws {
        let valid = try UserDraft(name: " Yael ", role: .staff, storeID: Self.store).validated()
        #expect(valid.email == nil && valid.password == nil && valid.name == "Yael" && valid.staffRole == .other)
        // Blank is absent.
        let blank = try UserDraft(email: " ", name: "Yael", role: .staff, storeID: Self.store, password: "").validated()
        #expect(blank.email == nil && blank.password == nil)
        let both = try UserDraft(
            email: "Yael@Example.com", name: "Yael", role: .staff, storeID: Self.store, password: "password-123"
        ).validated()
        #expect(both.email == "yael@example.com" && both.password == "password-123")
    }

    @Test("anyone else needs both, and neither comes without the other")
    func credentialsTogether() {
        #expect(Self.refused(UserDraft(name: "M", role: .manager, storeID: Self.store)) == ["email", "password"])
        #expect(Self.refused(UserDraft(name: "C", role: .courier)) == ["email", "password"])
        #expect(
            Self.refused(UserDraft(email: "s@example.com", name: "S", role: .staff, storeID: Self.store)) == [
                "password"
            ])
        #expect(
            Self.refused(UserDraft(name: "S", role: .staff, storeID: Self.store, password: "password-123")) == ["email"]
        )
        // A till-only profile still names its store.
        #expect(Self.refused(UserDraft(name: "S", role: .staff)) == ["store_id"])
    }
}
