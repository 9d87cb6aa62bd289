/** The Transfers screen: states sidebar, header with totals and throughput, toolbar, the list, details. */
import { Button, Empty } from 'antd';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useApp } from '../../store/react';
import { AddDialog } from './AddDialog';
import { Detail } from './Detail';
import { Header } from './Header';
import { Sidebar } from './Sidebar';
import { Toolbar } from './Toolbar';
import { TransferList } from './TransferList';

export function TransfersScreen() {
  const { t } = useTranslation();
  const total = useApp((s) => s.transfers.total);
  const loaded = useApp((s) => s.transfers.loaded);
  const filtered = useApp((s) => {
    const f = s.transfers.filters;
    return f.states.length > 0 || f.accountId !== null || f.source !== null || f.rootId !== null || f.text !== '';
  });
  const actions = useActions();
  /** Set by Ctrl/Cmd+F while the detail is open: once the drawer has closed, this gets the focus it gives back. */
  const focusAfterDetail = useRef<(() => void) | null>(null);
  return (
    <div className="transfers-screen">
      <Sidebar />
      <section className="transfers-main" aria-label={t('transfers.title')}>
        <Header />
        <Toolbar focusAfterDetail={focusAfterDetail} />
        {loaded && total === 0 ? (
          <Empty
            className="empty"
            description={
              filtered
                ? t('transfers.emptyFiltered')
                : t('app.twoSentences', { first: t('transfers.empty'), second: t('transfers.emptyHint') })
            }
          >
            {filtered ? (
              <Button
                onClick={() =>
                  void actions.transfers.setFilters({
                    states: [],
                    accountId: null,
                    source: null,
                    rootId: null,
                    text: '',
                  })
                }
              >
                {t('transfers.clearFilters')}
              </Button>
            ) : (
              <Button type="primary" onClick={actions.transfers.openAdd}>
                {t('transfers.addByPath')}
              </Button>
            )}
          </Empty>
        ) : (
          <TransferList />
        )}
      </section>
      <Detail focusAfterClose={focusAfterDetail} />
      <AddDialog />
    </div>
  );
}
