import * as z from 'zod/mini';
import { rule } from '../core/validation.js';
import type { OperationName, TokenKind } from '../index.js';
import type { RefineWriter } from '../schemas.js';

// What a model reads of each tool (DESIGN "Agents", row "written for a model"), written once: what
// each tool is for and when to use it, what it needs and costs, and every input field with its unit
// and format. Amounts are naira, the major unit, at most two decimals; dates YYYY-MM-DD; account
// numbers ten-digit strings. No HTTP method or path: a model calls tools, not URLs.

/** What each tool does and when to use it, by tool name. */
export const PURPOSE: Readonly<Record<OperationName | 'transfers_wait' | 'connect_bank', string>> = {
  'customers.retrieve': "The connected customer's profile: name, contact details and ids (BVN and NIN show their last four digits).",
  'accounts.create': 'Opens a new bank account for a customer; the bank sends the account number to the customer later. Use it only when the person asks for a new account.',
  'accounts.list': "The customer's bank accounts: ten-digit account numbers, names, types, currency and status. Start here: the other account tools take an account_number from this list.",
  'accounts.balances.retrieve': 'The balances of one account in naira: available, cleared, uncleared, held and minimum. Use it before moving money or when the person asks what they have.',
  'accounts.transactions.list': "One page of an account's transactions between two dates, with the range's totals and how many pages there are (summary.pages); ask for page 2, 3 … for the rest.",
  'accounts.holds.list': 'The holds (amounts reserved but not moved) on one account.',
  'accounts.holds.create': 'Reserves an amount on one of the customer\'s accounts until an end date, without moving it (a hold).',
  'accounts.holds.update': "Changes a hold's status: INACTIVE releases the reserved amount.",
  'transfers.enquiry': 'Name enquiry: the name the destination bank holds for an account number. Use it before transfers_create so the person can check who receives the money.',
  'transfers.create': "Sends money from one of the customer's accounts to an account at any Nigerian bank. Check the name with transfers_enquiry first; afterwards follow it with transfers_wait, never by sending it again.",
  'transfers.retrieve': "A transfer's status, read once, by its batch_reference. To wait until it settles, use transfers_wait.",
  'bills.categories.list': 'The bill categories (airtime, TV, electricity …) and their ids. Paying a bill starts here, then bills_billers_list, bills_validate and bills_pay.',
  'bills.billers.list': 'The billers of one category and the products each sells.',
  'bills.validate': 'Checks a bill reference (a smartcard, meter or phone number) with the biller: who it belongs to and the amount due. Use it before bills_pay, which takes its payer_info and product_info as they are.',
  'bills.pay': "Pays a validated bill from one of the customer's accounts.",
  'disputes.categories.list': 'The categories a dispute can be filed under, with their ids (for disputes_create).',
  'disputes.create': 'Files a complaint with the bank about a transaction, for example a transfer that was debited but never arrived.',
  'disputes.retrieve': 'Where a filed dispute stands, by its report_reference.',
  'directDebits.create': "Sets up a direct-debit mandate: lets a beneficiary take up to a set amount from the customer's account on a schedule.",
  'directDebits.list': "The customer's direct-debit mandates: beneficiary, amount per debit, schedule and status.",
  'directDebits.update': 'Changes a direct-debit mandate: its amount, schedule, beneficiary or status (INACTIVE stops it).',
  'directDebits.charge': "Takes one debit under an existing mandate, paid to the mandate's beneficiary.",
  'cards.create': "Issues a payment card on one of the customer's accounts.",
  'cards.list': 'The payment cards; a card number shows only its last four digits.',
  'savings.list': "The customer's savings plans: ids, amounts, currency and schedule.",
  'savings.transactions.list': "One page of a savings plan's transactions; ask for page 2, 3 … for the rest.",
  transfers_wait:
    'Waits for a transfer to settle and answers its final status: reads it 1 s after the call, then 2, 4, 8 … s apart, for up to timeout ms. Call it after transfers_create. A transfer still pending at the end is answered with pending: true: call transfers_wait again. It never sends the transfer again. Read-only; needs the customer\'s consent.',
  connect_bank: "Starts the customer's consent at their bank: answers an address and a code for the person to enter there. The customer tools work once they approve.",
};

/** Whose authority a tool acts with. */
export const CONSENT: Readonly<Record<TokenKind, string>> = {
  customer: "Needs the customer's consent.",
  client: "Uses the application's own credentials; no customer consent needed.",
  both: "Uses the customer's consent when one is connected, else the application's credentials.",
};

/** An amount, as every amount field says it. */
const NAIRA = 'in naira (NGN), the major unit, at most two decimals: 1500.5 is ₦1,500.50';
/** A date, as every date field says it. */
const DATE = 'a date YYYY-MM-DD';
/** A ten-digit account number. */
const TEN_DIGITS = 'ten digits, as a string (keep leading zeros)';

/** Every input field, by name (nested members as `parent.member`). */
const FIELDS: Readonly<Record<string, string>> = {
  account_number: `The customer's account number, ${TEN_DIGITS}, from accounts_list.`,
  source_account_number: `The customer's account to debit, ${TEN_DIGITS}, from accounts_list.`,
  destination_account_number: `The recipient's account number, ${TEN_DIGITS}.`,
  destination_account: `The beneficiary's account number, ${TEN_DIGITS}.`,
  destination_bank_code: 'The recipient bank\'s code, as a string (e.g. "000013").',
  destination_account_name: "The beneficiary's account name.",
  amount: `The amount, ${NAIRA}.`,
  currency: 'NGN, or leave it out: only naira moves.',
  narration: 'The text the statements show (e.g. "Rent for June").',
  reference: 'Your own reference for it, unique per call.',
  from: `Start of the range, ${DATE}.`,
  to: `End of the range, ${DATE}.`,
  page: 'The page to read, from 1 (default 1); summary.pages says how many there are.',
  batch_reference: 'The batch_reference transfers_create answered.',
  category_id: 'A bill category id, from bills_categories_list.',
  biller_id: 'A biller id, from bills_billers_list.',
  bill_reference: "What identifies the bill at the biller (a smartcard, meter or phone number), as the product's reference_prompt asks.",
  payer_info: 'Who the bill is for, as bills_validate answered it: { name, email, phone }.',
  'payer_info.name': "The payer's name.",
  'payer_info.email': "The payer's email address.",
  'payer_info.phone': "The payer's phone number.",
  product_info: 'What is paid, as bills_validate answered it: { category_id, biller_id, product_id }.',
  'product_info.category_id': 'The bill category id.',
  'product_info.biller_id': 'The biller id.',
  'product_info.product_id': "The product id, from the biller's products.",
  report_reference: 'The report_reference disputes_create answered.',
  description: 'What went wrong, in a sentence or two.',
  customer_id: "The customer's id, from customers_retrieve.",
  dispute_category_id: 'A category id from disputes_categories_list, as a string.',
  mandate_id: 'A mandate id, from directDebits_list.',
  start_date: `The first day a debit may happen, ${DATE}.`,
  end_date: `The last day a debit may happen, ${DATE}.`,
  frequency: 'How often the beneficiary may debit.',
  callback_url: "Where the bank reports each debit's status: an https URL of yours.",
  mandate_status: 'INACTIVE stops the mandate; ACTIVE resumes it.',
  hold_reference: 'The hold\'s reference, from accounts_holds_list.',
  hold_start_timestamp: `When the hold starts, ${DATE}.`,
  hold_end_timestamp: `When the bank releases the amount if nothing is paid against it, ${DATE}.`,
  status: 'ACTIVE or INACTIVE.',
  savings_id: 'A savings plan id, from savings_list.',
  customer_ref: "The bank's reference of the customer the account is for.",
  product_id: 'The bank\'s product id (e.g. "SBA123").',
  name_on_account: 'The name on the account.',
  dob: `Date of birth, ${DATE}.`,
  first_name: 'First name.',
  middle_name: 'Middle name.',
  surname: 'Surname.',
  gender: 'M or F.',
  email: 'Email address.',
  phone: 'Phone number, e.g. "+2348012345678".',
  proof_of_id: 'Proof of identity: { document_type, document }.',
  proof_of_address: 'Proof of address: { document_type, document }.',
  address: 'Postal address: { street, area, city, local_government, country }.',
  next_of_kin: 'Next of kin: their name and contact details.',
  card_type: 'VIRTUAL, PHYSICAL or OTHER.',
  card_mode: 'DEBIT, CREDIT, PREPAID or OTHER.',
  card_status: 'The status the card starts in; ACTIVE to use it at once.',
  card_currency: 'NGN.',
  card_holder_name: 'The name printed on the card.',
  card_default_pin: "The card's first PIN: 4 to 12 digits, as a string. Never shown back.",
  card_expiry: 'When the card expires: { month: "MM", year: "YYYY" }.',
  'card_expiry.month': 'Two digits, "01" to "12".',
  'card_expiry.year': 'Four digits, e.g. "2029".',
  card_address: 'Where a physical card is delivered.',
  'card_address.street': 'Street and number.',
  'card_address.city': 'City.',
  'card_address.state': 'State, e.g. "Lagos".',
  'card_address.country': 'Country, e.g. "NG".',
  custom_properties: 'Extension items the bank defined; leave it out unless the bank asks for one.',
  'custom_properties.id': "The item's id.",
  'custom_properties.description': 'What it means.',
  'custom_properties.type': 'Its type, as the bank names it.',
  'custom_properties.value': 'Its value.',
  idempotency_key:
    'Optional. Leave it out on a first call: one is made and answered. To retry a call safely, repeat that key with the same arguments; the bank does not act twice.',
  timeout: 'How long to wait, in milliseconds: default 30000, at most 55000.',
};

/** Where one operation means something narrower by a field name. */
const OVERRIDES: Partial<Record<OperationName, Readonly<Record<string, string>>>> = {
  'accounts.holds.create': { amount: `The amount to hold, ${NAIRA}.`, narration: 'Why the amount is held.', reference: 'Your own reference for the hold, unique.', status: 'ACTIVE to place the hold.' },
  'accounts.holds.update': { status: 'INACTIVE releases the hold; ACTIVE keeps it.' },
  'directDebits.create': { amount: `The most one debit may take, ${NAIRA}.`, reference: 'Your own reference for the mandate, unique.', destination_bank_code: 'The beneficiary bank\'s code, as a string (e.g. "000013").' },
  'directDebits.update': { amount: `The most one debit may take, ${NAIRA}.`, reference: 'Your own reference for the mandate.', destination_bank_code: 'The beneficiary bank\'s code, as a string (e.g. "000013").' },
  'directDebits.charge': { amount: `The amount of this debit, ${NAIRA}.`, reference: 'Your own reference for this debit.' },
  'disputes.create': { amount: `The disputed amount, ${NAIRA}.`, reference: 'Your own reference for the report, unique (e.g. "DISP1234567890").' },
  'bills.pay': { amount: `The amount to pay, ${NAIRA}.` },
  'cards.create': { account_number: `The customer's account the card draws on, ${TEN_DIGITS}, from accounts_list.` },
  'savings.transactions.list': { from: `Start of the range, ${DATE} (optional).`, to: `End of the range, ${DATE} (optional).` },
  'transfers.enquiry': { destination_account_number: `The account number to look up, ${TEN_DIGITS}.` },
};

/** The description of an input field of `operation` (`path` dotted for nested members), if the table has one. */
export function fieldDescription(operation: OperationName | 'transfers_wait', path: string): string | undefined {
  const own = operation === 'transfers_wait' ? undefined : OVERRIDES[operation]?.[path];
  return own ?? FIELDS[path] ?? FIELDS[path.replace(/^.*\./, '')];
}

// The rules the server holds a tool's input to beyond the operation's own schemas.

/** Input fields that name a bank account: ten-digit strings, never numbers (a number loses its leading zero). */
export const ACCOUNT_FIELDS: ReadonlySet<string> = new Set(['account_number', 'source_account_number', 'destination_account_number', 'destination_account']);

/** A bank account number: ten digits, as a string. */
export const accountNumber = () => z.string().check(z.regex(/^\d{10}$/, { error: 'must be a ten-digit account number, as a string (e.g. "0123456789")' }));

/** The argument every write tool takes; never sent as a field. */
export const IDEMPOTENCY_KEY = 'idempotency_key';

/** The SDK's rule for a caller's idempotency key: 1–255 visible ASCII characters. */
export const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The `idempotency_key` argument. */
export const idempotencyKey = () => z.string().check(z.regex(KEY_PATTERN, { error: 'must be 1–255 visible ASCII characters' }));

/** An amount as JavaScript writes it back: digits, and at most two decimals (no exponent). */
const KOBO_PRECISE = /^\d+(\.\d{1,2})?$/;
/** The largest amount that still counts in kobo exactly. */
const MAX_NAIRA = Math.floor(Number.MAX_SAFE_INTEGER) / 100;

/** True for an amount with at most two decimals, small enough to count in kobo exactly. */
function koboPrecise(value: number): boolean {
  return KOBO_PRECISE.test(String(value)) && value * 100 <= Number.MAX_SAFE_INTEGER;
}

/** A positive amount in naira with at most two decimals, small enough to count in kobo exactly. */
export const amount = () => z.number().check(z.positive(), rule(koboPrecise, 'must be an amount in naira with at most two decimals (1500.5 is ₦1,500.50)', 'invalid_amount'));

/** How the rules above are written in JSON Schema: two decimals as `multipleOf: 0.01`. */
export const FIELD_REFINES: ReadonlyMap<unknown, RefineWriter> = new Map<unknown, RefineWriter>([
  [
    koboPrecise,
    (type, json) => {
      if (type !== 'number') return false;
      json.multipleOf = 0.01;
      json.maximum = MAX_NAIRA;
      return true;
    },
  ],
]);
