import { isRecord } from '../core/validation.js';

// A result's text when `structuredContent` carries its data (DESIGN "Agents", row "written for a
// model"): one `name: value` line per member that has a value, a list as its count and one line
// per item, nested members dotted. Nulls, empty values and the bank's extension items are left
// out; every id, reference, amount and status stays, so that a client that shows the model only
// text still has what the next call needs. Strings are quoted (JSON), so no value writes a line.

/** Items of a list written out; the rest are counted. */
const MAX_ITEMS = 50;
/** How deep nested objects are flattened into dotted names. */
const MAX_DEPTH = 4;

const scalar = (value: unknown): value is string | number | boolean => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** `[name, text]` of every member with a value, nested objects dotted. */
function pairs(value: Record<string, unknown>, prefix = '', depth = 0): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, member] of Object.entries(value)) {
    if (member === null || member === undefined || member === '' || name === 'custom_properties') continue;
    const path = `${prefix}${name}`;
    if (scalar(member)) out.push([path, JSON.stringify(member)]);
    else if (Array.isArray(member)) {
      if (member.length === 0) continue;
      out.push([path, member.every(scalar) ? JSON.stringify(member) : `${member.length} item${member.length === 1 ? '' : 's'}`]);
    } else if (isRecord(member) && depth < MAX_DEPTH) out.push(...pairs(member, `${path}.`, depth + 1));
  }
  return out;
}

/** One item of a list on one line. */
const itemLine = (item: unknown): string => (isRecord(item) ? `- ${pairs(item).map(([name, text]) => `${name}: ${text}`).join(', ')}` : `- ${JSON.stringify(item)}`);

/** The text of a result: its members, each list as its count and one line per item. */
export function summaryOf(data: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const [name, member] of Object.entries(data)) {
    if (Array.isArray(member) && !member.every(scalar)) {
      lines.push(`${name}: ${member.length} item${member.length === 1 ? '' : 's'}${member.length > 0 ? ':' : ''}`);
      lines.push(...member.slice(0, MAX_ITEMS).map(itemLine));
      if (member.length > MAX_ITEMS) lines.push(`… and ${member.length - MAX_ITEMS} more`);
    } else lines.push(...pairs({ [name]: member }).map(([path, text]) => `${path}: ${text}`));
  }
  return lines.length > 0 ? lines.join('\n') : 'Done: the answer carried no data.';
}
