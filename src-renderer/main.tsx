import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { AppStatus, TransferPage } from '../src-main/shared/contract';
import { connectDoor, type DoorClient } from './door-client';

/**
 * The minimum first screen the doors need to serve something real: the app's status and the
 * first transfers, read through whichever door the page was opened by. The renderer's own
 * screens replace this file.
 */
function FirstScreen({ door }: { door: DoorClient }) {
  const [status, setStatus] = useState<AppStatus | null>(null);
  const [page, setPage] = useState<TransferPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const refresh = async () => {
      const [s, p] = await Promise.all([
        door.call('app.status', undefined),
        door.call('transfers.list', { limit: 20 }),
      ]);
      if (s.ok) setStatus(s.value as AppStatus);
      else setError(s.error.message);
      if (p.ok) setPage(p.value as TransferPage);
    };
    void refresh();
    return door.subscribe((name) => {
      if (name === 'transfers') void refresh();
    });
  }, [door]);
  if (error) return <p role="alert">{error}</p>;
  if (!status) return <p>Connecting…</p>;
  return (
    <main>
      <h1>Blocklift</h1>
      <p data-testid="status">
        Version {status.version} · {status.door} door · data in {status.dataDir}
        {status.emulator ? ` · local emulator at ${status.emulator.url}` : ''}
      </p>
      <h2>Transfers ({page?.total ?? 0})</h2>
      <ul data-testid="transfers">
        {page?.rows.map((t) => (
          <li key={t.id}>
            {t.key} — {t.state} ({t.bytesDone}/{t.size} bytes)
          </li>
        ))}
      </ul>
    </main>
  );
}

const rootEl = document.getElementById('root');
if (rootEl) {
  const door = connectDoor();
  createRoot(rootEl).render(
    <StrictMode>
      <FirstScreen door={door} />
    </StrictMode>,
  );
}
