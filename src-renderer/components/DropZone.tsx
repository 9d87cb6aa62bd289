/**
 * Files and folders dropped anywhere on the window. The overlay shows only while a drag
 * carrying files is over the window; enter/leave are counted (children fire their own pairs)
 * and a drop or a drag ending outside resets the count, so the overlay cannot stick.
 */
import { InboxOutlined } from '@ant-design/icons';
import { Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { StagedFile } from '../bridge/bridge';
import { useActions } from '../store/react';

/** Every file under the dropped entries, with its path relative to the drop ("photos/2024/a.jpg"). */
async function collect(entries: FileSystemEntry[]): Promise<StagedFile[]> {
  const out: StagedFile[] = [];
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ file, relPath: prefix + entry.name });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      // readEntries answers in chunks until an empty one.
      for (;;) {
        const chunk = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
        if (chunk.length === 0) break;
        for (const child of chunk) await walk(child, `${prefix}${entry.name}/`);
      }
    }
  };
  for (const entry of entries) await walk(entry, '');
  return out;
}

const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');

export function DropZone() {
  const { t } = useTranslation();
  const actions = useActions();
  const [over, setOver] = useState(false);

  useEffect(() => {
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth++;
      setOver(true);
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const overFn = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const drop = (e: DragEvent) => {
      depth = 0;
      setOver(false);
      if (!hasFiles(e)) return;
      e.preventDefault();
      const files = Array.from(e.dataTransfer?.files ?? []);
      // Entries must be taken while the drop event runs; they are read later only if needed.
      const items = Array.from(e.dataTransfer?.items ?? []);
      const entries = items
        .map((item) => item.webkitGetAsEntry?.())
        .filter((entry): entry is FileSystemEntry => !!entry);
      // One folder dropped: the dialog offers to watch it as well as to upload it once.
      const only = entries.length === 1 && files.length === 1 ? entries[0] : undefined;
      const folder = only?.isDirectory ? { name: only.name, file: files[0] } : null;
      if (files.length > 0) {
        actions.app.go('transfers');
        const flat = () => files.map((file) => ({ file, relPath: file.name }));
        // Folders are walked through their entries; where entries cannot be read, the files as dropped.
        void actions.transfers.dropFiles(
          files,
          () =>
            collect(entries).then(
              (found) => (found.length > 0 ? found : flat()),
              () => flat(),
            ),
          folder,
        );
      }
    };
    const reset = () => {
      depth = 0;
      setOver(false);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', overFn);
    window.addEventListener('drop', drop);
    window.addEventListener('dragend', reset);
    window.addEventListener('blur', reset);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', overFn);
      window.removeEventListener('drop', drop);
      window.removeEventListener('dragend', reset);
      window.removeEventListener('blur', reset);
    };
  }, [actions]);

  if (!over) return null;
  return (
    <div className="drop-overlay" data-testid="drop-overlay" aria-hidden="true">
      <div className="drop-overlay-box">
        <InboxOutlined style={{ fontSize: 48 }} />
        <Typography.Title level={3}>{t('transfers.drop')}</Typography.Title>
      </div>
    </div>
  );
}
