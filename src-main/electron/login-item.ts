import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { app } from 'electron';
import { autostartEntry, loginItemPlan, type LoginItemPlan } from './desktop-integration';

/** This process's launch-at-login plan (desktop-integration.ts loginItemPlan). */
export function currentLoginItemPlan(): LoginItemPlan {
  return loginItemPlan({
    platform: process.platform,
    isPackaged: app.isPackaged,
    // Electron's own executable (the AppImage's is in env.APPIMAGE).
    execPath: app.getPath('exe'),
    env: process.env,
    home: os.homedir(),
  });
}

/**
 * Applies the launchAtLogin setting: the OS login item (macOS, Windows), the XDG autostart
 * entry (Linux), or nothing with a reason (unpackaged, under npm start). Returns what it did,
 * for the log; only a change is written.
 */
export function applyLaunchAtLogin(enabled: boolean, plan: LoginItemPlan = currentLoginItemPlan()): string | null {
  switch (plan.kind) {
    case 'none':
      return enabled ? plan.reason : null;
    case 'os':
      if (app.getLoginItemSettings().openAtLogin === enabled) return null;
      app.setLoginItemSettings({ openAtLogin: enabled });
      return `login item ${enabled ? 'set' : 'removed'}`;
    case 'autostart': {
      const entry = autostartEntry(plan.exec);
      let current: string | null = null;
      try {
        current = readFileSync(plan.file, 'utf8');
      } catch {
        current = null;
      }
      if (enabled) {
        if (current === entry) return null;
        mkdirSync(path.dirname(plan.file), { recursive: true });
        writeFileSync(plan.file, entry);
        return `autostart entry written: ${plan.file}`;
      }
      if (current === null) return null;
      rmSync(plan.file, { force: true });
      return `autostart entry removed: ${plan.file}`;
    }
  }
}
