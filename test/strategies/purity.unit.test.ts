/** src/strategies must stay importable from workflow code: imports only from itself and the pure
 * layers below it (src/compiled, src/shared), and no clock, randomness, timers, process or I/O.
 * (eslint.config.js also holds src/strategies to the workflow bundle's rules.) */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

const dir = join(__dirname, '../../src/strategies');
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));

test('src/strategies has files to check', () => {
  expect(files).toEqual(expect.arrayContaining(['types.ts', 'validate.ts', 'router.ts']));
});

test.each(files)('%s imports only pure modules and uses no clock, randomness, timers or process', (f) => {
  const src = readFileSync(join(dir, f), 'utf8');
  const imports = [...src.matchAll(/from\s+'([^']+)'/g)].map((m) => m[1]);
  for (const i of imports) expect(i.startsWith('../shared/') || i.startsWith('../compiled/types') || i.startsWith('./')).toBe(true);
  expect(src).not.toMatch(/Date\.now|new Date\(|Math\.random|setTimeout|setInterval|process\.|require\(/);
  expect(src.split('\n')[0]).toMatch(/^\/\*\*/); // an opening comment saying what the file is for
});
