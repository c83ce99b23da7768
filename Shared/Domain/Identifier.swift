public import Foundation

/// A typed UUID: `Identifier<Order>` and `Identifier<Store>` cannot be mixed up.
///
/// Encoded as the lower-case UUID string clients see (`"3f0c…"`).
public struct Identifier<Tag>: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The underlying UUID.
    public let uuid: UUID

    /// Wraps an existing UUID.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// A new identifier: time-ordered (`UUID.timeOrdered()`), so that new rows go to the end of
    /// the indexes keyed by it.
    public init() { self.uuid = UUID.timeOrdered() }

    /// Parses a UUID string; `nil` when it is not one.
    public init?(_ string: String) {
        guard let uuid = UUID(text: string) else { return nil }
        self.uuid = uuid
    }

    public var description: String { uuid.lowercasedText }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let uuid = UUID(text: string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "is not a UUID")
        }
        self.uuid = uuid
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Tags naming what an `Identifier` points at.
public enum StoreTag {}
public enum UserTag {}
public enum OrderTag {}
public enum ProductTag {}
public enum PaymentTag {}
public enum ReceiptTag {}
public enum OrderItemTag {}
public enum ReservationTag {}
public enum RefundTag {}
public enum ShiftTag {}
public enum WebhookTag {}
public enum WebhookDeliveryTag {}
public enum DeviceTag {}
public enum AddressTag {}
public enum OptionGroupTag {}
public enum OptionTag {}
public enum CustomerTag {}
public enum CardTag {}
public enum CustomerDeviceTag {}
public enum ApplicationTag {}
public enum TillTag {}

public typealias StoreID = Identifier<StoreTag>
public typealias UserID = Identifier<UserTag>
public typealias OrderID = Identifier<OrderTag>
public typealias ProductID = Identifier<ProductTag>
public typealias PaymentID = Identifier<PaymentTag>
public typealias ReceiptID = Identifier<ReceiptTag>
public typealias OrderItemID = Identifier<OrderItemTag>
public typealias ReservationID = Identifier<ReservationTag>
public typealias RefundID = Identifier<RefundTag>
public typealias ShiftID = Identifier<ShiftTag>
public typealias WebhookID = Identifier<WebhookTag>
public typealias WebhookDeliveryID = Identifier<WebhookDeliveryTag>
public typealias DeviceID = Identifier<DeviceTag>
public typealias AddressID = Identifier<AddressTag>
public typealias OptionGroupID = Identifier<OptionGroupTag>
public typealias OptionID = Identifier<OptionTag>
public typealias CustomerID = Identifier<CustomerTag>
public typealias CardID = Identifier<CardTag>
public typealias CustomerDeviceID = Identifier<CustomerDeviceTag>
public typealias ApplicationID = Identifier<ApplicationTag>
public typealias TillID = Identifier<TillTag>
