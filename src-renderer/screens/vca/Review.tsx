/**
 * The review of one job: its video, the threshold slider ("0.75 · 312 of 480 above"), accept
 * all above it, and the labels in review order with the cursor the keys move. A decision is
 * sent at once; the cursor then moves to the next label.
 */
import { Button, Empty, Input, Modal, Slider, Space, Tag, Typography, theme } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useApp } from '../../store/react';
import { reviewItems } from '../../store/vca';

const isTyping = (el: EventTarget | null) =>
  el instanceof HTMLElement && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));

export function Review() {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const job = useApp((s) => s.vca.jobs.find((j) => j.id === s.vca.currentId));
  const cursor = useApp((s) => s.vca.cursor);
  const actions = useActions();
  const [threshold, setThreshold] = useState<number | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const items = reviewItems(job);
  const value = threshold ?? job?.minConfidence ?? 0.5;
  const above = items.filter((i) => i.label.confidence >= value).length;
  const fmt = (n: number) =>
    new Intl.NumberFormat(i18n.language, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n);

  useEffect(() => setThreshold(null), [job?.id]);
  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${cursor}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [cursor]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target) || editing !== null) return;
      const item = reviewItems(job)[cursor];
      const keys: Record<string, () => void> = {
        j: () => actions.vca.move(1),
        k: () => actions.vca.move(-1),
        a: () => void actions.vca.accept(),
        r: () => void actions.vca.reject(),
        e: () => item && setEditing(item.label.correctedText ?? item.label.attribute),
        n: () => actions.vca.nextVideo(),
      };
      const run = keys[e.key];
      if (run) {
        e.preventDefault();
        run();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [actions, job, cursor, editing]);

  if (!job) return <Empty description={t('vca.pickJob')} />;
  const current = items[cursor];
  let lastType = '';
  return (
    <div className="vca-review">
      <div className="vca-player">
        {job.sourceUrl ? (
          <video src={job.sourceUrl} controls preload="metadata" aria-label={job.sourceUrl} />
        ) : (
          <Empty description={t('vca.noVideo')} />
        )}
        <Typography.Paragraph type="secondary">{t('vca.keys')}</Typography.Paragraph>
      </div>
      <section className="vca-labels" aria-label={t('vca.labels')}>
        <Typography.Text id="vca-threshold-label">{t('vca.threshold')}</Typography.Text>
        <Slider
          min={0}
          max={1}
          step={0.01}
          value={value}
          onChange={setThreshold}
          onChangeComplete={(v: number) => void actions.vca.setThreshold(v)}
          ariaLabelForHandle={t('vca.threshold')}
          ariaValueTextFormatterForHandle={(v) =>
            t('vca.thresholdText', { value: fmt(v ?? 0), shown: above, total: items.length })
          }
          tooltip={{ formatter: (v) => fmt(v ?? 0) }}
        />
        <Space wrap>
          <Typography.Text data-testid="threshold-text">
            {t('vca.thresholdText', { value: fmt(value), shown: above, total: items.length })}
          </Typography.Text>
          <Button onClick={() => void actions.vca.acceptAbove()}>
            {t('vca.acceptAbove', { value: fmt(job.minConfidence) })}
          </Button>
          <Button onClick={() => actions.vca.nextVideo()}>{t('vca.nextVideo')}</Button>
        </Space>
        {items.length === 0 ? (
          <Empty description={t('vca.noLabels')} />
        ) : (
          <ol
            ref={listRef}
            className="label-list"
            role="listbox"
            aria-label={t('vca.labels')}
            aria-activedescendant={`label-${cursor}`}
            tabIndex={0}
          >
            {items.map((item, index) => {
              const header = item.type !== lastType;
              lastType = item.type;
              const known = ['scenario', 'entity', 'keyword', 'location', 'figure', 'logo'].includes(item.type);
              return (
                <li key={item.label.id} role="presentation">
                  {header && (
                    <div className="label-group" role="presentation">
                      {known ? t(`vca.types.${item.type}`) : item.type}
                    </div>
                  )}
                  <div
                    id={`label-${index}`}
                    role="option"
                    aria-selected={index === cursor}
                    data-index={index}
                    className={index === cursor ? 'label-row current' : 'label-row'}
                    style={{
                      // Below the threshold: secondary text (not opacity, which would fade the tags below 4.5:1).
                      color: item.label.confidence < value ? token.colorTextSecondary : undefined,
                      borderColor: index === cursor ? token.colorPrimary : 'transparent',
                    }}
                    onClick={() => actions.vca.setCursor(index)}
                  >
                    <span className="label-text">
                      {item.label.correctedText ?? item.label.attribute}
                      {item.label.correctedText && <s> {item.label.attribute}</s>}
                    </span>
                    <span
                      className="confidence"
                      aria-label={t('vca.confidence', { value: fmt(item.label.confidence) })}
                    >
                      <span style={{ width: `${item.label.confidence * 100}%`, background: token.colorPrimary }} />
                    </span>
                    <span className="num">{fmt(item.label.confidence)}</span>
                    <Tag
                      color={
                        item.label.decision === 'accepted'
                          ? 'success'
                          : item.label.decision === 'rejected'
                            ? 'error'
                            : item.label.decision === 'corrected'
                              ? 'processing'
                              : 'default'
                      }
                    >
                      {t(`vca.decision.${item.label.decision}`)}
                    </Tag>
                  </div>
                </li>
              );
            })}
          </ol>
        )}
      </section>
      <Modal
        open={editing !== null}
        title={current ? t('vca.correctTo', { label: current.label.attribute }) : ''}
        okText={t('app.save')}
        cancelText={t('app.cancel')}
        onCancel={() => setEditing(null)}
        onOk={() => {
          const text = (editing ?? '').trim();
          setEditing(null);
          if (text) void actions.vca.correct(text);
        }}
        destroyOnHidden
      >
        <Input
          autoFocus
          aria-label={current ? t('vca.correctTo', { label: current.label.attribute }) : ''}
          value={editing ?? ''}
          onChange={(e) => setEditing(e.target.value)}
        />
      </Modal>
    </div>
  );
}
