import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_CODES } from '../../../src-main/shared/errors';
import { BRIDGE_ERROR_CODES } from '../../../src-renderer/bridge/bridge';
import { en } from '../../../src-renderer/i18n/en';
import { zhCN } from '../../../src-renderer/i18n/zh-CN';

/** Every leaf of a catalog as "a.b.c" → string. */
function leaves(obj: object, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string') out.set(prefix + k, v);
    else for (const [kk, vv] of leaves(v as object, `${prefix}${k}.`)) out.set(kk, vv);
  }
  return out;
}

const params = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('i18n catalogs', () => {
  it('has an English and a Chinese message for every error code, with the catalog params', () => {
    for (const code of [...ERROR_CODES, ...BRIDGE_ERROR_CODES]) {
      expect(en.errors[code], code).toBeTruthy();
      expect(zhCN.errors[code], code).toBeTruthy();
      expect(params(zhCN.errors[code]), code).toEqual(params(en.errors[code]));
    }
    expect(en.errors['path-not-found']).toBe(ERROR_CATALOG['path-not-found'].en.replace('{path}', '{{path}}'));
  });

  it('has the same keys and placeholders in both languages, and no empty string', () => {
    const a = leaves(en);
    const b = leaves(zhCN);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [key, text] of a) {
      expect(text.trim(), key).not.toBe('');
      expect(params(b.get(key)!), key).toEqual(params(text));
    }
  });

  it('writes Chinese with full-width punctuation: no Latin full stop, comma or colon beside a Chinese character', () => {
    const latin = /[\u3400-\u9fff][.,;:!?]|[.,;:]\s*[\u3400-\u9fff]|[!?][\u3400-\u9fff]/;
    const bad = [...leaves(zhCN)].filter(([, text]) => latin.test(text)).map(([key, text]) => `${key}: ${text}`);
    expect(bad).toEqual([]);
    // Two messages joined into one (an empty state and its hint) end the first with 。 in Chinese.
    expect(zhCN.app.twoSentences).toBe('{{first}}。{{second}}');
  });
});
