// The matrix's entry for workerd: a Worker module whose fetch handler runs the shared probe against
// the sandbox named by its SANDBOX_URL binding and answers with the result as JSON. Bundled by
// esbuild with the worker and browser conditions, as a Workers project would bundle the package.
import { probe } from './probe.mjs';

export default {
  /**
   * @param {Request} _request
   * @param {{ SANDBOX_URL: string }} env
   */
  async fetch(_request, env) {
    try {
      const result = await probe({ sandboxUrl: env.SANDBOX_URL });
      return Response.json({ runtime: `workerd (${navigator.userAgent})`, ...result });
    } catch (error) {
      return Response.json({ error: error instanceof Error ? error.stack : String(error) }, { status: 500 });
    }
  },
};
