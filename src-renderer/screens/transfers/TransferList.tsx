/**
 * The transfer list: a grid virtualized with TanStack Virtual, so only the rows on screen
 * exist in the DOM and only their pages cross the bridge (the store fetches them). ARIA grid:
 * aria-rowcount on the grid, aria-rowindex per row, focus kept on the grid and the active
 * row named by aria-activedescendant. Keys: ↑/↓ move, Shift+↑/↓ extend, Space toggle,
 * Enter details, Ctrl/Cmd+A select all.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { Checkbox, Tooltip, theme } from 'antd';
import { memo, useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatEta, formatSpeed } from '../../format/format';
import { useActions, useApp } from '../../store/react';
import { idAt } from '../../store/transfers';
import { ProgressBar } from './ProgressBar';

export const ROW_HEIGHT = 48;
const rowDomId = (index: number) => `transfer-row-${index}`;

export function TransferList() {
  const { t } = useTranslation();
  const total = useApp((s) => s.transfers.total);
  const actions = useActions();
  const scrollRef = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const { token } = theme.useToken();
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });
  const items = virtualizer.getVirtualItems();
  const start = items[0]?.index ?? 0;
  const end = (items[items.length - 1]?.index ?? -1) + 1;

  useEffect(() => {
    void actions.transfers.setVisible(start, Math.max(end, start + 1));
  }, [actions, start, end, total]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const move = (to: number) => {
      const next = Math.max(0, Math.min(total - 1, to));
      setActive(next);
      virtualizer.scrollToIndex(next);
      if (e.shiftKey) actions.transfers.click(next, { range: true });
    };
    if (e.key === 'ArrowDown') move(active + 1);
    else if (e.key === 'ArrowUp') move(active - 1);
    else if (e.key === 'PageDown') move(active + 10);
    else if (e.key === 'PageUp') move(active - 10);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(total - 1);
    else if (e.key === ' ') actions.transfers.click(active, { toggle: true });
    else if (e.key === 'Enter') actions.transfers.openRow(active);
    else if (e.key === 'a' && (e.ctrlKey || e.metaKey)) actions.transfers.selectAll();
    else return;
    e.preventDefault();
  };

  return (
    <div
      className="transfer-grid"
      role="grid"
      aria-label={t('transfers.list')}
      aria-rowcount={total + 1}
      aria-multiselectable
      tabIndex={0}
      aria-activedescendant={active >= start && active < end ? rowDomId(active) : undefined}
      onKeyDown={onKeyDown}
      style={{ borderColor: token.colorBorderSecondary }}
    >
      <div
        role="row"
        aria-rowindex={1}
        className="transfer-row transfer-head"
        style={{ color: token.colorTextSecondary }}
      >
        <span role="columnheader" aria-label={t('transfers.selectAll')} />
        <span role="columnheader">{t('transfers.columns.name')}</span>
        <span role="columnheader">{t('transfers.columns.size')}</span>
        <span role="columnheader">{t('transfers.columns.state')}</span>
        <span role="columnheader">{t('transfers.columns.progress')}</span>
        <span role="columnheader">{t('transfers.columns.speed')}</span>
        <span role="columnheader">{t('transfers.columns.eta')}</span>
      </div>
      <div ref={scrollRef} className="transfer-scroll" role="rowgroup">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => (
            <Row
              key={item.index}
              index={item.index}
              top={item.start}
              active={item.index === active}
              onActivate={setActive}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

const Row = memo(function Row(props: {
  index: number;
  top: number;
  active: boolean;
  onActivate: (index: number) => void;
}) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const actions = useActions();
  const id = useApp((s) => idAt(s.transfers, props.index));
  const row = useApp((s) => (id === undefined ? undefined : s.transfers.rows[id]));
  const selected = useApp((s) => s.transfers.allSelected || (id !== undefined && s.transfers.selected.includes(id)));
  const lng = i18n.language;
  const style = {
    transform: `translateY(${props.top}px)`,
    height: ROW_HEIGHT,
    background: selected ? token.controlItemBgActive : undefined,
  };
  const click = (e: MouseEvent) => {
    props.onActivate(props.index);
    actions.transfers.click(props.index, { toggle: e.ctrlKey || e.metaKey, range: e.shiftKey });
  };
  if (!row) {
    return (
      <div id={rowDomId(props.index)} role="row" aria-rowindex={props.index + 2} className="transfer-row" style={style}>
        <span role="gridcell" className="muted">
          {t('transfers.loadingRow')}
        </span>
      </div>
    );
  }
  const name = row.key.split('/').pop() || row.key;
  const moving = row.state === 'uploading' || row.state === 'completing';
  return (
    <div
      id={rowDomId(props.index)}
      role="row"
      aria-rowindex={props.index + 2}
      aria-selected={selected}
      className={props.active ? 'transfer-row active' : 'transfer-row'}
      data-state={row.state}
      style={style}
      onClick={click}
      onDoubleClick={() => void actions.transfers.openDetail(row.id)}
    >
      <span role="gridcell" onClick={(e) => e.stopPropagation()}>
        <Checkbox
          checked={selected}
          aria-label={name}
          onChange={() => {
            props.onActivate(props.index);
            actions.transfers.click(props.index, { toggle: true });
          }}
        />
      </span>
      <span role="gridcell" className="cell-name">
        <span className="name" title={row.localPath}>
          {name}
        </span>
        <span className="key muted" title={row.key}>
          {row.bucket}/{row.key}
        </span>
      </span>
      <span role="gridcell" className="num">
        {formatBytes(row.size, lng)}
      </span>
      <span role="gridcell" className="cell-state">
        <span className={`state state-${row.state}`}>{t(`states.${row.state}`)}</span>
        {row.lastError && row.state === 'failed' && (
          <Tooltip title={row.lastError.message}>
            <span className="row-error" style={{ color: token.colorError }}>
              {row.lastError.message}
            </span>
          </Tooltip>
        )}
      </span>
      <span role="gridcell">
        <ProgressBar
          bytesDone={row.bytesDone}
          size={row.size}
          state={row.state}
          etaSeconds={row.etaSeconds}
          label={name}
        />
      </span>
      <span role="gridcell" className="num">
        {moving ? formatSpeed(row.speed, lng) : ''}
      </span>
      <span role="gridcell" className="num">
        {moving ? (formatEta(row.etaSeconds, lng) ?? '') : ''}
      </span>
    </div>
  );
});
