/**
 * A form field checked with the contract's schema (src-main/shared/schemas.ts and its
 * neighbours): the rule the service's door applies, refused in the form with the same words
 * before anything is sent.
 */
import type { z } from 'zod';

/** An antd Form rule: the field's value (as `toInput` makes it) must pass `schema`. */
export function schemaRule(schema: z.ZodType, toInput: (value: unknown) => unknown = (v) => v) {
  return {
    validator: async (_rule: unknown, value: unknown): Promise<void> => {
      const r = schema.safeParse(toInput(value));
      if (!r.success) throw new Error(r.error.issues[0]?.message ?? 'not valid');
    },
  };
}
