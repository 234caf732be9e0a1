/** Types of packed-links.mjs, for the tests that import it. */
export declare function packedFiles(root: string): string[];
export declare function relativeLinks(markdown: string): string[];
export declare function unshippedLinks(shipped: string[], read: (path: string) => string): string[];
