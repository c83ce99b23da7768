package import Domain

/// Which services may call which methods of a service, and which of them may carry a user's
/// principal: only the gateway states which user a call is made for, and a service that passes
/// on the principal it was given (payments asking the catalog for a store) is named here for the
/// methods it needs. Anyone else is refused at the hello, and any other call with
/// `permission_denied`.
public struct WireCallers: Sendable {
    public struct Grant: Sendable {
        /// The methods it may call; nil for every method.
        public var methods: Set<String>?
        public var mayCarryPrincipal: Bool

        public init(methods: Set<String>?, mayCarryPrincipal: Bool) {
            self.methods = methods
            self.mayCarryPrincipal = mayCarryPrincipal
        }
    }

    public var grants: [String: Grant]

    public init(_ grants: [String: Grant]) { self.grants = grants }

    /// Every method, with the user's principal: the gateway.
    public static var everything: Grant { Grant(methods: nil, mayCarryPrincipal: true) }

    /// These methods only, passing on the principal it was given.
    public static func only(_ methods: String...) -> Grant { Grant(methods: Set(methods), mayCarryPrincipal: true) }

    /// Why `caller` may not make this call; nil when it may.
    package func refusal(caller: String, method: String, carriesPrincipal: Bool) -> OrderlyError? {
        guard let grant = grants[caller] else {
            return OrderlyError(.permissionDenied, "\(caller) may not call this service")
        }
        if let methods = grant.methods, !methods.contains(method) {
            return OrderlyError(.permissionDenied, "\(caller) may not call \(method)")
        }
        if carriesPrincipal, !grant.mayCarryPrincipal {
            return OrderlyError(.permissionDenied, "\(caller) may not state which user a call is for")
        }
        return nil
    }
}
