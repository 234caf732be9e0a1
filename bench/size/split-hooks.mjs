// Module load hook for split-probe.mjs: reports every file URL loaded to the probe's thread.
let port;
export function initialize(data) {
  port = data.port;
}
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) port.postMessage(url);
  return nextLoad(url, context);
}
