/**
 * The transfer list: a grid virtualized with TanStack Virtual, so only the rows on screen
 * exist in the DOM and only their pages cross the bridge (the store fetches them). ARIA grid:
 * aria-rowcount on the grid, aria-rowindex per row, focus kept on the grid and the active
 * row named by aria-activedescendant. Keys: ↑/↓ move, Shift+↑/↓ extend, Space toggle,
 * Enter details, Ctrl/Cmd+A select all.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { theme } from 'antd';
import { useEffect, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useApp } from '../../store/react';
import { ROW_HEIGHT, TransferRow, rowDomId } from './TransferRow';

/** The kit's colour tokens the rows use, as CSS variables set once on the grid (light and dark). */
function rowColours(token: ReturnType<typeof theme.useToken>['token']): CSSProperties {
  return {
    borderColor: token.colorBorderSecondary,
    '--row-selected-bg': token.controlItemBgActive,
    '--row-error': token.colorError,
    '--progress-bg': token.colorFillSecondary,
    '--progress-fill': token.colorPrimary,
    '--progress-done': token.colorSuccess,
    '--progress-failed': token.colorError,
    '--progress-paused': token.colorWarning,
    '--progress-ended': token.colorTextQuaternary,
  } as CSSProperties;
}

export function TransferList() {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
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
      style={rowColours(token)}
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
            <TransferRow
              key={item.index}
              index={item.index}
              top={item.start}
              active={item.index === active}
              onActivate={setActive}
              t={t}
              lng={lng}
            />
          ))}
        </div>
      </div>
    </div>
  );
}
