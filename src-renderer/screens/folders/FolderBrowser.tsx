/**
 * The folder browser of a door without a system dialog (the app in a browser): the folder the
 * door listed, its sub-folders to open, "Up", and "Choose this folder". Each folder opened is
 * asked of the door again (`app.chooseFolder` with its path), which lists the user's home and below.
 */
import { FileOutlined, FolderOutlined } from '@ant-design/icons';
import { Button, List, Modal, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatCount } from '../../format/format';
import { useActions, useApp } from '../../store/react';

export function FolderBrowser() {
  const { t, i18n } = useTranslation();
  const browser = useApp((s) => s.folders.browser);
  const actions = useActions();
  const listing = browser?.listing ?? null;
  const folders = listing?.entries.filter((e) => e.kind === 'folder') ?? [];
  const files = listing?.entries.filter((e) => e.kind === 'file') ?? [];
  return (
    <Modal
      open={browser !== null}
      title={t('folders.browser.title')}
      okText={t('folders.browser.choose')}
      cancelText={t('app.cancel')}
      onOk={actions.folders.chooseBrowsed}
      onCancel={actions.folders.closeBrowser}
      okButtonProps={{ disabled: !listing || browser?.loading }}
      width={640}
      destroyOnHidden
    >
      {listing && (
        <Space orientation="vertical" style={{ width: '100%' }}>
          <Space wrap>
            <Button
              disabled={listing.parent === null || browser?.loading}
              onClick={() => listing.parent && void actions.folders.browseTo(listing.parent)}
            >
              {t('folders.browser.up')}
            </Button>
            <Typography.Text code data-testid="browser-path">
              {listing.path}
            </Typography.Text>
          </Space>
          <List
            size="small"
            bordered
            loading={browser?.loading}
            className="folder-browser-list"
            locale={{ emptyText: t('folders.browser.noFolders') }}
            dataSource={folders}
            renderItem={(entry) => (
              <List.Item>
                <Button
                  type="link"
                  icon={<FolderOutlined />}
                  onClick={() => void actions.folders.browseTo(entry.path)}
                  aria-label={t('folders.browser.open', { name: entry.name })}
                >
                  {entry.name}
                </Button>
              </List.Item>
            )}
          />
          {files.length > 0 && (
            <Typography.Text type="secondary">
              <FileOutlined />{' '}
              {t('folders.browser.files', { count: files.length, n: formatCount(files.length, i18n.language) })}
            </Typography.Text>
          )}
        </Space>
      )}
    </Modal>
  );
}
