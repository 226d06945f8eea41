'use strict';
// The receiving end of MCP Events webhooks (SEP-3415; docs/events.md): check each delivery
// (Standard Webhooks signature and timestamp), answer the verification challenge, drop
// retries, and hand occurrences, gaps and terminations to your code; as a function, or as a
// `node:http` / Express handler. The rules are the core's.

const native = require('./native');
const { nativeSync } = require('./errors');

class WebhookReceiver {
  /** Checks deliveries signed with `secret` (and each of `alsoAccept`, while a secret rotates). */
  constructor(secret, ...alsoAccept) {
    this._native = nativeSync(() => new native.WebhookReceiver([secret, ...alsoAccept]));
  }

  /**
   * Checks one POST (`headers`: an object of header values; `body`: the raw body, a Buffer or
   * string): `{status, body, delivery, subscriptionId}` — answer with `status` and `body`;
   * `delivery` is null when refused (401 a bad signature or timestamp, 400 malformed), else
   * `{type: 'event' | 'gap' | 'terminated' | 'verification' | 'duplicate', ...}`.
   */
  receive(headers, body) {
    const lower = {};
    for (const [k, v] of Object.entries(headers ?? {})) lower[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    const r = this._native.receive(lower, Buffer.isBuffer(body) ? body : Buffer.from(String(body ?? '')));
    return { status: r.status, body: r.body, delivery: r.delivery == null ? null : JSON.parse(r.delivery), subscriptionId: r.subscriptionId ?? null };
  }

  /**
   * A `(req, res)` handler for `node:http` or Express (before any body parser): each
   * occurrence, gap or termination goes to `onDelivery(delivery, subscriptionId)` (awaited
   * when it returns a Promise) before the 200.
   */
  nodeHandler(onDelivery) {
    return (req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', async () => {
        const r = this.receive(req.headers, Buffer.concat(chunks));
        try {
          if (r.delivery && ['event', 'gap', 'terminated'].includes(r.delivery.type)) await onDelivery(r.delivery, r.subscriptionId);
        } catch (e) {
          res.writeHead(500).end();
          return;
        }
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.delivery ? r.body : '');
      });
    };
  }
}

module.exports = { WebhookReceiver };
