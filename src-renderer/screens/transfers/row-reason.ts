/**
 * A failed transfer's reason as its list row shows it. The engine's messages name the file
 * first ("<path> does not exist (moved or deleted?)"); the row already names it, and at 800
 * px a row cut its reason after the path, so a person saw the start of a path, not why.
 * There the path becomes `thisFile` ("This file does not exist…"); the tooltip and the detail
 * keep the whole message. A message about another path is left as it is.
 */
export function rowReason(message: string, localPath: string, thisFile: string): string {
  return localPath !== '' && message.startsWith(`${localPath} `)
    ? `${thisFile}${message.slice(localPath.length)}`
    : message;
}
