/**
 * Reading front-matter values that may be of any shape: the narrowing helpers every compiler module
 * shares (a wrong type reads as absent; the schema has already reported it), plus `strip`, which drops
 * undefined keys so the compiled JSON holds only what was declared.
 */
import type { JsonObject, JsonValue, Status } from '../compiled/types';

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
export const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
export const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const asStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const asNum = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const asBool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
export const json = (v: unknown): JsonValue => (v === undefined ? null : (JSON.parse(JSON.stringify(v)) as JsonValue));
export const jsonObj = (v: unknown): JsonObject => (isObj(v) ? (json(v) as JsonObject) : {});
/** The lifecycle status of a definition; anything unknown reads as draft. */
export const statusOf = (d: Obj | undefined): Status => {
  const s = d?.status;
  return s === 'draft' || s === 'active' || s === 'deprecated' || s === 'disabled' ? s : 'draft';
};
export const strip = <T extends Obj>(o: T): T => {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
};
