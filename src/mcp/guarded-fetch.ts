/**
 * The `fetch` an HTTP MCP session uses: node's http/https with the network policy's guarded lookup,
 * so every connection the session opens resolves the host again and checks each address it would
 * connect to (the same `guardedLookup` http tools pin their connections with). A DNS answer that
 * changes after the policy check (rebinding to a private or metadata address) is refused at connect
 * time instead of reached. The SDK's default fetch resolves on its own, unchecked (an MCP server's URL is held to the network policy of http tools).
 */
import * as http from 'http';
import * as https from 'https';
import { Readable } from 'stream';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { guardedLookup, type NetPolicy, type Resolver, systemResolver } from '../governance/network';
import { currentTraceHeaders } from '../platform/trace-context';

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

export function guardedFetch(policy: NetPolicy, resolve: Resolver = systemResolver): FetchLike {
  const lookup = guardedLookup(policy, resolve);
  return (input, init = {}) =>
    new Promise<Response>((resolveResponse, reject) => {
      const url = new URL(String(input));
      const lib = url.protocol === 'https:' ? https : http;
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((v, k) => { headers[k] = v; });
      // The traceparent of the tool call this request serves, when its agent propagates context.
      Object.assign(headers, currentTraceHeaders());
      const method = init.method ?? 'GET';
      // agent: false: a fresh connection per request, so each one goes through the lookup's check.
      const req = lib.request(url, { method, headers, lookup, agent: false, signal: init.signal ?? undefined }, (res) => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (Array.isArray(v)) for (const x of v) out.append(k, x);
          else if (v !== undefined) out.set(k, v);
        }
        const status = res.statusCode ?? 502;
        const body = NO_BODY.has(status) || method === 'HEAD' ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        if (!body) res.resume();
        resolveResponse(new Response(body, { status, statusText: res.statusMessage, headers: out }));
      });
      req.on('error', reject);
      const b = init.body;
      if (b === undefined || b === null) req.end();
      else if (typeof b === 'string' || b instanceof Uint8Array) req.end(b);
      else reject(new TypeError(`guardedFetch: unsupported request body type ${Object.prototype.toString.call(b)}`));
    });
}
