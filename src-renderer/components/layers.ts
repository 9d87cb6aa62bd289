/**
 * Where toasts stand and what they may cover. At the window's bottom right, as a desktop
 * app's do: at the top they hid the top bar (the connection tag, "Access refused" included,
 * and the shortcuts button) and the header, close button and tabs of an open detail panel,
 * which at 800 px spans the window. In depth, between the two kinds of overlay: above a side
 * panel (a drawer, whose controls are at its top, clear of the toasts), below a dialog (a
 * modal is where the person is working, and at 800x600 a tall one scrolls its buttons down to
 * the window's bottom edge, where the toasts are). The kit puts drawers and modals at 1000
 * (the popups inside them higher), its dropdowns at 1050 and toasts at 2050; these tokens
 * put drawers at 900 and toasts at 950. So a dialog's own refusal is said in the dialog
 * (components/DialogError.tsx), not in a toast its mask would dim. Checked in
 * test/e2e/layout-800-serve.test.ts.
 */
export const NOTIFICATION = { placement: 'bottomRight' } as const;

/** Component tokens of the layers, for both themes. */
export const LAYER_TOKENS = {
  Drawer: { zIndexPopup: 900 },
  Notification: { zIndexPopup: 950 },
};
