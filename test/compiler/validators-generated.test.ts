/**
 * The standalone validators generated at build time (src/compiler/validators.generated.ts): the
 * committed file is what the generator writes today, the compiler uses it, it reports exactly what
 * the run-time Ajv compilation reports, and a stale file is not used.
 */
import * as fs from 'fs';
import * as path from 'path';
import { GENERATED_VALIDATORS_FILE, validatorsModuleText } from '../../src/compiler/validator-code';
import { BASE, INVALID, ROOT } from './helpers';

const EXAMPLES = ['customer-support', 'demo', 'execution-loop', 'strategies'].map((d) => path.join(ROOT, 'examples', d));

/** Schemas a registry may carry as tool, input or output schemas, valid and not. */
const USER_SCHEMAS: object[] = [
  { type: 'object', properties: { q: { type: 'string', minLength: 1 } }, required: ['q'] },
  { type: 'strin' },
  { properties: { a: { type: 1 } }, required: 'a' },
  { items: [{}], additionalItems: 3 },
  { pattern: '(' },
  { format: 'no-such-format', 'x-vendor': true },
  { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
  { $schema: 3 },
  { anyOf: [], enum: 'x' },
];

/** Every diagnostic of the invalid corpus and the examples, and what the meta-schema check says of USER_SCHEMAS. */
function everything(compiler: typeof import('../../src/compiler'), validate: typeof import('../../src/compiler/validate')) {
  const invalid = fs.readdirSync(INVALID).sort().map((f) => compiler.validatePaths([path.join(INVALID, f)], { registry: BASE }));
  const examples = EXAMPLES.map((dir) => compiler.validatePaths([dir]));
  return { invalid, examples, schemas: USER_SCHEMAS.map((s) => validate.isValidJsonSchema(s)) };
}

test('the committed generated validators are what the generator writes for the current schemas and Ajv', () => {
  const committed = fs.readFileSync(GENERATED_VALIDATORS_FILE, 'utf8');
  // On failure: `npm run build:validators` rewrites it.
  expect(committed === validatorsModuleText() ? 'current' : 'stale: run npm run build:validators').toBe('current');
});

test('the generated validators report exactly what validators compiled at run time report', () => {
  jest.isolateModules(() => {
    const compiler = require('../../src/compiler') as typeof import('../../src/compiler');
    const validate = require('../../src/compiler/validate') as typeof import('../../src/compiler/validate');
    expect(validate.validatorSource()).toBe('generated');
    const fromGenerated = everything(compiler, validate);
    expect(validate.validatorSource('compiled')).toBe('compiled');
    const fromCompiled = everything(compiler, validate);
    // The corpus exercises the schemas: many diagnostics, and the meta-schema check both ways.
    expect(fromCompiled.invalid.flat().length).toBeGreaterThan(100);
    expect(fromCompiled.schemas.filter((r) => r.ok).length).toBeGreaterThan(1);
    expect(fromCompiled.schemas.filter((r) => !r.ok).length).toBeGreaterThan(3);
    expect(fromGenerated).toEqual(fromCompiled);
  });
});

test('generated code that no longer matches the schemas is not used: the schemas are compiled instead', () => {
  jest.isolateModules(() => {
    jest.doMock('../../src/compiler/validators.generated', () => ({ FINGERPRINT: 'from-other-schemas', agent: () => true }));
    const compiler = require('../../src/compiler') as typeof import('../../src/compiler');
    const validate = require('../../src/compiler/validate') as typeof import('../../src/compiler/validate');
    expect(validate.validatorSource()).toBe('compiled');
    expect(validate.validatorFor('agent')({})).toBe(false);
    const diags = compiler.validatePaths([path.join(INVALID, fs.readdirSync(INVALID).sort()[0])], { registry: BASE });
    expect(diags.some((d) => d.severity === 'error')).toBe(true);
  });
});
