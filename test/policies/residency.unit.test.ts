/** data_residency and allowed_connectors gates: what is refused, and the reason names the field. */
import { collectionRefusal, modelRefusal, residencyBreach, toolRefusal, withinResidency } from '../../src/governance/residency';

describe('residency and connector gates', () => {
  it('a region is within a residency when equal or a sub-region', () => {
    expect(withinResidency('eu', 'eu')).toBe(true);
    expect(withinResidency('eu-west-1', 'eu')).toBe(true);
    expect(withinResidency('EU-central-1', 'eu')).toBe(true);
    expect(withinResidency('us-east-1', 'eu')).toBe(false);
    expect(withinResidency('eu', 'eu-west-1')).toBe(false);
    expect(withinResidency('europe', 'eu')).toBe(false);
  });

  it('models: refused only when both a residency and a foreign region are declared', () => {
    expect(modelRefusal({ allowed_connectors: [], data_residency: 'eu' }, { model_id: 'm', region: 'us-east-1' })).toMatch(/model m is in region 'us-east-1', outside policies\.data_residency 'eu'/);
    expect(modelRefusal({ allowed_connectors: [], data_residency: 'eu' }, { model_id: 'm', region: 'eu-west-1' })).toBeUndefined();
    expect(modelRefusal({ allowed_connectors: [], data_residency: 'eu' }, { model_id: 'm' })).toBeUndefined();
    expect(modelRefusal({ allowed_connectors: [] }, { model_id: 'm', region: 'us' })).toBeUndefined();
  });

  it('tools: a connector outside allowed_connectors is refused (an empty list denies every connector)', () => {
    expect(toolRefusal({ allowed_connectors: ['sharepoint'] }, { tool_id: 't', connector: 'jira' })).toMatch(/connector 'jira', which policies\.allowed_connectors does not list \(allowed: sharepoint\)/);
    expect(toolRefusal({ allowed_connectors: [] }, { tool_id: 't', connector: 'jira' })).toMatch(/none: all connector access is denied/);
    expect(toolRefusal({ allowed_connectors: ['jira'] }, { tool_id: 't', connector: 'jira' })).toBeUndefined();
    expect(toolRefusal({ allowed_connectors: [] }, { tool_id: 't' })).toBeUndefined();
    expect(toolRefusal({ allowed_connectors: [], data_residency: 'us' }, { tool_id: 't', region: 'ap-south-1' })).toMatch(/outside policies\.data_residency 'us'/);
  });
});

describe('memory collection backends and residency', () => {
  it('a backend region outside the residency is refused, naming the collection and the field; no residency or no region: allowed', () => {
    const c = (region?: string) => ({ collection_id: 'notes', backend: { type: 'postgres', ...(region ? { region } : {}) } });
    expect(collectionRefusal('eu', c('us-east-1'))).toBe("collection notes's backend is in region `us-east-1`, outside `policies.data_residency: eu`; use a collection whose `backend.region` is in it; nothing was read or written");
    expect(collectionRefusal('eu', c('eu-west-1'))).toBeUndefined();
    expect(collectionRefusal('eu', c())).toBeUndefined();
    expect(collectionRefusal(undefined, c('us-east-1'))).toBeUndefined();
  });
  it('residencyBreach is the one wording of the compile-time and run-time checks', () => {
    expect(residencyBreach('the tenant artifact store', 'ap-south-1', 'eu', 'fix it')).toBe('the tenant artifact store is in region `ap-south-1`, outside `policies.data_residency: eu`; fix it');
  });
});
