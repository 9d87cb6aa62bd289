/**
 * V8 flags of a process that runs the emulator (the app's embedded child; the bench starts its
 * emulator the same way). `--initial-old-space-size=64`: V8 counts the buffers allocated
 * since its last full collection (each 64 KiB socket read of an upload is one, freed only by
 * a collection) against the old generation's limit, which on the emulator's small heap
 * (about 9 MiB live) is computed at about 20 MiB; so an upload started a full mark-compact
 * every 15–20 MiB received, about 50–80 a GiB, each marking on four threads. With a 64 MiB
 * floor under the limit the young collections free those buffers first and a 1 GiB upload
 * runs no full collection at all, with the same peak RSS (the CPU it saves: the emulator
 * README, "Full collections"). V8 reads it only when a heap is made, so it cannot be set
 * from JavaScript for the running process: `blocklift emulator` run by hand takes it on
 * node's command line, and a worker-thread host (not the default) does without.
 */
export const EMULATOR_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=64'];
