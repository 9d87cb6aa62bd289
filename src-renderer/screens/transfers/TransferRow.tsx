/**
 * One row of the transfer list. Memoized: it renders again only when its position, its row
 * object (the store keeps a row's object while a batch leaves it unchanged), its selection or
 * the language change. `t` and `lng` come from the list (one i18n subscription, not one per
 * row); colours are the CSS variables the list sets from the kit's tokens.
 */
import { Tooltip } from 'antd';
import type { TFunction } from 'i18next';
import { memo, type MouseEvent } from 'react';
import { formatBytes, formatEta, formatSpeed } from '../../format/format';
import { useActions, useApp } from '../../store/react';
import { idAt } from '../../store/transfers';
import { ProgressBar } from './ProgressBar';
import { rowReason } from './row-reason';

export const ROW_HEIGHT = 48;
export const rowDomId = (index: number) => `transfer-row-${index}`;

export interface TransferRowProps {
  index: number;
  top: number;
  active: boolean;
  onActivate: (index: number) => void;
  t: TFunction;
  lng: string;
}

export const TransferRow = memo(function TransferRow({ index, top, active, onActivate, t, lng }: TransferRowProps) {
  const actions = useActions();
  const id = useApp((s) => idAt(s.transfers, index));
  const row = useApp((s) => (id === undefined ? undefined : s.transfers.rows[id]));
  const selected = useApp((s) => s.transfers.allSelected || (id !== undefined && s.transfers.selected.includes(id)));
  const style = { transform: `translateY(${top}px)` };
  if (!row) {
    return (
      <div id={rowDomId(index)} role="row" aria-rowindex={index + 2} className="transfer-row" style={style}>
        <span role="gridcell" className="muted">
          {t('transfers.loadingRow')}
        </span>
      </div>
    );
  }
  const click = (e: MouseEvent) => {
    onActivate(index);
    actions.transfers.click(index, { toggle: e.ctrlKey || e.metaKey, range: e.shiftKey });
  };
  const name = row.key.split('/').pop() || row.key;
  const moving = row.state === 'uploading' || row.state === 'completing';
  const classes = ['transfer-row', active && 'active', selected && 'selected'].filter(Boolean).join(' ');
  return (
    <div
      id={rowDomId(index)}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      className={classes}
      data-state={row.state}
      style={style}
      onClick={click}
      onDoubleClick={() => void actions.transfers.openDetail(row.id)}
    >
      <span role="gridcell" onClick={(e) => e.stopPropagation()}>
        <input
          type="checkbox"
          className="row-check"
          checked={selected}
          aria-label={name}
          onChange={() => {
            onActivate(index);
            actions.transfers.click(index, { toggle: true });
          }}
        />
      </span>
      <span role="gridcell" className="cell-name">
        <span className="name" title={row.droppedAs ?? row.localPath}>
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
            <span className="row-error">
              {rowReason(row.lastError.message, row.droppedAs ?? row.localPath, t('transfers.thisFile'))}
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
          t={t}
          lng={lng}
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
