/**
 * The labels of the job under review, grouped by type (the six documented types, then any
 * other the service sent), each with its confidence bar and decision: an ARIA listbox whose
 * active option is the cursor the keys move. A label whose decision is not saved yet shows a
 * clock; one whose save failed says "Not saved" (the panel above the list offers Retry).
 */
import { ClockCircleOutlined } from '@ant-design/icons';
import { Tag, theme } from 'antd';
import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useApp } from '../../store/react';
import { LABEL_TYPES, type ReviewItem } from '../../store/vca';
import { failuresByLabel, savingLabels } from '../../store/vca-decisions';

const DECISION_COLORS = {
  accepted: 'success',
  rejected: 'error',
  corrected: 'processing',
  pending: 'default',
} as const;

export function LabelList(props: {
  items: ReviewItem[];
  cursor: number;
  threshold: number;
  fmt: (n: number) => string;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const actions = useActions();
  const listRef = useRef<HTMLOListElement>(null);
  const { items, cursor, threshold, fmt } = props;
  const decisions = useApp((s) => s.vca.decisions);
  const failed = useMemo(() => failuresByLabel(decisions), [decisions]);
  const saving = useMemo(() => savingLabels(decisions), [decisions]);
  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${cursor}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [cursor]);
  let lastType = '';
  return (
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
        const known = (LABEL_TYPES as readonly string[]).includes(item.type);
        const failure = failed.get(item.label.id);
        const isSaving = !failure && saving.has(item.label.id);
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
              data-label-id={item.label.id}
              data-saving={isSaving ? 'true' : undefined}
              data-failed={failure ? 'true' : undefined}
              className={index === cursor ? 'label-row current' : 'label-row'}
              style={{
                // Below the threshold: secondary text (not opacity, which would fade the tags below 4.5:1).
                color: item.label.confidence < threshold ? token.colorTextSecondary : undefined,
                borderColor: index === cursor ? token.colorPrimary : 'transparent',
              }}
              onClick={() => actions.vca.setCursor(index)}
            >
              <span className="label-text">
                {item.label.correctedText ?? item.label.attribute}
                {item.label.correctedText && <s> {item.label.attribute}</s>}
              </span>
              <span className="confidence" aria-label={t('vca.confidence', { value: fmt(item.label.confidence) })}>
                <span style={{ width: `${item.label.confidence * 100}%`, background: token.colorPrimary }} />
              </span>
              <span className="num">{fmt(item.label.confidence)}</span>
              <Tag
                color={DECISION_COLORS[item.label.decision]}
                icon={isSaving ? <ClockCircleOutlined aria-label={t('vca.saving')} /> : undefined}
              >
                {t(`vca.decision.${item.label.decision}`)}
              </Tag>
              {failure && (
                <Tag color="error" className="label-not-saved" title={failure.error?.message}>
                  {t('vca.notSaved')}
                </Tag>
              )}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
