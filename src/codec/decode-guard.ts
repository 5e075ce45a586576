/**
 * The worker's decoding guard: a payload a client sends a run that the worker cannot decode (an
 * encoding no converter knows, e.g. `temporal workflow signal --input-meta encoding=binary/evil`;
 * `binary/encrypted` under a key this worker lacks; `json/plain` that is not JSON) must not jam
 * the run. Left alone, the codec's throw fails the whole activation, or the payload converter's
 * throw inside the workflow sandbox does (the SDK converts signal arguments before any handler or
 * interceptor runs), and every workflow task after it fails the same way. The guard is the outer
 * payload codec of every worker: in a workflow's serialization context it hands such a payload on
 * as a JSON `{"__loom_undecodable": {encoding, error}}` object, which no payload schema accepts, so
 * a signal becomes a run warning, an update is refused and a query answers an error. In an
 * activity's context (activity inputs and results) it throws as before: the task fails, naming
 * the key or encoding. A workflow input that arrives undecodable fails the workflow task as well
 * (the run shell refuses the marker), as before.
 */
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { encodingTypes, METADATA_ENCODING_KEY } from '@temporalio/common';
import { undecodable } from '../shared/payload-check';

/** The encodings Temporal's default payload converter reads (the workers use it). */
const READABLE = new Set<string>([encodingTypes.METADATA_ENCODING_NULL, encodingTypes.METADATA_ENCODING_RAW, encodingTypes.METADATA_ENCODING_JSON]);

const text = (b: Uint8Array | null | undefined): string => Buffer.from(b ?? []).toString('utf8');

function marker(encoding: string, error: string): Payload {
  return {
    metadata: { [METADATA_ENCODING_KEY]: Buffer.from(encodingTypes.METADATA_ENCODING_JSON) },
    data: Buffer.from(JSON.stringify(undecodable(encoding || '(none)', error))),
  };
}

/** Why the default converter could not read `p`, or undefined when it can. */
export function unreadable(p: Payload): string | undefined {
  const encoding = text(p.metadata?.[METADATA_ENCODING_KEY]);
  if (!READABLE.has(encoding)) return `no converter for encoding '${encoding}'`;
  if (encoding !== encodingTypes.METADATA_ENCODING_JSON) return undefined;
  try {
    JSON.parse(text(p.data));
    return undefined;
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
}

export class DecodeGuardCodec implements PayloadCodec {
  /** `inner`: the codecs it wraps, in encoding order (e.g. the AES-GCM codec). */
  constructor(private readonly inner: PayloadCodec[] = []) {}

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    let out = payloads;
    for (const c of this.inner) out = await c.encode(out, context);
    return out;
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const guarded = context?.type !== 'activity';
    return Promise.all(
      payloads.map(async (p) => {
        const encoding = text(p.metadata?.[METADATA_ENCODING_KEY]);
        let out = p;
        try {
          for (const c of [...this.inner].reverse()) [out] = await c.decode([out], context);
        } catch (e) {
          if (!guarded) throw e;
          return marker(encoding, e instanceof Error ? e.message : String(e));
        }
        const why = guarded ? unreadable(out) : undefined;
        return why ? marker(text(out.metadata?.[METADATA_ENCODING_KEY]), why) : out;
      }),
    );
  }
}
