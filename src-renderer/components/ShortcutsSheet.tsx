/**
 * The `?` sheet: every shortcut of the keymap (components/keymap.ts), grouped by where it
 * works (everywhere, then each screen), in the kit's accessible dialog.
 */
import { Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { SCREENS } from '../store/app';
import { keyLabel, shortcutsOf, type ShortcutScope } from './keymap';
import { isMac } from './useShortcuts';

const SCOPES: ShortcutScope[] = ['global', ...SCREENS];

export function ShortcutsSheet({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const mac = isMac();
  return (
    <Modal
      open={open}
      title={t('shortcuts.title')}
      onCancel={onClose}
      footer={null}
      width={640}
      destroyOnHidden
      className="shortcuts-sheet"
    >
      {SCOPES.map((scope) => {
        const list = shortcutsOf(scope);
        if (list.length === 0) return null;
        const heading = scope === 'global' ? t('shortcuts.global') : t(`app.screens.${scope}`);
        return (
          <section key={scope} aria-label={heading} data-scope={scope}>
            <Typography.Title level={5}>{heading}</Typography.Title>
            <table className="shortcuts">
              <tbody>
                {list.map((s) => (
                  <tr key={s.id}>
                    <th scope="row">
                      <kbd>{keyLabel(s.keys, mac)}</kbd>
                    </th>
                    <td>{t(`shortcuts.${s.description}`)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        );
      })}
    </Modal>
  );
}
