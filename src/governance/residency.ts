/**
 * `policies.data_residency` and `policies.allowed_connectors` as pure gates (the Agent Definition Specification): a model,
 * tool or memory collection backend that declares a `region` outside the agent's residency, or a
 * tool whose `connector` is not allowed, is refused before the call is made. The reason names the
 * field to change. The compiler reports the same breaches (AGF140, AGF562) with the same wording.
 */

/** Whether `region` lies inside `residency`: equal, or a sub-region of it (`eu-west-1` is in `eu`). */
export function withinResidency(region: string, residency: string): boolean {
  const r = region.toLowerCase();
  const want = residency.toLowerCase();
  return r === want || r.startsWith(`${want}-`);
}

/**
 * Why a resource (a model, tool, collection backend, artifact store) hosted in `region` breaks
 * `residency`, or undefined when it does not (no residency or no region declared: nothing to
 * check). `what` names the resource, `fix` says where to change it.
 */
export function residencyBreach(what: string, region: string | undefined, residency: string | undefined, fix: string): string | undefined {
  if (!residency || !region || withinResidency(region, residency)) return undefined;
  return `${what} is in region \`${region}\`, outside \`policies.data_residency: ${residency}\`; ${fix}`;
}

/** Why a memory collection's backend may not be read or written under `residency` (its `backend.region` outside it), or undefined. */
export function collectionRefusal(residency: string | undefined, c: { collection_id: string; backend: Record<string, unknown> }): string | undefined {
  const region = typeof c.backend.region === 'string' ? c.backend.region : undefined;
  return residencyBreach(`collection ${c.collection_id}'s backend`, region, residency, 'use a collection whose `backend.region` is in it; nothing was read or written');
}

export interface GatePolicies {
  allowed_connectors: readonly string[];
  data_residency?: string;
}

/** Why a call to this model may not be made, or undefined when it may. */
export function modelRefusal(pol: GatePolicies, model: { model_id: string; region?: string }): string | undefined {
  if (!pol.data_residency) return undefined;
  if (!model.region) return undefined;
  if (withinResidency(model.region, pol.data_residency)) return undefined;
  return `model ${model.model_id} is in region '${model.region}', outside policies.data_residency '${pol.data_residency}': use a model whose \`region\` is in '${pol.data_residency}'`;
}

/** Why a call to this tool is refused before it runs, or undefined when it may run. */
export function toolRefusal(pol: GatePolicies, tool: { tool_id: string; connector?: string; region?: string }): string | undefined {
  if (tool.connector && !pol.allowed_connectors.includes(tool.connector)) {
    const allowed = pol.allowed_connectors.length ? pol.allowed_connectors.join(', ') : '(none: all connector access is denied)';
    return `tool ${tool.tool_id} uses connector '${tool.connector}', which policies.allowed_connectors does not list (allowed: ${allowed}); the call was refused before it ran`;
  }
  if (pol.data_residency && tool.region && !withinResidency(tool.region, pol.data_residency)) {
    return `tool ${tool.tool_id} is in region '${tool.region}', outside policies.data_residency '${pol.data_residency}'; the call was refused before it ran`;
  }
  return undefined;
}
