import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../base/sqlite';

/**
 * The block context (ctx) the emulator hands out after each chunk: opaque to clients,
 * HMAC-signed with a secret kept in the emulator's database (so a ctx stays valid across
 * a restart), and bound to one upload batch, one block and one offset. Whether it is
 * still the *current* ctx of its block (not replayed, not stale) is decided by the block
 * store, which knows how far the block has got.
 *
 * Layout before URL-safe Base64 (no padding, so it is path-safe):
 *   version(1) ‖ blockId(16) ‖ order(4) ‖ offset(8) ‖ sha256(batch)[0..12) ‖ mac(16)
 */
const VERSION = 1;
const BLOCK_ID_BYTES = 16;
const BATCH_TAG_BYTES = 12;
const MAC_BYTES = 16;
const PAYLOAD_BYTES = 1 + BLOCK_ID_BYTES + 4 + 8 + BATCH_TAG_BYTES;
const CTX_BYTES = PAYLOAD_BYTES + MAC_BYTES;

export interface CtxClaims {
  /** Hex id of the block in the block store. */
  blockId: string;
  blockOrder: number;
  /** Offset of the chunk this ctx allows: the block's size so far when it was issued. */
  offset: number;
  batchTag: Buffer;
}

/** Why a ctx was refused: 'malformed' (not a ctx at all) or 'forged' (bad signature). */
export class CtxError extends Error {
  override readonly name = 'CtxError';
  constructor(
    readonly code: 'malformed' | 'forged',
    message: string,
  ) {
    super(message);
  }
}

export function batchTag(batch: string): Buffer {
  return createHash('sha256').update(batch, 'utf8').digest().subarray(0, BATCH_TAG_BYTES);
}

export class CtxSigner {
  constructor(private readonly secret: Buffer) {}

  /** Loads the signing secret from the `meta` table, creating it on first use. */
  static fromDb(db: Db): CtxSigner {
    const row = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE name = 'ctx_secret'").get();
    if (row) return new CtxSigner(Buffer.from(row.value, 'hex'));
    const secret = randomBytes(32);
    db.prepare("INSERT INTO meta (name, value) VALUES ('ctx_secret', ?)").run(secret.toString('hex'));
    return new CtxSigner(secret);
  }

  sign(c: { blockId: string; blockOrder: number; offset: number; batch: string }): string {
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    payload.writeUInt8(VERSION, 0);
    Buffer.from(c.blockId, 'hex').copy(payload, 1, 0, BLOCK_ID_BYTES);
    payload.writeUInt32BE(c.blockOrder, 1 + BLOCK_ID_BYTES);
    payload.writeBigUInt64BE(BigInt(c.offset), 1 + BLOCK_ID_BYTES + 4);
    batchTag(c.batch).copy(payload, 1 + BLOCK_ID_BYTES + 12);
    return Buffer.concat([payload, this.mac(payload)]).toString('base64url');
  }

  /** Checks form and signature; throws CtxError. */
  verify(ctx: string): CtxClaims {
    if (!/^[A-Za-z0-9_-]+$/.test(ctx))
      throw new CtxError('malformed', 'ctx is not one this service issued (bad characters)');
    const raw = Buffer.from(ctx, 'base64url');
    if (raw.length !== CTX_BYTES || raw.readUInt8(0) !== VERSION)
      throw new CtxError('malformed', 'ctx is not one this service issued (bad length or version)');
    const payload = raw.subarray(0, PAYLOAD_BYTES);
    const mac = raw.subarray(PAYLOAD_BYTES);
    if (!timingSafeEqual(mac, this.mac(payload)))
      throw new CtxError('forged', 'ctx signature does not match: it was modified or made up');
    return {
      blockId: payload.subarray(1, 1 + BLOCK_ID_BYTES).toString('hex'),
      blockOrder: payload.readUInt32BE(1 + BLOCK_ID_BYTES),
      offset: Number(payload.readBigUInt64BE(1 + BLOCK_ID_BYTES + 4)),
      batchTag: Buffer.from(payload.subarray(1 + BLOCK_ID_BYTES + 12)),
    };
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

export function newBlockId(): string {
  return randomBytes(BLOCK_ID_BYTES).toString('hex');
}
