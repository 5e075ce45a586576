/**
 * Each function of a protobuf message type made at its first call. protobufjs compiles five functions
 * per message type from generated source (encode, decode, verify, fromObject, toObject), all five the
 * first time any one of them is used. A command encodes a few requests and decodes their answers, so
 * it compiled three functions it never calls for every type it met: some twenty types in the answer
 * to a describe, about 40 ms of `loom status`'s start. With this, each function is compiled by
 * protobufjs's own generators when it is first called, and only then; what it does is unchanged.
 *
 * The CLI applies it (src/cli/client-session.ts) for the process it runs in; AgentloomClient in an
 * application does not change a library its host shares. It replaces `Type.prototype.setup` of
 * protobufjs 8, the version it was written against (SETUP_FOR_MAJOR): with another major version,
 * protobufjs keeps its own setup. test/cli/lazy-codecs.unit.test.ts checks that each function it makes
 * is the one protobufjs makes, for every type of Temporal's API.
 */
import * as protobuf from 'protobufjs/light';

/** The protobufjs major version whose `Type.prototype.setup` this one follows. */
export const SETUP_FOR_MAJOR = 8;

type Fn = (...args: unknown[]) => unknown;
type Made = (scope: Record<string, unknown>) => Fn;

/** What setup reads of a type and its root that protobufjs's typings keep private. */
interface Editions {
  _needsRecursiveFeatureResolution?: boolean;
  _edition?: string;
  _resolveFeaturesRecursive?(edition: string): void;
}

const LAZY = Symbol.for('agentloom.lazyCodecs');

/** Whether protobufjs's message types compile their functions one at a time (after `makeCodecsLazily`). */
export function codecsAreLazy(): boolean {
  return (protobuf.Type.prototype.setup as unknown as Record<symbol, boolean>)[LAZY] === true;
}

/**
 * Makes protobufjs compile each function of a message type at its first call. Returns false, and
 * changes nothing, for a protobufjs of another major version than SETUP_FOR_MAJOR (`version`: the
 * installed one, read from its package.json by default).
 */
export function makeCodecsLazily(version = installedVersion()): boolean {
  if (codecsAreLazy()) return true;
  if (Number(version?.split('.')[0]) !== SETUP_FOR_MAJOR) return false;
  const { encoder, decoder, verifier, converter, wrappers, Writer, Reader, util } = protobuf;
  function setup(this: protobuf.Type): protobuf.Type {
    // As protobufjs's setup: feature defaults (field presence) resolved before any function is made.
    const root = this.root as unknown as Editions | null;
    if (root?._needsRecursiveFeatureResolution) {
      const edition = root._edition || (this as unknown as Editions)._edition;
      if (edition) root._resolveFeaturesRecursive!(edition);
    }
    const types = this.fieldsArray.map((f) => f.resolve().resolvedType);
    // The constructor first, as protobufjs's setup makes it: making it removes the type's own decode and fromObject.
    const C = this.ctor;
    const type = this as unknown as Record<string, Fn>;
    const lazily = (name: string, make: () => Fn) => {
      type[name] = function firstCall(this: unknown, ...args: unknown[]) {
        const fn = make();
        type[name] = fn;
        return fn.apply(this, args);
      };
    };
    lazily('encode', () => (encoder(this) as unknown as Made)({ Writer, types, util }));
    lazily('decode', () => (decoder(this) as unknown as Made)({ Reader, types, util, C }));
    lazily('verify', () => (verifier(this) as unknown as Made)({ types, util }));
    const fromObject = () => (converter.fromObject(this) as unknown as Made)({ types, util, C });
    const toObject = () => (converter.toObject(this) as unknown as Made)({ types, util });
    const wrapper = wrappers[this.fullName];
    if (wrapper) {
      // A well-known type with its own conversions (google.protobuf.Any…): made at once, as protobufjs does.
      const wrapperThis = Object.create(this) as Record<string, unknown>;
      wrapperThis._ctor = C;
      wrapperThis.fromObject = fromObject();
      wrapperThis.toObject = toObject();
      type.fromObject = (wrapper.fromObject as Fn).bind(wrapperThis);
      type.toObject = (wrapper.toObject as Fn).bind(wrapperThis);
    } else {
      lazily('fromObject', fromObject);
      lazily('toObject', toObject);
    }
    return this;
  }
  (setup as unknown as Record<symbol, boolean>)[LAZY] = true;
  protobuf.Type.prototype.setup = setup;
  return true;
}

function installedVersion(): string | undefined {
  try {
    return (require('protobufjs/package.json') as { version?: string }).version;
  } catch {
    return undefined;
  }
}
