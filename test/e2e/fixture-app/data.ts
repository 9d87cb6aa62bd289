/** Plain data for the fixture page's Folders, Tasks and Video review screens. */
import type { WatchRootView } from '../../../src-main/shared/contract';
import type { FmgrTaskView, VcaJobView, VcaLabelDecision } from '../../../src-main/shared/task-views';

const at = Date.UTC(2025, 2, 7, 6, 5);

export const roots: WatchRootView[] = [
  {
    id: 1,
    path: '/home/user/Pictures',
    accountId: 1,
    bucket: 'local',
    prefix: 'photos/',
    options: { keyTemplate: '{yyyy}/{mm}/{name}', ignore: ['*.raw'], vcaForVideos: true },
    state: 'watching',
    reason: null,
    reasonCode: null,
    reasonParams: null,
    pausedBy: null,
    counts: { indexed: 12408, waiting: 3, uploaded: 12200, ignored: 180, rejected: 2, failed: 1, inFlight: 22 },
    scanning: null,
    rejected: [
      { relPath: 'bad\u0001name.jpg', code: 'control-character', message: 'the key has a control character' },
      { relPath: 'x/../y.jpg', code: 'dot-segment', message: 'the key has a "." or ".." segment' },
    ],
    lastScanAt: at,
  },
  {
    id: 2,
    path: '/mnt/usb/Videos',
    accountId: 1,
    bucket: 'local',
    prefix: 'videos/',
    options: {},
    state: 'unavailable',
    reason: 'the folder /mnt/usb/Videos is not there (unplugged drive or removed?); watching resumes when it returns',
    reasonCode: 'root-missing',
    reasonParams: { path: '/mnt/usb/Videos' },
    pausedBy: null,
    counts: { indexed: 40, waiting: 0, uploaded: 40, ignored: 0, rejected: 0, failed: 0, inFlight: 0 },
    scanning: null,
    rejected: [],
    lastScanAt: at - 86_400_000,
  },
];

export const tasks: FmgrTaskView[] = [
  {
    id: 1,
    accountId: 1,
    persistentId: 'z0.fmgr.64f1c2',
    origin: 'submitted',
    op: 'copy',
    fops: 'copy/bG9jYWw6YS5qcGc=/bG9jYWw6Yi5qcGc=',
    notifyUrl: null,
    forTransfer: null,
    tracking: 'done',
    code: 0,
    codeSource: 'poll',
    state: 'success',
    description: 'The task succeeded',
    separate: null,
    items: [
      {
        index: 0,
        cmd: 'copy/local:a.jpg/local:b.jpg',
        code: 0,
        state: 'success',
        description: 'ok',
        error: null,
        hash: 'FhA1',
        fsize: 204800,
        key: 'b.jpg',
        url: null,
        decompresslist: null,
      },
    ],
    error: null,
    polls: 3,
    nextPollAt: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: at,
  },
  {
    id: 2,
    accountId: 1,
    persistentId: 'z0.fmgr.91bb07',
    origin: 'typed',
    op: 'fetch',
    fops: null,
    notifyUrl: null,
    forTransfer: null,
    tracking: 'active',
    code: 1,
    codeSource: 'poll',
    state: 'processing',
    description: null,
    separate: null,
    items: [],
    error: null,
    polls: 1,
    nextPollAt: Date.now() + 60_000,
    createdAt: at + 1000,
    updatedAt: at + 1000,
    finishedAt: null,
  },
];

function job(
  id: number,
  name: string,
  labels: Record<string, Array<[string, number, VcaLabelDecision?]>>,
  failed?: string,
): VcaJobView {
  let labelId = id * 100;
  return {
    id,
    accountId: 1,
    jobId: `vca-${id}`,
    bucket: 'local',
    sourceUrl: `http://127.0.0.1:9/local/videos/${name}`,
    origin: 'watch',
    transferId: null,
    notifyUrl: null,
    tracking: failed ? 'failed' : 'done',
    code: failed ? 3 : 0,
    state: failed ? 'failed' : 'success',
    description: null,
    notifyResult: null,
    notifyState: null,
    minConfidence: 0.75,
    results: Object.entries(labels).map(([type, list]) => ({
      type,
      labels: list.map(([attribute, confidence, decision]) => ({
        id: ++labelId,
        attribute,
        confidence,
        decision: decision ?? 'pending',
        correctedText: null,
        effective: confidence >= 0.75 ? 'above-threshold' : 'below-threshold',
      })),
    })),
    error: failed ? { code: 'vca-error', message: failed, at } : null,
    polls: 2,
    nextPollAt: null,
    createdAt: at + id,
    updatedAt: at + id,
    finishedAt: at + id,
  };
}

export const vcaJobs: VcaJobView[] = [
  job(1, 'beach-01.mp4', {
    scenario: [
      ['beach', 0.97],
      ['outdoor', 0.88, 'accepted'],
    ],
    entity: [
      ['surfboard', 0.81],
      ['dog', 0.42],
    ],
    location: [['Bondi', 0.64]],
    'new-type': [['unlisted', 0.7]],
  }),
  job(2, 'talk-02.mp4', { figure: [['Grace Hopper', 0.9, 'accepted']], keyword: [['compiler', 0.75, 'rejected']] }),
  job(3, 'corrupt.mp4', {}, 'the video stream cannot be decoded'),
];
