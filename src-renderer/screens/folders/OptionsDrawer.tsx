/**
 * Every option of a watched folder: prefix, key template with a live example, ignore rules
 * with a preview of what they exclude, include globs, hidden files, symbolic links, what a
 * local delete does, video analysis. Saved together; the service checks each value.
 */
import { Button, Checkbox, Drawer, Form, Input, List, Radio, Space, Typography } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { WatchRootView } from '../../../src-main/shared/contract';
import { WATCH_OPTION_FIELDS, type WatchRootOptionsInput } from '../../../src-main/shared/watch-views';
import { schemaRule } from '../../components/schema-rule';
import { formatCount } from '../../format/format';
import { exampleKey } from '../../format/key-example';
import { useActions, useApp } from '../../store/react';

interface Values {
  prefix: string;
  keyTemplate: string;
  ignore: string;
  useDefaultIgnores: boolean;
  includeOnly: string;
  includeHidden: boolean;
  symlinks: 'skip' | 'follow';
  localDelete: 'keep' | 'delete-remote';
  vcaForVideos: boolean;
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** What decides which files are ignored (a key template being typed must not fail the preview). */
function ignoreOptions(v: Values): WatchRootOptionsInput {
  const o = toOptions(v);
  return {
    ignore: o.ignore,
    useDefaultIgnores: o.useDefaultIgnores,
    includeOnly: o.includeOnly,
    includeHidden: o.includeHidden,
    symlinks: o.symlinks,
  };
}

function toOptions(v: Values): WatchRootOptionsInput {
  return {
    keyTemplate: v.keyTemplate,
    ignore: lines(v.ignore),
    useDefaultIgnores: v.useDefaultIgnores,
    includeOnly: lines(v.includeOnly),
    includeHidden: v.includeHidden,
    symlinks: v.symlinks,
    localDelete: v.localDelete,
    vcaForVideos: v.vcaForVideos,
  };
}

export function OptionsDrawer({ root, onClose }: { root: WatchRootView; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const actions = useActions();
  const preview = useApp((s) => s.folders.preview);
  const [form] = Form.useForm<Values>();
  const o = root.options;
  const initial: Values = {
    prefix: root.prefix,
    keyTemplate: o.keyTemplate ?? '{relpath}',
    ignore: (o.ignore ?? []).join('\n'),
    useDefaultIgnores: o.useDefaultIgnores ?? true,
    includeOnly: (o.includeOnly ?? []).join('\n'),
    includeHidden: o.includeHidden ?? false,
    symlinks: o.symlinks ?? 'skip',
    localDelete: o.localDelete ?? 'keep',
    vcaForVideos: o.vcaForVideos ?? false,
  };
  const prefix = Form.useWatch('prefix', form) ?? initial.prefix;
  const template = Form.useWatch('keyTemplate', form) ?? initial.keyTemplate;
  // The preview follows the rules as they are typed (a pause of 350 ms), as in the plan dialog.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const changed = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(
      () => void actions.folders.previewIgnores(root.path, ignoreOptions(form.getFieldsValue(true))),
      350,
    );
  };
  const save = async (v: Values) => {
    if (await actions.folders.update(root.id, v.prefix, toOptions(v))) onClose();
  };
  return (
    <Drawer
      open
      size="large"
      title={t('folders.options.title', { path: root.path })}
      onClose={onClose}
      extra={
        <Button type="primary" onClick={() => form.submit()}>
          {t('app.save')}
        </Button>
      }
    >
      <Form
        form={form}
        name="root-options"
        layout="vertical"
        initialValues={initial}
        onFinish={(v) => void save(v)}
        onValuesChange={changed}
      >
        <Form.Item name="prefix" label={t('folders.prefix')}>
          <Input spellCheck={false} />
        </Form.Item>
        <Form.Item
          name="keyTemplate"
          label={t('folders.options.keyTemplate')}
          extra={t('folders.options.keyExample', { key: exampleKey(prefix, template) })}
          rules={[schemaRule(WATCH_OPTION_FIELDS.shape.keyTemplate)]}
        >
          <Input spellCheck={false} />
        </Form.Item>
        <Form.Item name="ignore" label={t('folders.options.ignore')} extra={t('folders.options.ignoreHelp')}>
          <Input.TextArea rows={4} spellCheck={false} />
        </Form.Item>
        <Form.Item name="useDefaultIgnores" valuePropName="checked">
          <Checkbox>{t('folders.options.useDefaultIgnores')}</Checkbox>
        </Form.Item>
        <Form.Item name="includeOnly" label={t('folders.options.includeOnly')}>
          <Input.TextArea rows={2} spellCheck={false} />
        </Form.Item>
        <Form.Item name="includeHidden" valuePropName="checked">
          <Checkbox>{t('folders.options.includeHidden')}</Checkbox>
        </Form.Item>
        <Form.Item name="symlinks" label={t('folders.options.symlinks')}>
          <Radio.Group
            options={[
              { value: 'skip', label: t('folders.options.symlinkSkip') },
              { value: 'follow', label: t('folders.options.symlinkFollow') },
            ]}
          />
        </Form.Item>
        <Form.Item name="localDelete" label={t('folders.options.localDelete')}>
          <Radio.Group
            options={[
              { value: 'keep', label: t('folders.options.keepRemote') },
              { value: 'delete-remote', label: t('folders.options.deleteRemote') },
            ]}
          />
        </Form.Item>
        <Form.Item name="vcaForVideos" valuePropName="checked">
          <Checkbox>{t('folders.options.vcaForVideos')}</Checkbox>
        </Form.Item>
      </Form>
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Button
          onClick={() => void actions.folders.previewIgnores(root.path, ignoreOptions(form.getFieldsValue(true)))}
        >
          {t('folders.options.preview')}
        </Button>
        {preview && (
          <>
            <Typography.Text>
              {t('folders.options.previewLine', {
                ignored: formatCount(preview.ignoredCount, i18n.language),
                included: formatCount(preview.includedCount, i18n.language),
              })}
            </Typography.Text>
            <List
              size="small"
              bordered
              dataSource={preview.ignored}
              renderItem={(item) => (
                <List.Item>
                  <Typography.Text code>{item.relPath}</Typography.Text> {t(`folders.options.reasons.${item.reason}`)}
                </List.Item>
              )}
            />
          </>
        )}
      </Space>
    </Drawer>
  );
}
