/*
 * The sandbox's own request checks, written from the service specification's field tables, not
 * from the SDK's schemas: a mistake in an SDK schema then shows up as a failing test instead of
 * being mirrored by the sandbox. A missing required field is always MISSING_FIELD; a present field
 * of the wrong type or outside its values is INVALID_FIELD.
 */

/** One field of a request table. */
export type FieldRule =
  | { type: 'string'; required?: boolean; values?: readonly string[]; pattern?: RegExp; max?: number; describe?: string }
  | { type: 'number'; required?: boolean; positive?: boolean; integer?: boolean }
  | { type: 'object'; required?: boolean; fields?: FieldTable }
  | { type: 'array'; required?: boolean; items?: FieldRule };

/** A request table: field name → rule. Fields not in the table are left alone, as the service does. */
export type FieldTable = Readonly<Record<string, FieldRule>>;

/** The first problem found, as the service reports it. */
export interface FieldProblem {
  errorCode: 'MISSING_FIELD' | 'INVALID_FIELD';
  field: string;
  message: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks `body` against `table`; every missing required field is reported before any invalid one. */
export function checkFields(table: FieldTable, body: Record<string, unknown>, prefix = ''): FieldProblem | undefined {
  return missing(table, body, prefix) ?? invalid(table, body, prefix);
}

function missing(table: FieldTable, body: Record<string, unknown>, prefix: string): FieldProblem | undefined {
  for (const [name, rule] of Object.entries(table)) {
    const field = prefix + name;
    const value = body[name];
    if (value === undefined || value === null) {
      if (rule.required) return { errorCode: 'MISSING_FIELD', field, message: `${field} is required` };
      continue;
    }
    if (rule.type === 'object' && rule.fields && isRecord(value)) {
      const inner = missing(rule.fields, value, `${field}.`);
      if (inner) return inner;
    }
  }
  return undefined;
}

function invalid(table: FieldTable, body: Record<string, unknown>, prefix: string): FieldProblem | undefined {
  for (const [name, rule] of Object.entries(table)) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    const problem = checkValue(rule, value, prefix + name);
    if (problem) return problem;
  }
  return undefined;
}

function checkValue(rule: FieldRule, value: unknown, field: string): FieldProblem | undefined {
  const bad = (message: string): FieldProblem => ({ errorCode: 'INVALID_FIELD', field, message: `${field} ${message}` });
  switch (rule.type) {
    case 'string':
      if (typeof value !== 'string') return bad('must be a string');
      if (rule.values && !rule.values.includes(value)) return bad(`must be one of ${rule.values.join(', ')}`);
      if (rule.max !== undefined && value.length > rule.max) return bad(`must have at most ${rule.max} characters`);
      if (rule.pattern && !rule.pattern.test(value)) return bad(`must be ${rule.describe ?? 'well formed'}`);
      return undefined;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return bad('must be a number');
      if (rule.positive && value <= 0) return bad('must be greater than 0');
      if (rule.integer && !Number.isInteger(value)) return bad('must be an integer');
      return undefined;
    case 'object':
      if (!isRecord(value)) return bad('must be an object');
      return rule.fields ? invalid(rule.fields, value, `${field}.`) : undefined;
    case 'array':
      if (!Array.isArray(value)) return bad('must be an array');
      if (rule.items) {
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (item === undefined || item === null) return bad(`[${i}] must not be null`);
          if (rule.items.type === 'object' && rule.items.fields && isRecord(item)) {
            const inner = checkFields(rule.items.fields, item, `${field}.${i}.`);
            if (inner) return inner;
          }
          const problem = checkValue(rule.items, item, `${field}.${i}`);
          if (problem) return problem;
        }
      }
      return undefined;
  }
}

const str = (extra: Partial<Extract<FieldRule, { type: 'string' }>> = {}): FieldRule => ({ type: 'string', max: 255, ...extra });
const req = (extra: Partial<Extract<FieldRule, { type: 'string' }>> = {}): FieldRule => str({ required: true, ...extra });
const DATE = { pattern: /^\d{4}-\d{2}-\d{2}$/, describe: 'a date YYYY-MM-DD' };

/** `custom_properties`: an array of `{id, description, type, value}`, all strings (§2.5). */
const customProperties: FieldRule = {
  type: 'array',
  items: { type: 'object', fields: { id: str(), description: str(), type: str(), value: str() } },
};

/** The fields of a mandate (§11.3's table; §11.1's guide sends the same, plus `custom_properties`). */
const MANDATE: FieldTable = {
  reference: req(),
  narration: req(),
  amount: { type: 'number', required: true, positive: true },
  start_date: str(DATE),
  end_date: str(DATE),
  frequency: str({ values: ['DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY'] }),
  destination_bank_code: str(),
  destination_account: str(),
  destination_account_name: str(),
  callback_url: str({ max: 2048 }),
};

/** The spec's request tables, per operation. */
export const FIELD_TABLES = {
  /** `POST /cards` (seed spec, "Create card"). */
  'cards.create': {
    product_id: str(),
    card_type: str({ values: ['VIRTUAL', 'PHYSICAL', 'OTHER'] }),
    card_mode: str({ values: ['DEBIT', 'CREDIT', 'PREPAID', 'OTHER'] }),
    card_status: req({ values: ['ACTIVE', 'INACTIVE', 'BLOCKED', 'LOST', 'STOLEN'] }),
    card_currency: str({ values: ['NGN'] }),
    account_number: req(),
    card_holder_name: req(),
    // A PIN is 4 to 12 digits (ISO 9564); the spec's table types it as a string.
    card_default_pin: req({ pattern: /^\d{4,12}$/, describe: '4 to 12 digits' }),
    card_expiry: {
      type: 'object',
      required: true,
      fields: { month: req({ pattern: /^(0[1-9]|1[0-2])$/, describe: 'two digits, 01 to 12' }), year: req({ pattern: /^\d{4}$/, describe: 'four digits' }) },
    },
    card_address: { type: 'object', fields: { street: str(), city: str(), state: str(), country: str() } },
    custom_properties: customProperties,
  },
  /** `POST /accounts` (§7.1): nothing flagged required. */
  'accounts.create': {
    customer_ref: str(),
    product_id: str(),
    name_on_account: str(),
    dob: str(DATE),
    first_name: str(),
    middle_name: str(),
    surname: str(),
    gender: str({ values: ['M', 'F'] }),
    email: str(),
    phone: str(),
    proof_of_id: { type: 'object' },
    proof_of_address: { type: 'object' },
    address: { type: 'object' },
    next_of_kin: { type: 'object' },
    custom_properties: customProperties,
  },
  /** `POST /accounts/{account_number}/holds` (§7.6). */
  'accounts.holds.create': {
    reference: req(),
    amount: { type: 'number', required: true, positive: true },
    narration: req(),
    hold_start_timestamp: req(),
    hold_end_timestamp: req(),
    status: req({ values: ['ACTIVE', 'INACTIVE'] }),
    custom_properties: customProperties,
  },
  /** `PATCH /accounts/{account_number}/holds/{hold_reference}` (§7.7). */
  'accounts.holds.update': {
    status: req({ values: ['ACTIVE', 'INACTIVE'] }),
  },
  /** `POST /transactions/enquiry` (§8.1): no flag shown; bank code and account number are needed to name anyone. */
  'transfers.enquiry': {
    destination_bank_code: req(),
    destination_account_number: req(),
    custom_properties: customProperties,
  },
  /** The transfer (§8.2, unofficial: the fields a working integration sends). */
  'transfers.create': {
    amount: { type: 'number', required: true, positive: true },
    source_account_number: req(),
    destination_bank_code: req(),
    destination_account_number: req(),
    narration: str(),
    reference: str(),
    custom_properties: customProperties,
  },
  /** `POST /bills/{category_id}/billers/{biller_id}/reference/{bill_reference}` (§9.4). */
  'bills.pay': {
    amount: { type: 'number', required: true, positive: true },
    source_account_number: req(),
    payer_info: { type: 'object', required: true, fields: { name: str(), email: str(), phone: str() } },
    product_info: { type: 'object' },
    custom_properties: customProperties,
  },
  /** `POST /disputes` (§10.2). */
  'disputes.create': {
    reference: req(),
    description: req(),
    customer_id: req(),
    dispute_category_id: req(),
    amount: { type: 'number', required: true, positive: true },
    custom_properties: customProperties,
  },
  /** `POST /direct-debits` (§11.1, from the guide; required as on the update page). */
  'directDebits.create': { ...MANDATE, custom_properties: customProperties },
  /** `PATCH /direct-debits/{mandate_id}` (§11.3). */
  'directDebits.update': { ...MANDATE, mandate_status: str({ values: ['ACTIVE', 'INACTIVE'] }) },
  /** `POST /direct-debits/{mandate_id}` (§11.4). */
  'directDebits.charge': {
    amount: { type: 'number', required: true, positive: true },
    reference: str(),
    narration: str(),
    custom_properties: customProperties,
  },
  /** Query of `GET /savings/{savings_id}/transactions` (§14.2): all optional. */
  'savings.transactions.list': {
    from: str(),
    to: str(),
    page: str({ pattern: /^[1-9]\d*$/, describe: 'an integer of at least 1' }),
  },
  /** Query of `GET /accounts/{account_number}/transactions` (§7.4). */
  'accounts.transactions.list': {
    from: req(DATE),
    to: req(DATE),
    page: str({ pattern: /^[1-9]\d*$/, describe: 'an integer of at least 1' }),
  },
} satisfies Record<string, FieldTable>;
