import { isRecord } from '../core/validation.js';

// A result's text when `structuredContent` carries its data (DESIGN "Agents", row "written for a
// model"): a `name: value` line per member, nested members dotted, and a list as a table: its
// column names once, then one row per item (a list within an item as indented rows under it).
// Nulls, empty values, redacted ones and the bank's extension items are left out; every id,
// reference, amount and status stays, so that a client that shows the model only text still has
// what the next call needs. Strings are quoted (JSON), so no value writes a line of its own.

/** Rows of a list written out; the rest are counted. */
const MAX_ROWS = 50;
/** How deep nested objects are flattened into dotted names. */
const MAX_DEPTH = 4;

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
/** A value that says nothing: absent, empty, or masked whole. */
const silent = (name: string, value: unknown): boolean => value === null || value === undefined || value === '' || value === '[redacted]' || name === 'custom_properties' || (Array.isArray(value) && value.length === 0);

/** The members of an object, flattened: scalars (and lists of scalars) by dotted name, lists of objects apart. */
function flatten(value: Record<string, unknown>, prefix = '', depth = 0): { cells: [string, string][]; lists: [string, unknown[]][] } {
  const cells: [string, string][] = [];
  const lists: [string, unknown[]][] = [];
  for (const [name, member] of Object.entries(value)) {
    if (silent(name, member)) continue;
    const path = `${prefix}${name}`;
    if (isScalar(member) || (Array.isArray(member) && member.every(isScalar))) cells.push([path, JSON.stringify(member)]);
    else if (Array.isArray(member)) lists.push([path, member]);
    else if (isRecord(member) && depth < MAX_DEPTH) {
      const inner = flatten(member, `${path}.`, depth + 1);
      cells.push(...inner.cells);
      lists.push(...inner.lists);
    }
  }
  return { cells, lists };
}

/** A list as a table: `name: N items (a | b | c):`, then a row per item, indented by `indent`. */
function table(name: string, items: unknown[], indent: string): string[] {
  const rows = items.slice(0, MAX_ROWS).map((item) => (isRecord(item) ? flatten(item) : { cells: [['', JSON.stringify(item)]] as [string, string][], lists: [] }));
  const columns = [...new Set(rows.flatMap((row) => row.cells.map(([column]) => column)))];
  const heading = columns.length > 0 && columns[0] !== '' ? ` (${columns.join(' | ')})` : '';
  const lines = [`${indent}${name}: ${items.length} item${items.length === 1 ? '' : 's'}${heading}:`];
  for (const row of rows) {
    const cells = new Map(row.cells);
    lines.push(`${indent}- ${columns.map((column) => cells.get(column) ?? '').join(' | ')}`);
    for (const [inner, list] of row.lists) lines.push(...table(inner, list, `${indent}  `));
  }
  if (items.length > MAX_ROWS) lines.push(`${indent}… and ${items.length - MAX_ROWS} more`);
  return lines;
}

/** The text of a result: its members, nested ones dotted, each list a table. */
export function summaryOf(data: Record<string, unknown>): string {
  const { cells, lists } = flatten(data);
  const empty = Object.entries(data).filter(([name, member]) => Array.isArray(member) && member.length === 0 && name !== 'custom_properties');
  const lines = [...cells.map(([name, text]) => `${name}: ${text}`), ...empty.map(([name]) => `${name}: none`), ...lists.flatMap(([name, list]) => table(name, list, ''))];
  return lines.length > 0 ? lines.join('\n') : 'Done: the answer carried no data.';
}
