import { readFileSync } from 'node:fs';

/** A V8 CPU profile (`--cpu-prof`), as the stall tools read it. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A profile file read, with its nodes by id and each node's parent. */
export function readProfile(file: string): {
  p: Profile;
  byId: Map<number, ProfileNode>;
  parent: Map<number, number>;
} {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  return { p, byId, parent };
}

/** A frame as the tools print it: the function and its file:line under dist/, src-main/ or node_modules/. */
export function frameLabel(n: ProfileNode): string {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(dist|src-main|node_modules)\//, '$1/')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
}
