/**
 * The "add" dialog: paths to upload (from a drop in the desktop app, or typed: a browser
 * cannot tell where a dropped file lives), the bucket and a key prefix. The bucket is
 * remembered for next time. A dropped folder is offered two ways: "Upload once", or "Watch
 * this folder" (its plan and options on the Folders screen; in a browser, which does not know
 * where the folder is, the folder browser to point at it).
 */
import { Alert, App as AntApp, Button, Form, Input, Modal, Progress, Space } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatCount } from '../../format/format';
import { useActions, useApp } from '../../store/react';
import { KEY_PREFIX } from '../../../src-main/shared/schemas';
import { schemaRule } from '../../components/schema-rule';
import { DialogError } from '../../components/DialogError';

const BUCKET_KEY = 'blocklift.lastBucket';
/** The bucket the embedded emulator creates. */
const EMULATOR_BUCKET = 'local';

interface Values {
  paths: string;
  bucket: string;
  prefix: string;
}

export function AddDialog() {
  const { t, i18n } = useTranslation();
  const adding = useApp((s) => s.transfers.adding);
  const staged = adding?.staged ?? [];
  // From the first click until the service answered: the buttons are busy, the dialog says how far it got.
  const progress = useApp((s) => s.transfers.addProgress);
  const busy = progress !== null;
  const emulator = useApp((s) => s.app.status?.emulator ?? null);
  const actions = useActions();
  const { message } = AntApp.useApp();
  const [form] = Form.useForm<Values>();

  // Filled when the dialog opens (its paths are new then), not when a refusal is noted on it:
  // what the person typed stays for them to correct.
  const openedWith = adding?.paths;
  useEffect(() => {
    if (!openedWith) return;
    form.setFieldsValue({
      paths: openedWith.join('\n'),
      bucket: localStorage.getItem(BUCKET_KEY) ?? (emulator ? EMULATOR_BUCKET : ''),
      prefix: '',
    });
  }, [openedWith, emulator, form]);

  const submit = async (values: Values) => {
    const paths = (values.paths ?? '')
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    localStorage.setItem(BUCKET_KEY, values.bucket.trim());
    const result = await actions.transfers.add(paths, values.bucket.trim(), values.prefix.trim());
    if (result) {
      void message.success(
        t('transfers.addedSummary', {
          queued: result.queued.length,
          already: result.alreadyUploaded.length,
          skipped: result.skipped.length,
        }),
      );
    }
  };

  const folder = adding?.folder ?? null;
  const watch = async () => {
    if (!folder) return;
    const values = await form.validateFields(['bucket', 'prefix']).catch(() => null);
    if (!values) return;
    localStorage.setItem(BUCKET_KEY, values.bucket.trim());
    actions.transfers.closeAdd();
    actions.app.go('folders');
    if (folder.path)
      await actions.folders.plan({
        path: folder.path,
        bucket: values.bucket.trim(),
        prefix: values.prefix?.trim() || undefined,
      });
    else await actions.folders.chooseFolder();
  };

  return (
    <Modal
      open={adding !== null}
      title={staged.length > 0 ? t('transfers.uploadDropped') : t('transfers.addByPath')}
      okText={folder ? t('transfers.uploadOnce') : t('transfers.add')}
      cancelText={t('app.cancel')}
      onOk={() => {
        if (!busy) form.submit();
      }}
      onCancel={() => {
        if (!busy) actions.transfers.closeAdd();
      }}
      okButtonProps={{ loading: busy, 'aria-busy': busy }}
      cancelButtonProps={{ disabled: busy }}
      closable={!busy}
      mask={{ closable: !busy }}
      keyboard={!busy}
      footer={(buttons) =>
        folder ? (
          <Space>
            <Button disabled={busy} onClick={() => void watch()}>
              {t('transfers.watchFolder')}
            </Button>
            {buttons}
          </Space>
        ) : (
          buttons
        )
      }
      destroyOnHidden
      forceRender
    >
      <DialogError
        error={adding?.error}
        context="transfers.add"
        onOpen={(screen) => {
          actions.transfers.closeAdd();
          actions.app.go(screen);
        }}
      />
      {folder && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          title={t(folder.path ? 'transfers.folderDropped' : 'transfers.folderDroppedNoPath', { name: folder.name })}
        />
      )}
      {adding?.noPath && (
        <Alert type="warning" showIcon title={t('transfers.dropNoPath')} style={{ marginBottom: 12 }} />
      )}
      {progress && (
        <div role="status" aria-live="polite" data-testid="add-progress" style={{ marginBottom: 12 }}>
          {staged.length > 0 ? (
            <>
              <Progress
                percent={progress.total > 0 ? Math.floor((progress.done / progress.total) * 100) : 0}
                aria-label={t('transfers.sending')}
                size="small"
              />
              {t('transfers.sendingCount', {
                done: formatCount(progress.done, i18n.language),
                total: formatCount(progress.total, i18n.language),
              })}
            </>
          ) : (
            t('transfers.addingCount', { count: progress.total, total: formatCount(progress.total, i18n.language) })
          )}
        </div>
      )}
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} disabled={busy}>
        {staged.length > 0 ? (
          <Form.Item label={t('transfers.dropped', { count: staged.length })}>
            <ul className="dropped-list" data-testid="dropped-files">
              {staged.slice(0, 8).map((f) => (
                <li key={f.relPath}>
                  {f.relPath} · {formatBytes(f.file.size, i18n.language)}
                </li>
              ))}
              {staged.length > 8 && <li>…</li>}
            </ul>
          </Form.Item>
        ) : (
          <Form.Item name="paths" label={t('transfers.paths')} rules={[{ required: true, whitespace: true }]}>
            <Input.TextArea rows={4} autoFocus spellCheck={false} />
          </Form.Item>
        )}
        <Form.Item name="bucket" label={t('transfers.bucket')} rules={[{ required: true, whitespace: true }]}>
          <Input spellCheck={false} />
        </Form.Item>
        <Form.Item
          name="prefix"
          label={t('transfers.prefix')}
          rules={[schemaRule(KEY_PREFIX, (v) => (typeof v === 'string' ? v.trim() : ''))]}
        >
          <Input spellCheck={false} placeholder="photos/" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
