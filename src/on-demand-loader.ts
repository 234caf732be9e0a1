import { Lazy } from './core/lazy.js';

/**
 * The on-demand module (`on-demand.ts`), loaded once with the first feature that needs it. Every
 * caller goes through this one loader, so there is one place that names the module.
 */
export const onDemand = new Lazy(() => import('./on-demand.js'));
