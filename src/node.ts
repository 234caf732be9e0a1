/**
 * What only Node can do. The main entry never imports this one.
 * @module openbanking-ng/node
 */
export {};
