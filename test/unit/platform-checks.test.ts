// The doctor's socket-peer check, on this machine and where the peer cannot be asked (no ss):
// the line must say that answers from a terminal are refused there, and how to answer instead.
import { describe, expect, it } from 'vitest';
import { checkSocketPeers } from '../../src/doctor/platform-checks.js';

describe('doctor: socket peers', () => {
  it('passes where ss names this process as the peer', async () => {
    const r = await checkSocketPeers();
    expect(r.level).toBe('ok');
  });

  it('warns, naming the refusal and the way out, where the peer cannot be asked', async () => {
    const r = await checkSocketPeers({ procRoot: '/proc', ss: '/nonexistent/ss' });
    expect(r.level).toBe('warn');
    expect(r.detail).toContain('cannot be asked here (no ss or /proc)');
    expect(r.detail).toContain('so it is refused');
    expect(r.fix).toContain('klaude ui');
  });
});
