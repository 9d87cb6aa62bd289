import { mkdirSync } from 'node:fs';
import type { AppEventMessage, DoorBackend } from '../../../src-main/service/dispatch';
import { API_VERBS, type AppApi } from '../../../src-main/shared/contract';

export interface TestBackend {
  door: DoorBackend;
  emit(e: AppEventMessage): void;
  close(): Promise<void>;
}

/** Placeholder until the app service lands: every verb answers ok with null. */
export async function openDoorBackend(dataDir: string): Promise<TestBackend> {
  mkdirSync(dataDir, { recursive: true });
  const listeners = new Set<(e: AppEventMessage) => void>();
  const api = Object.fromEntries(
    Object.entries(API_VERBS).map(([area, verbs]) => [
      area,
      Object.fromEntries(verbs.map((v) => [v, async () => ({ ok: true, value: null })])),
    ]),
  ) as unknown as AppApi;
  return {
    door: {
      api,
      subscribe: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    },
    emit: (e) => listeners.forEach((l) => l(e)),
    close: async () => undefined,
  };
}
