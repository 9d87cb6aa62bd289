import path from 'node:path';
import { startHeadlessDoor } from '../../../src-main/headless/server';
import { contractSuite } from './contract-suite';
import { connectWs } from './ws-client';

contractSuite({
  door: 'headless',
  async connect(service, dataDir) {
    const door = await startHeadlessDoor({
      backend: service,
      version: 'test',
      rendererDir: path.join(dataDir, 'no-renderer'),
      stagingDir: path.join(dataDir, 'staging'),
    });
    const client = await connectWs(door.url, door.token);
    return {
      ...client,
      close: async () => {
        await client.close();
        await door.close();
      },
    };
  },
});
