/**
 * The review of one VCA job: the video beside its labels, a threshold slider (labels below
 * it hidden unless asked for), and the keys of the keymap (components/keymap.ts, scope
 * 'vca'): j/k move, a accept, r reject, e correct, n next video, Space play/pause,
 * Ctrl/Cmd+Z undo. A key decides the label under the cursor when it is pressed: shown at once,
 * the cursor moves on at once (to the next video once every shown label is decided), and the
 * decision is saved behind (store/vca-decisions.ts); a label whose save failed says so and
 * offers Retry.
 */
import { Button, Empty, Input, Slider, Space, Switch, Typography } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { keyLabel } from '../../components/keymap';
import { isMac, useShortcuts } from '../../components/useShortcuts';
import { useActions, useApp } from '../../store/react';
import { shownItems, thresholdOf } from '../../store/vca';
import { thresholdCounts } from '../../store/vca-review';
import { LabelList } from './LabelList';
import { NotSaved } from './NotSaved';

export function Review() {
  const { t, i18n } = useTranslation();
  const job = useApp((s) => s.vca.jobs.find((j) => j.id === s.vca.currentId));
  const cursor = useApp((s) => s.vca.cursor);
  const value = useApp((s) =>
    thresholdOf(
      s.vca,
      s.vca.jobs.find((j) => j.id === s.vca.currentId),
    ),
  );
  const showBelow = useApp((s) => s.vca.showBelow);
  const actions = useActions();
  /** The correction field: the label it was opened on (fixed then, whatever the cursor does) and the text. */
  const [editing, setEditing] = useState<{ labelId: number; attribute: string; text: string } | null>(null);
  const video = useRef<HTMLVideoElement>(null);
  const items = shownItems(job, value, showBelow);
  const fmt = (n: number) =>
    new Intl.NumberFormat(i18n.language, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n);
  const text = (v: number) => t('vca.thresholdText', { value: fmt(v), ...thresholdCounts(job, v, showBelow) });

  useShortcuts(
    'vca',
    {
      'vca.next': () => actions.vca.move(1),
      'vca.previous': () => actions.vca.move(-1),
      'vca.accept': () => void actions.vca.accept(),
      'vca.reject': () => void actions.vca.reject(),
      'vca.correct': () => {
        // The label under the cursor when "e" is pressed (the store's, not the last render's).
        const item = actions.vca.underCursor();
        if (item)
          setEditing({
            labelId: item.label.id,
            attribute: item.label.attribute,
            text: item.label.correctedText ?? item.label.attribute,
          });
      },
      'vca.nextVideo': () => actions.vca.nextVideo(),
      'vca.play': () => {
        const v = video.current;
        // A video that cannot load rejects play(); its own controls show why.
        if (v) void (v.paused ? v.play().catch(() => undefined) : v.pause());
      },
      'vca.undo': () => void actions.vca.undo(),
    },
    job !== undefined && editing === null,
  );

  /** Enter or Save in the correction field: the label it was opened on gets the text (nothing when empty). */
  const saveCorrection = () => {
    if (!editing) return;
    const corrected = editing.text.trim();
    setEditing(null);
    if (corrected) void actions.vca.correct(corrected, editing.labelId);
  };

  if (!job) return <Empty description={t('vca.pickJob')} />;
  return (
    <div className="vca-review">
      <div className="vca-player">
        {job.sourceUrl ? (
          <video ref={video} src={job.sourceUrl} controls preload="metadata" aria-label={job.sourceUrl} />
        ) : (
          <Empty description={t('vca.noVideo')} />
        )}
        <Typography.Paragraph type="secondary" data-testid="no-times">
          {t('vca.noTimes')}
        </Typography.Paragraph>
        <Typography.Paragraph type="secondary">
          {t('vca.keys', { undo: keyLabel('Mod+Z', isMac()) })}
        </Typography.Paragraph>
      </div>
      <section className="vca-labels" aria-label={t('vca.labels')}>
        <Typography.Text id="vca-threshold-label">{t('vca.threshold')}</Typography.Text>
        <Slider
          min={0}
          max={1}
          step={0.01}
          value={value}
          onChange={actions.vca.previewThreshold}
          onChangeComplete={(v: number) => void actions.vca.setThreshold(v)}
          ariaLabelForHandle={t('vca.threshold')}
          ariaValueTextFormatterForHandle={(v) => text(v ?? 0)}
          tooltip={{ formatter: (v) => fmt(v ?? 0) }}
        />
        <Space wrap>
          <Typography.Text data-testid="threshold-text">{text(value)}</Typography.Text>
          <Space size="small">
            <Switch
              size="small"
              checked={showBelow}
              onChange={actions.vca.setShowBelow}
              aria-labelledby="vca-show-below"
            />
            <label id="vca-show-below">{t('vca.showBelow')}</label>
          </Space>
          <Button onClick={() => void actions.vca.acceptAbove()}>
            {t('vca.acceptAbove', { value: fmt(job.minConfidence) })}
          </Button>
          <Button onClick={() => actions.vca.nextVideo()}>{t('vca.nextVideo')}</Button>
        </Space>
        <NotSaved job={job} />
        {editing && (
          // Inline, not a dialog: it is there (and focused) before the next key, so a reviewer
          // typing right after "e" types into it (a dialog opens after its animation).
          <div className="vca-correct" role="group" aria-labelledby="vca-correct-label">
            <label id="vca-correct-label" htmlFor="vca-correct-input">
              {t('vca.correctTo', { label: editing.attribute })}
            </label>
            <Space.Compact style={{ width: '100%' }}>
              <Input
                id="vca-correct-input"
                autoFocus
                value={editing.text}
                onChange={(e) => setEditing((was) => was && { ...was, text: e.target.value })}
                onPressEnter={saveCorrection}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') {
                    e.preventDefault();
                    setEditing(null);
                  }
                }}
              />
              <Button type="primary" onClick={saveCorrection}>
                {t('app.save')}
              </Button>
              <Button onClick={() => setEditing(null)}>{t('app.cancel')}</Button>
            </Space.Compact>
          </div>
        )}
        {items.length === 0 ? (
          <Empty description={reviewEmpty(t, job.results.length > 0 && !showBelow)} />
        ) : (
          <LabelList items={items} cursor={cursor} threshold={value} fmt={fmt} />
        )}
      </section>
    </div>
  );
}

/** Why no label is listed: all below the threshold (and hidden), or none at all. */
function reviewEmpty(t: (key: string) => string, hiddenBelow: boolean): string {
  return hiddenBelow ? t('vca.allBelow') : t('vca.noLabels');
}
