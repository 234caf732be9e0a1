import { OpenBankingError } from '../errors/base.js';
import type { SandboxOptions } from './options.js';
import { truncatedResponse } from './outcome.js';
import { createSandbox, type Sandbox, sandboxCore } from './sandbox.js';

/**
 * The two parts of msw the handlers are built from (`import * as msw from 'msw'` is one). Written
 * out rather than imported from msw, so that a TypeScript user without msw still compiles.
 * @group Sandbox
 */
export interface MswModule {
  /** msw's `http` namespace: only `http.all` is used. */
  http: {
    /** A handler for every method on `path`. */
    all(path: string, resolver: (info: { request: Request }) => Response | Promise<Response>): unknown;
  };
  /** msw's `HttpResponse`: only `HttpResponse.error()` is used. */
  HttpResponse: {
    /** A network error, as if the connection failed. */
    error(): Response;
  };
}

/** Options of {@link sandboxHandlers}. @group Sandbox */
export interface SandboxHandlersOptions {
  /**
   * msw itself (`import * as msw from 'msw'`). Needed only where msw cannot be loaded on demand:
   * browser bundles and other runtimes without Node's `require`. On Node, Bun and Deno it is
   * loaded when the handlers are asked for.
   */
  msw?: MswModule;
}

/**
 * msw, loaded the first time handlers are asked for rather than when `openbanking-ng/testing` is
 * imported: msw is an optional peer, and the fetch handler, the HTTP server and the command line
 * need none of it. msw tells handlers apart by their `kind`, not by class identity, so handlers
 * built by the copy `require` loads serve a server set up from `msw/node` as well.
 */
function loadMsw(): MswModule {
  // Node's own require, found without importing `node:module` (this entry also runs in browsers).
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('module') as
    | { createRequire(from: string): (id: string) => unknown }
    | undefined;
  const load = node?.createRequire(import.meta.url);
  if (!load) {
    throw new OpenBankingError("sandboxHandlers cannot load msw in this runtime: pass it in, sandboxHandlers(sandbox, { msw }) after import * as msw from 'msw'");
  }
  try {
    return load('msw') as MswModule;
  } catch (cause) {
    throw new OpenBankingError('sandboxHandlers needs msw 2.x, a peer dependency of openbanking-ng/testing: npm install --save-dev msw', { cause });
  }
}

/**
 * The sandbox as msw request handlers, one per host it serves (`authUrl` and `baseUrl`). Pass
 * a sandbox from {@link createSandbox} to keep its controls at hand, or options to make a new
 * one. A `drop` fault becomes msw's network error, so `fetch` rejects with a `TypeError`.
 * Needs `msw` 2.x (a peer dependency of `openbanking-ng/testing`), loaded when this is called;
 * in a browser bundle, hand it over: `sandboxHandlers(sandbox, { msw })`. The handlers take their
 * type from where you pass them (`setupServer(...)`, `server.use(...)`); to keep them in a
 * variable, name msw's type: `sandboxHandlers<HttpHandler>(sandbox)`. This keeps msw's types out
 * of this entry's declarations, so a project without msw compiles.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createSandbox, sandboxHandlers } from 'openbanking-ng/testing';
 *
 * const sandbox = createSandbox();
 * const server = setupServer(...sandboxHandlers(sandbox));
 * server.listen({ onUnhandledRequest: 'error' });
 * ```
 * @group Sandbox
 */
export function sandboxHandlers<Handler = never>(sandboxOrOptions?: Sandbox | SandboxOptions, options?: SandboxHandlersOptions): Handler[] {
  const { http, HttpResponse } = options?.msw ?? loadMsw();
  const sandbox = sandboxCore(sandboxOrOptions) ? (sandboxOrOptions as Sandbox) : createSandbox(sandboxOrOptions as SandboxOptions | undefined);
  const core = sandboxCore(sandbox)!;
  const origins = [...new Set([new URL(sandbox.authUrl).origin, new URL(sandbox.baseUrl).origin])];
  return origins.map(
    (origin) =>
      http.all(`${origin}/*`, async ({ request }) => {
        const outcome = await core.handle(request);
        if (outcome.kind === 'drop') return HttpResponse.error();
        if (outcome.kind === 'truncate') return truncatedResponse(outcome.response);
        return outcome.response;
      }) as Handler,
  );
}
