/**
 * A failed transfer's reason as its list row shows it. The engine's messages name the file
 * first ("<path> does not exist (moved or deleted?)"); the row already names it, and at 800
 * px a row cut its reason after the path, so a person saw the start of a path, not why.
 * There the path becomes `thisFile` ("This file does not exist…"); the tooltip and the detail
 * keep the whole message. `name` is what the message names the file by: its local path, or
 * for a file dropped in a browser its name as dropped (the service names it so in the message,
 * service/data-dir.ts `namedAsDropped`). A message about another file is left as it is.
 */
export function rowReason(message: string, name: string, thisFile: string): string {
  return name !== '' && message.startsWith(`${name} `) ? `${thisFile}${message.slice(name.length)}` : message;
}
