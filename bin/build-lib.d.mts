// Types of build-lib.mjs for the TypeScript tests that use it.
export declare const ROOT: string;
export declare const DIST: string;
export declare const EXTERNALS: string[];
export type BuildPart = 'main' | 'renderer';
export declare function staleReason(part: BuildPart, root?: string): string | null;
export declare function buildState(): Record<BuildPart, string | null>;
export declare function buildMain(): Promise<void>;
export declare function buildRenderer(): Promise<void>;
export declare function bundleForNode(entryPoint: string, outfile: string): Promise<string>;
