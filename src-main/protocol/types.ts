import { VCA_TYPES } from '../shared/task-views';

/** Reply of mkblk and bput (protocol-notes "mkblk / bput"). */
export interface BlockContext {
  ctx: string;
  /** Lowercase hex MD5 of this request's body. */
  checksum: string;
  /** Unsigned CRC-32 (IEEE) of this request's body. */
  crc32: number;
  /** Bytes of the block received so far: the offset of the next chunk. */
  offset: number;
  host?: string;
}

/**
 * Reply of mkfile: `hash` and `key`, plus the returnBody pairs when the policy has one.
 * `H` is `string | null` for a policy with callbackUrl: the reply is then the callback's,
 * which may carry neither (null when absent).
 */
export interface MkfileResult<H extends string | null = string> {
  hash: H;
  key: H;
  /** The whole reply object, for returnBody passthrough. */
  body: Record<string, unknown>;
}

/** What `GET /stat/<entry>` tells of a stored object (MgrClient.stat). */
export interface StoredObjectInfo {
  /** The service's etag of the content (protocol-notes "The file hash"). */
  hash: string;
  fsize: number;
  mimeType?: string;
  /** When it was stored, as the service gives it (the emulator: Unix ms). */
  putTime?: number;
}

export interface FmgrItem {
  cmd: string;
  code: number;
  desc: string;
  error?: string;
  hash?: string;
  fsize?: number;
  key?: string;
  url?: string;
  decompresslist?: string;
}

/** Fmgr task status, as the status query answers and notifications carry it. */
export interface FmgrTaskStatus {
  id: string;
  code: number;
  desc: string;
  separate?: string | number;
  items: FmgrItem[];
}

export { VCA_TYPES };
export type VcaType = (typeof VCA_TYPES)[number];
/**
 * The type of a result group as the service sends it: one of the six documented types, or
 * a name the spec does not list yet. Unknown names are kept (stored, shown raw, exported)
 * rather than refused: refusing would make the job unreadable and lose its labels.
 */
export type VcaResultType = VcaType | (string & {});

export interface VcaLabel {
  attribute: string;
  confidence: number;
}

/** A group of labels of one type; the emulator produces documented types only (the default). */
export interface VcaResultGroup<T extends VcaResultType = VcaType> {
  type: T;
  result: VcaLabel[];
}

/** A video analysis job as `GET /v1/vca/search` answers it. */
export interface VcaJob {
  jobId: string;
  /** 1 analysing, 2 failed, 3 succeeded. */
  code: number;
  desc: string;
  /** 0 not notified, 1 notifying, 2 failed, 3 succeeded. */
  notifyResult: number;
  results: VcaResultGroup<VcaResultType>[];
}
