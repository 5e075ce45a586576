/**
 * `loom codec-server [--port N] [--host H] [--origins URL,…]`: serve the payload codec endpoint
 * (POST /decode, /encode) for the Temporal Web UI, with the keys of LOOM_CODEC_KEY /
 * LOOM_CODEC_KEY_FILE. Point the Web UI at it (Settings → Data Encoder, or the UI server's
 * TEMPORAL_CODEC_ENDPOINT). Runs until Ctrl-C / SIGTERM.
 */
import { defineCommand } from '../args';
import { UsageError } from '../../operator/errors';

const DEFAULT_ORIGINS = 'http://localhost:8233,http://127.0.0.1:8233,http://localhost:8080';

export const run = defineCommand(
  'codec-server',
  {
    usage: 'loom codec-server [--port 8888] [--host 127.0.0.1] [--origins http://localhost:8233,…]',
    options: { port: { type: 'string', value: 'PORT', help: 'the port to listen on (default 8888, 0 for a free one).' }, host: { type: 'string', value: 'HOST', help: 'the address to listen on (default 127.0.0.1).' }, origins: { type: 'string', value: 'URL,…', help: 'the Web UI origins allowed by CORS, comma-separated (else LOOM_CODEC_CORS_ORIGINS).' } },
    positionals: { min: 0, max: 0 },
  },
  async (args) => {
    const port = args.flags.port === undefined ? 8888 : Number(args.flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (0-65535), got '${String(args.flags.port)}'`);
    const { codecKeysFromEnv } = await import('../../codec/keys');
    const { startCodecServer } = await import('../../codec/server');
    const keys = codecKeysFromEnv();
    if (!keys.byId.size) {
      process.stderr.write('loom codec-server: no key configured: set LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE to the keys the workers use\n');
      return 1;
    }
    const origins = String(args.flags.origins ?? process.env.LOOM_CODEC_CORS_ORIGINS ?? DEFAULT_ORIGINS).split(',').map((s) => s.trim()).filter(Boolean);
    const srv = await startCodecServer({ keys, port, host: typeof args.flags.host === 'string' ? args.flags.host : undefined, origins });
    process.stdout.write(`codec endpoint: ${srv.url} (keys: ${[...keys.byId.keys()].join(', ')}; Web UI origins: ${origins.join(', ')})\n`);
    process.stdout.write(`Web UI: Settings → Data Encoder → ${srv.url} (or TEMPORAL_CODEC_ENDPOINT=${srv.url} for the UI server) — Ctrl-C to stop\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await srv.close();
    return 0;
  },
);
