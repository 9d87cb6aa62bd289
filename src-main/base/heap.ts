import v8 from 'node:v8';

let kept = false;
const keep = (): void => v8.setFlagsFromString('--semi-space-growth-factor=1');

/**
 * Keeps V8's young generation (new space) at its starting size for the rest of this process:
 * `--semi-space-growth-factor=1`, set at run time (the one young-generation flag V8 reads after
 * start; `--max-semi-space-size` is read only at start, which the desktop's main process and an
 * npm-installed command cannot pass). By default V8 doubles the new space while a process
 * allocates steadily, up to 2 × 16 MiB semi-spaces on 64-bit, and a long upload does; it then
 * stays committed. The uploader allocates little per chunk (its chunk bytes live outside the
 * heap, in reused buffers), so the extra scavenges of a small new space cost it nothing
 * measurable (engine/README.md "Memory": RSS and CPU per GiB before and after). Process-wide
 * and idempotent; the UploadEngine sets it when built, so every process that uploads has it.
 *
 * A worker thread coming online puts V8's flags back to their defaults (Node 20: after any
 * `new Worker` is online, the main thread's new space grows to 2 × 16 MiB again; setting the
 * flag once more after its 'online' keeps it). So the flag is set again each time a worker of
 * this thread comes online: the small-file reader, the WAL checkpointer, the loop watch's
 * thread. Workers started by other threads are not seen here: an emulator hosted in a worker
 * thread (not the default, which is a child process) starts its hashing workers itself, and
 * each of those puts the flag back for the whole process.
 */
export function keepYoungGenerationSmall(): void {
  if (kept) return;
  kept = true;
  keep();
}

// Registered when this module loads, so workers started before the engine is built count too.
process.on('worker', (worker) => {
  worker.once('online', () => {
    if (kept) keep();
  });
});
