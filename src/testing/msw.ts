import { http, HttpResponse, type HttpHandler } from 'msw';
import type { SandboxOptions } from './options.js';
import { truncatedResponse } from './outcome.js';
import { createSandbox, type Sandbox, sandboxCore } from './sandbox.js';

/**
 * The sandbox as msw request handlers, one per host it serves (`authUrl` and `baseUrl`). Pass
 * a sandbox from {@link createSandbox} to keep its controls at hand, or options to make a new
 * one. A `drop` fault becomes msw's network error, so `fetch` rejects with a `TypeError`.
 * Needs `msw` 2.x (a peer dependency of `openbanking-ng/testing`).
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
export function sandboxHandlers(sandboxOrOptions?: Sandbox | SandboxOptions): HttpHandler[] {
  const sandbox = sandboxCore(sandboxOrOptions) ? (sandboxOrOptions as Sandbox) : createSandbox(sandboxOrOptions as SandboxOptions | undefined);
  const core = sandboxCore(sandbox)!;
  const origins = [...new Set([new URL(sandbox.authUrl).origin, new URL(sandbox.baseUrl).origin])];
  return origins.map((origin) =>
    http.all(`${origin}/*`, async ({ request }) => {
      const outcome = await core.handle(request);
      if (outcome.kind === 'drop') return HttpResponse.error();
      if (outcome.kind === 'truncate') return truncatedResponse(outcome.response);
      return outcome.response;
    }),
  );
}
