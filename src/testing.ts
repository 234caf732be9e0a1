/**
 * The local sandbox: a faithful stand-in for the Open Banking API (registration, OAuth, every typed operation),
 * for the package's own tests, the demo, the examples and your test suites. One
 * implementation, three transports: {@link createSandbox} (a fetch handler),
 * {@link startSandboxServer} (real HTTP on 127.0.0.1) and {@link sandboxHandlers} (msw).
 * @module openbanking-ng/testing
 */
export { createSandbox, type Sandbox, type SandboxControls, type SandboxTokens } from './testing/sandbox.js';
export { startSandboxServer, type SandboxServer, type SandboxServerOptions } from './testing/server.js';
export { sandboxHandlers, type MswModule, type SandboxHandlersOptions } from './testing/msw.js';
export { SANDBOX_DEFAULT_URLS, type SandboxClientInit, type SandboxOptions } from './testing/options.js';
export type { SandboxClient } from './testing/clients.js';
export type { StoredCard } from './testing/card-store.js';
export type { SandboxPayment, TransferSettlement } from './testing/payments.js';
export type { SandboxConsentControls } from './testing/consent-controls.js';
export type { FaultHandle, FaultRule, SandboxFault, SandboxFaults } from './testing/faults.js';
export type { RequestFilter, SandboxRequestRecord, SandboxRequests } from './testing/requests.js';
export { createManualClock, type ManualClock } from './testing/clock.js';
