/*
 * The reference data the sandbox serves for bills, disputes, direct debits and savings, seeded the
 * same way every time (no randomness), so examples and tests can name what they read.
 */
import { SANDBOX_ACCOUNTS, SANDBOX_CUSTOMER_ID } from './bank.js';

type Json = Record<string, unknown>;

/** Biller categories, with numeric ids as in the provider's guide. */
export const BILLER_CATEGORIES: readonly Json[] = [
  { id: 1, name: 'Airtime', description: 'Mobile airtime top-up' },
  { id: 2, name: 'Data', description: 'Mobile data bundles' },
  { id: 3, name: 'TV', description: 'Cable and satellite TV subscriptions' },
  { id: 4, name: 'Electricity', description: 'Prepaid and postpaid electricity' },
];

const product = (id: string, name: string, prompt: string, fee: number, fixed: number | null): Json => ({ id, name, reference_prompt: prompt, currency: 'NGN', fee, fixed_amount: fixed });

/** Billers per category id, each with products. */
export const BILLERS: Readonly<Record<string, readonly Json[]>> = {
  '1': [
    { category_id: '1', id: 'MTN-VTU', name: 'MTN Airtime', products: [product('MTN-VTU-ANY', 'Any amount', 'Phone number', 0, null)] },
    { category_id: '1', id: 'GLO-VTU', name: 'Glo Airtime', products: [product('GLO-VTU-ANY', 'Any amount', 'Phone number', 0, null)] },
  ],
  '2': [{ category_id: '2', id: 'MTN-DATA', name: 'MTN Data', products: [product('MTN-DATA-1GB', '1 GB, 30 days', 'Phone number', 0, 1_000), product('MTN-DATA-10GB', '10 GB, 30 days', 'Phone number', 0, 5_000)] }],
  '3': [
    { category_id: '3', id: 'DSTV', name: 'DStv', products: [product('DSTV-COMPACT', 'Compact', 'Smartcard number', 100, 12_500), product('DSTV-PREMIUM', 'Premium', 'Smartcard number', 100, 29_500)] },
    { category_id: '3', id: 'GOTV', name: 'GOtv', products: [product('GOTV-MAX', 'Max', 'IUC number', 50, 7_200)] },
  ],
  '4': [{ category_id: '4', id: 'IKEDC', name: 'Ikeja Electric', products: [product('IKEDC-PREPAID', 'Prepaid meter', 'Meter number', 100, null)] }],
};

/** Dispute categories. */
export const DISPUTE_CATEGORIES: readonly Json[] = [
  { id: 'DC01', name: 'Failed transfer', description: 'Debited, but the beneficiary was not credited' },
  { id: 'DC02', name: 'Double debit', description: 'One transaction debited more than once' },
  { id: 'DC03', name: 'Card not dispensed', description: 'ATM debited the account but dispensed no cash' },
];

/** The seeded mandate: active, chargeable. */
export const SANDBOX_MANDATE_ID = 'MAN000000001';

export function seedMandate(): Json {
  return {
    mandate_status: 'ACTIVE',
    mandate_id: SANDBOX_MANDATE_ID,
    reference: 'GYM-MEMBERSHIP-ADA',
    narration: 'Gym membership',
    amount: 15_000,
    start_date: '2024-01-01',
    end_date: '2026-12-31',
    next_possible_charge_date: '2024-02-01',
    frequency: 'MONTHLY',
    destination_bank_code: '000013',
    destination_account: '0555666777',
    destination_account_name: 'FitLife Gyms Ltd',
    callback_url: 'https://merchant.example/webhooks/dd-status',
    custom_properties: [],
  };
}

/** The seeded savings plans: the first has 45 transactions (3 pages of 20), the second 3. */
export const SANDBOX_SAVINGS = ['SAV-0001', 'SAV-0002'] as const;

function plan(savingsId: string, amount: number, frequency: string, count: number): Json {
  return {
    savings_id: savingsId,
    customer_id: SANDBOX_CUSTOMER_ID,
    product_id: frequency === 'WEEKLY' ? 'TARGET-SAVE' : 'FIXED-SAVE',
    start_date: '2023-01-01',
    currency: 'NGN',
    savings_amount: amount,
    frequency,
    total_savings_amount: amount * count,
    total_savings_transactions: count,
    missed_savings_amount: 0,
    missed_savings_transactions: 0,
    next_savings_due_date: '2024-12-01',
    next_savings_due_amount: amount,
    custom_properties: [],
  };
}

export function seedSavings(): Array<{ plan: Json; transactions: Json[] }> {
  const build = (savingsId: string, amount: number, frequency: string, count: number) => {
    const transactions: Json[] = [];
    for (let i = 0; i < count; i++) {
      const month = String(1 + (i % 12)).padStart(2, '0');
      const year = 2023 + Math.floor(i / 12);
      transactions.push({
        id: `${savingsId}-TX-${String(i + 1).padStart(4, '0')}`,
        amount,
        channel: 'WEB',
        transaction_type: 'SAVINGS',
        debit_credit: 'CREDIT',
        narration: `Saving ${i + 1} from ${SANDBOX_ACCOUNTS[0]}`,
        reference: `${savingsId}-REF-${String(i + 1).padStart(6, '0')}`,
        transaction_time: `${year}-${month}-01T08:00:00.0000000`,
        value_date: `${year}-${month}-01`,
        balance_after: amount * (i + 1),
        status: 'SUCCESSFUL',
      });
    }
    return { plan: plan(savingsId, amount, frequency, count), transactions };
  };
  return [build(SANDBOX_SAVINGS[0], 10_000, 'MONTHLY', 45), build(SANDBOX_SAVINGS[1], 2_500, 'WEEKLY', 3)];
}
