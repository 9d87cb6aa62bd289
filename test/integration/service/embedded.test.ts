import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src-main/service/app-core';
import { LOCAL_ACCOUNT_NAME, LOCAL_KEY_FILE } from '../../../src-main/service/embedded';
import { SecretError } from '../../../src-main/service/secrets';
import { CoreWorld, FAST_EMULATOR, isType } from './harness';

describe('the embedded default', () => {
  let w: CoreWorld;
  afterEach(async () => {
    await w?.close();
  });

  it("a reopen reuses the last run's port (URLs given out keep working); when it is taken, another, and the Local account follows", async () => {
    w = await CoreWorld.create();
    const first = await w.open();
    const port = Number(new URL(first.embedded!.emulator.uploadUrl).port);
    const localId = first.localAccountId!;
    await w.closeCore();

    const again = await w.open();
    expect(Number(new URL(again.embedded!.emulator.uploadUrl).port)).toBe(port);
    expect(again.accounts.get(localId)!.downloadDomain).toBe(`http://127.0.0.1:${port}/dl/${again.embedded!.bucket}`);
    await w.closeCore();

    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const third = await w.open();
      const emu = third.embedded!.emulator;
      expect(Number(new URL(emu.uploadUrl).port)).not.toBe(port);
      expect(third.accounts.get(localId)!.uploadUrl).toBe(emu.uploadUrl);
      await w.closeCore();
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('with no account: starts the emulator and a Local account; an upload works; a reopen reuses the data and keys', async () => {
    w = await CoreWorld.create();
    const core = await w.open();
    const local = core.accounts.byName(LOCAL_ACCOUNT_NAME);
    expect(local).toBeDefined();
    expect(core.localAccountId).toBe(local!.id);
    const emu = core.embedded!.emulator;
    expect(new URL(emu.uploadUrl).hostname).toBe('127.0.0.1');
    expect(emu.dataDir).toBe(path.join(w.dataDir, 'emulator'));
    expect(local!.uploadUrl).toBe(emu.uploadUrl);
    expect(local!.mgrUrl).toBe(emu.mgrUrl);
    expect(local!.downloadDomain).toBe(`${emu.downloadBaseUrl}/${core.embedded!.bucket}`);
    // The row holds a reference to a 0600 file, never the secret.
    const keyFile = path.join(w.dataDir, LOCAL_KEY_FILE);
    expect(local!.secretRef).toBe(`file:${keyFile}`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const secret = readFileSync(keyFile, 'utf8').trim();
    expect(secret.length).toBeGreaterThanOrEqual(40);
    expect(emu.config.secretKey).toBe(secret);

    const file = path.join(w.tmp, 'hello.txt');
    writeFileSync(file, 'hello from the embedded default\n');
    const [id] = core.engine.enqueue([
      { accountId: local!.id, bucket: core.embedded!.bucket, key: 'docs/hello.txt', localPath: file, source: 'manual' },
    ]);
    const done = await w.waitFor(
      isType(
        'transfer-changed',
        (e) => e.transfer.id === id && e.transfer.state !== 'queued' && ['done', 'failed'].includes(e.transfer.state),
      ),
    );
    expect(done.transfer.lastError).toBeNull();
    expect(done.transfer.state).toBe('done');
    expect((await emu.objects.stat('local', 'docs/hello.txt'))?.size).toBe(32);
    await w.closeCore();

    const again = await w.open();
    expect(again.accounts.list().map((a) => a.name)).toEqual([LOCAL_ACCOUNT_NAME]);
    expect(again.localAccountId).toBe(local!.id);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(secret);
    const emu2 = again.embedded!.emulator;
    expect(emu2.config.secretKey).toBe(secret);
    expect((await emu2.objects.stat('local', 'docs/hello.txt'))?.hash).toBe(done.transfer.etag);
    // The account follows the new port.
    expect(again.accounts.get(local!.id)!.uploadUrl).toBe(emu2.uploadUrl);
  });

  it('refuses a Local key file others can read, saying chmod 600', async () => {
    w = await CoreWorld.create();
    await w.open();
    await w.closeCore();
    const keyFile = path.join(w.dataDir, LOCAL_KEY_FILE);
    chmodSync(keyFile, 0o644);
    const err = await AppCore.open({ dataDir: w.dataDir, emulatorOptions: FAST_EMULATOR }).then(
      async (c) => {
        await c.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SecretError);
    expect((err as SecretError).code).toBe('secret-file-unsafe');
    expect((err as SecretError).message).toContain(`chmod 600 ${keyFile}`);
  });

  it('does not start the emulator when another account is configured, unless asked', async () => {
    w = await CoreWorld.create();
    const core = await w.open({ embeddedEmulator: false });
    expect(core.embedded).toBeUndefined();
    core.accounts.upsert({
      name: 'cloud',
      uploadUrl: 'http://127.0.0.1:9',
      mgrUrl: null,
      downloadDomain: null,
      accessKey: 'ak',
      secretRef: 'env:BLOCKLIFT_TEST_NOT_SET',
      tokenUrl: null,
    });
    await w.closeCore();
    const auto = await w.open();
    expect(auto.embedded).toBeUndefined();
    expect(auto.accounts.byName(LOCAL_ACCOUNT_NAME)).toBeUndefined();
    // An account whose secret cannot be found: its transfer fails with an error naming what to set.
    const file = path.join(w.tmp, 'f.txt');
    writeFileSync(file, 'x');
    const cloud = auto.accounts.byName('cloud')!;
    const [id] = auto.engine.enqueue([
      { accountId: cloud.id, bucket: 'b', key: 'f.txt', localPath: file, source: 'manual' },
    ]);
    const failed = await w.waitFor(
      isType('transfer-changed', (e) => e.transfer.id === id && e.transfer.state === 'failed'),
    );
    expect(failed.transfer.lastError?.message).toContain('BLOCKLIFT_TEST_NOT_SET');
  });
});
