/**
 * Why a dialog's own action was refused, said in the dialog: the dialog stays open with what
 * the person typed, and a toast would stand under its mask (components/layers.ts). The title
 * names the action ("Could not add the files"), the text says why in words, and where another
 * screen can fix it (an account to set up: Settings) a button opens that screen.
 */
import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import type { UiError } from '../bridge/bridge';
import type { Screen } from '../store/app';
import { errorText, errorTitle, fixScreen } from './errors';

export function DialogError(props: {
  error: UiError | null | undefined;
  /** The verb that failed, for the title (notices.actions.<context>). */
  context: string;
  /** Opens the screen that can fix it (closing the dialog); none when the dialog is on that screen. */
  onOpen?: (screen: Screen) => void;
  /** The test id of the alert (default dialog-error). */
  testId?: string;
}) {
  const { t } = useTranslation();
  const { error, onOpen } = props;
  if (!error) return null;
  const screen = fixScreen(error);
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      data-testid={props.testId ?? 'dialog-error'}
      style={{ marginBottom: 12 }}
      title={errorTitle(t, props.context)}
      description={errorText(t, error)}
      action={
        screen && onOpen ? (
          <Button size="small" onClick={() => onOpen(screen)}>
            {t('app.openScreen', { screen: t(`app.screens.${screen}`) })}
          </Button>
        ) : undefined
      }
    />
  );
}
