/**
 * The weekly schedule editor: 7 × 24 cells, drag to paint a rectangle with the chosen level,
 * days in the locale's order (Monday first in zh-CN, Sunday in en-US). Each cell is a
 * gridcell with its day, hour and level in words; arrow keys move, Space paints.
 */
import { InputNumber, Radio, Space, Typography, theme } from 'antd';
import { useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { firstDayOfWeek, formatSpeed } from '../../format/format';
import { HOURS, dayOrder, paint, type Grid, type Level } from './schedule-grid';

const MiB = 1024 * 1024;

export function ScheduleGrid(props: { grid: Grid; limit: number; onChange: (grid: Grid, limit: number) => void }) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const [level, setLevel] = useState<Level>('pause');
  const [drag, setDrag] = useState<{ from: [number, number]; to: [number, number] } | null>(null);
  const [focus, setFocus] = useState<[number, number]>([1, 9]);
  const lng = i18n.language;
  const days = dayOrder(firstDayOfWeek(lng));
  const dayName = (d: number) =>
    new Intl.DateTimeFormat(lng, { weekday: 'short', timeZone: 'UTC' }).format(Date.UTC(2023, 0, 1 + d)); // 2023-01-01 was a Sunday
  const shown = drag ? paint(props.grid, drag.from, drag.to, level) : props.grid;
  const colors: Record<Level, string> = {
    run: token.colorSuccessBg,
    limit: token.colorWarningBorder,
    pause: token.colorErrorBorder,
  };
  const finish = () => {
    if (drag) props.onChange(paint(props.grid, drag.from, drag.to, level), props.limit);
    setDrag(null);
  };
  const onKey = (e: KeyboardEvent, day: number, hour: number) => {
    const row = days.indexOf(day);
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [row, hour - 1],
      ArrowRight: [row, hour + 1],
      ArrowUp: [row - 1, hour],
      ArrowDown: [row + 1, hour],
    };
    const move = moves[e.key];
    if (move) {
      e.preventDefault();
      const r = Math.max(0, Math.min(6, move[0]));
      const h = Math.max(0, Math.min(HOURS - 1, move[1]));
      setFocus([days[r]!, h]);
      (document.getElementById(`cell-${days[r]}-${h}`) as HTMLElement | null)?.focus();
    } else if (e.key === ' ' || e.key === 'Enter') {
      e.preventDefault();
      props.onChange(paint(props.grid, [day, hour], [day, hour], level), props.limit);
    }
  };
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Typography.Text type="secondary">{t('settings.scheduleHelp')}</Typography.Text>
      <Space wrap>
        <Radio.Group
          value={level}
          onChange={(e) => setLevel(e.target.value as Level)}
          optionType="button"
          options={(['run', 'limit', 'pause'] as const).map((l) => ({
            value: l,
            label: (
              <span>
                <span className="swatch" style={{ background: colors[l] }} />{' '}
                {l === 'limit'
                  ? t('settings.limitedAt', { rate: formatSpeed(props.limit, lng) })
                  : t(`settings.levels.${l}`)}
              </span>
            ),
          }))}
        />
        <span>{t('settings.limitLevel')}</span>
        <InputNumber
          aria-label={t('settings.limitLevel')}
          min={0.1}
          step={0.5}
          value={Math.round((props.limit / MiB) * 10) / 10}
          onChange={(v) => v && props.onChange(props.grid, Math.round(v * MiB))}
        />
      </Space>
      <div
        role="grid"
        aria-label={t('settings.schedule')}
        className="schedule-grid"
        onMouseLeave={finish}
        onMouseUp={finish}
      >
        <div role="row" className="schedule-row">
          <span role="columnheader" />
          {Array.from({ length: HOURS }, (_, h) => (
            <span role="columnheader" key={h} className="schedule-hour">
              {h % 3 === 0 ? h : ''}
            </span>
          ))}
        </div>
        {days.map((day) => (
          <div role="row" className="schedule-row" key={day}>
            <span role="rowheader" className="schedule-day">
              {dayName(day)}
            </span>
            {shown[day]!.map((cell, hour) => (
              <span
                key={hour}
                id={`cell-${day}-${hour}`}
                role="gridcell"
                tabIndex={focus[0] === day && focus[1] === hour ? 0 : -1}
                aria-label={t('settings.hour', { day: dayName(day), hour, level: t(`settings.levels.${cell}`) })}
                className="schedule-cell"
                data-level={cell}
                style={{ background: colors[cell] }}
                onMouseDown={(e) => {
                  e.preventDefault();
                  setDrag({ from: [day, hour], to: [day, hour] });
                }}
                onMouseEnter={() => drag && setDrag({ ...drag, to: [day, hour] })}
                onKeyDown={(e) => onKey(e, day, hour)}
              />
            ))}
          </div>
        ))}
      </div>
    </Space>
  );
}
