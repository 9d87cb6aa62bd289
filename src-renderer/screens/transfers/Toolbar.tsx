/** Search, filters (account, source, folder), sort, and the bulk actions on the selection or on all. */
import { Button, Input, Popconfirm, Select, Space, Typography, type InputRef } from 'antd';
import { useEffect, useRef, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import type { TransferSortField } from '../../../src-main/shared/contract';
import type { TransferSource } from '../../../src-main/shared/models';
import { formatCount } from '../../format/format';
import { isMac, useShortcuts } from '../../components/useShortcuts';
import { useActions, useApp } from '../../store/react';
import type { BulkVerb } from '../../store/transfers';

const SORTS: TransferSortField[] = ['createdAt', 'updatedAt', 'name', 'size', 'state', 'progress'];
const SOURCES: TransferSource[] = ['manual', 'watch', 'cli'];
const VERBS: BulkVerb[] = ['pause', 'resume', 'retry', 'cancel', 'remove'];
/** Typing pauses this long before the list follows the search box (Enter applies it at once). */
export const SEARCH_AS_YOU_TYPE_MS = 250;

export function Toolbar(props: { focusAfterDetail: RefObject<(() => void) | null> }) {
  const { t, i18n } = useTranslation();
  const filters = useApp((s) => s.transfers.filters);
  const accounts = useApp((s) => s.settings.accounts);
  const roots = useApp((s) => s.folders.roots);
  const actions = useActions();
  const search = useRef<InputRef>(null);
  // The list follows what is typed once typing pauses; Enter, the search button or clearing
  // applies it at once. The store answers only the newest search, however fast one types.
  const typed = useRef<ReturnType<typeof setTimeout> | null>(null);
  const applySearch = (text: string, delayMs: number) => {
    if (typed.current) clearTimeout(typed.current);
    typed.current = null;
    if (delayMs === 0) void actions.transfers.setFilters({ text });
    else typed.current = setTimeout(() => applySearch(text, 0), delayMs);
  };
  useEffect(() => () => void (typed.current && clearTimeout(typed.current)), []);
  const detailOpen = useApp((s) => s.transfers.detailId !== null);
  useShortcuts('transfers', {
    search: () => {
      const focus = () => search.current?.focus({ cursor: 'all' });
      if (!detailOpen) return focus();
      // The open detail drawer holds the focus: closed first, the search focused once it let go.
      props.focusAfterDetail.current = focus;
      void actions.transfers.openDetail(null);
    },
  });
  return (
    <Space wrap className="toolbar">
      <Input.Search
        ref={search}
        aria-keyshortcuts={isMac() ? 'Meta+F' : 'Control+F'}
        allowClear
        aria-label={t('transfers.search')}
        placeholder={t('transfers.search')}
        defaultValue={filters.text}
        onChange={(e) => applySearch(e.target.value, e.target.value === '' ? 0 : SEARCH_AS_YOU_TYPE_MS)}
        onSearch={(text) => applySearch(text, 0)}
        style={{ width: 240 }}
      />
      <Select
        aria-label={t('transfers.account')}
        value={filters.accountId ?? 'any'}
        onChange={(v) => void actions.transfers.setFilters({ accountId: v === 'any' ? null : Number(v) })}
        options={[
          { value: 'any', label: t('transfers.anyAccount') },
          ...accounts.map((a) => ({ value: a.id, label: a.name })),
        ]}
        style={{ minWidth: 140 }}
      />
      <Select
        aria-label={t('sources.any')}
        value={filters.source ?? 'any'}
        onChange={(v) => void actions.transfers.setFilters({ source: v === 'any' ? null : (v as TransferSource) })}
        options={[
          { value: 'any', label: t('sources.any') },
          ...SOURCES.map((s) => ({ value: s, label: t(`sources.${s}`) })),
        ]}
        style={{ minWidth: 140 }}
      />
      {roots.length > 0 && (
        <Select
          aria-label={t('transfers.root')}
          value={filters.rootId ?? 'any'}
          onChange={(v) => void actions.transfers.setFilters({ rootId: v === 'any' ? null : Number(v) })}
          options={[
            { value: 'any', label: t('transfers.anyRoot') },
            ...roots.map((r) => ({ value: r.id, label: r.path })),
          ]}
          style={{ minWidth: 160 }}
        />
      )}
      <Select
        aria-label={t('transfers.sortBy')}
        value={`${filters.sort.field}:${filters.sort.direction}`}
        onChange={(v: string) => {
          const [field, direction] = v.split(':') as [TransferSortField, 'asc' | 'desc'];
          void actions.transfers.setFilters({ sort: { field, direction } });
        }}
        options={SORTS.flatMap((f) =>
          (['desc', 'asc'] as const).map((d) => ({
            value: `${f}:${d}`,
            label: `${t(`transfers.sort.${f}`)} · ${t(d === 'asc' ? 'transfers.ascending' : 'transfers.descending')}`,
          })),
        )}
        style={{ minWidth: 180 }}
      />
      <Button type="primary" onClick={actions.transfers.openAdd}>
        {t('transfers.addByPath')}
      </Button>
      <SelectionBar lng={i18n.language} />
    </Space>
  );
}

function SelectionBar({ lng }: { lng: string }) {
  const { t } = useTranslation();
  const sel = useApp(
    useShallow((s) => ({ ids: s.transfers.selected, all: s.transfers.allSelected, total: s.transfers.total })),
  );
  const actions = useActions();
  const some = sel.all || sel.ids.length > 0;
  const confirmText = (verb: BulkVerb) =>
    t(verb === 'remove' ? 'transfers.confirmRemove' : 'transfers.confirmCancel', {
      what: t(some ? 'transfers.whatSelected' : 'transfers.whatAll'),
    });
  return (
    <Space wrap>
      {some && (
        <Typography.Text>
          {sel.all
            ? t('transfers.allSelected', { count: sel.total })
            : t('transfers.selected', { count: sel.ids.length, formatted: formatCount(sel.ids.length, lng) })}
        </Typography.Text>
      )}
      {some ? (
        <Button onClick={actions.transfers.clearSelection}>{t('transfers.clearSelection')}</Button>
      ) : (
        <Button onClick={actions.transfers.selectAll} disabled={sel.total === 0}>
          {t('transfers.selectAll')}
        </Button>
      )}
      {VERBS.map((verb) => {
        const label = some ? t(`transfers.actions.${verb}`) : t(`transfers.allActions.${verb}`);
        const run = () => void actions.transfers.bulk(verb, some ? undefined : { all: true });
        return verb === 'remove' || verb === 'cancel' ? (
          <Popconfirm
            key={verb}
            title={confirmText(verb)}
            onConfirm={run}
            okText={t('app.yes')}
            cancelText={t('app.no')}
          >
            <Button danger={verb === 'remove'}>{label}</Button>
          </Popconfirm>
        ) : (
          <Button key={verb} onClick={run}>
            {label}
          </Button>
        );
      })}
    </Space>
  );
}
