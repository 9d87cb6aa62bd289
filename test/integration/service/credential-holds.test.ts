import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProblemView } from '../../../src-main/shared/contract';
import { FAST_EMULATOR } from './harness';
import { ContractWorld, value } from './contract-world';

const MiB = 1024 * 1024;
const ADMIN_TOKEN = 'credential-holds-test-admin';

/** Pause reason `error`: a refusal of an account's credentials holds its uploads until the account is fixed. */
describe('credential holds', () => {
  let w: ContractWorld | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  const problems = (): ProblemView[] => w!.events.flatMap((e) => (e.name === 'problems' ? e.payload.problems : []));
  const state = (id: number) => w!.lastSeen(id)?.state;

  /** Files above the form-upload threshold (uploaded in blocks, one at a time with files: 1). */
  async function bigFiles(names: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const [i, n] of names.entries()) {
      const f = path.join(w!.tmp, n);
      await writeFile(f, Buffer.alloc(4 * MiB + 1, i + 1));
      out.push(f);
    }
    return out;
  }

  it('a wrong secret holds the account with reason error; the CLI is never held; accounts.save resumes everything', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    value(await svc.settings.set({ concurrency: { files: 1, blocksPerFile: 2 } }));
    const local = value(await svc.accounts.list()).find((a) => a.isLocal)!;
    const secret = (await readFile(path.join(w.dataDir, 'local-account.key'), 'utf8')).trim();
    const account = { name: 'Remote', uploadUrl: local.uploadUrl, accessKey: local.accessKey };
    const remote = value(await svc.accounts.save({ ...account, secretKey: 'not-the-secret' }));
    const [a, b, c, late, cli] = await bigFiles(['a.bin', 'b.bin', 'c.bin', 'late.bin', 'cli.bin']);
    const target = { accountId: remote.id, bucket: 'local', prefix: 'held/' };
    const ids = value(await svc.transfers.add({ paths: [a!, b!, c!], target })).queued;

    await w.until(() => problems().some((p) => p.code === 'account-credentials-refused'), 'the refusal problem');
    const refused = problems().filter((p) => p.code === 'account-credentials-refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]!.params).toMatchObject({ account: 'Remote', accountId: remote.id });
    await w.until(() => ids.every((id) => ['failed', 'paused'].includes(state(id) ?? '')), 'the batch held');
    const failed = ids.filter((id) => state(id) === 'failed');
    expect(failed).toHaveLength(1);
    expect(w.lastSeen(failed[0]!)!.lastError?.code).toBe('token-rejected');
    // The reply's request id comes as data (logged with the failure), the same the words name.
    const reply = value(await svc.transfers.get({ id: failed[0]! })).lastReply;
    expect(reply?.requestId).toEqual(expect.any(String));
    expect(reply?.body).toContain(`(request id ${reply?.requestId})`);
    for (const id of ids.filter((i) => !failed.includes(i))) expect(w.lastSeen(id)!.pausedBy).toBe('error');

    // Queued later for the held account: it waits with the others and never runs.
    const [lateId] = value(await svc.transfers.add({ paths: [late!], target })).queued;
    await w.until(() => state(lateId!) === 'paused', 'the late transfer held');
    expect(w.lastSeen(lateId!)!.pausedBy).toBe('error');
    expect(w.lastSeen(lateId!)!.bytesDone).toBe(0);
    // The CLI's own transfer runs and fails (the CLI exits with its code), never held.
    const [cliId] = value(await svc.transfers.add({ paths: [cli!], target, source: 'cli' })).queued;
    await w.until(() => state(cliId!) === 'failed', 'the CLI transfer failed');
    expect(w.lastSeen(cliId!)!.pausedBy).toBeNull();

    value(await svc.accounts.save({ id: remote.id, ...account, secretKey: secret }));
    const held = [...ids.filter((id) => !failed.includes(id)), lateId!];
    await w.until(() => held.every((id) => state(id) === 'done'), 'every held transfer done after the fix');
    const detail = value(await svc.transfers.get({ id: held[0]! }));
    expect(detail.verified).toBe(true);
    // The transfer that met the refusal keeps its error until the user retries it; the CLI's stays failed.
    expect(state(failed[0]!)).toBe('failed');
    expect(state(cliId!)).toBe('failed');
    expect(value(await svc.transfers.retry({ ids: [failed[0]!] }))).toEqual({ count: 1 });
    await w.until(() => state(failed[0]!) === 'done', 'the retried transfer done');
    expect(problems().filter((p) => p.code === 'account-credentials-refused')).toHaveLength(1);
  });

  it("the CLI's account flags given again with the right secret resume what the wrong one held", async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    value(await svc.settings.set({ concurrency: { files: 1, blocksPerFile: 2 } }));
    const local = value(await svc.accounts.list()).find((a) => a.isLocal)!;
    const secret = (await readFile(path.join(w.dataDir, 'local-account.key'), 'utf8')).trim();
    const flags = { name: 'Flags', uploadUrl: local.uploadUrl, accessKey: local.accessKey! };
    const id = svc.useSessionAccount({ ...flags, secretKey: 'wrong' });
    const ids = value(
      await svc.transfers.add({
        paths: await bigFiles(['f.bin', 'g.bin']),
        target: { accountId: id, bucket: 'local' },
      }),
    ).queued;
    await w.until(() => ids.some((i) => w!.lastSeen(i)?.pausedBy === 'error'), 'the account held');
    await w.until(() => ids.every((i) => ['failed', 'paused'].includes(state(i) ?? '')), 'the batch held');
    const held = ids.filter((i) => state(i) === 'paused');
    expect(held).toHaveLength(1);
    expect(svc.useSessionAccount({ ...flags, secretKey: secret })).toBe(id);
    await w.until(() => state(held[0]!) === 'done', 'the held one done after the flags were given again');
  });

  it('a refusal the service stops making: a failing accounts.test keeps the hold, a passing one resumes', async () => {
    w = await ContractWorld.create();
    const svc = await w.open({
      emulatorOptions: {
        ...FAST_EMULATOR,
        adminToken: ADMIN_TOKEN,
        faults: { errors: [{ endpoints: ['mkblk', 'form'], rate: 1, status: 401 }] },
      },
    });
    value(await svc.settings.set({ concurrency: { files: 1, blocksPerFile: 2 } }));
    const status = value(await svc.app.status());
    const localId = status.emulator!.accountId;
    const ids = value(
      await svc.transfers.add({ paths: await bigFiles(['x.bin', 'y.bin']), target: { bucket: 'local', prefix: 't/' } }),
    ).queued;
    await w.until(() => ids.every((id) => ['failed', 'paused'].includes(state(id) ?? '')), 'the batch held');
    expect(ids.filter((id) => w!.lastSeen(id)!.pausedBy === 'error')).toHaveLength(1);

    const refusedTest = value(await svc.accounts.test({ id: localId }));
    expect(refusedTest.checks.find((c) => c.what === 'upload')!.ok).toBe(false);
    expect(ids.filter((id) => state(id) === 'paused')).toHaveLength(1);

    const off = await fetch(`${status.emulator!.url}/admin/faults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(off.status).toBe(200);
    const held = ids.filter((id) => state(id) === 'paused');
    const passed = value(await svc.accounts.test({ id: localId }));
    expect(passed.checks.every((c) => c.ok)).toBe(true);
    await w.until(() => state(held[0]!) === 'done', 'the held transfer done after the passing test');
  });
});
