import path from 'node:path';

/**
 * Whether a file is a video: the one rule for a watched root's "VCA for videos" option
 * (sync) and the tasks layer (tasks/video-detect.ts re-exports it; tasks may import sync,
 * not the reverse). By MIME type when one is known (video/*; the HLS playlist type
 * video/vnd.mpegurl is not a video of its own), else by extension, case-insensitively.
 *
 * ".ts" is left out of the defaults on purpose: in a watched folder it is far more often a
 * TypeScript source than an MPEG transport stream, and HLS segments are not worth
 * analysing one by one. A user who wants it adds it to the extension list.
 */
export const DEFAULT_VIDEO_EXTENSIONS: readonly string[] = [
  '.mp4',
  '.m4v',
  '.mov',
  '.mkv',
  '.webm',
  '.avi',
  '.wmv',
  '.flv',
  '.mpg',
  '.mpeg',
  '.mts',
  '.m2ts',
  '.3gp',
  '.3g2',
  '.ogv',
  '.vob',
  '.f4v',
  '.rm',
  '.rmvb',
  '.asf',
];

export interface VideoDetectOptions {
  /** Extensions with the dot, e.g. ".mp4"; default DEFAULT_VIDEO_EXTENSIONS. */
  extensions?: readonly string[];
}

/** Normalizes user input like "MP4, .mov" into [".mp4", ".mov"]; drops empties. */
export function parseExtensionList(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '')
    .map((e) => (e.startsWith('.') ? e : `.${e}`));
}

/** `filePath` may be absolute, relative, or a '/' relative path of a root. */
export function isVideo(filePath: string, mimeType?: string, opts: VideoDetectOptions = {}): boolean {
  const mime = mimeType?.split(';')[0]?.trim().toLowerCase();
  if (mime && mime !== 'application/octet-stream') return mime.startsWith('video/') && mime !== 'video/vnd.mpegurl';
  const ext = path.posix.extname(filePath.replaceAll('\\', '/')).toLowerCase();
  const list = (opts.extensions ?? DEFAULT_VIDEO_EXTENSIONS).map((e) => e.toLowerCase());
  return ext !== '' && list.includes(ext);
}
