// Did-you-mean for what people mistype: commands, flags, agent types, runtimes.
import { describe, expect, it } from 'vitest';
import { closestName, didYouMean } from '../../src/lib/closest.js';
import { parseRuntime } from '../../src/agent-ops/select-runtime.js';

describe('did-you-mean', () => {
  it.each<[string, string[], string | undefined]>([
    ['chekout', ['checkout', 'start'], 'checkout'],
    ['genral', ['general', 'reviewer'], 'general'],
    ['Reviewr', ['general', 'reviewer'], 'reviewer'],
    ['rev', ['general', 'reviewer'], 'reviewer'],
    ['planner', ['general', 'reviewer'], undefined],
  ])('%s → %s', (typed, names, want) => {
    expect(closestName(typed, names)).toBe(want);
  });

  it('hints the nearest runtime', () => {
    expect(() => parseRuntime('codx')).toThrow(
      expect.objectContaining({ code: 'E_USAGE', hint: expect.stringMatching(/^did you mean `codex`\? runtimes: /) }),
    );
    expect(didYouMean('zzz', ['claude'])).toBe('');
  });
});
