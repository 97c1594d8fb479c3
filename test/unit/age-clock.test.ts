// When the dashboard's ages change: the next moment a shown label ("59s", "4m", "2h", "3d") reads
// differently, and the clock's one-off wake that waits for it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Clock } from '../../src/feeds/clock.js';
import { msUntilSpanChanges, shortSpan } from '../../src/lib/format.js';
import { nextAgeChange } from '../../src/ui/hooks/use-clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('msUntilSpanChanges', () => {
  it('is the time to the next whole unit of the label shown', () => {
    expect(msUntilSpanChanges(0)).toBe(1000);
    expect(msUntilSpanChanges(12_300)).toBe(700);
    expect(msUntilSpanChanges(59_999)).toBe(1); // 59s → 1m
    expect(msUntilSpanChanges(60_000)).toBe(60_000);
    expect(msUntilSpanChanges(4 * 60_000 + 10_000)).toBe(50_000); // 4m → 5m
    expect(msUntilSpanChanges(3_600_000 + 1000)).toBe(3_599_000); // 1h → 2h
    expect(msUntilSpanChanges(48 * 3_600_000 - 1)).toBe(1); // 47h → 2d
    expect(msUntilSpanChanges(3 * 86_400_000 + 5)).toBe(86_400_000 - 5);
    expect(msUntilSpanChanges(-400)).toBe(1400); // reads 0s until 1 s
  });

  it('never points before the label changes, nor after (checked against shortSpan)', () => {
    for (const ms of [0, 1, 999, 1000, 58_500, 59_000, 119_999, 3_599_999, 7_200_000, 172_799_000, 200_000_000]) {
      const d = msUntilSpanChanges(ms);
      expect(shortSpan(ms + d - 1)).toBe(shortSpan(ms));
      expect(shortSpan(ms + d)).not.toBe(shortSpan(ms));
    }
  });
});

describe('nextAgeChange', () => {
  it('is the soonest change among the ages shown, and null when none is shown', () => {
    const now = 1_000_000_000;
    expect(nextAgeChange(now, [])).toBeNull();
    expect(nextAgeChange(now, [now - 3 * 3_600_000, now - 5 * 60_000 - 20_000])).toBe(40_000);
    expect(nextAgeChange(now, [now - 5 * 60_000, now - 2_500])).toBe(500);
  });
});

describe('Clock.wakeIn', () => {
  it('ticks once when due, can be replaced or cancelled, and leaves no timer', () => {
    vi.useFakeTimers();
    const clock = new Clock();
    const seen: number[] = [];
    clock.subscribe(() => seen.push(clock.getSnapshot()));
    clock.wakeIn(500);
    clock.wakeIn(300); // replaces the first
    vi.advanceTimersByTime(299);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual([1]);
    expect(clock.waking).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(seen).toEqual([1]);
    clock.wakeIn(100);
    clock.wakeIn(null);
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([1]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits out the rest when its timer fires before the due time on the real clock', () => {
    vi.useFakeTimers();
    let real = 0;
    const clock = new Clock(1000, () => real);
    clock.wakeIn(1000);
    real = 990; // the timer fires, but Date.now() is 10 ms short
    vi.advanceTimersByTime(1000);
    expect(clock.ticks).toBe(0);
    expect(clock.waking).toBe(true);
    real = 1000;
    vi.advanceTimersByTime(10);
    expect(clock.ticks).toBe(1);
  });
});
