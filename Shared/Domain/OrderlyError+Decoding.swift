/// Turns a decoding failure into a validation error that names the field and what is wrong.
extension OrderlyError {
    public init(decoding error: DecodingError) {
        func path(_ codingPath: [any CodingKey], _ key: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (key.map { [$0] } ?? [])
            let joined = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                .reduce(into: "") { result, part in
                    result += part.hasPrefix("[") || result.isEmpty ? part : ".\(part)"
                }
            return joined.isEmpty ? "body" : joined
        }
        switch error {
        case .keyNotFound(let key, let context):
            self = .invalidFields([path(context.codingPath, key): "is required"])
        case .valueNotFound(_, let context):
            self = .invalidFields([path(context.codingPath): "must not be null"])
        case .typeMismatch(let type, let context):
            self = .invalidFields([path(context.codingPath): "must be \(Self.describe(type))"])
        case .dataCorrupted(let context):
            // Our own types say what they take; what Foundation says of a value it cannot read
            // (an unknown case, a malformed UUID) is in no language the caller may read.
            let reason =
                context.codingPath.isEmpty
                ? "is not valid JSON"
                : FieldReasonTexts.knows(context.debugDescription)
                    ? context.debugDescription : "is not an accepted value"
            self = .invalidFields([path(context.codingPath): reason])
        @unknown default:
            self = OrderlyError(.invalidArgument, "the request body could not be read")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type, is UInt32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "of type \(name)"
        }
    }
}
