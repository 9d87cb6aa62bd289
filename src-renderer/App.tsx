/** The whole UI for one store: the shell and the five screens. */
import type { ReactNode } from 'react';
import { Shell } from './components/Shell';
import type { Screen } from './store/app';
import type { AppStore } from './store/store';
import { StoreProvider } from './store/react';
import { FoldersScreen } from './screens/folders/FoldersScreen';
import { SettingsScreen } from './screens/settings/SettingsScreen';
import { TasksScreen } from './screens/tasks/TasksScreen';
import { TransfersScreen } from './screens/transfers/TransfersScreen';
import { VcaScreen } from './screens/vca/VcaScreen';

const SCREENS: Record<Screen, () => ReactNode> = {
  transfers: () => <TransfersScreen />,
  folders: () => <FoldersScreen />,
  tasks: () => <TasksScreen />,
  vca: () => <VcaScreen />,
  settings: () => <SettingsScreen />,
};

export function App({ app }: { app: AppStore }) {
  return (
    <StoreProvider app={app}>
      <Shell screens={SCREENS} />
    </StoreProvider>
  );
}
