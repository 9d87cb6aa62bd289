/** States with live counts; a click filters the list by that state ("All" clears it). */
import { Badge, Menu } from 'antd';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { formatCount } from '../../format/format';
import { useActions, useApp } from '../../store/react';
import { TRANSFER_STATES } from '../../store/transfers';

export function Sidebar() {
  const { t, i18n } = useTranslation();
  const totals = useApp((s) => s.transfers.totals);
  const states = useApp(useShallow((s) => s.transfers.filters.states));
  const actions = useActions();
  const all = TRANSFER_STATES.reduce((n, s) => n + totals[s], 0);
  const label = (text: string, count: number) => (
    <span className="sidebar-item">
      <span>{text}</span>
      <Badge count={formatCount(count, i18n.language)} showZero color="#595959" overflowCount={Infinity} />
    </span>
  );
  return (
    <nav aria-label={t('transfers.sidebar')} className="transfer-sidebar">
      <Menu
        mode="inline"
        selectedKeys={[states.length === 1 ? states[0]! : 'all']}
        onClick={({ key }) => void actions.transfers.setFilters({ states: key === 'all' ? [] : [key as never] })}
        items={[
          { key: 'all', label: label(t('states.all'), all) },
          ...TRANSFER_STATES.map((s) => ({ key: s, label: label(t(`states.${s}`), totals[s]) })),
        ]}
      />
    </nav>
  );
}
