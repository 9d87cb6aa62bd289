/** A form per Fmgr operation: pick the operation, fill its fields, checked before submit. */
import { Button, Card, Checkbox, Form, Input, Select, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FMGR_OPS, type FmgrOpName } from '../../../src-main/shared/fmgr-ops';
import { useActions } from '../../store/react';
import { OP_FIELDS, buildOp, type FieldName, type OpErrors, type OpValues } from './ops';

export function OpForm() {
  const { t } = useTranslation();
  const actions = useActions();
  const [op, setOp] = useState<FmgrOpName>('copy');
  const [force, setForce] = useState(false);
  const [form] = Form.useForm<OpValues>();
  const submit = async (values: OpValues) => {
    const built = buildOp(op, values);
    if (!built.ok) {
      form.setFields(
        (Object.entries(built.errors) as Array<[FieldName, NonNullable<OpErrors[FieldName]>]>).map(([name, why]) => ({
          name,
          errors: [
            typeof why === 'object'
              ? why.rule // the contract's words for a broken rule (the door would answer the same)
              : why === 'required'
                ? t('tasks.required', { field: t(`tasks.fields.${name}`) })
                : t(why === 'url' ? 'tasks.mustBeUrl' : 'tasks.mustBePositive'),
          ],
        })),
      );
      return;
    }
    if (await actions.tasks.submit({ ops: [built.op], force })) form.resetFields();
  };
  return (
    // The page's width, its fields side by side (.op-fields): at a fixed width beside the
    // "Track" card it left an empty strip below that card and beside itself.
    <Card
      size="small"
      title={t('tasks.newTask')}
      extra={
        <Select
          aria-label={t('tasks.op')}
          value={op}
          onChange={(v) => {
            setOp(v);
            form.resetFields();
          }}
          options={FMGR_OPS.map((o) => ({ value: o, label: t(`tasks.ops.${o}`) }))}
          className="op-select"
        />
      }
    >
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} key={op}>
        <div className="op-fields">
          {OP_FIELDS[op].map((spec) =>
            spec.kind === 'flag' ? (
              <Form.Item key={spec.name} name={spec.name} valuePropName="checked" className="op-flag">
                <Checkbox>{t(`tasks.fields.${spec.name}`)}</Checkbox>
              </Form.Item>
            ) : (
              <Form.Item
                key={spec.name}
                name={spec.name}
                label={t(`tasks.fields.${spec.name}`)}
                required={spec.required}
                className={spec.kind === 'lines' ? 'op-field-wide' : undefined}
              >
                {spec.kind === 'lines' ? <Input.TextArea rows={3} spellCheck={false} /> : <Input spellCheck={false} />}
              </Form.Item>
            ),
          )}
        </div>
        <Space wrap size="middle">
          <Checkbox checked={force} onChange={(e) => setForce(e.target.checked)}>
            {t('tasks.fields.force')}
          </Checkbox>
          <Button type="primary" htmlType="submit">
            {t('tasks.submit')}
          </Button>
        </Space>
      </Form>
    </Card>
  );
}
