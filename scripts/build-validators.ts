/**
 * `npm run build:validators`: writes src/compiler/validators.generated.ts, Ajv's standalone code for
 * the compiler's front-matter validators (src/compiler/validator-code.ts). Run it after changing a
 * schema in src/compiler/schemas.ts or upgrading Ajv; `npm run build` runs it first, and
 * test/compiler/validators-generated.test.ts fails while the committed file is stale.
 */
import * as path from 'path';
import { GENERATED_VALIDATORS_FILE, writeValidatorsModule } from '../src/compiler/validator-code';

const changed = writeValidatorsModule();
process.stdout.write(`${path.relative(process.cwd(), GENERATED_VALIDATORS_FILE)} ${changed ? 'written' : 'already current'}\n`);
