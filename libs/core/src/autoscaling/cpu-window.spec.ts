import { advanceCpuWindow, CpuWindow } from './cpu-window';

describe('advanceCpuWindow', () => {
  const WINDOW = 10_000;

  it('starts with a reading and no sample, then turns the next reading into a fraction of the vcpus', () => {
    const first = advanceCpuWindow(null, { cpuSeconds: 10, at: 1_000 }, 2, WINDOW, 1_000);
    expect(first).toEqual({ last: { cpuSeconds: 10, at: 1_000 }, samples: [] });
    // 1.5 s of CPU over 1 s on 2 vcpus: 0.75.
    const second = advanceCpuWindow(first, { cpuSeconds: 11.5, at: 2_000 }, 2, WINDOW, 2_000);
    expect(second.last).toEqual({ cpuSeconds: 11.5, at: 2_000 });
    expect(second.samples).toEqual([{ at: 2_000, fraction: 0.75 }]);
  });

  it('drops samples that fell out of the window', () => {
    let w: CpuWindow | null = null;
    for (let t = 0; t <= 30_000; t += 5_000) w = advanceCpuWindow(w, { cpuSeconds: t / 2_000, at: t }, 1, WINDOW, t);
    expect(w!.samples.map((s) => s.at)).toEqual([25_000, 30_000]);
    expect(w!.samples.every((s) => Math.abs(s.fraction - 0.5) < 1e-9)).toBe(true);
  });

  it('keeps the last reading and only trims when the member has no reading now', () => {
    const w: CpuWindow = {
      last: { cpuSeconds: 3, at: 5_000 },
      samples: [
        { at: 1_000, fraction: 0.2 },
        { at: 5_000, fraction: 0.4 },
      ],
    };
    expect(advanceCpuWindow(w, undefined, 1, WINDOW, 12_000)).toEqual({ last: w.last, samples: [{ at: 5_000, fraction: 0.4 }] });
  });

  it('takes a counter that went backwards (a restart) as a new start, without a sample', () => {
    const w: CpuWindow = { last: { cpuSeconds: 50, at: 1_000 }, samples: [{ at: 1_000, fraction: 0.9 }] };
    expect(advanceCpuWindow(w, { cpuSeconds: 1, at: 2_000 }, 1, WINDOW, 2_000)).toEqual({ last: { cpuSeconds: 1, at: 2_000 }, samples: [{ at: 1_000, fraction: 0.9 }] });
  });

  it('gives no fraction across a gap longer than the window', () => {
    const w: CpuWindow = { last: { cpuSeconds: 0, at: 0 }, samples: [] };
    expect(advanceCpuWindow(w, { cpuSeconds: 30, at: 60_000 }, 1, WINDOW, 60_000)).toEqual({ last: { cpuSeconds: 30, at: 60_000 }, samples: [] });
  });

  it('ignores a reading no newer than the last (two ticks racing)', () => {
    const w: CpuWindow = { last: { cpuSeconds: 5, at: 2_000 }, samples: [{ at: 2_000, fraction: 0.5 }] };
    expect(advanceCpuWindow(w, { cpuSeconds: 4, at: 1_500 }, 1, WINDOW, 2_000)).toEqual(w);
  });
});
