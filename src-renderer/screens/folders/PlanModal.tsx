/**
 * The plan of a folder being added, with its options: counts and bytes per kind, time at the
 * current speed, and the options the first upload already follows (ignore rules with the
 * files they catch, key template with an example key, hidden files, symbolic links, video
 * analysis). A change plans again; Start repeats the numbers of the plan shown and adds the
 * folder with the options shown.
 */
import { Checkbox, Descriptions, Divider, Form, Input, List, Modal, Radio, Spin, Typography } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { WatchRootOptionsInput } from '../../../src-main/shared/watch-views';
import { DialogError } from '../../components/DialogError';
import { formatBytes, formatCount, formatEta, formatSpeed } from '../../format/format';
import { exampleKey } from '../../format/key-example';
import { useActions, useApp } from '../../store/react';

const COUNTS = ['newFiles', 'changedFiles', 'unchangedFiles', 'ignoredFiles', 'rejectedFiles', 'renamedFiles'] as const;
const BYTES: Partial<Record<(typeof COUNTS)[number], 'newBytes' | 'changedBytes' | 'unchangedBytes' | 'ignoredBytes'>> =
  {
    newFiles: 'newBytes',
    changedFiles: 'changedBytes',
    unchangedFiles: 'unchangedBytes',
    ignoredFiles: 'ignoredBytes',
  };
/** Typing pauses this long before the folder is planned again. */
const REPLAN_MS = 350;

interface Values {
  keyTemplate: string;
  ignore: string;
  useDefaultIgnores: boolean;
  includeHidden: boolean;
  symlinks: 'skip' | 'follow';
  vcaForVideos: boolean;
}

const DEFAULTS: Values = {
  keyTemplate: '{relpath}',
  ignore: '',
  useDefaultIgnores: true,
  includeHidden: false,
  symlinks: 'skip',
  vcaForVideos: false,
};

function toOptions(v: Values): WatchRootOptionsInput {
  return {
    keyTemplate: v.keyTemplate.trim() || '{relpath}',
    ignore: v.ignore
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
    useDefaultIgnores: v.useDefaultIgnores,
    includeHidden: v.includeHidden,
    symlinks: v.symlinks,
    vcaForVideos: v.vcaForVideos,
  };
}

/** What decides which files are ignored (a key template the service refuses must not fail the preview too). */
const ignoreOptions = (o: WatchRootOptionsInput): WatchRootOptionsInput => ({
  ignore: o.ignore,
  useDefaultIgnores: o.useDefaultIgnores,
  includeHidden: o.includeHidden,
  symlinks: o.symlinks,
});

export function PlanModal() {
  const { t } = useTranslation();
  const draft = useApp((s) => s.folders.draft);
  const actions = useActions();
  const plan = draft?.plan ?? null;
  const { files, bytes } = usePlanNumbers();
  const [form] = Form.useForm<Values>();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const path = draft?.input.path ?? null;
  // A new folder starts from the defaults, and its ignore preview is shown once its plan
  // came: a folder the plan refused (missing, unreadable) is not previewed (a second toast
  // about the same folder).
  const planned = plan !== null;
  useEffect(() => {
    if (path === null) return;
    form.setFieldsValue(DEFAULTS);
  }, [path, form]);
  const previewed = useRef<string | null>(null);
  useEffect(() => {
    if (path === null) previewed.current = null;
    if (path === null || !planned || previewed.current === path) return;
    previewed.current = path;
    void actions.folders.previewIgnores(path, ignoreOptions(toOptions(DEFAULTS)));
  }, [path, planned, actions]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const changed = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (path === null) return;
      const options = toOptions({ ...DEFAULTS, ...form.getFieldsValue(true) });
      void actions.folders.replan(options);
      void actions.folders.previewIgnores(path, ignoreOptions(options));
    }, REPLAN_MS);
  };
  const pending = draft?.planning ?? false;
  return (
    <Modal
      open={draft !== null}
      title={draft ? t('folders.planTitle', { path: draft.input.path }) : ''}
      okText={t('folders.start', { files, bytes })}
      okButtonProps={{ disabled: !plan || pending }}
      cancelText={t('app.cancel')}
      onOk={() => {
        clearTimeout(timer.current);
        void actions.folders.confirm(toOptions({ ...DEFAULTS, ...form.getFieldsValue(true) }));
      }}
      onCancel={() => {
        clearTimeout(timer.current);
        actions.folders.cancelDraft();
      }}
      width={720}
      forceRender
    >
      <PlanSummary />
      <Divider titlePlacement="start">{t('folders.planOptions')}</Divider>
      <Form form={form} name="plan-options" layout="vertical" initialValues={DEFAULTS} onValuesChange={changed}>
        <OptionFields prefix={draft?.input.prefix ?? ''} />
      </Form>
    </Modal>
  );
}

/** The plan's files and bytes to upload, formatted ('' while there is no plan). */
function usePlanNumbers() {
  const { i18n } = useTranslation();
  const plan = useApp((s) => s.folders.draft?.plan ?? null);
  return {
    files: plan ? formatCount(plan.filesToUpload, i18n.language) : '',
    bytes: plan ? formatBytes(plan.bytesToUpload, i18n.language) : '',
  };
}

function PlanSummary() {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const draft = useApp((s) => s.folders.draft);
  const plan = draft?.plan ?? null;
  const { files, bytes } = usePlanNumbers();
  if (draft?.error) return <DialogError error={draft.error} context="roots.plan" testId="plan-error" />;
  if (!plan)
    return (
      <Spin tip={t('folders.planning')}>
        <div style={{ height: 80 }} />
      </Spin>
    );
  return (
    <Spin spinning={draft?.planning ?? false} tip={t('folders.planning')}>
      <div data-testid="plan-summary">
        <Typography.Title level={4}>{t('folders.planLine', { files, bytes })}</Typography.Title>
        {plan.estimatedSeconds !== null && (
          <Typography.Paragraph>
            {t('folders.planEta', {
              // Under a second rounds to nothing: shown as 1 s.
              eta: formatEta(plan.estimatedSeconds > 0 ? Math.max(1, plan.estimatedSeconds) : 0, lng) ?? '—',
              speed: formatSpeed(plan.assumedBytesPerSecond, lng),
              source: t(`folders.speedSource.${plan.speedSource}`),
            })}
          </Typography.Paragraph>
        )}
        <Descriptions column={2} size="small" bordered>
          {COUNTS.map((k) => {
            const b = BYTES[k];
            return (
              <Descriptions.Item key={k} label={t(`folders.planCounts.${k}`)}>
                {formatCount(plan[k], lng)}
                {b ? ` · ${formatBytes(plan[b], lng)}` : ''}
              </Descriptions.Item>
            );
          })}
        </Descriptions>
      </div>
    </Spin>
  );
}

function OptionFields({ prefix }: { prefix: string }) {
  const { t } = useTranslation();
  const form = Form.useFormInstance<Values>();
  const template = Form.useWatch('keyTemplate', form) ?? DEFAULTS.keyTemplate;
  return (
    <>
      <Form.Item
        name="ignore"
        label={t('folders.options.ignore')}
        extra={t('folders.options.ignoreHelp')}
        style={{ marginBottom: 8 }}
      >
        <Input.TextArea rows={3} spellCheck={false} placeholder={'*.log\nrenders/'} />
      </Form.Item>
      <IgnoreMatches />
      <Form.Item name="useDefaultIgnores" valuePropName="checked" style={{ marginBottom: 8 }}>
        <Checkbox>{t('folders.options.useDefaultIgnores')}</Checkbox>
      </Form.Item>
      <Form.Item
        name="keyTemplate"
        label={t('folders.options.keyTemplate')}
        extra={
          <span data-testid="key-example">
            {t('folders.options.keyExample', { key: exampleKey(prefix, template.trim()) })}
          </span>
        }
      >
        <Input spellCheck={false} />
      </Form.Item>
      <Form.Item name="includeHidden" valuePropName="checked" style={{ marginBottom: 8 }}>
        <Checkbox>{t('folders.options.includeHidden')}</Checkbox>
      </Form.Item>
      <Form.Item name="symlinks" label={t('folders.options.symlinks')} style={{ marginBottom: 8 }}>
        <Radio.Group
          options={[
            { value: 'skip', label: t('folders.options.symlinkSkip') },
            { value: 'follow', label: t('folders.options.symlinkFollow') },
          ]}
        />
      </Form.Item>
      <Form.Item name="vcaForVideos" valuePropName="checked" style={{ marginBottom: 8 }}>
        <Checkbox>{t('folders.options.vcaForVideos')}</Checkbox>
      </Form.Item>
    </>
  );
}

/** What the ignore rules catch in this folder now (the first 50), live as the rules change. */
function IgnoreMatches() {
  const { t, i18n } = useTranslation();
  const preview = useApp((s) => s.folders.preview);
  if (!preview) return null;
  return (
    <div data-testid="ignore-matches" style={{ marginBottom: 12 }}>
      <Typography.Text>
        {t('folders.options.previewLine', {
          ignored: formatCount(preview.ignoredCount, i18n.language),
          included: formatCount(preview.includedCount, i18n.language),
        })}
      </Typography.Text>
      {preview.ignored.length > 0 && (
        <List
          size="small"
          bordered
          style={{ marginTop: 4, maxHeight: 120, overflow: 'auto' }}
          dataSource={preview.ignored}
          renderItem={(item) => (
            <List.Item>
              <Typography.Text code>{item.relPath}</Typography.Text> {t(`folders.options.reasons.${item.reason}`)}
            </List.Item>
          )}
        />
      )}
    </div>
  );
}
