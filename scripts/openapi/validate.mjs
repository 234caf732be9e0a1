// Checks openapi.json with an independent OpenAPI 3.1 validator (@seriousme/openapi-schema-validator).
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';

const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
const result = await new Validator().validate(doc);
if (!result.valid) {
  console.error('openapi.json is not valid OpenAPI 3.1:', JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item)).length;
console.log(`openapi.json is valid OpenAPI ${doc.openapi}: ${operations} operations, ${Object.keys(doc.components.schemas).length} schemas`);
