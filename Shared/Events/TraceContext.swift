import Synchronization
public import Tracing

/// Traces across the processes: the W3C `traceparent` that Wire envelopes and events carry, read
/// from and written into the current span's context. Tracing is off unless the process turned it
/// on (`ServiceMain`, from the standard `OTEL_*` variables); off, the paths that would start
/// spans skip them entirely, and a `traceparent` a client sent is passed on as it came.
public enum TraceContext {
    private static let enabled = Atomic(false)

    /// Whether spans are recorded in this process.
    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Turns tracing on, once the process's tracer is bootstrapped.
    public static func enable() { enabled.store(true, ordering: .relaxed) }

    /// The current span's `traceparent`; nil when tracing is off or no span is current.
    public static func current() -> String? {
        guard isEnabled, let context = InstrumentationContext.current else { return nil }
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: DictionaryInjector())
        return carrier["traceparent"]
    }

    /// The context that continues `traceparent` (a top-level one for nil or a malformed value).
    public static func continuing(_ traceparent: String?) -> InstrumentationContext {
        var context = InstrumentationContext.topLevel
        if let traceparent {
            InstrumentationSystem.instrument.extract(
                ["traceparent": traceparent], into: &context, using: DictionaryExtractor())
        }
        return context
    }

    /// Runs `operation` in a span named `name`, a child of the current span, when tracing is on;
    /// as it is, without a span, when off.
    public static func span<T>(
        _ name: String, kind: SpanKind = .internal, attributes: (inout SpanAttributes) -> Void = { _ in },
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> T
    ) async rethrows -> T {
        guard isEnabled else { return try await operation() }
        return try await withSpan(name, context: InstrumentationContext.current ?? .topLevel, ofKind: kind) { span in
            span.updateAttributes(attributes)
            return try await operation()
        }
    }

    /// The same, continuing the trace `parent` names (a new trace for nil).
    public static func span<T>(
        _ name: String, continuing parent: String?, kind: SpanKind,
        attributes: (inout SpanAttributes) -> Void = { _ in },
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> T
    ) async rethrows -> T {
        guard isEnabled else { return try await operation() }
        return try await withSpan(name, context: continuing(parent), ofKind: kind) { span in
            span.updateAttributes(attributes)
            return try await operation()
        }
    }

    /// Runs `operation`, one step of every trace in `traces` at once (the relay publishing their
    /// events together): a span named `name` continuing each, when tracing is on.
    public static func spans<T>(
        _ name: String, continuing traces: [String], kind: SpanKind,
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> T
    ) async rethrows -> T {
        guard isEnabled, !traces.isEmpty else { return try await operation() }
        let spans = traces.map { startSpan(name, context: continuing($0), ofKind: kind) }
        do {
            let result = try await operation()
            for span in spans { span.end() }
            return result
        } catch {
            for span in spans {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
                span.end()
            }
            throw error
        }
    }

    private struct DictionaryInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    }

    private struct DictionaryExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    }
}
