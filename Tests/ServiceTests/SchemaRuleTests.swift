import Catalog
import Gateway
import Notifications
import Orders
import Payments
import Storage
import Testing

/// Expand, deploy, contract (docs/OPERATIONS.md, "Upgrading"): every step a service adds from
/// release 0.59.0 on says which builds run on the schema it makes, so that the release before can
/// be rolled back to. `Database.migrate` refuses a step that leaves the build before it behind.
@Suite("The schema rule")
struct SchemaRuleTests {
    /// Each service's steps when the rule began: those say nothing (no earlier build reads them).
    static let before: [String: Int] = ["gateway": 9, "orders": 8, "catalog": 6, "payments": 11, "notifications": 9]

    static let services: [(name: String, migrations: [Migration])] = [
        (GatewayService.name, GatewayService.migrations), (OrdersService.name, OrdersService.migrations),
        (CatalogService.name, CatalogService.migrations), (PaymentsService.name, PaymentsService.migrations),
        (NotificationsService.name, NotificationsService.migrations),
    ]

    @Test("every step since the rule began declares its readers, and the steps before it are as they were")
    func stepsDeclareTheirReaders() throws {
        for (name, migrations) in Self.services {
            let before = try #require(Self.before[name])
            #expect(migrations.count >= before, "\(name) has fewer steps than when the rule began")
            for step in migrations.dropFirst(before) {
                #expect(step.readers != nil, "\(name) step \(step.version) \"\(step.name)\" must say its readers")
            }
        }
    }
}
