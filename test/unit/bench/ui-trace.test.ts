import { describe, expect, it } from 'vitest';
import { frameCpu, type TraceEvent } from '../../bench/ui-trace';

const TASK = 'ThreadControllerImpl::RunTask';
const meta = (pid: number, tid: number, name: string): TraceEvent => ({
  name: 'thread_name',
  ph: 'M',
  pid,
  tid,
  ts: 0,
  args: { name },
});
/** A task of the main thread of pid 1: start and wall length in ms, CPU in ms. */
const task = (at: number, wall: number, cpu: number, pid = 1): TraceEvent => ({
  name: TASK,
  ph: 'X',
  pid,
  tid: pid,
  ts: at * 1000,
  dur: wall * 1000,
  tdur: cpu * 1000,
});
const raf = (at: number, pid = 1): TraceEvent => ({
  name: 'FireAnimationFrame',
  ph: 'X',
  pid,
  tid: pid,
  ts: at * 1000,
});

describe('UI bench trace: CPU per frame', () => {
  it("sums the CPU of the main thread's tasks from each rAF task to the next", () => {
    const events = [
      meta(1, 1, 'CrRendererMain'),
      meta(1, 7, 'Compositor'),
      // Frame 1: the rAF task (starts at 0, its callback at 1) and two more tasks.
      task(0, 10, 4),
      raf(1),
      task(12, 5, 3),
      { ...task(13, 1, 9), tid: 7 }, // another thread: not counted
      task(20, 2, 1),
      // Frame 2, late: 50 ms of wall time, 6 ms of CPU.
      task(33, 20, 6),
      raf(34),
      // The last rAF only closes frame 2.
      task(83, 4, 2),
      raf(84),
    ];
    const frames = frameCpu(events);
    expect(frames.cpuMs).toEqual([8, 6]);
    expect(frames.wallMs).toEqual([33, 50]);
    expect(frames.busyFraction).toBeCloseTo(14 / 83);
  });

  it('counts a nested task once and takes the renderer that ran the most frames', () => {
    const events = [
      meta(1, 1, 'CrRendererMain'),
      meta(2, 2, 'CrRendererMain'),
      task(0, 10, 5),
      task(2, 3, 2), // nested in the first: its time is in its parent's already
      raf(1),
      task(16, 2, 1),
      raf(17),
      raf(0, 2),
      raf(16, 2),
      raf(32, 2),
      task(15, 1, 1, 2),
    ];
    expect(frameCpu(events.slice(0, 7)).cpuMs).toEqual([5]);
    expect(frameCpu(events).cpuMs).toEqual([0, 1]);
  });
});
