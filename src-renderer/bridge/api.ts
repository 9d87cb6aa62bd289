import type { TransferSnapshot } from '../../src-main/shared/models';

/**
 * What the renderer can ask of the main process. Two implementations will exist (Electron
 * preload, WebSocket for headless mode); screens depend only on this interface.
 */
export interface BridgeApi {
  listTransfers(): Promise<TransferSnapshot[]>;
  onTransferChange(listener: (t: TransferSnapshot) => void): () => void;
}
