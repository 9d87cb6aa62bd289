import path from 'node:path';

/**
 * Whether a file is a video, for a watched folder's "analyse videos" option: by MIME type
 * when one is known (video/*, and the HLS and MPEG-DASH playlist types are not videos of
 * their own), else by extension. Extensions compare case-insensitively. ".ts" is left out of
 * the defaults on purpose: in a watched folder it is far more often TypeScript than an MPEG
 * transport stream (and HLS segments are not worth analysing one by one); add it if needed.
 */
export const DEFAULT_VIDEO_EXTENSIONS: readonly string[] = [
  '.mp4', '.m4v', '.mov', '.mkv', '.webm', '.avi', '.wmv', '.flv', '.mpg', '.mpeg', '.mts', '.m2ts', '.3gp', '.3g2', '.ogv', '.vob', '.f4v', '.rm', '.rmvb', '.asf',
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

export function isVideo(filePath: string, mimeType?: string, opts: VideoDetectOptions = {}): boolean {
  const mime = mimeType?.split(';')[0]?.trim().toLowerCase();
  if (mime && mime !== 'application/octet-stream') return mime.startsWith('video/') && mime !== 'video/vnd.mpegurl';
  const ext = path.extname(filePath).toLowerCase();
  const list = (opts.extensions ?? DEFAULT_VIDEO_EXTENSIONS).map((e) => e.toLowerCase());
  return ext !== '' && list.includes(ext);
}
