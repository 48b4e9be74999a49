/** Types of build-stamp.mjs, for the tests that import it. */
export declare const STAMP: string;
export declare function newestSourceChange(root: string): Promise<number>;
export declare function whyBuild(root: string): Promise<string | undefined>;
export declare function beginBuild(root: string): Promise<void>;
export declare function endBuild(root: string): Promise<void>;
export declare function runBuild(root: string, why: string): boolean;
export declare function buildIfStale(root: string): Promise<boolean>;
