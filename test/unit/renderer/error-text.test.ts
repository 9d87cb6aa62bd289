import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProblemView } from '../../../src-main/shared/contract';
import { problemEvent, rootReason, type RootReason } from '../../../src-main/sync/problems';
import { rootUnavailable } from '../../../src-main/sync/scanner';
import { errorText, errorTitle, keyRejectText, rootReasonText } from '../../../src-renderer/components/errors';
import i18next, { type TFunction } from 'i18next';
import { en } from '../../../src-renderer/i18n/en';
import { zhCN } from '../../../src-renderer/i18n/zh-CN';
import { applyProblems, initial } from '../../../src-renderer/store/app';

/**
 * i18next as src-renderer/i18n/i18n.ts sets it up (without its React binding, whose types
 * this project's Node-side compile does not take).
 */
function tIn(language: 'en' | 'zh-CN'): TFunction {
  const instance = i18next.createInstance();
  void instance.init({
    lng: language,
    fallbackLng: 'en',
    resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } },
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  return instance.t;
}

/** A watched folder's problem event as the UI receives it (service/app-service.ts `onCoreEvent`). */
function asProblemView(e: ReturnType<typeof problemEvent>): ProblemView {
  return { code: e.code, message: e.message, params: { ...e.params, relPath: e.relPath }, at: 1, rootId: e.rootId };
}

/** The words of the notice a problem becomes, in a language. */
function noticeText(language: 'en' | 'zh-CN', p: ProblemView): string {
  const notice = applyProblems(initial(), { problems: [p] }).notices[0]!;
  if (notice.kind !== 'problem') throw new Error('not a problem notice');
  return errorText(tIn(language), notice.error);
}

describe('errorText of a watched folder’s problems', () => {
  it('says them in Chinese from their code and params, and in English as the sync layer wrote them', () => {
    const held = problemEvent(3, 'clips/a.mp4', 'queue-disk-full', { count: 12 });
    expect(noticeText('zh-CN', asProblemView(held))).toBe(
      '12 个文件正在等待：数据库所在磁盘已满；释放空间后即加入队列。',
    );
    expect(noticeText('en', asProblemView(held))).toBe(held.message);
    expect(held.message).toBe(
      '12 file(s) wait: the disk holding the database is full; they are queued once space is freed',
    );

    const link = problemEvent(3, 'photos/loop', 'symlink-loop', { path: 'photos/loop' });
    expect(noticeText('zh-CN', asProblemView(link))).toBe(
      '链接 photos/loop 指向自身或已在监视中的文件夹（循环，或同一文件夹的第二条路径）；未跟随。',
    );
    const failed = problemEvent(3, 'a.txt', 'delete-failed', { key: 'up/a.txt', reason: 'Fmgr delete failed: 612' });
    expect(noticeText('zh-CN', asProblemView(failed))).toBe(
      '在服务上删除 up/a.txt 失败：Fmgr delete failed: 612；稍后会重试。',
    );
  });

  it('no raw placeholder: what a full disk under a watched folder showed before (the app’s disk-full without its path)', () => {
    const before: ProblemView = {
      code: 'disk-full',
      message: '3 file(s) wait: the disk holding the database is full; they are queued once space is freed',
      params: { relPath: 'a.txt' },
      at: 1,
      rootId: 3,
    };
    // The catalog's disk-full needs {path}: the notice read "{{path}} 所在磁盘已满…" in both languages.
    expect(noticeText('zh-CN', before)).toContain('{{path}}');
    const now = asProblemView(problemEvent(3, 'a.txt', 'queue-disk-full', { count: 3 }));
    for (const language of ['en', 'zh-CN'] as const) expect(noticeText(language, now)).not.toMatch(/\{\{?\w+\}/);
  });
});

describe('keyRejectText: a rejected file of the Folders screen', () => {
  it('says why by its code in Chinese; an unknown code keeps the row’s message', () => {
    const zh = tIn('zh-CN');
    const row = {
      code: 'control-character',
      message: 'the name contains control character U+0007; rename the file',
    };
    expect(keyRejectText(zh, 'zh-CN', row)).toBe('名称包含控制字符；请重命名该文件。');
    expect(keyRejectText(zh, 'zh-CN', { code: 'too-long', message: 'the key is 800 bytes…' })).toBe(
      '键超过 750 字节（UTF-8）；请缩短路径或前缀。',
    );
    expect(keyRejectText(zh, 'zh-CN', { code: 'from-a-newer-version', message: 'its own words' })).toBe(
      'its own words',
    );
  });
  it('in English shows the row’s own message, with its detail', () => {
    const row = {
      code: 'control-character',
      message: 'the name contains control character U+0007; rename the file',
    };
    expect(keyRejectText(tIn('en'), 'en', row)).toBe(row.message);
  });
});

describe('rootReasonText: why a watched folder is unavailable or paused, on its card', () => {
  /** A root view's reason fields as service/use-cases/views.ts fills them from the root's reason. */
  const view = (r: RootReason) => ({ reason: r.message, reasonCode: r.code, reasonParams: r.params });
  const errno = (code: string, message: string) => Object.assign(new Error(message), { code });
  const folder = '/media/usb/Clips';
  const cases: Array<[RootReason, string, string]> = [
    [
      rootUnavailable(folder, errno('ENOENT', `ENOENT: no such file or directory, stat '${folder}'`)),
      `the folder ${folder} is not there (unplugged drive or removed?); watching resumes when it returns`,
      `文件夹 ${folder} 不存在（驱动器已拔出或文件夹已移除？）；它回来后会继续监视。`,
    ],
    [
      rootUnavailable(folder, errno('ENOTDIR', 'ENOTDIR: not a directory')),
      `${folder} is not a folder`,
      `${folder} 不是文件夹。`,
    ],
    [
      rootUnavailable(folder, errno('EACCES', 'EACCES: permission denied')),
      `permission denied reading ${folder}`,
      `没有权限读取 ${folder}。`,
    ],
    [
      rootUnavailable(folder, errno('EIO', 'EIO: i/o error, scandir')),
      `cannot read ${folder}: EIO: i/o error, scandir`,
      `无法读取 ${folder}：EIO: i/o error, scandir`,
    ],
    [rootReason('root-paused', {}), 'paused by the user', '由用户暂停。'],
  ];

  it('says each in Chinese from its code and params (the system’s words stay as they are), and in English as the sync layer wrote it', () => {
    expect(cases.map(([r]) => r.code)).toEqual([
      'root-missing',
      'root-not-a-folder',
      'root-permission-denied',
      'root-unreadable',
      'root-paused',
    ]);
    for (const [r, en, zh] of cases) {
      expect(r.message).toBe(en);
      expect(rootReasonText(tIn('en'), view(r))).toBe(en);
      expect(rootReasonText(tIn('zh-CN'), view(r))).toBe(zh);
    }
  });

  it('a reason stored by an older version has no code: its text is shown; none at all: nothing', () => {
    const old = { reason: 'the folder /x is not there', reasonCode: null, reasonParams: null };
    expect(rootReasonText(tIn('zh-CN'), old)).toBe('the folder /x is not there');
    expect(rootReasonText(tIn('zh-CN'), { reason: null, reasonCode: null, reasonParams: null })).toBeNull();
  });
});

describe('the title of a failed action’s toast', () => {
  /** Every context the renderer's slices report an error with (the verb that failed). */
  function reportedContexts(): string[] {
    const dir = path.resolve(__dirname, '../../../src-renderer/store');
    const out = new Set<string>();
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const src = readFileSync(path.join(dir, f), 'utf8');
      for (const m of src.matchAll(/report\([^,]+,\s*'([a-zA-Z]+\.[a-zA-Z]+)'\)/g)) out.add(m[1]!);
    }
    for (const verb of ['pause', 'resume', 'cancel', 'retry', 'remove']) out.add(`transfers.${verb}`);
    for (const verb of ['pause', 'resume', 'rescan']) out.add(`roots.${verb}`);
    out.add('transfers.addSkipped');
    return [...out];
  }

  it('says what the person tried in words, in English and Chinese, never the verb’s name or a placeholder', () => {
    const contexts = reportedContexts();
    expect(contexts).toEqual(expect.arrayContaining(['transfers.add', 'roots.plan', 'fmgr.track']));
    for (const language of ['en', 'zh-CN'] as const) {
      const t = tIn(language);
      const general = errorTitle(t, 'no.suchVerb');
      for (const context of contexts) {
        const title = errorTitle(t, context);
        expect(title, `${language} ${context}`).not.toBe(general);
        expect(title, `${language} ${context}`).not.toContain(context);
        expect(title, `${language} ${context}`).not.toMatch(/\{\{|\}\}|[a-z]+\.[a-zA-Z]+/);
      }
      expect(general).not.toContain('no.suchVerb');
    }
    expect(errorTitle(tIn('en'), 'transfers.add')).toBe('Could not add the files');
    expect(errorTitle(tIn('en'), 'roots.plan')).toBe('Could not plan the folder');
    expect(errorTitle(tIn('zh-CN'), 'transfers.add')).toBe('无法添加文件');
    expect(errorTitle(tIn('en'), 'transfers.addSkipped')).toBe('Some files were not added');
  });
});
