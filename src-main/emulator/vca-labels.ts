import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { VCA_TYPES, type VcaResultGroup, type VcaType } from '../protocol/types';

/**
 * Where the emulator's video analysis results come from.
 *
 * ## The label file (`blocklift emulator --vca-labels <file.json>`)
 * ```json
 * {
 *   "jobs": [
 *     { "match": "http://127.0.0.1:*\/dl/videos/beach-*.mp4",
 *       "results": {
 *         "scenario": [{ "attribute": "beach", "confidence": 0.97 }],
 *         "entity":   [{ "attribute": "surfboard", "confidence": 0.81 }]
 *       } },
 *     { "match": "http://cdn.example.com/broken.mp4", "error": "the video stream cannot be decoded" }
 *   ]
 * }
 * ```
 * - `match` is compared with the whole source URL (query included): `*` stands for any run
 *   of characters (slashes too), `?` for one character, everything else is literal. The first
 *   entry that matches wins.
 * - `results` maps a type (scenario, entity, keyword, location, figure, logo) to its labels,
 *   each `{attribute, confidence}` with 0 ≤ confidence ≤ 1. Types with no labels are left
 *   out of the answer; the order of the file is kept.
 * - `error` instead of `results` makes the analysis fail (job code 2, desc = that text), as
 *   if the video could be fetched but not analysed.
 * A job whose source cannot be fetched fails (code 2) whatever the file says.
 *
 * ## The default, when no entry matches (or no file is given)
 * Deterministic from h = SHA-1 of the source URL (UTF-8). For the type at position p of
 * [scenario, entity, keyword, location, figure, logo] (vocabularies in DEFAULT_VOCABULARIES,
 * n words each):
 * - label count: scenario, entity, keyword: 1 + h[3p] mod 2; location, figure, logo:
 *   h[3p] mod 3 (0 leaves the type out);
 * - label j (0 or 1) is word (h[3p+1] + j·(1 + h[3p+2] mod (n−1))) mod n;
 * - its confidence is 0.5 + 0.49·h[3p+1+j]/255, rounded to 3 decimals.
 */

export const DEFAULT_VOCABULARIES: Record<VcaType, readonly string[]> = {
  scenario: [
    'indoor',
    'outdoor',
    'beach',
    'city street',
    'forest',
    'office',
    'kitchen',
    'stadium',
    'stage',
    'night sky',
    'mountain',
    'classroom',
  ],
  entity: ['person', 'car', 'dog', 'cat', 'bicycle', 'tree', 'building', 'boat', 'laptop', 'guitar', 'ball', 'bird'],
  keyword: [
    'welcome',
    'music',
    'sale',
    'travel',
    'news',
    'weather',
    'sports',
    'cooking',
    'review',
    'tutorial',
    'interview',
    'holiday',
  ],
  location: [
    'Paris',
    'Tokyo',
    'New York',
    'London',
    'Sydney',
    'Cairo',
    'Rio de Janeiro',
    'Beijing',
    'Berlin',
    'Toronto',
  ],
  figure: ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Katherine Johnson', 'Tim Berners-Lee', 'Margaret Hamilton'],
  logo: ['Blocklift', 'Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli'],
};

const ALWAYS_PRESENT: ReadonlySet<VcaType> = new Set(['scenario', 'entity', 'keyword']);

/** What analysing a fetchable source gives: labels, or a failure message. */
export type VcaOutcome = { kind: 'results'; results: VcaResultGroup[] } | { kind: 'error'; message: string };

export class VcaLabelsError extends Error {
  override readonly name = 'VcaLabelsError';
}

const labelSchema = z.object({ attribute: z.string().min(1), confidence: z.number().min(0).max(1) }).strict();
const entrySchema = z
  .object({
    match: z.string().min(1),
    results: z.partialRecord(z.enum(VCA_TYPES), z.array(labelSchema)).optional(),
    error: z.string().min(1).optional(),
  })
  .strict()
  .refine((e) => (e.results === undefined) !== (e.error === undefined), {
    message: 'each entry needs exactly one of "results" or "error"',
  });
const fileSchema = z.object({ jobs: z.array(entrySchema) }).strict();
/** A label file's content (what `--vca-labels` reads), for whoever writes one. */
export type VcaLabelsFile = z.input<typeof fileSchema>;

interface CompiledEntry {
  pattern: RegExp;
  outcome: VcaOutcome;
}

/** Answers an analysis from the label file's entries, else from the default. */
export class VcaLabels {
  private constructor(private readonly entries: readonly CompiledEntry[]) {}

  static empty(): VcaLabels {
    return new VcaLabels([]);
  }

  /** Reads and validates a label file; throws VcaLabelsError naming the file and the problem. */
  static fromFile(file: string): VcaLabels {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new VcaLabelsError(`cannot read the VCA label file ${file}: ${(e as Error).message}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new VcaLabelsError(`the VCA label file ${file} is not valid JSON: ${(e as Error).message}`);
    }
    return VcaLabels.fromJson(raw, file);
  }

  static fromJson(raw: unknown, what = 'the VCA label file'): VcaLabels {
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      throw new VcaLabelsError(
        `${what} does not have the expected shape${where}: ${issue?.message ?? 'invalid'} (see the format in src-main/emulator/vca-labels.ts)`,
      );
    }
    return new VcaLabels(
      parsed.data.jobs.map((e) => ({
        pattern: globToRegExp(e.match),
        outcome:
          e.error !== undefined
            ? { kind: 'error', message: e.error }
            : {
                kind: 'results',
                results: Object.entries(e.results ?? {})
                  .filter(([, labels]) => labels !== undefined && labels.length > 0)
                  .map(([type, labels]) => ({ type: type as VcaType, result: labels ?? [] })),
              },
      })),
    );
  }

  /** The outcome for a source URL, restricted to `types` when given. */
  analyse(sourceUrl: string, types?: readonly VcaType[]): VcaOutcome {
    const entry = this.entries.find((e) => e.pattern.test(sourceUrl));
    const outcome: VcaOutcome = entry ? entry.outcome : { kind: 'results', results: defaultResults(sourceUrl) };
    if (outcome.kind === 'error' || types === undefined) return outcome;
    return { kind: 'results', results: outcome.results.filter((g) => types.includes(g.type)) };
  }
}

export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/** The documented deterministic default (see the comment at the top of this file). */
export function defaultResults(sourceUrl: string): VcaResultGroup[] {
  const h = createHash('sha1').update(sourceUrl, 'utf8').digest();
  const byte = (i: number) => h[i] ?? 0;
  const groups: VcaResultGroup[] = [];
  VCA_TYPES.forEach((type, p) => {
    const words = DEFAULT_VOCABULARIES[type];
    const n = words.length;
    const count = ALWAYS_PRESENT.has(type) ? 1 + (byte(3 * p) % 2) : byte(3 * p) % 3;
    if (count === 0) return;
    const step = 1 + (byte(3 * p + 2) % (n - 1));
    const result = Array.from({ length: count }, (_, j) => ({
      attribute: words[(byte(3 * p + 1) + j * step) % n] ?? '',
      confidence: Math.round((0.5 + (0.49 * byte(3 * p + 1 + j)) / 255) * 1000) / 1000,
    }));
    groups.push({ type, result });
  });
  return groups;
}
