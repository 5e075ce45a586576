/**
 * The codec endpoint the Temporal Web UI (and `temporal` CLI `--codec-endpoint`) calls to show
 * decoded payloads to an operator who holds the key: POST /decode and POST /encode take and return
 * `{"payloads":[{"metadata":{"<k>":"<base64>"},"data":"<base64>"}]}` (Payload in proto JSON).
 * CORS answers the Web UI's origin (preflight included, credentials allowed); other origins get no
 * CORS headers, so a browser refuses them. Listens on 127.0.0.1 unless told otherwise: whoever
 * reaches it can decode.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import type { Payload } from '@temporalio/common';
import type { CodecKeys } from './keys';
import { AesGcmPayloadCodec } from './payload-codec';

export interface CodecServerOptions {
  keys: CodecKeys;
  port?: number;
  host?: string;
  /** Browser origins allowed to call (the Web UI's address), e.g. http://localhost:8233. */
  origins: string[];
}

export interface RunningCodecServer { url: string; close(): Promise<void> }

interface JsonPayload { metadata?: Record<string, string>; data?: string }

const MAX_BODY_BYTES = 64 * 1024 * 1024;

function fromJson(p: JsonPayload): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = Buffer.from(v, 'base64');
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

function toJson(p: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) if (v) metadata[k] = Buffer.from(v).toString('base64');
  return { metadata, data: Buffer.from(p.data ?? []).toString('base64') };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function startCodecServer(opts: CodecServerOptions): Promise<RunningCodecServer> {
  const codec = new AesGcmPayloadCodec(opts.keys);
  const server = http.createServer((req, res) => {
    const origin = req.headers.origin;
    if (origin && (opts.origins.includes(origin) || opts.origins.includes('*'))) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      res.setHeader('Vary', 'Origin');
    }
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204);
      res.end();
      return;
    }
    const route = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (req.method !== 'POST' || (route !== '/decode' && route !== '/encode')) {
      send(404, { error: `no ${req.method} ${route}: POST /decode or POST /encode with {"payloads":[…]}` });
      return;
    }
    void (async () => {
      let payloads: Payload[];
      try {
        const body = JSON.parse(await readBody(req)) as { payloads?: JsonPayload[] };
        if (!Array.isArray(body.payloads)) throw new Error('the body has no "payloads" array');
        payloads = body.payloads.map(fromJson);
      } catch (err) {
        send(400, { error: `bad request: ${(err as Error).message}; send {"payloads":[{"metadata":{…},"data":"<base64>"}]}` });
        return;
      }
      try {
        const out = route === '/decode' ? await codec.decode(payloads) : await codec.encode(payloads);
        send(200, { payloads: out.map(toJson) });
      } catch (err) {
        send(422, { error: (err as Error).message });
      }
    })();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8888, opts.host ?? '127.0.0.1', () => {
      const a = server.address() as AddressInfo;
      resolve({
        url: `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
