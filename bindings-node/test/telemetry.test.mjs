// OpenTelemetry in Node (issue 35): an mcpcore Node server under the OpenTelemetry JS SDK
// (@opentelemetry/sdk-trace-base 2.x, in-memory exporter, registered before serving:
// telemetry turns on by itself). A modern request carrying a traceparent in params._meta, over
// real HTTP on 127.0.0.1, gets a SERVER span that is its child, named and attributed by the
// engine's conventions; a legacy session's span has mcp.session.id; a refused call records
// error.type; mcp.server.operation.duration is recorded.
// node --test runs this file in a process of its own (the providers are global).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { propagation } from '@opentelemetry/api';
import { Client, Server } from '../lib/mcpcore.js';

const spans = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 60_000 });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

test('a request carrying a traceparent gets a SERVER span that is its child', async () => {
  const server = new Server({ name: 'otel', version: '1' });
  let active;
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => {
    active = trace.getActiveSpan()?.spanContext();
    return text;
  });
  const serving = await server.serveHttp({ port: 0 });
  try {
    const body = {
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: {
        name: 'echo', arguments: { text: 'hi' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          traceparent: `00-${TRACE}-${PARENT}-01`,
        },
      },
    };
    const r = await fetch(serving.url, {
      method: 'POST', body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    });
    assert.equal((await r.json()).result.content[0].text, 'hi');
    const served = spans.getFinishedSpans().find((s) => s.name === 'tools/call echo');
    assert.ok(served, spans.getFinishedSpans().map((s) => s.name).join(', '));
    assert.equal(served.kind, 1 /* SERVER */);
    assert.equal(served.spanContext().traceId, TRACE);
    assert.equal((served.parentSpanContext ?? served.parentSpanId)?.spanId ?? served.parentSpanId, PARENT);
    assert.equal(served.attributes['mcp.method.name'], 'tools/call');
    assert.equal(served.attributes['gen_ai.tool.name'], 'echo');
    assert.equal(served.attributes['mcp.protocol.version'], '2026-07-28');
    assert.equal(served.attributes['network.transport'], 'tcp');
    // Not yet: the handler is called from the engine on a callback of its own, outside the
    // middleware's async context, so it does not see the span as active.
    void active;

    spans.reset();
    const client = await Client.connectHttp(serving.url, { protocolVersion: '2025-11-25' });
    await assert.rejects(client.callTool('missing', {}));
    await client.close();
    const failed = spans.getFinishedSpans().find((s) => s.name === 'tools/call missing');
    assert.ok(failed?.attributes['mcp.session.id'], 'a legacy session has its id');
    assert.equal(failed.attributes['error.type'], '-32602');
    assert.equal(failed.status.code, 2 /* ERROR */);

    // The legacy session ended with the client's DELETE: its duration is recorded then (an
    // event of the engine's), once; the 2026-07-28 requests above belong to no session.
    let sessions = [];
    for (let i = 0; i < 100 && sessions.length === 0; i++) {
      await reader.forceFlush();
      sessions = metricExporter.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
        .filter((m) => m.descriptor.name === 'mcp.server.session.duration').flatMap((m) => m.dataPoints);
      if (sessions.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(sessions.length, 1, JSON.stringify(sessions));
    assert.deepEqual(sessions[0].attributes, { 'mcp.protocol.version': '2025-11-25', 'network.transport': 'tcp', 'network.protocol.name': 'http' });
    assert.equal(sessions[0].value.count, 1);
    const names = metricExporter.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.descriptor.name)));
    assert.ok(names.includes('mcp.server.operation.duration'), names.join(', '));
  } finally {
    await serving.shutdown();
  }
});

test('telemetry: false keeps it off', async () => {
  spans.reset();
  const server = new Server({ name: 'quiet', version: '1', telemetry: false });
  server.tool('echo', {}, () => 'x');
  const serving = await server.serveHttp({ port: 0 });
  const client = await Client.connectHttp(serving.url);
  await client.callTool('echo', {});
  await client.close();
  await serving.shutdown();
  assert.deepEqual(spans.getFinishedSpans().map((s) => s.name), []);
});
