import { describe, expect, it } from 'vitest';
import { KEY_PREFIX } from '../../../src-main/shared/schemas';
import { WATCH_OPTION_FIELDS } from '../../../src-main/shared/watch-views';
import { schemaRule } from '../../../src-renderer/components/schema-rule';

describe("the renderer's form fields check with the contract's schemas", () => {
  it('refuses a prefix or a key template with the words the door would answer, and lets a good one pass', async () => {
    const prefix = schemaRule(KEY_PREFIX, (v) => (typeof v === 'string' ? v.trim() : ''));
    await expect(prefix.validator(null, ' photos/ ')).resolves.toBeUndefined();
    await expect(prefix.validator(null, '/photos')).rejects.toThrow(/the key starts with "\/"/);
    await expect(prefix.validator(null, 'a//')).rejects.toThrow(/empty path segment/);
    const template = schemaRule(WATCH_OPTION_FIELDS.shape.keyTemplate);
    await expect(template.validator(null, '{yyyy}/{relpath}')).resolves.toBeUndefined();
    await expect(template.validator(null, '{nope}/{relpath}')).rejects.toThrow(/unknown placeholder \{nope\}/);
  });
});
