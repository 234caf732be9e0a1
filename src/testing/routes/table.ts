import type { RouteHandler, SandboxContext } from '../context.js';
import { getBalances, getCustomer, listAccounts, listHolds, listTransactions, openAccount, placeHold, updateHold } from './accounts.js';
import { authorizeDecision, authorizePage } from './authorize.js';
import { createCard, listCards } from './cards.js';
import { fetchRegistration, register } from './dcr.js';
import { deviceAuthorization, deviceDecision, devicePageRoute } from './device.js';
import { billerCategories, billers, chargeMandate, createMandate, createTransfer, listMandates, nameEnquiry, payBill, transferStatus, updateMandate, validateBill } from './payments.js';
import { disputeCategories, disputeStatus, listSavings, reportDispute, savingsTransactions } from './reports.js';
import { DEVICE_CODE_GRANT, tokenEndpoint } from './token.js';

/** A matched route: the handlers by method, and the path parameters (decoded). */
export interface RouteMatch {
  methods: ReadonlyMap<string, RouteHandler>;
  params: Record<string, string>;
}

interface Route {
  pattern: RegExp;
  names: string[];
  methods: Map<string, RouteHandler>;
}

/**
 * Every route of the sandbox, by full URL (origin and path, `{name}` for a path parameter of one
 * segment) and method.
 */
export class RouteTable {
  readonly #routes: Route[] = [];

  constructor(ctx: SandboxContext) {
    const auth = ctx.authUrl;
    const api = ctx.baseUrl;
    this.add(`${auth}/dcr`, { POST: register, GET: fetchRegistration });
    this.add(`${auth}/oauth/authorize`, { GET: authorizePage, POST: authorizeDecision });
    this.add(`${auth}/oauth/token`, { POST: tokenEndpoint(['authorization_code', 'refresh_token'], `${ctx.authPath}/oauth2/token`) });
    this.add(`${auth}/oauth2/token`, { POST: tokenEndpoint(['client_credentials', DEVICE_CODE_GRANT], `${ctx.authPath}/oauth/token`) });
    this.add(`${auth}/oauth2/device/code`, { POST: deviceAuthorization });
    this.add(`${auth}/device`, { GET: devicePageRoute, POST: deviceDecision });
    this.add(`${api}/cards`, { POST: createCard, GET: listCards });
    this.add(`${api}/customers`, { GET: getCustomer });
    this.add(`${api}/accounts`, { POST: openAccount, GET: listAccounts });
    this.add(`${api}/accounts/{account_number}/balances`, { GET: getBalances });
    this.add(`${api}/accounts/{account_number}/transactions`, { GET: listTransactions });
    this.add(`${api}/accounts/{account_number}/holds`, { GET: listHolds, POST: placeHold });
    this.add(`${api}/accounts/{account_number}/holds/{hold_reference}`, { PATCH: updateHold });
    // The fixed paths before the templates they would also match.
    this.add(`${api}/transactions/enquiry`, { POST: nameEnquiry });
    this.add(`${api}/transactions/transfer`, { POST: createTransfer });
    this.add(`${api}/transactions/{batch_reference}`, { GET: transferStatus });
    this.add(`${api}/bills/categories`, { GET: billerCategories });
    this.add(`${api}/bills/{category_id}/billers`, { GET: billers });
    this.add(`${api}/bills/{category_id}/billers/{biller_id}/reference/{bill_reference}`, { GET: validateBill, POST: payBill });
    this.add(`${api}/disputes/categories`, { GET: disputeCategories });
    this.add(`${api}/disputes`, { POST: reportDispute });
    this.add(`${api}/disputes/{report_reference}`, { GET: disputeStatus });
    this.add(`${api}/direct-debits`, { POST: createMandate, GET: listMandates });
    this.add(`${api}/direct-debits/{mandate_id}`, { PATCH: updateMandate, POST: chargeMandate });
    this.add(`${api}/savings`, { GET: listSavings });
    this.add(`${api}/savings/{savings_id}/transactions`, { GET: savingsTransactions });
  }

  /** Adds handlers for a URL template. */
  add(template: string, handlers: Record<string, RouteHandler>): void {
    const names: string[] = [];
    const source = template
      .replace(/\/+$/, '')
      .split(/(\{\w+\})/)
      .map((part) => {
        const name = /^\{(\w+)\}$/.exec(part)?.[1];
        if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(name);
        return '([^/]+)';
      })
      .join('');
    this.#routes.push({ pattern: new RegExp(`^${source}$`), names, methods: new Map(Object.entries(handlers)) });
  }

  /** The route for an origin and path, or undefined. A parameter that does not decode does not match. */
  match(origin: string, pathname: string): RouteMatch | undefined {
    const target = `${origin}${pathname}`.replace(/\/+$/, '');
    for (const route of this.#routes) {
      const found = route.pattern.exec(target);
      if (!found) continue;
      const params: Record<string, string> = {};
      try {
        route.names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1]!)));
      } catch {
        return undefined;
      }
      return { methods: route.methods, params };
    }
    return undefined;
  }
}
