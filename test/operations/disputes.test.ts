import { describe, expect, it } from 'vitest';
import type { CreateDisputeParams, Dispute, DisputeCategoryList } from '../../src/index.js';
import { useMsw } from '../support/msw.js';
import { answerWith, describeOperations, useSandbox } from './harness.js';

let n = 0;
const report = (extra: Partial<CreateDisputeParams> = {}): CreateDisputeParams => ({
  reference: `DISP${String(++n).padStart(10, '0')}`,
  description: 'Debited twice for one purchase',
  customer_id: 'CUS-0001',
  dispute_category_id: 'DC02',
  amount: 4_500,
  ...extra,
});

describeOperations('disputes', [
  {
    name: 'disputes.categories.list',
    token: 'client',
    call: (t) => t.disputes.categories.list(),
    check: (data) => expect((data as DisputeCategoryList).dispute_categories.map((c) => c.id)).toEqual(['DC01', 'DC02', 'DC03']),
    bad: (t) => t.disputes.categories.list({ x: 1 } as never, {}),
    badPath: '',
    wire: (t) => t.disputes.categories.list(),
    method: 'GET',
    path: '/disputes/categories',
    data: { dispute_categories: [] },
  },
  {
    name: 'disputes.create',
    token: 'customer',
    call: (t) => t.disputes.create(report()),
    check: (data) => expect(data as Dispute).toMatchObject({ report_status: 'LOGGED', first_response_sla: '24 hours', report_reference: expect.stringMatching(/^RPT/) }),
    bad: (t) => t.disputes.create(report({ customer_id: undefined as never })),
    badPath: 'customer_id',
    wire: (t) => t.disputes.create(report()),
    method: 'POST',
    path: '/disputes',
    data: { report_reference: 'R1' },
  },
  {
    name: 'disputes.retrieve',
    token: 'customer',
    call: (t) => t.disputes.retrieve('RPT000000000'),
    check: (data) => expect(data).toEqual([expect.objectContaining({ report_reference: 'RPT000000000', report_status: 'LOGGED' })]),
    bad: (t) => t.disputes.retrieve(Number.NaN),
    badPath: 'report_reference',
    wire: (t) => t.disputes.retrieve('RPT/1 2'),
    method: 'GET',
    path: '/disputes/RPT%2F1%202',
    data: [],
  },
]);

describe('disputes over the sandbox', () => {
  const env = useSandbox();

  it('reports against a category from the list, and reads the report back as a list of one', async () => {
    const ob = env.client();
    const session = env.session(undefined, ob);
    const { dispute_categories } = await ob.disputes.categories.list();
    const logged = await session.disputes.create(report({ dispute_category_id: String(dispute_categories[0]!.id) }));
    expect(await session.disputes.retrieve(logged.report_reference!)).toEqual([logged]);
  });
});

describe('disputes: tolerance of what the provider sends', () => {
  const server = useMsw();

  it('a lone dispute object is wrapped into a list; never an item picked', async () => {
    const { session } = answerWith(server, { report_reference: 'R1', report_status: 'ESCALATED' });
    expect(await session.disputes.retrieve('R1')).toEqual([{ report_reference: 'R1', report_status: 'ESCALATED' }]);
  });

  it('a list of two stays a list of two, with an unknown report_status (open enum)', async () => {
    const { session } = answerWith(server, [{ report_reference: 'R1' }, { report_reference: 'R1', report_status: 'REOPENED' }]);
    expect(await session.disputes.retrieve('R1')).toHaveLength(2);
  });

  it('numeric category ids are kept', async () => {
    const { ob } = answerWith(server, { dispute_categories: [{ id: 4, name: 'Other' }] });
    expect((await ob.disputes.categories.list()).dispute_categories[0]!.id).toBe(4);
  });
});
