import Events
import Foundation
public import Logging
import OTel
public import ServiceLifecycle
import Tracing

/// Traces, exported over OTLP/HTTP by swift-otel, off unless the standard variables ask for them:
/// `OTEL_TRACES_EXPORTER=otlp`, or an endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true` keeps them off. swift-otel reads
/// the rest: the sampler (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`), the protocol
/// (`http/protobuf` unless told otherwise), headers, the service's name (`orderly-<service>`
/// unless `OTEL_SERVICE_NAME`) and resource attributes.
public enum TracingSetup {
    /// Whether `environment` turns traces on.
    public static func isRequested(_ environment: [String: String]? = nil) -> Bool {
        let environment = environment ?? ProcessInfo.processInfo.environment
        guard environment["OTEL_SDK_DISABLED"]?.lowercased() != "true" else { return false }
        if let exporter = environment["OTEL_TRACES_EXPORTER"] { return exporter.lowercased() == "otlp" }
        return ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains {
            !(environment[$0] ?? "").isEmpty
        }
    }

    /// The log metadata of the current span (`trace_id`, `span_id`), for `bootstrapLogging`; nil
    /// when traces are off.
    public static func loggingMetadata() -> Logger.MetadataProvider? {
        isRequested() ? OTel.makeLoggingMetadataProvider() : nil
    }

    /// Bootstraps the tracer for `service` when traces are asked for; returns the exporter, a
    /// service to run with the process (first, so that it stops last and sends what is left).
    public static func bootstrap(service: String, logger: Logger) throws -> (any Service)? {
        guard isRequested() else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "orderly-\(service)"
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.diagnosticLogger = .custom(logger)
        let (tracer, exporter) = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(tracer)
        TraceContext.enable()
        logger.notice("traces exported over OTLP", metadata: ["otel.service": "orderly-\(service)"])
        return exporter
    }
}
