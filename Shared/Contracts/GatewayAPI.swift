/// The gateway as the services know it: the caller that states which user a call is for, and
/// the producer of the identity events, on `orderly:events:gateway`, each with the user as its
/// payload (never a password hash).
public enum GatewayAPI {
    public static let service = "gateway"

    /// The events the gateway publishes.
    public enum Events {
        public static let userCreated = "user.created"
        public static let userUpdated = "user.updated"
        /// An application was approved: the account it made is `user_id`; the application is
        /// the payload.
        public static let applicationApproved = "application.approved"
        /// A customer or a courier closed their account: the payload is the user as left,
        /// deactivated, with their name, address and phone gone; each service erases or
        /// anonymises what it holds of them.
        public static let userErased = "user.erased"
    }
}
