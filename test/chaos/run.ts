import { parseArgs } from 'node:util';
import { markdown, writeReport } from './report';
import { SECTIONS, runChaos } from './suite';

/**
 * `npm run test:chaos -- [--long] [--seed N] [--only network,fuzz] [--skip disk] [--report DIR] [--keep]`:
 * runs the chaos suite, prints the Markdown report, writes report.json and report.md into
 * DIR when asked, and exits 1 when any claim failed (lost > 0, a secret found, a crash…).
 * A section that cannot run here (or `--skip` names) is reported SKIPPED with its reason;
 * with `CI` set, a skipped section this machine can run fails the run.
 */
const { values } = parseArgs({
  options: {
    long: { type: 'boolean', default: false },
    seed: { type: 'string' },
    only: { type: 'string' },
    skip: { type: 'string' },
    report: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const only = values.only?.split(',').map((s) => s.trim());
const skip = values.skip?.split(',').map((s) => s.trim());
const unknown = [...(only ?? []), ...(skip ?? [])].filter((s) => !(s in SECTIONS));
if (unknown.length) {
  process.stderr.write(`unknown section ${unknown.join(', ')}; sections: ${Object.keys(SECTIONS).join(', ')}\n`);
  process.exit(2);
}
const seed = values.seed === undefined ? 1 : Number(values.seed);
if (!Number.isInteger(seed)) {
  process.stderr.write(`--seed must be an integer\n`);
  process.exit(2);
}
const report = await runChaos({ long: values.long, seed, only, skip, keep: values.keep });
process.stdout.write(markdown(report));
if (values.report) await writeReport(report, values.report);
process.exit(report.ok ? 0 : 1);
