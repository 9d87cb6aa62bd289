/** Totals over every transfer and the live throughput of the last minutes. */
import { Space, Statistic } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCount, formatSpeed } from '../../format/format';
import { useApp } from '../../store/react';
import { Sparkline } from './Sparkline';

export function Header() {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const totals = useApp((s) => s.transfers.totals);
  const throughput = useApp((s) => s.transfers.throughput);
  const history = useApp((s) => s.transfers.history);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const active = totals.queued + totals.hashing + totals.uploading + totals.completing + totals.paused;
  return (
    <header className="transfers-header" aria-label={t('transfers.title')}>
      <Space size="large" wrap align="center">
        <Statistic title={t('transfers.active')} value={formatCount(active, lng)} />
        <Statistic title={t('states.done')} value={formatCount(totals.done, lng)} />
        <Statistic title={t('states.failed')} value={formatCount(totals.failed, lng)} />
        <Statistic title={t('transfers.throughput')} value={formatSpeed(throughput, lng)} />
        <Sparkline samples={history} now={now} active={active > totals.paused} />
      </Space>
    </header>
  );
}
