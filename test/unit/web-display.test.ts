// What the web page's rows and headers say about a session, in words people know from the terminal.
import { describe, expect, it } from 'vitest';
import { label, tokens, typeName } from '../../src/web/page/display.js';
import type { WebSession } from '../../src/web/hub.js';

describe('web page display words', () => {
  it('names an interactive session claude, as the dashboard and `klaude sessions` do', () => {
    expect(typeName({ type: 'tui' })).toBe('claude');
    expect(typeName({ type: 'reviewer' })).toBe('reviewer');
    expect(label({ type: 'tui', title: null, prompt: null } as unknown as WebSession)).toBe('claude');
  });

  it('says nothing of tokens before the first, and counts them after', () => {
    expect(tokens({ tokensIn: 0, tokensOut: 0 })).toBe('');
    expect(tokens({ tokensIn: null, tokensOut: null } as never)).toBe('');
    expect(tokens({ tokensIn: 400, tokensOut: 20 })).toBe('420 tok');
    expect(tokens({ tokensIn: 20_000, tokensOut: 600 })).toBe('20.6k tok');
  });
});
