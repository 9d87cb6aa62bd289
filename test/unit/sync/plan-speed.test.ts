import { describe, expect, it } from 'vitest';
import { DEFAULT_ASSUMED_BYTES_PER_SECOND, chooseEstimateSpeed } from '../../../src-main/sync/plan';

const MiB = 1024 * 1024;

describe('the speed a plan estimate assumes', () => {
  it.each([
    ['no transfers measured', undefined, DEFAULT_ASSUMED_BYTES_PER_SECOND, 'default'],
    ['100 MiB in 10 s', { bytes: 100 * MiB, seconds: 10 }, 10 * MiB, 'measured'],
    ['2 MiB in 4 s', { bytes: 2 * MiB, seconds: 4 }, 0.5 * MiB, 'measured'],
    ['too few bytes to say', { bytes: 1000, seconds: 5 }, DEFAULT_ASSUMED_BYTES_PER_SECOND, 'default'],
    ['too short a span to say', { bytes: 50 * MiB, seconds: 0.2 }, DEFAULT_ASSUMED_BYTES_PER_SECOND, 'default'],
  ] as const)('%s', (_name, measured, bytesPerSecond, source) => {
    expect(chooseEstimateSpeed(measured)).toEqual({ bytesPerSecond, source });
  });
});
