import type { OperationDeclaration, TokenKind } from '../../src/core/operation.js';
import { OPERATIONS as DECLARED } from '../../src/resources/namespaces.js';

/** Every typed operation's declaration, in the order of the provider reference. */
export const OPERATIONS: readonly OperationDeclaration[] = DECLARED;
const scopesOf = (op: OperationDeclaration) => op.scopes;

const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/** The method as a user calls it: `accounts.transactions.list(accountNumber, query)`. */
export function signature(op: OperationDeclaration): string {
  const args = op.params.map(camel);
  if (op.input === 'body') args.push('body');
  if (op.input === 'query') args.push('query');
  if (op.input === 'optional-query') args.push('query?');
  args.push('options?');
  return `${op.name}(${args.join(', ')})`;
}

const TOKEN: Record<TokenKind, string> = {
  client: 'client credentials (`ob.…`)',
  customer: 'customer (`ob.forCustomer(tokens).…`)',
  both: 'both (client on `ob`, customer on a session)',
};

/** docs/operations.md, generated from the operation declarations. */
export function operationsPage(): string {
  const rows = OPERATIONS.map((op) => {
    const path = op.endpoint ? `${op.path} (\`endpoints.${op.endpoint}\`)` : op.path;
    const completeness = `${op.completeness}${op.unofficial ? ', unofficial' : ''} (${op.source})`;
    return `| \`${signature(op)}\` | \`${op.method} ${path}\` | ${TOKEN[op.token]} | ${scopesOf(op).map((s) => `\`${s}\``).join(' ') || '—'} | ${op.pagedItems ? `yes (\`${op.pagedItems}\`)` : 'no'} | ${completeness} |`;
  });
  return `# Typed operations

<!-- Generated from the operation declarations (src/resources/*.ts) by \`npm run docs:operations\`. Do not edit by hand: \`npm test\` fails when this page and the code disagree. -->

Every operation the SDK has a typed method for: its HTTP method and path under \`baseUrl\` (path parameters are
encoded by the SDK), the token it is sent with, the scope it asks for (override any of them with the
\`operationScopes\` client option; the defaults are exported as \`OPERATION_SCOPES\`), whether it pages, and how much
of it the provider documents (§ numbers refer to the provider's API reference as collected).

Every method takes the per-call options (\`{ idempotencyKey, connectionId, signal, timeout, maxRetries, headers }\`)
last and returns a promise with \`.withResponse()\`; paged ones return a promise that is also async-iterable over
every item of every page, with \`.pages()\` for page-by-page iteration. A \`customer\` operation called on \`ob\`
rejects with \`ValidationError\` (\`customer_token_required\`) and sends nothing.

| method | HTTP | token | scope | paged | completeness |
|---|---|---|---|---|---|
${rows.join('\n')}

${OPERATIONS.length} typed operations. Anything else goes through \`ob.request()\` / \`session.request()\`:
see [other operations](other-operations.md).
`;
}
