/**
 * The local sandbox: a faithful stand-in for the service, for tests, the demo and the examples.
 * @module openbanking-ng/testing
 */
export {};
