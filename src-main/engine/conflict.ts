/** Renames tried under the rename policy before the transfer fails with `conflict` (the upload's and the copy's). */
export const MAX_RENAMES = 100;

/**
 * The key tried after `n` conflicts under the rename policy: a " (n)" suffix before the
 * extension of the last path segment, e.g. "a/photo.jpg" → "a/photo (1).jpg".
 */
export function renamedKey(key: string, n: number): string {
  const slash = key.lastIndexOf('/');
  const dot = key.lastIndexOf('.');
  const hasExt = dot > slash + 1;
  const stem = hasExt ? key.slice(0, dot) : key;
  const ext = hasExt ? key.slice(dot) : '';
  return `${stem} (${n})${ext}`;
}
