// config.yaml: every problem reported at once; the design notes' keys mapped or ignored with a
// deprecation warning instead of refused.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { COMMANDS } from '../../src/commands/table/registry.js';
import { parseCommandLine } from '../../src/commands/cli/parse-flags.js';

describe('config.yaml', () => {
  it('reports every problem of the file in one error', () => {
    expect(() =>
      parseConfig(
        'switch:\n  graceSeconds: "soon"\nagents:\n  permisionMode: x\nui:\n  maxFps: -3\n',
        '/h/config.yaml',
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'E_CONFIG',
        message: expect.stringMatching(
          /^\/h\/config\.yaml: 3 problems: switch\.graceSeconds must be .*; unknown key 'agents\.permisionMode' \(did you mean 'agents\.permissionMode'\?\); ui\.maxFps must be /,
        ),
      }),
    );
  });

  it("maps the design notes' keys with a deprecation warning", () => {
    const r = parseConfig(
      'wrapper:\n  claudeBinary: /opt/claude\n  socketDir: /tmp/run\ndb:\n  path: /x.db\n',
      '/h/config.yaml',
    );
    expect(r.config['claude.binary']).toBe('/opt/claude');
    expect(r.fromFile.has('claude.binary')).toBe(true);
    expect(r.warnings).toEqual([
      "/h/config.yaml: 'wrapper.claudeBinary' is deprecated: write 'claude.binary' instead",
      expect.stringMatching(/^\/h\/config\.yaml: 'wrapper\.socketDir' is deprecated and ignored: /),
      expect.stringMatching(/^\/h\/config\.yaml: 'db\.path' is deprecated and ignored: /),
    ]);
    const both = parseConfig('wrapper:\n  claudeBinary: /old\nclaude:\n  binary: /new\n', '/h/config.yaml');
    expect(both.config['claude.binary']).toBe('/new');
    expect(both.warnings).toEqual([
      "/h/config.yaml: 'wrapper.claudeBinary' is ignored: 'claude.binary' is set too; remove 'wrapper.claudeBinary'",
    ]);
  });
});

describe('klaude --continue', () => {
  it('-c and --continue are flags of klaude itself (--resume-last), not refused', () => {
    const root = COMMANDS.find((c) => c.name === '')!;
    expect(parseCommandLine(root, ['-c']).flags).toMatchObject({ continue: true });
    expect(parseCommandLine(root, ['--continue', '--', '--model', 'x'])).toMatchObject({
      flags: { continue: true },
      passthrough: ['--model', 'x'],
    });
  });
});
