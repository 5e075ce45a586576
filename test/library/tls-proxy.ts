/**
 * A TLS (or mTLS) terminating gRPC proxy on 127.0.0.1 in front of the suite's plaintext dev server,
 * standing in for Temporal Cloud or a TLS cluster: Node's http2 server terminates TLS (asking for a
 * client certificate signed by the test CA when `clientCa` is given) and forwards each stream, its
 * headers, data and trailers, to the dev server. It records what reached it: each call's method
 * path, its `authorization` header and the client certificate's subject. Certificates come from
 * `makeCertificates` (openssl, into a temporary folder): a CA, a server certificate for localhost
 * and 127.0.0.1, and a client certificate.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as http2 from 'http2';
import * as path from 'path';
import type { TLSSocket } from 'tls';

export interface Certificates { dir: string; ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string }

/** A CA and the server and client certificates it signs (P-256 keys, valid one day), as files in `dir`. */
export function makeCertificates(dir: string): Certificates {
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '1', '-subj', '/CN=agentloom-test-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  const leaf = (name: string, cn: string, ext: string) => {
    fs.writeFileSync(f(`${name}.ext`), `${ext}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n`);
    ssl('req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${cn}`);
    ssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${name}.pem`), '-days', '1', '-extfile', f(`${name}.ext`));
  };
  leaf('server', 'localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth');
  leaf('client', 'agentloom-test-client', 'extendedKeyUsage=clientAuth');
  return { dir, ca: f('ca.pem'), serverCert: f('server.pem'), serverKey: f('server.key'), clientCert: f('client.pem'), clientKey: f('client.key') };
}

export interface SeenCall { path: string; authorization?: string; clientSubject?: string }

export interface TlsProxy {
  address: string;
  calls: SeenCall[];
  /** TLS handshakes refused (e.g. no client certificate on the mTLS proxy). */
  refused: number;
  close(): Promise<void>;
}

/** `apiKey`: answer every call without `authorization: Bearer <apiKey>` with UNAUTHENTICATED, as a cluster refusing the key does. */
export async function startTlsProxy(opts: { upstream: string; certs: Certificates; mutual: boolean; apiKey?: string }): Promise<TlsProxy> {
  const { certs } = opts;
  const upstream = http2.connect(`http://${opts.upstream}`);
  upstream.on('error', () => undefined);
  const server = http2.createSecureServer({
    cert: fs.readFileSync(certs.serverCert),
    key: fs.readFileSync(certs.serverKey),
    ...(opts.mutual ? { ca: fs.readFileSync(certs.ca), requestCert: true, rejectUnauthorized: true } : {}),
  });
  const proxy: TlsProxy = { address: '', calls: [], refused: 0, close: async () => undefined };
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => { sessions.add(s); s.on('close', () => sessions.delete(s)); });
  server.on('tlsClientError', () => { proxy.refused += 1; });
  server.on('stream', (stream, headers) => {
    const peer = (stream.session?.socket as TLSSocket | undefined)?.getPeerCertificate?.();
    const subject = peer?.subject?.CN;
    const auth = headers.authorization;
    proxy.calls.push({ path: String(headers[':path']), authorization: Array.isArray(auth) ? auth[0] : auth, clientSubject: Array.isArray(subject) ? subject[0] : subject });
    if (opts.apiKey !== undefined && auth !== `Bearer ${opts.apiKey}`) {
      // A trailers-only gRPC answer: the status in the headers, no message.
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'the API key is not valid' }, { endStream: true });
      return;
    }
    const out: http2.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':') || k === ':method' || k === ':path') out[k] = v;
    const up = upstream.request(out);
    let trailers: http2.OutgoingHttpHeaders = {};
    up.on('trailers', (t) => { trailers = t; });
    up.on('response', (h, flags) => {
      const back: http2.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(h)) if (!k.startsWith(':') || k === ':status') back[k] = v;
      if (stream.closed) return;
      // A trailers-only answer (an error status) ends in its headers.
      if (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) stream.respond(back, { endStream: true });
      else {
        stream.respond(back, { waitForTrailers: true });
        up.pipe(stream);
      }
    });
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    stream.pipe(up);
    const cancel = () => { if (!up.closed) up.close(http2.constants.NGHTTP2_CANCEL); };
    stream.on('close', cancel);
    stream.on('error', cancel);
    up.on('error', () => { if (!stream.closed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  proxy.address = `127.0.0.1:${port}`;
  proxy.close = async () => {
    for (const s of sessions) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    upstream.destroy();
  };
  return proxy;
}
