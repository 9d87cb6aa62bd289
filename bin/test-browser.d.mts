// Types of test-browser.mjs for the TypeScript tests and the bench that use it.
export declare function findChromium(): { path: string } | { missing: string };
export declare function chromiumPath(): string;
export declare function hasCjkFont(): boolean;
export declare function ensureTestBrowser(opts?: {
  install?: boolean;
  log?: (line: string) => void;
}): { ok: true; chromium: string } | { ok: false; reason: string };
