/** The label browser across all jobs: which videos carry "beach" with confidence ≥ 0.8? */
import { Button, Card, Form, Input, Select, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { VcaLabelHit } from '../../../src-main/shared/contract';
import { useActions, useApp } from '../../store/react';
import { BROWSER_PAGE, LABEL_TYPES, type LabelBrowserForm } from '../../store/vca';

export function LabelBrowser() {
  const { t } = useTranslation();
  const browser = useApp((s) => s.vca.browser);
  const actions = useActions();
  const search = (patch: Partial<LabelBrowserForm>) => void actions.vca.search({ ...browser.form, ...patch });
  return (
    <Card size="small" title={t('vca.browser')} style={{ marginTop: 16 }}>
      <Form
        layout="inline"
        initialValues={browser.form}
        onFinish={(v: LabelBrowserForm) => search({ ...v, page: 0 })}
        style={{ marginBottom: 12 }}
      >
        <Form.Item name="text" label={t('vca.browserText')}>
          <Input allowClear style={{ width: 180 }} />
        </Form.Item>
        <Form.Item name="type" label={t('vca.browserType')}>
          <Select
            style={{ width: 140 }}
            options={[
              { value: '', label: t('vca.anyType') },
              ...LABEL_TYPES.map((x) => ({ value: x, label: t(`vca.types.${x}`) })),
            ]}
          />
        </Form.Item>
        <Form.Item name="minConfidence" label={t('vca.browserMin')}>
          <Input style={{ width: 80 }} placeholder="0.8" inputMode="decimal" />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit">
            {t('vca.search')}
          </Button>
        </Form.Item>
      </Form>
      {browser.searched && (
        <Table<VcaLabelHit>
          size="small"
          rowKey={(h) => `${h.jobId}:${h.labelId}`}
          dataSource={browser.hits}
          locale={{ emptyText: t('vca.noHits') }}
          title={() => <Typography.Text>{t('vca.hits', { total: browser.total })}</Typography.Text>}
          pagination={{
            current: browser.form.page + 1,
            pageSize: BROWSER_PAGE,
            total: browser.total,
            hideOnSinglePage: true,
            onChange: (page) => search({ page: page - 1 }),
          }}
          onRow={(hit) => ({ onClick: () => actions.vca.open(hit.jobId), style: { cursor: 'pointer' } })}
          columns={[
            { title: t('vca.labels'), dataIndex: 'attribute' },
            { title: t('vca.browserType'), dataIndex: 'type' },
            { title: t('vca.confidenceTitle'), render: (_, h) => h.confidence.toFixed(2) },
            { title: t('vca.decisionTitle'), render: (_, h) => <Tag>{t(`vca.decision.${h.decision}`)}</Tag> },
            { title: t('vca.source'), dataIndex: 'source' },
          ]}
        />
      )}
    </Card>
  );
}
