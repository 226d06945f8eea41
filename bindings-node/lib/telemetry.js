'use strict';
/**
 * OpenTelemetry for Node servers: a SERVER span per dispatched request and the histogram
 * `mcp.server.operation.duration`, recorded with `@opentelemetry/api`'s global tracer and meter
 * providers (an optional peer dependency). What to record — span name, attributes, the parent
 * context in `params._meta`, the outcome — comes from the engine (`mcpcore::semconv`, the
 * OpenTelemetry semantic conventions for MCP, written once for every language); this module only
 * records it.
 */

const native = require('./native');
const { McpError } = require('./errors');

/** The engine's event for a legacy session that ended (`mcpcore::host::SESSION_ENDED`). */
const SESSION_ENDED = 'mcpcore/sessionEnded';

/** The conventions' advice for the duration histograms, in seconds. */
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

function api() {
  try {
    return require('@opentelemetry/api');
  } catch {
    return null;
  }
}

/** `setting` when given; else true when `@opentelemetry/api` is installed and a tracer provider
 * other than the API's no-op one is registered. */
function wanted(setting) {
  if (setting !== undefined && setting !== null) return Boolean(setting);
  // A provider is registered only by code that loaded the API (its globals live under this
  // key): without it, nothing to record, and no module resolved at start-up.
  if (!globalThis[Symbol.for('opentelemetry.js.api.1')]?.trace) return false;
  const otel = api();
  if (!otel) return false;
  const provider = otel.trace.getTracerProvider();
  const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider;
  return delegate?.constructor?.name !== 'NoopTracerProvider';
}

/** The middleware recording each request, as `(request, next) => result` over the context's
 * native call (`callOf(ctx)`). */
function middleware(callOf) {
  const otel = api();
  const tracer = otel.trace.getTracer('mcpcore');
  const duration = otel.metrics.getMeter('mcpcore').createHistogram('mcp.server.operation.duration', {
    unit: 's',
    description: 'MCP request or notification duration as observed on the receiver',
    advice: { explicitBucketBoundaries: BUCKETS },
  });
  const sessions = otel.metrics.getMeter('mcpcore').createHistogram('mcp.server.session.duration', {
    unit: 's',
    description: 'The duration of the MCP session as observed on the MCP server',
    advice: { explicitBucketBoundaries: BUCKETS },
  });
  return async (request, next) => {
    if (request.method === SESSION_ENDED) {
      // A legacy session ended (the engine's event, not a request): its duration.
      sessions.record(request.params.seconds, Object.fromEntries(request.params.attributes));
      return {};
    }
    const text = callOf(request.context).telemetryOperation(request.method, JSON.stringify(request.params ?? {}));
    if (text == null) return next(request);
    const op = JSON.parse(text);
    const carrier = Object.fromEntries(op.carrier);
    const parent = op.carrier.length ? otel.propagation.extract(otel.ROOT_CONTEXT, carrier) : otel.context.active();
    const options = { kind: otel.SpanKind.SERVER, attributes: Object.fromEntries(op.attributes) };
    return tracer.startActiveSpan(op.span_name, options, parent, async (span) => {
      const metric = Object.fromEntries(op.metric_attributes);
      const started = performance.now();
      let outcome = {};
      try {
        const result = await next(request);
        outcome = JSON.parse(native.telemetryOutcome(Boolean(result?.isError)));
        return result;
      } catch (e) {
        outcome = e instanceof McpError && e.code
          ? JSON.parse(native.telemetryOutcome(false, e.code, e.message))
          : { error_type: e?.name ?? 'Error', description: String(e?.message ?? e) };
        throw e;
      } finally {
        for (const key of outcome.drop_from_metric ?? []) delete metric[key];
        if (outcome.error_type) {
          span.setAttribute('error.type', outcome.error_type);
          metric['error.type'] = outcome.error_type;
          span.setStatus({ code: otel.SpanStatusCode.ERROR, message: outcome.description ?? outcome.error_type });
        }
        if (outcome.status_code) {
          span.setAttribute('rpc.response.status_code', outcome.status_code);
          metric['rpc.response.status_code'] = outcome.status_code;
        }
        span.end();
        duration.record((performance.now() - started) / 1000, metric);
      }
    });
  };
}

module.exports = { wanted, middleware };
