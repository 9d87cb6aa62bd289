// electron-builder's afterPack hook (electron-builder.yml `afterPack`): the packed app holds
// the project's node_modules/better-sqlite3 as npm built it, for Node; this replaces its addon
// in the package (app.asar.unpacked) with one built for the packaged Electron, in a staging
// folder (bin/native-rebuild.mjs). The project's own node_modules keeps its Node build, so the
// CLI and the tests still run after a release build (electron-builder's `npmRebuild` would
// rebuild node_modules/better-sqlite3 in place, so it is off).
import path from 'node:path';
import { installNativeBuild } from './native-rebuild.mjs';

/** electron-builder's Arch enum (builder-util) → Node's arch names. */
const ARCH = { 0: 'ia32', 1: 'x64', 2: 'armv7l', 3: 'arm64', 4: 'universal' };

export default async function afterPack(context) {
  const packager = context.packager;
  const electronVersion = packager.config.electronVersion ?? packager.info.framework.version;
  const arch = ARCH[context.arch] ?? String(context.arch);
  const platform = context.electronPlatformName;
  const hostPlatform = process.platform === 'win32' ? 'win32' : process.platform;
  if (platform !== hostPlatform && !(platform === 'mas' && hostPlatform === 'darwin'))
    throw new Error(
      `afterPack: better-sqlite3 is built for Electron on the platform it runs on; build the ${platform} release on ${platform}`,
    );
  const resources = packager.getResourcesDir(context.appOutDir);
  const dest = path.join(resources, 'app.asar.unpacked', 'node_modules', 'better-sqlite3');
  const r = installNativeBuild({ runtime: 'electron', target: electronVersion, arch, destModuleDir: dest });
  if (!r.ok) throw new Error(`afterPack: ${r.reason}`);
  console.log(`  • better-sqlite3 built for Electron ${electronVersion} ${arch} into the package`);
}
