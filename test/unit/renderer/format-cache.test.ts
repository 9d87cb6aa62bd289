import { afterEach, describe, expect, it } from 'vitest';
import { formatPercent } from '../../../src-renderer/format/format';

const RealNumberFormat = Intl.NumberFormat;

describe('formatPercent', () => {
  afterEach(() => {
    Intl.NumberFormat = RealNumberFormat;
  });

  // Every uploading row's progress bar formats a percent on each progress batch (10 a second):
  // building an Intl.NumberFormat each time was a visible share of the renderer's main thread.
  it('builds one formatter per locale, not one per call', () => {
    let built = 0;
    Intl.NumberFormat = class extends RealNumberFormat {
      constructor(...args: ConstructorParameters<typeof RealNumberFormat>) {
        super(...args);
        built++;
      }
    } as typeof Intl.NumberFormat;
    const texts = Array.from({ length: 50 }, (_, i) => formatPercent(i / 100, 'en'));
    expect(texts[46]).toBe('46%');
    expect(built).toBeLessThanOrEqual(1);
  });
});
