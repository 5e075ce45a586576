/** `observability` lint on an active agent, the OTLP endpoints of the exported signals; then `release`. */
import { checkRelease } from '../release';
import { asObj, asStr, isObj } from '../values';
import type { AgentBuild, Ctx } from './context';

export function lintObservability(ctx: Ctx, b: AgentBuild): void {
  const { d, active } = b;
  const obs = d.observability;
  if (active && obs === undefined && b.toolRefs.some((t) => t.side_effects)) ctx.warn([], 'AGL005', 'active agent with side-effect tools has no `observability`; add tracing/metrics/logs');
  if (active && isObj(obs)) for (const sig of ['tracing', 'metrics', 'logs']) {
    if (asObj(obs[sig]).exporter === 'console') ctx.err(['observability', sig, 'exporter'], 'AGF033', '`exporter: console` is not permitted on an active agent; use `otlp` (or `none`)');
  }
  const signalOff = (s: string): boolean => !isObj(asObj(obs)[s]) || asObj(asObj(obs)[s]).enabled === false || asObj(asObj(obs)[s]).exporter === 'none';
  if (active && isObj(obs) && ['tracing', 'metrics', 'logs'].every(signalOff))
    ctx.warn(['observability'], 'AGL044', 'tracing, metrics and logs are all disabled on an active (production) agent; enable at least one with `exporter: otlp`', true);
  checkOtlpEndpoints(ctx, obs);
  checkRelease(ctx, d.release, asStr(d.version));
}

/**
 * AGF180: the Agent Definition Specification requires `endpoint` when a signal exports over OTLP
 * (`exporter` defaults to otlp). Only the signals the worker exports (tracing, metrics: src/telemetry)
 * and only when switched on (`enabled: true`, the specification's default being false) need one.
 */
function checkOtlpEndpoints(ctx: Ctx, obs: unknown): void {
  for (const sig of ['tracing', 'metrics'] as const) {
    const t = asObj(asObj(obs)[sig]);
    if (t.enabled !== true || (t.exporter ?? 'otlp') !== 'otlp') continue;
    if (typeof t.endpoint === 'string' && t.endpoint.trim() !== '') continue;
    ctx.err(['observability', sig, t.exporter === undefined ? 'enabled' : 'exporter'], 'AGF180',
      `${sig} exports over OTLP but has no \`endpoint\`; add \`endpoint: "https://<collector>/v1/${sig === 'tracing' ? 'traces' : 'metrics'}"\` (the collector's OTLP/HTTP URL) or set \`exporter: none\``);
  }
}
